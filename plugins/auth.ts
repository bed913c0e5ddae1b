// Authentication of the spec ("Authentication"), both methods:
// 1. Certificate authentication: on an HTTPS connection whose client certificate is signed by
//    TLS_CLIENT_CA_FILE and listed (SHA-256 fingerprint) for a merchant in MERCHANTS_FILE.
// 2. HTTP Basic authentication, with @fastify/basic-auth:
//    - Pay with token: the user id is blank (`merchant.<merchantId>` is accepted too); the
//      password is the API password of the merchant in the path.
//    - Create token: the user id is `merchant.<merchantId>`; the password is its API password.
// How a password is checked: plugins/auth-credentials.ts. A credential that keeps failing is
// refused for a while (plugins/auth-failures.ts: per merchant id, not per client address).
// Credentials are checked before the path is matched: a path under /api/rest/ that names no
// operation is a 401 with missing or wrong credentials, and a 404 only with valid ones
// (authenticateUnmatched below; Check Gateway's path needs none). Every 401 carries
// `WWW-Authenticate: Basic realm="tokengate"` (plugins/errors.ts), for clients that send
// credentials only after a challenge, although the real gateway sends none
// (../shared/guide/gateway-facts.md).
import basicAuth from '@fastify/basic-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AuthenticationFailed, InvalidRequest } from '../domain/errors.js';
import type { MerchantProfile, Merchants } from '../merchants.js';
import {
  basicCredentials, certificateMerchant, checkPassword, MERCHANT_ID, NOT_AUTHORISED, rememberVerified, verifiedOn,
} from './auth-credentials.js';
import { AuthFailures, refuseIfLocked } from './auth-failures.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated merchant (set by plugins/auth.ts). */
    merchant: MerchantProfile | null;
    /** How the merchant authenticated: UNMASK of card numbers needs 'certificate'; 'session': by a session's id (plugins/session-auth.ts). */
    authMethod: 'certificate' | 'basic' | 'session' | null;
  }
  interface FastifyInstance {
    authFailures: AuthFailures;
  }
}

/**
 * pay: a blank user id or `merchant.<id>` (version 3); token: `merchant.<id>`; order: `merchant.<id>`,
 * and on version 1 a blank user id too (the reference's migration guide: version 1 authenticated
 * with a blank user id).
 */
type UserIdRule = 'pay' | 'token' | 'order';

/**
 * One failure registry for the whole app (pay, token, retrieval and admin routes alike); and the
 * credentials of a request under /api/rest/ that matched no operation, checked before its 404.
 */
export const authGuard = fp(async (app: FastifyInstance, options: { limit: number; windowMs: number; maxUnknown?: number }) => {
  const failures = new AuthFailures(options.limit, options.windowMs, options.maxUnknown);
  app.decorate('authFailures', failures);
  app.decorateRequest('merchant', null);
  app.decorateRequest('authMethod', null);
  // With `done` rather than async (it runs on every request): no promise per request. A throw is
  // Fastify's to catch, as a rejection would be.
  app.addHook('onRequest', (request, _reply, done) => {
    schemeBasic(request);
    if (!request.is404) return done();
    // The gateway (and its merchants) is decorated after this plugin; an app without it has no API.
    const merchants = (request.server as Partial<FastifyInstance>).gateway?.merchants;
    if (merchants) authenticateUnmatched(request, merchants, failures);
    done();
  });
}, { name: 'auth-guard', fastify: '5.x' });

/** Base64 text alone, as an Authorization header without a scheme carries it. */
const SCHEMELESS = /^[\w.~+/-]+=*$/u;

/**
 * Basic credentials sent without the `Basic ` scheme (base64 alone, as Mastercard's iOS SDK and
 * digistorm's Omnipay driver send them, the latter's recorded answer being the real gateway's) are
 * read as Basic credentials, on every route: the header is rewritten before anything reads it.
 */
function schemeBasic(request: FastifyRequest): void {
  const header = request.headers.authorization;
  if (header !== undefined && SCHEMELESS.test(header)) request.headers.authorization = `Basic ${header}`;
}

const API_PREFIX = '/api/rest/';
/** Check Gateway's path, any version and method: it needs no credentials, so neither do its 404s. */
const CHECK_GATEWAY = /^\/api\/rest\/version\/[^/]*\/information\/?$/;
/** The merchant a path names (`.../merchant/<id>/...`), percent-decoded; '' when none. */
function pathMerchant(path: string): string {
  const found = /\/merchant\/([^/]*)/.exec(path)?.[1] ?? '';
  try { return decodeURIComponent(found); } catch { return ''; }
}

/**
 * A request under /api/rest/ that matched no operation is authenticated before its 404, so a
 * wrong password is a 401 on every path (nothing tells a guesser which paths exist):
 * - a listed client certificate authenticates its merchant;
 * - `merchant.<id>` is checked against merchant <id> (counted and locked like on any operation);
 * - a blank user id against the merchant the path names (`/merchant/<id>/`), if it names one;
 * - anything else (no header, a malformed one, another user id, a blank user id on a path that
 *   names no merchant) is a 401 that guesses nothing and counts nothing.
 * Credentials valid for another merchant than the one the path names are refused as on the
 * operations (not authorised). Valid credentials get the 404.
 */
