// updateSessionFromForm of session.js: what the hosted fields hold, sent by the gateway's own
// frame (routes/hosted-session.ts), stored in the session exactly as Update Session stores a card
// (updateSession: the same SessionUpdated event, the number and security code sealed, the answer
// masked), and answered as the formSessionUpdate callback gets it: Update Session's answer with
// `status` "ok"; "fields_in_error" with the fields named (nothing stored); for a session the
// gateway no longer holds (expired, or never created for this merchant) "request_timeout": the
// page's session timed out, and only a new session helps (the reference documents no status of
// its own for it).
import { checkHostedCard, type HostedCardInput, type HostedErrors } from '../../domain/session/hosted-fields.js';
import { InvalidRequest } from '../../domain/errors.js';
import type { MerchantProfile } from '../../merchants.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { updateSession } from './sessions.js';

export type FormSessionUpdate =
  | { status: 'ok'; merchant: string; session: { id: string; updateStatus: string; version: string }; sourceOfFunds?: unknown; order?: unknown; version: string }
  | { status: 'fields_in_error'; session: { id: string }; errors: HostedErrors; version: string }
  | { status: 'request_timeout' | 'system_error'; session: { id: string }; errors: { message: string }; version: string };

/** The callback's payload and the HTTP status it is answered with (200, 400 fields in error, 404 no such session). */
export interface FormAnswer { httpStatus: number; payload: FormSessionUpdate }

export const SESSION_TIMED_OUT = 'The session has expired or is unknown to the gateway: create a new session and configure the hosted fields with it';

/** The session's answer for a session the gateway does not hold (an unknown merchant's too). */
export const timedOut = (sessionId: string, version: string): FormAnswer => ({
  httpStatus: 404,
  payload: { status: 'request_timeout', session: { id: sessionId }, errors: { message: SESSION_TIMED_OUT }, version },
});

export async function updateSessionFromForm(
  gateway: Gateway, merchant: MerchantProfile, sessionId: string, input: HostedCardInput, meta: RequestMeta, version: string,
): Promise<FormAnswer> {
  const checked = checkHostedCard(input);
  if (!checked.ok) return { httpStatus: 400, payload: { status: 'fields_in_error', session: { id: sessionId }, errors: checked.errors, version } };
  let answer;
  try {
    answer = await updateSession(gateway, merchant, sessionId, { sourceOfFunds: { provided: { card: checked.card } } }, meta, version);
  } catch (error) {
    // updateSession refuses an unknown or expired session on `sessionId`.
    if (error instanceof InvalidRequest && error.field === 'sessionId') return timedOut(sessionId, version);
    throw error;
  }
  const { correlationId: _c, result: _r, ...rest } = answer;
  return { httpStatus: 200, payload: { status: 'ok', ...rest } };
}
