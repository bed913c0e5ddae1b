// Merchant profiles from MERCHANTS_FILE (shape: ../shared/guide/architecture.md, run contract).
import { readFileSync } from 'node:fs';
import { Type, type Static, type TLiteral } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ConfigError } from './config.js';
import { decimalMillionths } from './domain/merchant-rules.js';
import { GATEWAY_CODES, MERCHANT_RISK_DECISIONS } from './domain/order/triggers.js';

const Repository = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 16, pattern: '^[\\x21-\\x7e]+$' }),
  tokenGeneration: Type.Union([Type.Literal('RANDOM'), Type.Literal('PRESERVE_6_4'), Type.Literal('MERCHANT_SUPPLIED')]),
  tokenManagement: Type.Union([Type.Literal('UNIQUE_TOKEN'), Type.Literal('UNIQUE_CARD'), Type.Literal('UNIQUE_ACCOUNT_IDENTIFIER')]),
  schemeTokenization: Type.Boolean({ default: false }),
  schemeTokenProvisioningMode: Type.Union(
    [Type.Literal('ASYNCHRONOUS'), Type.Literal('ATTEMPT_SYNCHRONOUS'), Type.Literal('SYNCHRONOUS')],
    { default: 'ASYNCHRONOUS' },
  ),
  /** Card numbers in token responses: 6.4 (default) or the stricter 0.4 (last 4 digits only). */
  cardNumberMasking: Type.Optional(Type.Union([Type.Literal('6.4'), Type.Literal('0.4')])),
});

const literals = <T extends readonly string[]>(values: T) =>
  Type.Union(values.map((v) => Type.Literal(v)) as Array<TLiteral<T[number]>>);
const Decimal = Type.String({ pattern: '^[0-9]{1,13}(\\.[0-9]{1,6})?$' });

/** A merchant's own outcome rule (docs/triggers.md, "Merchant rules"): the first that matches answers. */
const Rule = Type.Object({
  match: Type.Optional(Type.Object({
    amount: Type.Optional(Type.Union([Decimal, Type.Object({ min: Type.Optional(Decimal), max: Type.Optional(Decimal) }, { additionalProperties: false })])),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$' })),
    card: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
  }, { additionalProperties: false })),
  answer: Type.Object({
    gatewayCode: Type.Optional(literals(GATEWAY_CODES)),
    latencyMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
    fault: Type.Optional(literals(['SERVER_BUSY', 'SERVER_FAILED'] as const)),
    risk: Type.Optional(literals(MERCHANT_RISK_DECISIONS)),
  }, { additionalProperties: false, minProperties: 1 }),
}, { additionalProperties: false });

/**
 * Webhook notifications (docs/notifications.md): where the gateway tells the merchant of each
 * transaction created or changed. Only URLs named here are ever called: `url`, and the URLs under
 * an `allowedUrls` prefix that a request names in order.notificationUrl (the order API).
 */
const Notifications = Type.Object({
  /** The merchant's notification URL (http or https). Without it, only orders naming an allowed order.notificationUrl are notified. */
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
  /** Sent in X-Notification-Secret with every notification: 32 to 256 printable ASCII characters. */
  secret: Type.String({ minLength: 32, maxLength: 256, pattern: '^[\\x21-\\x7e]+$' }),
  /** URL prefixes (each an http(s) URL whose path ends with '/') that order.notificationUrl may start with. */
  allowedUrls: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2048 }))),
  /** Host names of these URLs on the gateway's private network (a docker-compose service): they may resolve to loopback or private addresses. */
  privateHosts: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }))),
}, { additionalProperties: false });

