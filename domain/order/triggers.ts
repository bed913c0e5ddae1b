// The sandbox's own outcome triggers, beyond the real test environment's rules (expiry table,
// security codes, AVS streets of test-acquirer.ts, which they never change): extra expiry dates
// that the real table does not use, and clearly named markers for risk and 3-D Secure. Every
// one of the 27 response.gatewayCode values, 5 risk codes and 13 3-D Secure codes can be
// produced on purpose. docs/triggers.md is the user's copy of these tables (the tests read it).
import type { RiskResponse } from '../events.js';
import type { Expiry, PayResult } from './test-acquirer.js';
import { expiryKey } from './test-acquirer.js';

export const GATEWAY_CODES = [
  'ABORTED', 'ACQUIRER_SYSTEM_ERROR', 'APPROVED', 'AUTHENTICATION_FAILED', 'BLOCKED', 'CANCELLED', 'DECLINED',
  'DECLINED_AVS', 'DECLINED_AVS_CSC', 'DECLINED_CSC', 'DECLINED_DO_NOT_CONTACT', 'DECLINED_PAYMENT_PLAN',
  'DEFERRED_TRANSACTION_RECEIVED', 'DUPLICATE_BATCH', 'EXCEEDED_RETRY_LIMIT', 'EXPIRED_CARD', 'INSUFFICIENT_FUNDS',
  'INVALID_CSC', 'LOCK_FAILURE', 'NOT_ENROLLED_3D_SECURE', 'NOT_SUPPORTED', 'PENDING', 'REFERRED', 'SYSTEM_ERROR',
  'TIMED_OUT', 'UNKNOWN', 'UNSPECIFIED_FAILURE',
] as const;
export type GatewayCode = (typeof GATEWAY_CODES)[number];

/** How a code answers: its result, and the acquirer's code and message when the acquirer was contacted. */
export interface CodeAnswer { result: PayResult; acquirer?: [code: string, message: string] }

const failure = (acquirer?: [string, string]): CodeAnswer => ({ result: 'FAILURE', ...(acquirer ? { acquirer } : {}) });

/** Codes without `acquirer` are the gateway's own decisions: the acquirer is not contacted. */
export const CODE_ANSWERS: Readonly<Record<GatewayCode, CodeAnswer>> = {
  APPROVED: { result: 'SUCCESS', acquirer: ['00', 'Approved'] },
  DECLINED: failure(['05', 'Do not honour']),
  EXPIRED_CARD: failure(['54', 'Expired card']),
  TIMED_OUT: failure(['68', 'Response received too late']),
  ACQUIRER_SYSTEM_ERROR: failure(['96', 'System malfunction']),
  UNSPECIFIED_FAILURE: failure(['06', 'Error']),
  UNKNOWN: { result: 'UNKNOWN', acquirer: ['91', 'Issuer or switch inoperative'] },
  INSUFFICIENT_FUNDS: failure(['51', 'Insufficient funds']),
  REFERRED: failure(['01', 'Refer to card issuer']),
  DECLINED_DO_NOT_CONTACT: failure(['46', 'Closed account: do not try again']),
  DECLINED_PAYMENT_PLAN: failure(['12', 'Invalid transaction: payment plan declined']),
  DECLINED_CSC: failure(['N7', 'Decline for CVV2 failure']),
  INVALID_CSC: failure(['82', 'Invalid card security code']),
  DECLINED_AVS: failure(['05', 'Do not honour: address verification failed']),
  DECLINED_AVS_CSC: failure(['05', 'Do not honour: address and security code verification failed']),
  PENDING: { result: 'PENDING', acquirer: ['09', 'Request in progress'] },
  NOT_SUPPORTED: failure(['57', 'Transaction not permitted to cardholder']),
  DUPLICATE_BATCH: failure(['94', 'Duplicate transmission']),
  DEFERRED_TRANSACTION_RECEIVED: { result: 'PENDING' },
  SYSTEM_ERROR: failure(),
  BLOCKED: failure(),
  LOCK_FAILURE: failure(),
  EXCEEDED_RETRY_LIMIT: failure(),
  ABORTED: failure(),
  CANCELLED: failure(),
  AUTHENTICATION_FAILED: failure(),
  NOT_ENROLLED_3D_SECURE: failure(),
};

export const isGatewayCode = (value: string): value is GatewayCode => Object.hasOwn(CODE_ANSWERS, value);

/**
 * Extra expiry dates, MM/38 and MM/36, for the codes the real test acquirer has no date for.
 * The real table (01/39, 05/39, 04/27, 08/28, 01/37, 02/37, 05/37) uses neither year.
 */
export const SANDBOX_EXPIRY_TABLE: Readonly<Record<string, GatewayCode>> = {
  '01/38': 'INSUFFICIENT_FUNDS',
  '02/38': 'REFERRED',
  '03/38': 'DECLINED_DO_NOT_CONTACT',
  '04/38': 'DECLINED_PAYMENT_PLAN',
  '05/38': 'DECLINED_CSC',
  '06/38': 'INVALID_CSC',
  '07/38': 'DECLINED_AVS',
  '08/38': 'DECLINED_AVS_CSC',
  '09/38': 'PENDING',
  '10/38': 'DEFERRED_TRANSACTION_RECEIVED',
  '11/38': 'NOT_SUPPORTED',
  '12/38': 'SYSTEM_ERROR',
  '01/36': 'BLOCKED',
  '02/36': 'LOCK_FAILURE',
  '03/36': 'DUPLICATE_BATCH',
  '04/36': 'EXCEEDED_RETRY_LIMIT',
  '05/36': 'ABORTED',
  '06/36': 'CANCELLED',
  '07/36': 'AUTHENTICATION_FAILED',
  '08/36': 'NOT_ENROLLED_3D_SECURE',
};

