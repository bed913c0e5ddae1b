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

const Merchant = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 40, pattern: '^[0-9A-Za-z_-]+$' }),
  apiPassword: Type.String({ minLength: 32 }),
  repository: Repository,
  rules: Type.Optional(Type.Array(Rule)),
  /** SHA-256 fingerprints of the merchant's client certificates (certificate authentication). */
  certificateFingerprints: Type.Optional(Type.Array(Type.String({ pattern: '^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$' }))),
});

const MerchantsFile = Type.Object({ merchants: Type.Array(Merchant, { minItems: 1 }) });

export type MerchantProfile = Static<typeof Merchant>;
export type RepositorySettings = Static<typeof Repository>;

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
