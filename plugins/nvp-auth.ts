// Authentication of the NVP protocol (routes/nvp.ts), by the reference's rule for it: "two
// additional NVP parameters", `apiUsername` (`merchant.<your gateway merchant ID>`) and
// `apiPassword`, or a client certificate; the field `merchant` names the merchant the request is
// for, as the path does in the REST API. Basic authentication (the same user id and password in
// the Authorization header) is taken too. The same checks and the same per-credential failure
// counts and locks as every other operation (plugins/auth-credentials.ts: checkPassword): a guess through NVP
// counts toward the lock of `merchant.<id>` as one through REST does.
import type { FastifyRequest } from 'fastify';
import { AuthenticationFailed, InvalidRequest } from '../domain/errors.js';
import type { MerchantProfile, Merchants } from '../merchants.js';
import { basicCredentials, certificateMerchant, checkPassword, MERCHANT_ID, NOT_AUTHORISED } from './auth-credentials.js';
import type { AuthFailures } from './auth-failures.js';

export interface NvpCredentials { merchant?: string | undefined; apiUsername?: string | undefined; apiPassword?: string | undefined }

/**
 * The merchant the NVP request authenticates as, set on the request (merchant, authMethod); a
 * `merchant` field that is missing or malformed is a 400 on it, wrong or missing credentials a 401,
 * a locked credential a 429, credentials of another merchant than `merchant` a 401 (not authorised).
 */
export function authenticateNvp(request: FastifyRequest, merchants: Merchants, failures: AuthFailures, fields: NvpCredentials): MerchantProfile {
  const target = fields.merchant;
  if (target === undefined) throw new InvalidRequest('Missing parameter', 'merchant', 'MISSING');
  if (!MERCHANT_ID.test(target)) {
    throw new InvalidRequest(`Value '${target.slice(0, 100)}' is invalid. Expected characters 0-9 a-z A-Z '-' '_', 1 to 40 of them`, 'merchant');
  }
  const certified = certificateMerchant(request, merchants);
  let caller: MerchantProfile;
  if (certified) {
    caller = certified;
    request.authMethod = 'certificate';
  } else {
    // The body's fields when it sends either, else the Authorization header.
    const inBody = fields.apiUsername !== undefined || fields.apiPassword !== undefined;
    const credentials = inBody ? { username: fields.apiUsername ?? '', password: fields.apiPassword ?? '' } : basicCredentials(request.headers.authorization);
    const named = credentials?.username.startsWith('merchant.') ? credentials.username.slice('merchant.'.length) : '';
    if (!credentials || !MERCHANT_ID.test(named)) throw new AuthenticationFailed();
    caller = checkPassword(failures, merchants, named, credentials.password);
    request.authMethod = 'basic';
  }
  if (caller.id !== target) throw new AuthenticationFailed(NOT_AUTHORISED);
  request.merchant = caller;
  return caller;
}
