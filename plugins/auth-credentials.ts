// The credentials a request presents, checked: a merchant's API password (compared as SHA-256
// digests with crypto.timingSafeEqual, also for unknown merchants, so a wrong guess takes the same
// time whoever it names; each failure counted toward the credential's lock), the Basic header as
// @fastify/basic-auth reads it, a listed client certificate, and the header a connection already
// had checked. The hooks that use them: plugins/auth.ts (REST), plugins/nvp-auth.ts (NVP).
import { hash, timingSafeEqual } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { AuthenticationFailed } from '../domain/errors.js';
import type { MerchantProfile, Merchants } from '../merchants.js';
import { refuseIfLocked, type AuthFailures } from './auth-failures.js';

// crypto.hash (Node 20.12): one call, no Hash object per request.
const digest = (text: string) => hash('sha256', text, 'buffer') as unknown as Buffer;
const UNKNOWN_MERCHANT_DIGEST = digest('no merchant has this password: it is never compared true');
export const MERCHANT_ID = /^[0-9A-Za-z_-]{1,40}$/;
export const NOT_AUTHORISED = 'Authenticated entity not authorised to perform operation for target entity';

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

function passwordMatches(merchant: MerchantProfile | undefined, password: string): boolean {
  const expected = merchant ? storedDigest(merchant) : UNKNOWN_MERCHANT_DIGEST;
  return timingSafeEqual(digest(password), expected) && merchant !== undefined;
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

/** Basic credentials as @fastify/basic-auth reads them (strict form, no control characters). */
export function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  const match = typeof header === 'string' ? /^basic ([\w.~+/-]+=*)$/iu.exec(header) : null;
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  if (/[\x00-\x1F\x7F]/u.test(decoded)) return undefined;
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** The merchant whose listed client certificate this TLS connection presented, if any. */
export function certificateMerchant(request: FastifyRequest, merchants: Merchants): MerchantProfile | undefined {
  const socket = request.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function' || !socket.authorized) return undefined;
  const certificate = socket.getPeerCertificate();
  return certificate?.fingerprint256 ? merchants.ofCertificate(certificate.fingerprint256) : undefined;
}

/** A header whose password was checked on a connection: its user id and the merchant it matched. */
export interface Verified { header: string; username: string; merchant: MerchantProfile }
const verified = new WeakMap<object, Verified>();

/** After a password matched: the connection remembers the header (one per connection, the last). */
export function rememberVerified(request: FastifyRequest, username: string): void {
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
export function verifiedOn(request: FastifyRequest): Verified | undefined {
  const socket = request.raw.socket as object | null;
  const known = socket ? verified.get(socket) : undefined;
  const header = request.headers.authorization;
  if (known === undefined || typeof header !== 'string') return undefined;
  const expected = known.header;
  let difference = header.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) difference |= (header.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return difference === 0 ? known : undefined;
}
