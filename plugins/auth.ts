// Authentication of the spec ("Authentication"), both methods:
// 1. Certificate authentication: on an HTTPS connection whose client certificate is signed by
//    TLS_CLIENT_CA_FILE and listed (SHA-256 fingerprint) for a merchant in MERCHANTS_FILE.
// 2. HTTP Basic authentication, with @fastify/basic-auth:
//    - Pay with token: the user id is blank (`merchant.<merchantId>` is accepted too); the
//      password is the API password of the merchant in the path.
//    - Create token: the user id is `merchant.<merchantId>`; the password is its API password.
// Passwords are compared as SHA-256 digests with crypto.timingSafeEqual, also for unknown
// merchants, so a wrong guess takes the same time whoever it names. No WWW-Authenticate header
// is sent (the real gateway sends none). A client that keeps failing is refused for a while.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import basicAuth from '@fastify/basic-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { InvalidRequest } from '../domain/errors.js';
import type { MerchantProfile, Merchants } from '../merchants.js';
import { AuthenticationFailed, RequestRejected } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated merchant (set by plugins/auth.ts). */
    merchant: MerchantProfile | null;
    /** How the merchant authenticated: UNMASK of card numbers needs 'certificate'. */
    authMethod: 'certificate' | 'basic' | null;
  }
  interface FastifyInstance {
    authFailures: AuthFailures;
  }
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const UNKNOWN_MERCHANT_DIGEST = digest('no merchant has this password: it is never compared true');
const MERCHANT_ID = /^[0-9A-Za-z_-]{1,40}$/;
const NOT_AUTHORISED = 'Authenticated entity not authorised to perform operation for target entity';

export type UserIdRule = 'pay' | 'token';

/** Digests of the merchants' stored passwords, each computed once (a merchant profile is loaded once). */
const storedDigests = new WeakMap<MerchantProfile, Buffer>();

function storedDigest(merchant: MerchantProfile): Buffer {
  let stored = storedDigests.get(merchant);
  if (stored === undefined) {
    stored = digest(merchant.apiPassword);
    storedDigests.set(merchant, stored);
  }
  return stored;
}

export function passwordMatches(merchant: MerchantProfile | undefined, password: string): boolean {
  const expected = merchant ? storedDigest(merchant) : UNKNOWN_MERCHANT_DIGEST;
  return timingSafeEqual(digest(password), expected) && merchant !== undefined;
}

/**
 * Failed authentications per client address: beyond `limit` within `windowMs`, the client is
 * refused (429 REQUEST_REJECTED) until the window has passed, whatever it sends.
 */
export class AuthFailures {
  private readonly failures = new Map<string, number[]>();
  constructor(readonly limit: number, readonly windowMs: number) {}
  private recent(client: string, now: number): number[] {
    const kept = (this.failures.get(client) ?? []).filter((t) => now - t < this.windowMs);
    if (kept.length === 0) this.failures.delete(client);
    else this.failures.set(client, kept);
    return kept;
  }
  blocked(client: string, now = Date.now()): boolean {
    return this.recent(client, now).length >= this.limit;
  }
  record(client: string, now = Date.now()): void {
    this.failures.set(client, [...this.recent(client, now), now]);
  }
}

/** One failure registry for the whole app (pay, token and retrieval routes alike). */
export const authGuard = fp(async (app: FastifyInstance, options: { limit: number; windowMs: number }) => {
  app.decorate('authFailures', new AuthFailures(options.limit, options.windowMs));
  app.decorateRequest('merchant', null);
  app.decorateRequest('authMethod', null);
}, { name: 'auth-guard', fastify: '5.x' });

/** The merchant a route's request authenticated as (the hook of requireMerchant ran first). */
export function merchantOf(request: FastifyRequest): MerchantProfile {
  if (!request.merchant) throw new Error('authenticated route without a merchant');
  return request.merchant;
}

/** The merchant whose listed client certificate this TLS connection presented, if any. */
function certificateMerchant(request: FastifyRequest, merchants: Merchants): MerchantProfile | undefined {
  const socket = request.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return undefined;
  const certificate = socket.getPeerCertificate();
  return certificate?.fingerprint256 ? merchants.ofCertificate(certificate.fingerprint256) : undefined;
}

/**
 * Authenticate the routes of the calling (encapsulated) plugin. `param` names the URL parameter
 * that holds the merchant id.
 */
export async function requireMerchant(app: FastifyInstance, merchants: Merchants, rule: UserIdRule, param: string) {
  await app.register(basicAuth, {
    authenticate: false,
    async validate(username: string, password: string, request: FastifyRequest) {
      const merchantId = (request.params as Record<string, string | undefined>)[param] ?? '';
      const target = merchants.get(merchantId);
      const named = username.startsWith('merchant.') ? username.slice('merchant.'.length) : undefined;
      if (rule === 'pay' && username === '') {
        if (passwordMatches(target, password)) { request.merchant = target ?? null; return; }
        throw new AuthenticationFailed();
      }
      if (named === undefined) throw new AuthenticationFailed();
      const caller = merchants.get(named);
      if (!passwordMatches(caller, password)) throw new AuthenticationFailed();
      if (named !== merchantId) throw new AuthenticationFailed(NOT_AUTHORISED);
      request.merchant = caller ?? null;
    },
  });
  const basic = (request: FastifyRequest, reply: FastifyReply) =>
    new Promise<void>((resolve, reject) => app.basicAuth(request, reply, (error?: Error) => (error ? reject(error) : resolve())));

  app.addHook('onRequest', async (request, reply) => {
    const merchantId = (request.params as Record<string, string | undefined>)[param] ?? '';
    if (!MERCHANT_ID.test(merchantId)) {
      throw new InvalidRequest(`Value '${merchantId.slice(0, 100)}' is invalid. Expected characters 0-9 a-z A-Z '-' '_', 1 to 40 of them`, param);
    }
    if (app.authFailures.blocked(request.ip)) throw new RequestRejected();
    try {
      const certified = certificateMerchant(request, merchants);
      if (certified) {
        if (certified.id !== merchantId) throw new AuthenticationFailed(NOT_AUTHORISED);
        request.merchant = certified;
        request.authMethod = 'certificate';
        return;
      }
      await basic(request, reply);
      request.authMethod = 'basic';
    } catch (error) {
      if (!(error instanceof InvalidRequest)) app.authFailures.record(request.ip);
      throw error;
    }
  });
}
