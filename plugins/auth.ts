// Authentication of the spec ("Authentication"), both methods:
// 1. Certificate authentication: on an HTTPS connection whose client certificate is signed by
//    TLS_CLIENT_CA_FILE and listed (SHA-256 fingerprint) for a merchant in MERCHANTS_FILE.
// 2. HTTP Basic authentication, with @fastify/basic-auth:
//    - Pay with token: the user id is blank (`merchant.<merchantId>` is accepted too); the
//      password is the API password of the merchant in the path.
//    - Create token: the user id is `merchant.<merchantId>`; the password is its API password.
// Passwords are compared as SHA-256 digests with crypto.timingSafeEqual, also for unknown
// merchants, so a wrong guess takes the same time whoever it names. A credential that keeps
// failing is refused for a while (AuthFailures below: per merchant id, not per client address).
// Credentials are checked before the path is matched: a path under /api/rest/ that names no
// operation is a 401 with missing or wrong credentials, and a 404 only with valid ones
// (authenticateUnmatched below; Check Gateway's path needs none). Every 401 carries
// `WWW-Authenticate: Basic realm="tokengate"` (plugins/errors.ts), for clients that send
// credentials only after a challenge: issue 15 asks for it, although the real gateway sends none
// (../shared/guide/gateway-facts.md).
import { hash, timingSafeEqual } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import basicAuth from '@fastify/basic-auth';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AuthenticationFailed, InvalidRequest, RequestRejected } from '../domain/errors.js';
import type { MerchantProfile, Merchants } from '../merchants.js';

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

// crypto.hash (Node 20.12): one call, no Hash object per request.
const digest = (text: string) => hash('sha256', text, 'buffer') as unknown as Buffer;
const UNKNOWN_MERCHANT_DIGEST = digest('no merchant has this password: it is never compared true');
export const MERCHANT_ID = /^[0-9A-Za-z_-]{1,40}$/;
export const NOT_AUTHORISED = 'Authenticated entity not authorised to perform operation for target entity';

/**
 * pay: a blank user id or `merchant.<id>` (version 3); token: `merchant.<id>`; order: `merchant.<id>`,
 * and on version 1 a blank user id too (the reference's migration guide: version 1 authenticated
 * with a blank user id).
 */
export type UserIdRule = 'pay' | 'token' | 'order';

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

interface FailureCount { count: number; since: number; lockedUntil: number }

/** A wrong password, as the workers of one gateway tell each other (cluster.ts). */
export interface SharedFailure { credential: string; exists: boolean; at: number }
/** One credential's count and lock, as a worker that starts is handed them (cluster.ts). */
export interface FailureState extends FailureCount { credential: string; exists: boolean }

/** AUTH_FAILURE_LIMIT's window: the failures of a minute lock a credential for a minute. */
export const AUTH_FAILURE_WINDOW_MS = 60_000;

/**
 * Failed password authentications per CREDENTIAL (`merchant.<id>`, `admin`), not per client
 * address: a lock on an address would lock out every merchant behind it (one NAT, one CI runner)
 * because one of them mistyped, and would not stop a guesser who spreads over many addresses.
 *
 * - `limit` failures of one credential within `windowMs` lock it for `windowMs` (fixed window:
 *   O(1) memory per credential; at most 2*limit-1 guesses straddle two windows, then the lock).
 * - While locked the credential is refused (429) BEFORE its password is checked, so its correct
 *   password is refused too: otherwise a guesser would learn the password the moment it found it.
 *   A certificate is not the locked credential: certificate authentication still works.
 * - A success does not reset the count: a guesser interleaving with the real merchant's traffic
 *   would otherwise get unlimited guesses.
 * - Anyone can lock a credential out by sending wrong passwords for it, from anywhere. A sandbox
 *   accepts that (AUTH_FAILURE_LIMIT can be raised); a production gateway would add a per-address
 *   tier alongside this one.
 * - Memory stays bounded: credentials that exist (merchants of MERCHANTS_FILE, admin) are
 *   bounded by configuration and never evicted, so a spray cannot reset a real merchant's count.
 *   Names that match no credential are counted too (an unknown merchant id answers exactly like a
 *   known one: 401 up to the limit, then 429, so the lock does not reveal which ids exist), in a
 *   separate table of at most `maxUnknown` entries, the least recently failed evicted first.
 * - The workers of one gateway (WORKERS=N, cluster.ts) count as one: each tells the others of its
 *   failures (`onFailure`, `shared`), so N workers allow the guesses one process does.
 */
export class AuthFailures {
  private readonly known = new Map<string, FailureCount>();
  private readonly unknown = new Map<string, FailureCount>();
  /** Told of every failure recorded here (not of those another process told: `shared`). */
  onFailure: ((failure: SharedFailure) => void) | undefined;
  constructor(readonly limit: number, readonly windowMs: number, readonly maxUnknown = 10_000) {}

