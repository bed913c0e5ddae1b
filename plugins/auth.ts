// HTTP Basic authentication of the spec ("Authentication"), with @fastify/basic-auth:
// - Pay with token: the user id is blank (`merchant.<merchantId>` is accepted too); the password
//   is the API password of the merchant in the path.
// - Create token: the user id is `merchant.<merchantId>`; the password is its API password.
// Passwords are compared as SHA-256 digests with crypto.timingSafeEqual, also for unknown
// merchants, so a wrong guess takes the same time whoever it names. No WWW-Authenticate header
// is sent (the real gateway sends none).
import { createHash, timingSafeEqual } from 'node:crypto';
import basicAuth from '@fastify/basic-auth';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { InvalidRequest } from '../domain/errors.js';
import type { MerchantProfile, Merchants } from '../merchants.js';
import { AuthenticationFailed } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated merchant (set by plugins/auth.ts). */
    merchant: MerchantProfile | null;
  }
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
const UNKNOWN_MERCHANT_DIGEST = digest('no merchant has this password: it is never compared true');
const MERCHANT_ID = /^[0-9A-Za-z_-]{1,40}$/;

export type UserIdRule = 'pay' | 'token';

export function passwordMatches(merchant: MerchantProfile | undefined, password: string): boolean {
  const expected = merchant ? digest(merchant.apiPassword) : UNKNOWN_MERCHANT_DIGEST;
  return timingSafeEqual(digest(password), expected) && merchant !== undefined;
}

/**
 * Register Basic authentication for the routes of the calling (encapsulated) plugin.
 * `param` names the URL parameter that holds the merchant id.
 */
export async function requireMerchant(app: FastifyInstance, merchants: Merchants, rule: UserIdRule, param: string) {
  if (!app.hasRequestDecorator('merchant')) app.decorateRequest('merchant', null);
  await app.register(basicAuth, {
    authenticate: false,
    async validate(username: string, password: string, request: FastifyRequest) {
      const merchantId = (request.params as Record<string, string | undefined>)[param] ?? '';
      if (!MERCHANT_ID.test(merchantId)) {
        throw new InvalidRequest(`Value '${merchantId.slice(0, 100)}' is invalid. Expected characters 0-9 a-z A-Z '-' '_', 1 to 40 of them`, param);
      }
      const target = merchants.get(merchantId);
      const named = username.startsWith('merchant.') ? username.slice('merchant.'.length) : undefined;
      if (rule === 'pay' && username === '') {
        if (passwordMatches(target, password)) { request.merchant = target ?? null; return; }
        throw new AuthenticationFailed();
      }
      if (named === undefined) throw new AuthenticationFailed();
      const caller = merchants.get(named);
      if (!passwordMatches(caller, password)) throw new AuthenticationFailed();
      if (named !== merchantId) {
        throw new AuthenticationFailed('Authenticated entity not authorised to perform operation for target entity');
      }
      request.merchant = caller ?? null;
    },
  });
  app.addHook('onRequest', app.basicAuth);
}
