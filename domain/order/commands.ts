// The commands of the order aggregate (one order stream: version 3's Pay with token and the order
// API's transactions share it) and what deciding a transaction gives (order.ts decide). Pure
// data: the acquirer's references and the time are in each command.
import type { PayerDetails } from '../payer-details.js';
import type { ApiOperation, AuthenticationOperation, CardHolder, OrderEvent, OrderSource, PayerRequest, PaymentRecorded, StepBilling, StepCustomer, PaymentStarted, StoredCard } from '../events.js';
import type { MerchantRule } from '../merchant-rules.js';
import type { ChallengeOption } from './authentication-cards.js';
import type { Authentication } from './authentication-state.js';
import type { OrderTransaction } from './order-state.js';
import type { GatewayCode } from './triggers.js';

/**
 * References the acquirer would assign, made by the caller so decide stays pure (from the
 * transaction's ids: services/order/acquirer-ids.ts; every third character a letter).
 */
export interface AcquirerIds {
  authorizationCode: string; // 6 characters
  receipt: string; // 12 characters
  stan: string; // 6 characters
  acquirerTransactionId: string; // 20 hexadecimal digits
  batch: number;
}

/** What every command that may record a transaction says of itself (both paths). */
interface TransactionFields {
  merchantId: string;
  orderId: string;
  transactionId: string;
  requestFingerprint: string;
  /** Identifies this request among repeats of it: the one whose PaymentStarted holds the order records. */
  attemptId?: string | undefined;
  acquirerMerchantId: string;
  ids: AcquirerIds;
  now: string;
}

/** Version 3's Pay with token: one PAYMENT with the token's card. */
export interface PayWithToken extends TransactionFields {
  type: 'PayWithToken';
  repositoryId: string;
  token: string;
  card: Omit<StoredCard, 'numberSealed'>;
  amount: number;
  currency: string;
  /** Only used to choose the CSC response; never recorded. */
  securityCode: string | undefined;
  billingStreet: string | undefined;
  orderReference: string | undefined;
  transactionReference: string | undefined;
  source: string | undefined;
  frequency: string | undefined;
  cashAdvance: boolean | undefined;
  taxLocal: { amount?: number; exempt?: boolean; reference?: string } | undefined;
  holder?: CardHolder | undefined;
  /** The merchant's own rules (merchants file). */
  rules?: readonly MerchantRule[];
  /** action.bypassMerchantRiskRules ALL. */
  bypassMerchantRiskRules?: boolean;
}

/** A transaction of the order API (PUT .../order/{orderId}/transaction/{transactionId}); `type` is its apiOperation. */
interface ApiTransaction<Type extends ApiOperation | AuthenticationOperation> extends TransactionFields {
  type: Type;
  transactionReference?: string | undefined;
}

/** PAY, AUTHORIZE, VERIFY: the acquirer decides on the card (payment-outcome.ts). */
export interface Initiating<Type extends 'PAY' | 'AUTHORIZE' | 'VERIFY' = 'PAY' | 'AUTHORIZE' | 'VERIFY'> extends ApiTransaction<Type> {
  /** order.amount in minor units (VERIFY: 0). */
  amount: number;
  currency: string;
  /** The card: sent, held by a session, or the token's. */
  source: OrderSource;
  /** Only used to choose the CSC response; never recorded. */
  securityCode?: string | undefined;
  billingStreet?: string | undefined;
  orderReference?: string | undefined;
  /** Where the 3-D Secure marker is read (the card holder's name). */
  holderLastName?: string | undefined;
  rules: readonly MerchantRule[];
  bypassMerchantRiskRules?: boolean;
  /** authentication.transactionId: the order's 3-D Secure authentication this payment uses. */
  authenticationTransactionId?: string | undefined;
  /** Made by the gateway's payment page (Hosted Checkout), not by a request of the merchant. */
  entryPoint?: 'CHECKOUT' | undefined;
  /** The payer's details: the request's billing address and customer, or the payment page's (interaction.displayControl). */
  payer?: PayerDetails | undefined;
}

/** CAPTURE, REFUND: transaction.amount of the order's authorized (captured) amount. */
export interface FollowOn<Type extends 'CAPTURE' | 'REFUND' = 'CAPTURE' | 'REFUND'> extends ApiTransaction<Type> {
  amount: number;
  currency: string;
}