const Merchant = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 40, pattern: '^[0-9A-Za-z_-]+$' }),
  apiPassword: Type.String({ minLength: 32 }),
  repository: Repository,
  rules: Type.Optional(Type.Array(Rule)),
  /** SHA-256 fingerprints of the merchant's client certificates (certificate authentication). */
  certificateFingerprints: Type.Optional(Type.Array(Type.String({ pattern: '^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$' }))),
  notifications: Type.Optional(Notifications),
  /** Hosted Checkout's payment page (docs/operations.md, "Hosted Checkout"): whether it runs 3-D Secure before paying. */
  checkout: Type.Optional(Type.Object({ threeDSecure: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
});

const MerchantsFile = Type.Object({ merchants: Type.Array(Merchant, { minItems: 1 }) });

export type MerchantProfile = Static<typeof Merchant>;
export type RepositorySettings = Static<typeof Repository>;
export type NotificationSettings = Static<typeof Notifications>;

/**
 * A path segment a server may read as another path: an encoded '/', '\\', '.' or '%' (`..%2f`,
 * `%2e%2e`, `%252f` decoded twice), or a dot segment behind a ';' parameter (`..;`, which some
 * servers take for `..`). Under an allowed prefix it could lead out of it.
 */
const ESCAPING_SEGMENT = /%(2f|5c|2e|25)|^\.{1,2}(;|$)/i;

/** A notification URL as the gateway calls it: http(s), no user name or password, no fragment, a plain path; else why not. */
export function notificationUrlOf(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'not an http or https URL';
  if (url.username !== '' || url.password !== '') return 'a URL with a user name or password';
  if (url.hash !== '') return 'a URL with a fragment';
  if (url.pathname.split('/').some((segment) => ESCAPING_SEGMENT.test(segment))) return "a URL whose path has an encoded '/', '\\', '.' or '%', or a '..;' segment";
  return url;
}

/**
 * Whether the merchants file allows calling `text` for this merchant: it is the merchant's
 * notifications.url, or it starts with one of its allowedUrls (same scheme, host and port, and a
 * path under the prefix's). Compared as parsed URLs, so `https://shop.example.evil/` never passes
 * for `https://shop.example/`.
 */
export function notificationUrlAllowed(merchant: MerchantProfile, text: string): boolean {
  const settings = merchant.notifications;
  const url = notificationUrlOf(text);
  if (!settings || typeof url === 'string') return false;
  const own = settings.url === undefined ? undefined : notificationUrlOf(settings.url);
  if (own instanceof URL && own.href === url.href) return true;
  return (settings.allowedUrls ?? []).some((prefix) => {
    const allowed = notificationUrlOf(prefix);
    return allowed instanceof URL && allowed.origin === url.origin && url.pathname.startsWith(allowed.pathname) && allowed.search === '';
  });
}

export class Merchants {
  private readonly byId: Map<string, MerchantProfile>;
  private readonly byCertificate: Map<string, MerchantProfile>;
  constructor(readonly list: readonly MerchantProfile[]) {
    this.byId = new Map(list.map((m) => [m.id, m]));
    this.byCertificate = new Map(list.flatMap((m) => (m.certificateFingerprints ?? []).map((f) => [normalizeFingerprint(f), m] as const)));
  }
  get(id: string): MerchantProfile | undefined {
    return this.byId.get(id);
  }
  /** The merchant a client certificate belongs to, by its SHA-256 fingerprint. */
  ofCertificate(fingerprint256: string): MerchantProfile | undefined {
    return this.byCertificate.get(normalizeFingerprint(fingerprint256));
  }
}

export const normalizeFingerprint = (fingerprint: string) => fingerprint.replace(/:/g, '').toUpperCase();

/** Parse and check a merchants document; throws ConfigError naming the first problem. */
export function parseMerchants(json: unknown, source: string): Merchants {
  const withDefaults = Value.Default(MerchantsFile, Value.Clone(json));
  const firstError = Value.Errors(MerchantsFile, withDefaults).First();
  if (firstError) {
    throw new ConfigError(`${source}: ${firstError.path || '/'}: ${firstError.message}`);
  }
  const file = withDefaults as Static<typeof MerchantsFile>;
  const seen = new Set<string>();
  for (const m of file.merchants) {
    if (seen.has(m.id)) throw new ConfigError(`${source}: merchant '${m.id}' is listed twice`);
    seen.add(m.id);
    // Spec: "a repository id starting with 'Test' supplied by the caller is rejected".
    if (m.repository.id.startsWith('Test')) {
      throw new ConfigError(`${source}: merchant '${m.id}': repository id must not start with 'Test' (reserved for test twins)`);
    }
    const notifications = m.notifications;
    if (notifications) {
      const urls = [...(notifications.url !== undefined ? [['url', notifications.url] as const] : []), ...(notifications.allowedUrls ?? []).map((u, i) => [`allowedUrls[${i}]`, u] as const)];
      for (const [where, text] of urls) {
        const url = notificationUrlOf(text);
        if (typeof url === 'string') throw new ConfigError(`${source}: merchant '${m.id}': notifications.${where}: ${url}`);
        // A prefix ending with '/' bounds the paths it allows (https://shop.example/hooks allowed /hooksevil).
        if (where !== 'url' && (!url.pathname.endsWith('/') || url.search !== '')) {
          throw new ConfigError(`${source}: merchant '${m.id}': notifications.${where}: a prefix's path must end with '/' and have no query`);
        }
      }
    }
    for (const [i, rule] of (m.rules ?? []).entries()) {
      const amount = rule.match?.amount;
      if (typeof amount === 'object' && amount.min !== undefined && amount.max !== undefined &&
        decimalMillionths(amount.min) > decimalMillionths(amount.max)) {
        throw new ConfigError(`${source}: merchant '${m.id}': rules[${i}].match.amount: min is above max`);
      }
    }
  }
  return new Merchants(file.merchants);
}

export function loadMerchants(path: string): Merchants {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`MERCHANTS_FILE '${path}' cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`MERCHANTS_FILE '${path}' is not valid JSON: ${(error as Error).message}`);
  }
  return parseMerchants(json, path);
}