export const sandboxCodeForExpiry = (expiry: Expiry): GatewayCode | undefined => SANDBOX_EXPIRY_TABLE[expiryKey(expiry)];

/** Decisions of the merchant's risk rules (marker RISK_<decision> in order.reference, or a rule's `risk`). */
export const MERCHANT_RISK_DECISIONS = [
  'ACCEPT', 'REVIEW', 'REVIEW_RELEASED', 'REVIEW_CANCELLED', 'REJECT', 'REJECT_AFTER_AUTH', 'REJECT_REVERSAL_FAIL',
] as const;
export type MerchantRiskDecision = (typeof MERCHANT_RISK_DECISIONS)[number];
export type RiskDecision = MerchantRiskDecision | 'SYSTEM_REJECT';

/** The risk response before the acquirer is asked; post-authorization decisions add the reversal later. */
export const RISK_RESPONSES: Readonly<Record<RiskDecision, RiskResponse>> = {
  ACCEPT: { gatewayCode: 'ACCEPT', reviewResult: 'NOT_REQUIRED' },
  REVIEW: { gatewayCode: 'REVIEW', reviewResult: 'PENDING' },
  REVIEW_RELEASED: { gatewayCode: 'REVIEW', reviewResult: 'ORDER_RELEASED' },
  REVIEW_CANCELLED: { gatewayCode: 'REVIEW', reviewResult: 'ORDER_CANCELLED' },
  REJECT: { gatewayCode: 'REJECT', reversalTransactionResult: 'NOT_APPLICABLE' },
  REJECT_AFTER_AUTH: { gatewayCode: 'REJECT' },
  REJECT_REVERSAL_FAIL: { gatewayCode: 'REJECT' },
  SYSTEM_REJECT: { gatewayCode: 'SYSTEM_REJECT', reversalTransactionResult: 'NOT_APPLICABLE' },
};

/** Decisions that undo an approved authorization, and whether the reversal works. */
export const POST_AUTH_REVERSALS: Partial<Record<RiskDecision, 'OKAY' | 'FAIL'>> = {
  REVIEW_CANCELLED: 'OKAY',
  REJECT_AFTER_AUTH: 'OKAY',
  REJECT_REVERSAL_FAIL: 'FAIL',
};

const RISK_MARKERS: ReadonlyMap<string, RiskDecision> = new Map(
  [...MERCHANT_RISK_DECISIONS, 'SYSTEM_REJECT' as const].map((d) => [`RISK_${d}`, d]),
);

/** Words of a marker-bearing field: upper-case letters, digits and '_' (markers are case-sensitive). */
const words = (text: string | undefined): string[] => text?.split(/[^A-Z0-9_]+/).filter(Boolean) ?? [];

/** `RISK_<decision>` as a word of order.reference, e.g. "cart-7 RISK_REVIEW". */
export function riskMarker(orderReference: string | undefined): RiskDecision | undefined {
  for (const word of words(orderReference)) {
    const decision = RISK_MARKERS.get(word);
    if (decision) return decision;
  }
  return undefined;
}

export const THREE_D_SECURE_CODES = [
  'ACS_TIMEOUT', 'AUTHENTICATED', 'AUTHENTICATION_ATTEMPTED', 'CARD_NOT_SUPPORTED', 'DS_AUTHENTICATION_FAILED',
  'DS_COMMUNICATION_ERROR', 'INTERNAL_ERROR', 'NOT_AUTHENTICATED', 'NOT_ENROLLED', 'PARSE_ERROR', 'REQUEST_INVALID',
  'SIGNATURE_ERROR', 'UNDETERMINED',
] as const;
export type ThreeDSecureCode = (typeof THREE_D_SECURE_CODES)[number];

/** What a 3-D Secure result does to the payment: undefined lets it go on to the acquirer. */
export const THREE_D_SECURE_EFFECT: Partial<Record<ThreeDSecureCode, GatewayCode>> = {
  NOT_AUTHENTICATED: 'AUTHENTICATION_FAILED',
  DS_AUTHENTICATION_FAILED: 'AUTHENTICATION_FAILED',
  NOT_ENROLLED: 'NOT_ENROLLED_3D_SECURE',
  PARSE_ERROR: 'BLOCKED',
  REQUEST_INVALID: 'BLOCKED',
  SIGNATURE_ERROR: 'BLOCKED',
};

const THREE_D_SECURE_MARKERS: ReadonlySet<string> = new Set(THREE_D_SECURE_CODES);

/** `3DS_<code>` as a word of card.holder.lastName, e.g. "Smith 3DS_NOT_AUTHENTICATED". */
export function threeDSecureMarker(lastName: string | undefined): ThreeDSecureCode | undefined {
  for (const word of words(lastName)) {
    const code = word.startsWith('3DS_') ? word.slice(4) : '';
    if (THREE_D_SECURE_MARKERS.has(code)) return code as ThreeDSecureCode;
  }
  return undefined;
}

/** The final outcome of a payment answered UNKNOWN: by the parity of its amount in minor units. */
export function unknownResolution(amountMinor: number): { gatewayCode: 'APPROVED' | 'DECLINED'; rule: string } {
  return amountMinor % 2 === 0
    ? { gatewayCode: 'APPROVED', rule: 'amount in minor units is even: APPROVED' }
    : { gatewayCode: 'DECLINED', rule: 'amount in minor units is odd: DECLINED' };
}
