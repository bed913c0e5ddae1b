// The order aggregate's events (payments, their outcome resolved later) and the holds of a
// transaction.reference: every decision of the simulator inside, so replay never re-runs it.
import type { PayerDetails } from '../payer-details.js';
import type { Brand, FundingMethod, Scheme } from '../card.js';
import type { CardExpiry } from '../token/events.js';
import type { CscResponse, AvsResponse, PayResult } from './test-acquirer.js';
import type { OrderSource } from './source.js';
import { AUTHENTICATION_EVENT_TYPES, type AuthenticationEvent, type PaymentAuthentication } from './authentication-events.js';

export type { OrderSource } from './source.js';
export * from './authentication-events.js';

export type RiskGatewayCode = 'ACCEPT' | 'NOT_CHECKED' | 'REJECT' | 'REVIEW' | 'SYSTEM_REJECT';

/** response.risk: the risk assessment, present when one applies (see domain/order/triggers.ts). */
export interface RiskResponse {
  gatewayCode: RiskGatewayCode;
  reviewResult?: 'NOT_REQUIRED' | 'ORDER_CANCELLED' | 'ORDER_RELEASED' | 'PENDING';
  /** A payment rejected after authorization is reversed automatically: did the reversal work? */
  reversalTransactionResult?: 'FAIL' | 'NOT_APPLICABLE' | 'OKAY';
}

export interface PaymentOutcome {
  gatewayCode: string;
  result: PayResult;
  /** Absent when the acquirer was not contacted (blocked by the gateway first). */
  acquirerCode?: string;
  acquirerMessage?: string;
  authorizationCode?: string;
  cardSecurityCode?: CscResponse;
  avs?: AvsResponse;
  risk?: RiskResponse;
  /** response.3dsecure.gatewayCode, when the request carried a 3-D Secure marker. */
  threeDSecure?: { gatewayCode: string };
  acquirer: {
    id: string;
    batch: number;
    date: string; // MMDD
    merchantId: string;
    settlementDate: string; // YYYY-MM-DD
    timeZone: string;
    transactionId: string;
  };
  receipt?: string;
  stan?: string;
  terminal: string;
}

export interface OrderTotals { authorized: number; captured: number; refunded: number } // minor units

export interface PaymentRecorded {
  type: 'PaymentRecorded';
  data: {
    merchantId: string;
    orderId: string;
    transactionId: string;
    /** Keyed hash of the request (path and body, correlationId excluded): detects reused ids. */
    requestFingerprint: string;
    repositoryId: string;
    token: string;
    card: { number: string; brand: Brand; scheme: Scheme; fundingMethod: FundingMethod; type: string; expiry: CardExpiry };
    amount: number; // minor units
    currency: string;
    orderReference?: string;
    transactionReference?: string;
    source: string;
    frequency?: string;
    cashAdvance?: boolean;
    taxLocal?: { amount?: number; exempt?: boolean; reference?: string };
    /** card.holder.* of the request, echoed in the response. */
    holder?: CardHolder;
    /** Index of the merchant rule (merchants file) that matched, if any. */
    rule?: number;
    /** Latency a merchant rule added before the acquirer answered (ms). */
    latencyMs?: number;
    /** A merchant rule made the first answer to this payment a simulated SERVER_FAILED (500). */
    fault?: 'SERVER_FAILED';
    outcome: PaymentOutcome;
    /** The rule that chose the outcome, in words (payment-outcome.ts); absent in payments recorded before it was kept. */
    decidedBy?: string;
    orderStatus: string;
    totalsAfter: OrderTotals;
    timeOfRecord: string;
  };
}

export interface CardHolder { firstName?: string; fullName?: string; lastName?: string; middleName?: string; title?: string }

/**
 * A payment began and holds the order until `lockExpiresAt` (only when a merchant rule adds
 * acquirer latency): another transaction on the order meanwhile is answered LOCK_FAILURE, an
 * identical repeat waits for the PaymentRecorded that follows.
 */
export interface PaymentStarted {
  type: 'PaymentStarted';
  data: {
    merchantId: string;
    orderId: string;
    transactionId: string;
    requestFingerprint: string;
    /** Identifies the request that holds the lock (a repeat of it waits, it alone records). */
    attemptId: string;
    amount: number;
    currency: string;
    latencyMs: number;
    startedAt: string;
    lockExpiresAt: string;
  };
}