  /** Milliseconds until `credential` may be tried again; 0 if it is not locked. */
  lockedFor(credential: string, now?: number): number {
    // (Asked on every request: nothing to look at, and no clock read, while nothing failed.)
    if (this.known.size === 0 && this.unknown.size === 0) return 0;
    const at = now ?? Date.now();
    return this.lockedIn(this.known, credential, at) || this.lockedIn(this.unknown, credential, at);
  }

  private lockedIn(table: Map<string, FailureCount>, credential: string, now: number): number {
    const entry = table.get(credential);
    if (entry === undefined) return 0;
    if (entry.lockedUntil > now) return entry.lockedUntil - now;
    if (now - entry.since >= this.windowMs) table.delete(credential);
    return 0;
  }

  /** A wrong password for `credential`; `exists`: it names a real credential (never evicted). */
  record(credential: string, exists: boolean, now = Date.now()): void {
    this.count(credential, exists, now);
    this.onFailure?.({ credential, exists, at: now });
  }

  /** A wrong password another worker of this gateway saw (at its time `at`), counted as if here. */
  shared(failure: SharedFailure): void {
    this.count(failure.credential, failure.exists, failure.at);
  }

  private count(credential: string, exists: boolean, now: number): void {
    const table = exists ? this.known : this.unknown;
    let entry = table.get(credential);
    if (entry === undefined || (entry.lockedUntil <= now && now - entry.since >= this.windowMs)) {
      entry = { count: 0, since: now, lockedUntil: 0 };
    }
    entry.count += 1;
    if (entry.count >= this.limit) {
      entry.lockedUntil = now + this.windowMs;
      entry.count = 0;
      entry.since = now;
    }
    this.put(credential, exists, entry);
  }

  private put(credential: string, exists: boolean, entry: FailureCount): void {
    const table = exists ? this.known : this.unknown;
    table.delete(credential); // re-inserted last: the unknown table evicts from the front
    table.set(credential, entry);
    if (!exists) {
      for (const oldest of this.unknown.keys()) {
        if (this.unknown.size <= this.maxUnknown) break;
        this.unknown.delete(oldest);
      }
    }
  }

  /** Every credential's count and lock, least recently failed first (for a worker that starts). */
  snapshot(): FailureState[] {
    const states: FailureState[] = [];
    for (const [credential, entry] of this.known) states.push({ credential, exists: true, ...entry });
    for (const [credential, entry] of this.unknown) states.push({ credential, exists: false, ...entry });
    return states;
  }

  /** Take these counts and locks as this registry's (a worker starting takes the others' so). */
  restore(states: readonly FailureState[]): void {
    for (const { credential, exists, count, since, lockedUntil } of states) this.put(credential, exists, { count, since, lockedUntil });
  }

  /** Credentials with a failure count or a lock held in memory (known and unknown). */
  get size(): number {
    return this.known.size + this.unknown.size;
  }
}

/** Refuse a locked credential (429 with Retry-After), before its password is looked at. */
export function refuseIfLocked(failures: AuthFailures, credential: string): void {
  const wait = failures.lockedFor(credential);
  if (wait > 0) throw new RequestRejected(Math.max(1, Math.ceil(wait / 1000)));
}

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
    if (!request.is404) return done();
    // The gateway (and its merchants) is decorated after this plugin; an app without it has no API.
    const merchants = (request.server as Partial<FastifyInstance>).gateway?.merchants;
    if (merchants) authenticateUnmatched(request, merchants, failures);
    done();
  });
}, { name: 'auth-guard', fastify: '5.x' });