function authenticateUnmatched(request: FastifyRequest, merchants: Merchants, failures: AuthFailures): void {
  const path = request.url.split('?')[0] ?? '';
  if (!path.startsWith(API_PREFIX) || CHECK_GATEWAY.test(path)) return;
  const named = pathMerchant(path);
  const certified = certificateMerchant(request, merchants);
  let caller: MerchantProfile;
  if (certified) {
    caller = certified;
  } else {
    const credentials = basicCredentials(request.headers.authorization);
    if (!credentials) throw new AuthenticationFailed();
    const { username, password } = credentials;
    const userMerchant = username.startsWith('merchant.') ? username.slice('merchant.'.length) : undefined;
    if (username === '' && MERCHANT_ID.test(named)) caller = checkPassword(failures, merchants, named, password);
    else if (userMerchant !== undefined && MERCHANT_ID.test(userMerchant)) caller = checkPassword(failures, merchants, userMerchant, password);
    else throw new AuthenticationFailed();
  }
  if (named !== '' && named !== caller.id) throw new AuthenticationFailed(NOT_AUTHORISED);
  request.merchant = caller;
}

/** The merchant a route's request authenticated as (the hook of requireMerchant ran first). */
export function merchantOf(request: FastifyRequest): MerchantProfile {
  if (!request.merchant) throw new Error('authenticated route without a merchant');
  return request.merchant;
}

/**
 * The authentication of one route plugin's requests: the merchant id in the URL parameter `param`,
 * checked against a certificate, the connection's last checked header, or a Basic password.
 * The credential a password is checked against is locked, not the client's address: a
 * certificate, a missing or malformed header, or a user id that can never succeed (not blank for
 * pay, not `merchant.<id>` with an id of the path's shape) guesses nothing and counts nothing.
 */
class MerchantAuthentication {
  constructor(
    private readonly merchants: Merchants,
    private readonly failures: AuthFailures,
    private readonly rule: UserIdRule,
    private readonly param: string,
  ) {}

  merchantIdOf(request: FastifyRequest): string {
    return (request.params as Record<string, string | undefined>)[this.param] ?? '';
  }

  /** The merchant whose password is checked for this user id and path's merchant: the path's for a blank user id of a pay, else the user id's; '' when none can be. */
  checkedId(username: string, merchantId: string, request: FastifyRequest): string {
    const rule = this.rule;
    if (username === '' && (rule === 'pay' || (rule === 'order' && (request.params as { version?: string }).version === '1'))) return merchantId;
    const named = username.startsWith('merchant.') ? username.slice('merchant.'.length) : '';
    return MERCHANT_ID.test(named) ? named : '';
  }

  /** The user id's rule, with `check` answering for the password (it throws when it does not match). */
  accept(username: string, request: FastifyRequest, check: (merchantId: string) => MerchantProfile): void {
    const merchantId = this.merchantIdOf(request);
    const id = this.checkedId(username, merchantId, request);
    if (id === '') throw new AuthenticationFailed();
    const caller = check(id);
    // The blank user id guesses the password of the merchant in the path; `merchant.<id>` must name it.
    if (id !== merchantId) throw new AuthenticationFailed(NOT_AUTHORISED);
    request.merchant = caller;
  }

  /** @fastify/basic-auth's validate, with a callback: no promise on every request. */
  validate(username: string, password: string, request: FastifyRequest, done: (error?: Error) => void): void {
    try {
      this.accept(username, request, (id) => checkPassword(this.failures, this.merchants, id, password));
    } catch (error) {
      done(error as Error);
      return;
    }
    rememberVerified(request, username);
    done();
  }

  /**
   * The connection's last header whose password was checked, when this request repeats it for the
   * same merchant (still the merchants file's profile): the password is not decoded and hashed
   * again on every request of the connection. A locked credential is still refused first.
   */
  knownCaller(request: FastifyRequest, merchantId: string): boolean {
    const known = verifiedOn(request);
    if (known === undefined) return false;
    const id = this.checkedId(known.username, merchantId, request);
    if (id !== known.merchant.id || this.merchants.get(id) !== known.merchant) return false;
    refuseIfLocked(this.failures, `merchant.${id}`);
    this.accept(known.username, request, () => known.merchant);
    return true;
  }

  /** The merchant of a certificate or a remembered header (true); false: the password is to be checked. */
  withoutPassword(request: FastifyRequest): boolean {
    const merchantId = this.merchantIdOf(request);
    if (!MERCHANT_ID.test(merchantId)) {
      throw new InvalidRequest(`Value '${merchantId.slice(0, 100)}' is invalid. Expected characters 0-9 a-z A-Z '-' '_', 1 to 40 of them`, this.param);
    }
    const certified = certificateMerchant(request, this.merchants);
    if (certified) {
      if (certified.id !== merchantId) throw new AuthenticationFailed(NOT_AUTHORISED);
      request.merchant = certified;
      request.authMethod = 'certificate';
      return true;
    }
    if (!this.knownCaller(request, merchantId)) return false;
    request.authMethod = 'basic';
    return true;
  }
}

/**
 * Authenticate the routes of the calling (encapsulated) plugin; `param` names the URL parameter that
 * holds the merchant id. `leftToRoute`: requests whose credentials a route checks itself (Update
 * Session authenticated by its session, plugins/session-auth.ts), passed without a merchant.
 */
export async function requireMerchant(app: FastifyInstance, merchants: Merchants, rule: UserIdRule, param: string, leftToRoute?: (request: FastifyRequest) => boolean) {
  const authentication = new MerchantAuthentication(merchants, app.authFailures, rule, param);
  // Callbacks, not promises (this runs on every request): @fastify/basic-auth calls `done` of a
  // validate that returns no promise; the hook takes `done` too.
  await app.register(basicAuth, {
    authenticate: false,
    validate(username: string, password: string, request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
      authentication.validate(username, password, request, done);
    },
  });
  app.addHook('onRequest', (request, reply, done) => {
    if (authentication.withoutPassword(request) || leftToRoute?.(request)) return done();
    app.basicAuth(request, reply, (error?: Error) => {
      if (error) return done(error);
      request.authMethod = 'basic';
      done();
    });
  });
}
