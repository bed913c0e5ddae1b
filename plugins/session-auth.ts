// Update Session authenticated by the session itself, as the gateway's mobile SDKs send it from
// the payer's device, where the API password must never be: from version 50 Basic
// `merchant.<merchantId>` with the session id as the password (the iOS SDK sends the base64
// credentials without the `Basic ` scheme: read as Basic on every route, plugins/auth.ts); before
// 50 no credentials and `apiOperation` `UPDATE_PAYER_DATA` ("Update Session with Payer Data"). The
// session must be the merchant's and live; such an update may change only the payer's data
// (routes/session.ts).
// Nothing here is counted toward a credential's lock: a session id is no password to guess.
import type { FastifyRequest } from 'fastify';
import { AuthenticationFailed, InvalidRequest } from '../domain/errors.js';
import type { SessionBody } from '../schemas/session.js';
import type { Gateway } from '../services/gateway.js';
import { sessionIsLive } from '../services/session/sessions.js';
import { basicCredentials } from './auth-credentials.js';

interface SessionPath { version?: string; merchantId?: string; sessionId?: string }

/** From this version the session id is the password; before it, UPDATE_PAYER_DATA needs no credentials (the Android SDK's rule). */
const SESSION_PASSWORD_FROM = 50;
/**
 * A session id as the gateway writes it: ASCII text, 31 to 35 characters. One holding a card number
 * is refused before the session is looked up (plugins/request-values.ts, a hook of the whole app,
 * runs before the route's preValidation), so none names a stream read.
 */
const SESSION_ID = /^[\x20-\x7e]{31,35}$/;

/**
 * Whether the Authorization header is `merchant.<merchantId>` with the path's session id as the
 * password (one sent without the `Basic ` scheme was given it on arrival, plugins/auth.ts).
 */
function sessionIdAsPassword(request: FastifyRequest, header: string): boolean {
  const { merchantId, sessionId } = request.params as SessionPath;
  const credentials = basicCredentials(header);
  return credentials !== undefined && credentials.username === `merchant.${merchantId}` && credentials.password === sessionId;
}

/** The way the path's version takes: from 50 the session id as the password, before it no credentials; none for a version that is no number. */
function versionWay(version: string | undefined): 'password' | 'none' | undefined {
  const number = Number(version);
  if (number >= SESSION_PASSWORD_FROM) return 'password';
  return number < SESSION_PASSWORD_FROM ? 'none' : undefined;
}

/**
 * Whether the merchant's password check is left to authenticateBySession (an Update Session
 * request that presents no credentials, or its own session id as the password of
 * `merchant.<merchantId>`). Decided on the headers alone, before the body is read: such a request
 * that the headers already refuse (the other way than its version's, an unknown merchant, a path
 * id that is no session id) is a 401 here, so no body of a request that cannot pass is read,
 * parsed or awaited; and it guesses no password, so nothing is counted.
 */
export function presentsSession(request: FastifyRequest): boolean {
  const { version, merchantId, sessionId } = request.params as SessionPath;
  if (request.method !== 'PUT' || sessionId === undefined) return false;
  const header = request.headers.authorization;
  if (header !== undefined && !sessionIdAsPassword(request, header)) return false;
  const way = header === undefined ? 'none' : 'password';
  if (versionWay(version) !== way || !SESSION_ID.test(sessionId) || !request.server.gateway.merchants.get(merchantId ?? '')) throw new AuthenticationFailed();
  return true;
}

/** The merchant of a request presentsSession let through, once its body is read; 401 unless the session is the merchant's and live. */
export async function authenticateBySession(gateway: Gateway, request: FastifyRequest): Promise<void> {
  if (request.merchant) return;
  const { merchantId, sessionId } = request.params as SessionPath;
  const apiOperation = (request.body as { apiOperation?: unknown } | null | undefined)?.apiOperation;
  // presentsSession again (only a request it let through has no merchant here): the same headers, the same answer.
  if (!presentsSession(request) || sessionId === undefined) throw new AuthenticationFailed();
  if (request.headers.authorization === undefined && apiOperation !== 'UPDATE_PAYER_DATA') throw new AuthenticationFailed();
  const merchant = gateway.merchants.get(merchantId ?? '');
  if (!merchant || !(await sessionIsLive(gateway, merchant, sessionId))) throw new AuthenticationFailed();
  request.merchant = merchant;
  request.authMethod = 'session';
}

/** The fields the merchant alone may set: a payer holding the session id may not change the order, its token, its 3-D Secure settings or the shop software's id. */
export function checkPayerData(body: SessionBody): void {
  const merchantOnly: Array<[string, unknown]> = [
    ['order', body.order], ['sourceOfFunds.token', body.sourceOfFunds?.token], ['authentication', body.authentication], ['partnerSolutionId', body.partnerSolutionId],
  ];
  for (const [field, value] of merchantOnly) {
    if (value !== undefined) throw new InvalidRequest('Value is invalid. A request authenticated with the session id may update only the payer\'s data', field);
  }
}