/** Basic credentials as @fastify/basic-auth reads them (strict form, no control characters). */
export function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  const match = typeof header === 'string' ? /^basic ([\w.~+/-]+=*)$/iu.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  if (/[\x00-\x1F\x7F]/u.test(decoded)) return undefined;
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
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
export function authenticateUnmatched(request: FastifyRequest, merchants: Merchants, failures: AuthFailures): void {
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

/**
 * The merchant whose password this is, or AuthenticationFailed (and the failure counted against
 * `merchant.<merchantId>`); a locked credential is refused before its password is looked at.
 */
export function checkPassword(failures: AuthFailures, merchants: Merchants, merchantId: string, password: string): MerchantProfile {
  const credential = `merchant.${merchantId}`;
  refuseIfLocked(failures, credential);
  const merchant = merchants.get(merchantId);
  if (!passwordMatches(merchant, password) || merchant === undefined) {
    failures.record(credential, merchant !== undefined);
    throw new AuthenticationFailed();
  }
  return merchant;
}

/** The merchant a route's request authenticated as (the hook of requireMerchant ran first). */
export function merchantOf(request: FastifyRequest): MerchantProfile {
  if (!request.merchant) throw new Error('authenticated route without a merchant');
  return request.merchant;
}

/** The merchant whose listed client certificate this TLS connection presented, if any. */
export function certificateMerchant(request: FastifyRequest, merchants: Merchants): MerchantProfile | undefined {
  const socket = request.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return undefined;
  const certificate = socket.getPeerCertificate();
  return certificate?.fingerprint256 ? merchants.ofCertificate(certificate.fingerprint256) : undefined;
}

/** A header whose password was checked on a connection: its user id and the merchant it matched. */
interface Verified { header: string; username: string; merchant: MerchantProfile }
const verified = new WeakMap<object, Verified>();

/** After a password matched: the connection remembers the header (one per connection, the last). */
function rememberVerified(request: FastifyRequest, username: string): void {
  const header = request.headers.authorization;
  const socket = request.raw.socket as object | null;
  if (typeof header === 'string' && socket && request.merchant) verified.set(socket, { header, username, merchant: request.merchant });
}

/**
 * What the connection remembers, when this request's Authorization header is the same text.
 * Compared in time that depends only on the remembered header's length, not on where the texts
 * differ: a connection that carries several clients' requests (a proxy's pool) learns nothing of
 * another client's header but whether it sent exactly that one (a correct password: it would be
 * answered so anyway).
 */
function verifiedOn(request: FastifyRequest): Verified | undefined {
  const socket = request.raw.socket as object | null;
  const known = socket ? verified.get(socket) : undefined;
  const header = request.headers.authorization;
  if (known === undefined || typeof header !== 'string') return undefined;
  const expected = known.header;
  let difference = header.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= (header.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return difference === 0 ? known : undefined;
}

/**
 * Authenticate the routes of the calling (encapsulated) plugin. `param` names the URL parameter
 * that holds the merchant id.
 */
export async function requireMerchant(app: FastifyInstance, merchants: Merchants, rule: UserIdRule, param: string) {
  // The credential a password is checked against is locked, not the client's address: a
  // certificate, a missing or malformed header, or a user id that can never succeed (not blank
  // for pay, not `merchant.<id>` with an id of the path's shape) guesses nothing and counts nothing.
  const failures = app.authFailures;
  /** The merchant whose password is checked for this user id and path's merchant: the path's for a blank user id of a pay, else the user id's; '' when none can be. */
  const checkedId = (username: string, merchantId: string, request: FastifyRequest): string => {
    if (username === '' && (rule === 'pay' || (rule === 'order' && (request.params as { version?: string }).version === '1'))) return merchantId;
    const named = username.startsWith('merchant.') ? username.slice('merchant.'.length) : '';
    return MERCHANT_ID.test(named) ? named : '';
  };
  /** The user id's rule, with `check` answering for the password (it throws when it does not match). */
  const validate = (username: string, request: FastifyRequest, check: (merchantId: string) => MerchantProfile) => {
    const merchantId = (request.params as Record<string, string | undefined>)[param] ?? '';
    const id = checkedId(username, merchantId, request);
    if (id === '') throw new AuthenticationFailed();
    const caller = check(id);
    // The blank user id guesses the password of the merchant in the path; `merchant.<id>` must name it.
    if (id !== merchantId) throw new AuthenticationFailed(NOT_AUTHORISED);
    request.merchant = caller;
  };
  // Callbacks, not promises (this runs on every request): @fastify/basic-auth calls `done` of a
  // validate that returns no promise; the hook takes `done` too.
  await app.register(basicAuth, {
    authenticate: false,
    validate(username: string, password: string, request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) {
      try {
        validate(username, request, (id) => checkPassword(failures, merchants, id, password));
      } catch (error) {
        done(error as Error);
        return;
      }
      rememberVerified(request, username);
      done();
    },
  });

  /**
   * The connection's last header whose password was checked, when this request repeats it for the
   * same merchant (still the merchants file's profile): the password is not decoded and hashed
   * again (≈ 4 µs of every request, issue 17). A locked credential is still refused first.
   */
  const knownCaller = (request: FastifyRequest, merchantId: string): boolean => {
    const known = verifiedOn(request);
    if (known === undefined) return false;
    const id = checkedId(known.username, merchantId, request);
    if (id !== known.merchant.id || merchants.get(id) !== known.merchant) return false;
    refuseIfLocked(failures, `merchant.${id}`);
    validate(known.username, request, () => known.merchant);
    return true;
  };

  app.addHook('onRequest', (request, reply, done) => {
    const merchantId = (request.params as Record<string, string | undefined>)[param] ?? '';
    if (!MERCHANT_ID.test(merchantId)) {
      throw new InvalidRequest(`Value '${merchantId.slice(0, 100)}' is invalid. Expected characters 0-9 a-z A-Z '-' '_', 1 to 40 of them`, param);
    }
    const certified = certificateMerchant(request, merchants);
    if (certified) {
      if (certified.id !== merchantId) throw new AuthenticationFailed(NOT_AUTHORISED);
      request.merchant = certified;
      request.authMethod = 'certificate';
      done();
      return;
    }
    if (knownCaller(request, merchantId)) {
      request.authMethod = 'basic';
      done();
      return;
    }
    app.basicAuth(request, reply, (error?: Error) => {
      if (error) {
        done(error);
        return;
      }
      request.authMethod = 'basic';
      done();
    });
  });
}