/** A payment answered UNKNOWN got its final outcome (the reactor of services/order/unknown-resolver.ts). */
export interface PaymentOutcomeResolved {
  type: 'PaymentOutcomeResolved';
  data: {
    merchantId: string;
    orderId: string;
    transactionId: string;
    /** APPROVED or DECLINED by the rule; a declining code of the acquirer's when a test chose it (the test-control API). */
    gatewayCode: string;
    result: 'SUCCESS' | 'FAILURE';
    acquirerCode: string;
    acquirerMessage: string;
    authorizationCode?: string;
    /** The rule that chose the outcome, e.g. "amount in minor units even: APPROVED". */
    rule: string;
    totalsAfter: OrderTotals;
    orderStatus: string;
    resolvedAt: string;
  };
}

/**
 * transaction.reference held by a request of one transaction of the merchant, about to record it
 * (stream named from an HMAC of the reference; services/order/transaction-references.ts).
 */
export interface TransactionReferenceReserved {
  type: 'TransactionReferenceReserved';
  data: {
    merchantId: string; orderId: string; transactionId: string; reservedAt: string;
    /** The request that holds it. Absent (claims recorded before holds were let go of): held for ever. */
    attemptId?: string;
  };
}

/** The request `attemptId` ended without recording its transaction: it no longer holds the reference. */
export interface TransactionReferenceReleased {
  type: 'TransactionReferenceReleased';
  data: { merchantId: string; orderId: string; transactionId: string; attemptId: string; releasedAt: string };
}

export type TransactionReferenceEvent = TransactionReferenceReserved | TransactionReferenceReleased;

/**
 * apiOperation of the order API (PUT .../order/{orderId}/transaction/{transactionId}; versions
 * 1-100 but the deactivated ones).
 */
export type ApiOperation = 'PAY' | 'AUTHORIZE' | 'CAPTURE' | 'REFUND' | 'VOID' | 'VERIFY';
/** The apiOperations of 3-D Secure (authentication-events.ts): they record an AUTHENTICATION transaction, not this event. */
export type AuthenticationOperation = 'INITIATE_AUTHENTICATION' | 'AUTHENTICATE_PAYER';
export type TransactionType =
  | 'PAYMENT' | 'AUTHORIZATION' | 'CAPTURE' | 'REFUND' | 'VERIFICATION'
  | 'VOID_AUTHORIZATION' | 'VOID_CAPTURE' | 'VOID_PAYMENT' | 'VOID_REFUND';


/**
 * A transaction of the order API (versions 1-100 but the deactivated ones): every decision inside
 * (outcome, the order's status and totals after it, the card it used), so replay and retrieval
 * never decide again.
 */
export interface OrderTransactionRecorded {
  type: 'OrderTransactionRecorded';
  data: {
    merchantId: string;
    orderId: string;
    transactionId: string;
    /** Keyed hash of the request (operation and body, correlationId excluded): detects reused ids. */
    requestFingerprint: string;
    apiOperation: ApiOperation;
    transactionType: TransactionType;
    amount: number; // minor units; 0 for VERIFY
    currency: string;
    /** order.amount of a PAY or AUTHORIZE (minor units). */
    orderAmount?: number;
    /** VOID: the transaction voided. */
    targetTransactionId?: string;
    source?: OrderSource;
    orderReference?: string;
    transactionReference?: string;
    /** PAY, AUTHORIZE, VERIFY: index of the merchant rule (merchants file) that matched, if any. */
    rule?: number;
    /** PAY, AUTHORIZE, VERIFY naming authentication.transactionId: the 3-D Secure result it used. */
    authentication?: PaymentAuthentication;
    /** CHECKOUT: made by the gateway's payment page (Hosted Checkout); absent: by the merchant's request (WEB_SERVICES_API). */
    gatewayEntryPoint?: 'CHECKOUT';
    /** The payer's details, shown as sent: a PAY's, AUTHORIZE's or VERIFY's billing.address and customer.*, or the payment page's billing.address, customer.email, shipping.address. */
    payer?: PayerDetails;
    outcome: PaymentOutcome;
    /** The rule that chose the outcome, in words (payment-outcome.ts; a capture, refund or void: the order's totals). */
    decidedBy?: string;
    orderStatus: string;
    totalsAfter: OrderTotals;
    timeOfRecord: string;
  };
}

export type OrderEvent = PaymentRecorded | PaymentStarted | PaymentOutcomeResolved | OrderTransactionRecorded | AuthenticationEvent;
const PAYMENT_EVENT_TYPES: ReadonlyArray<OrderEvent['type']> = ['PaymentRecorded', 'PaymentStarted', 'PaymentOutcomeResolved', 'OrderTransactionRecorded'];
export const ORDER_EVENT_TYPES: ReadonlySet<string> = new Set([...PAYMENT_EVENT_TYPES, ...AUTHENTICATION_EVENT_TYPES]);
