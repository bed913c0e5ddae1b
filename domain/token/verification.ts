// Acquirer verification of card details on token creation (request with transaction.currency):
// the same test-card rules as payments (expiry tables, security code table), mapped to the
// create response's EXTERNAL_VERIFICATION_* codes. Pure; `now` passed in.
import type { Brand } from '../card.js';
import type { CardExpiry } from '../events.js';
import { cardSecurityCodeResponse, outcomeForExpiry } from '../order/test-acquirer.js';
import { CODE_ANSWERS, sandboxCodeForExpiry, type GatewayCode } from '../order/triggers.js';

export type VerificationCode =
  | 'EXTERNAL_VERIFICATION_BLOCKED' | 'EXTERNAL_VERIFICATION_DECLINED' | 'EXTERNAL_VERIFICATION_DECLINED_AUTHENTICATION_REQUIRED'
  | 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD' | 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC'
  | 'EXTERNAL_VERIFICATION_PROCESSING_ERROR' | 'EXTERNAL_VERIFICATION_SUCCESSFUL';

/** The payment code the acquirer would answer, as the verification code. */
const BY_PAYMENT_CODE: Partial<Record<GatewayCode, VerificationCode>> = {
  APPROVED: 'EXTERNAL_VERIFICATION_SUCCESSFUL',
  EXPIRED_CARD: 'EXTERNAL_VERIFICATION_DECLINED_EXPIRED_CARD',
  DECLINED_CSC: 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC',
  INVALID_CSC: 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC',
  BLOCKED: 'EXTERNAL_VERIFICATION_BLOCKED',
  AUTHENTICATION_FAILED: 'EXTERNAL_VERIFICATION_DECLINED_AUTHENTICATION_REQUIRED',
  NOT_ENROLLED_3D_SECURE: 'EXTERNAL_VERIFICATION_DECLINED_AUTHENTICATION_REQUIRED',
  TIMED_OUT: 'EXTERNAL_VERIFICATION_PROCESSING_ERROR',
  ACQUIRER_SYSTEM_ERROR: 'EXTERNAL_VERIFICATION_PROCESSING_ERROR',
  UNSPECIFIED_FAILURE: 'EXTERNAL_VERIFICATION_PROCESSING_ERROR',
  SYSTEM_ERROR: 'EXTERNAL_VERIFICATION_PROCESSING_ERROR',
  UNKNOWN: 'EXTERNAL_VERIFICATION_PROCESSING_ERROR',
  PENDING: 'EXTERNAL_VERIFICATION_PROCESSING_ERROR',
  DEFERRED_TRANSACTION_RECEIVED: 'EXTERNAL_VERIFICATION_PROCESSING_ERROR',
};

/** The verification code for a card: security code NO_MATCH first, then the expiry tables. */
export function acquirerVerification(card: { brand: Brand; expiry: CardExpiry }, securityCode: string | undefined, now: string): VerificationCode {
  if (cardSecurityCodeResponse(securityCode, card.brand).gatewayCode === 'NO_MATCH') return 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC';
  const code = sandboxCodeForExpiry(card.expiry) ?? (outcomeForExpiry(card.expiry, now).gatewayCode as GatewayCode);
  const mapped = BY_PAYMENT_CODE[code];
  if (mapped) return mapped;
  return CODE_ANSWERS[code].result === 'SUCCESS' ? 'EXTERNAL_VERIFICATION_SUCCESSFUL' : 'EXTERNAL_VERIFICATION_DECLINED';
}

export const verificationSucceeded = (code: string): boolean =>
  code === 'EXTERNAL_VERIFICATION_SUCCESSFUL' || code === 'BASIC_VERIFICATION_SUCCESSFUL' || code === 'NO_VERIFICATION_PERFORMED';