/** VOID: undoes the transaction it names. */
export interface Void extends ApiTransaction<'VOID'> {
  targetTransactionId: string;
}

/** INITIATE_AUTHENTICATION: is 3-D Secure available for the card? Records an AUTHENTICATION transaction. */
export interface InitiateAuthentication extends ApiTransaction<'INITIATE_AUTHENTICATION'> {
  currency: string;
  source: OrderSource;
  channel: string;
  purpose: string;
  acceptVersions?: string | undefined;
  orderReference?: string | undefined;
  /** The 3DS server's id for this authentication, drawn by the caller. */
  threeDSServerTransactionId: string;
  billing?: StepBilling | undefined;
  customer?: StepCustomer | undefined;
  /** CHECKOUT for the gateway's payment page's authentications. */
  entryPoint?: 'CHECKOUT' | undefined;
}

/** AUTHENTICATE_PAYER: the ACS authenticates the payer of the authentication the transaction id names. */
export interface AuthenticatePayer extends ApiTransaction<'AUTHENTICATE_PAYER'>, PayerRequest {
  /** The card sent again (it must be the authentication's); absent: the authentication's. */
  source?: OrderSource | undefined;
}

export type AuthenticationCommand = InitiateAuthentication | AuthenticatePayer;

/** The payer's answer on the challenge page (routes/acs.ts): not a request of the merchant. */
export interface AnswerChallenge {
  type: 'AnswerChallenge';
  merchantId: string;
  orderId: string;
  transactionId: string;
  /** What the challenge request (creq) named: only the browser the merchant sent there knows it. */
  threeDSServerTransactionId: string;
  answer: ChallengeOption;
  byCode?: boolean;
  now: string;
}

export type OrderApiCommand =
  | Initiating<'PAY'> | Initiating<'AUTHORIZE'> | Initiating<'VERIFY'> | FollowOn<'CAPTURE'> | FollowOn<'REFUND'> | Void | AuthenticationCommand;

/** A payment answered UNKNOWN gets its final outcome (services/order/unknown-resolver.ts). */
export interface ResolveUnknownPayment {
  type: 'ResolveUnknownPayment';
  transactionId: string;
  authorizationCode: string;
  now: string;
  /** The outcome a test chose (the test-control API), in place of the rule's. */
  chosen?: { gatewayCode: GatewayCode; rule: string };
}

/** A command that records a transaction (answered to a client). */
export type TransactionCommand = PayWithToken | OrderApiCommand;
export type OrderCommand = TransactionCommand | ResolveUnknownPayment | AnswerChallenge;

/** An authentication as one of its steps left it: the answer of that step (and of its identical repeats). */
export interface AuthenticationStep {
  authentication: Authentication;
  step: 'initiate' | 'payer' | 'challenge';
}

/**
 * The recorded transaction of a command: version 3's PaymentRecorded, the order API's
 * OrderTransactionRecorded, an authentication's step.
 */
export type RecordOf<C extends TransactionCommand> =
  C extends PayWithToken ? PaymentRecorded['data'] : C extends AuthenticationCommand ? AuthenticationStep : OrderTransaction;

/**
 * What a transaction's command decides, `transaction` being the recorded one (or, LOCK_FAILURE,
 * the one that would read so). A merchant rule's latency holds the order (PaymentStarted) while
 * the acquirer "thinks"; meanwhile another transaction on the order is answered LOCK_FAILURE (not
 * recorded) and an identical repeat waits for the record. A rule's SERVER_BUSY answers 503 and
 * records nothing; SERVER_FAILED records, and the first answer is a 500.
 */
export type OrderDecision<T> =
  | { kind: 'recorded'; events: OrderEvent[]; transaction: T; fault?: 'SERVER_FAILED' }
  | { kind: 'replayed'; transaction: T }
  /** Hold the order, wait `latencyMs`, then decide again. */
  | { kind: 'started'; events: PaymentStarted[]; latencyMs: number }
  /** The identical request is in progress elsewhere: wait for its record (or for its lock to expire). */
  | { kind: 'inFlight'; until: string }
  /** Another transaction holds the order: LOCK_FAILURE, answered but not recorded. */
  | { kind: 'locked'; transaction: T }
  /** A merchant rule's simulated SERVER_BUSY, after `latencyMs`: nothing is recorded. */
  | { kind: 'busy'; latencyMs: number };
