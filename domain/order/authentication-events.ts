// The events of 3-D Secure on an order: an authentication is a transaction of the order (type
// AUTHENTICATION) whose record changes as the payer goes through it. Each event holds every
// decision of the emulator (domain/order/authentication-cards.ts), so replay never decides again.
import type { PayerDetails } from '../payer-details.js';
import type { OrderSource } from './source.js';
import type { ChallengeOption, TransactionStatus } from './authentication-cards.js';

/** transaction.authenticationStatus (and order.authenticationStatus) of an authentication. */
export type AuthenticationStatus =
  | 'AUTHENTICATION_AVAILABLE' | 'AUTHENTICATION_NOT_SUPPORTED' | 'AUTHENTICATION_PENDING' | 'AUTHENTICATION_SUCCESSFUL'
  | 'AUTHENTICATION_ATTEMPTED' | 'AUTHENTICATION_EXEMPT' | 'AUTHENTICATION_FAILED' | 'AUTHENTICATION_UNAVAILABLE'
  | 'AUTHENTICATION_REJECTED';

/** Where an authentication stands: its status and, once the ACS answered, the 3-D Secure result. */
export interface AuthenticationOutcome {
  authenticationStatus: AuthenticationStatus;
  /** authentication.3ds2.transactionStatus: C while the challenge is open. */
  transactionStatus?: TransactionStatus | 'C';
  statusReasonCode?: string;
  /** authentication.3ds2.challengeCancel: the payer cancelled the challenge. */
  challengeCancel?: string;
  /** authentication.3ds.acsEci. */
  eci?: string;
  /** authentication.3ds.authenticationToken (the CAVV/AAV). */
  authenticationToken?: string;
}

/** billing.address as a step's request sent it (the typed members), echoed by the authentication's answers. */
export type StepBilling = PayerDetails['billing'];
/** customer.email as a step's request sent it, echoed by the authentication's answers. */
export type StepCustomer = PayerDetails['customer'];

/** The request facts every step of an authentication records. */
interface StepFacts {
  merchantId: string;
  orderId: string;
  transactionId: string;
  /** Keyed hash of the request (its operation and body, correlationId excluded): an identical repeat is recognised. */
  requestFingerprint: string;
  outcome: AuthenticationOutcome;
  /** order.status after this step. */
  orderStatus: string;
  timeOfRecord: string;
}

/** INITIATE_AUTHENTICATION: the order records an AUTHENTICATION transaction for the card. */
export interface AuthenticationInitiated {
  type: 'AuthenticationInitiated';
  data: StepFacts & {
    currency: string;
    /** The card, its number masked 6.4 (with the token or session that gave it). */
    source: OrderSource;
    channel: string;
    purpose: string;
    acceptVersions?: string;
    orderReference?: string;
    transactionReference?: string;
    /** authentication.version: 3DS2, or NONE when the card has no 3-D Secure. */
    version: '3DS2' | 'NONE';
    /** The card's ACS has a method URL (authentication.3ds2.methodSupported). */
    methodSupported: boolean;
    /** authentication.3ds2.3dsServerTransactionId; also what the challenge request (creq) names. */
    threeDSServerTransactionId: string;
    billing?: StepBilling;
    customer?: StepCustomer;
    /** CHECKOUT: started by the gateway's payment page (Hosted Checkout); absent: by the merchant's request (WEB_SERVICES_API). */
    gatewayEntryPoint?: 'CHECKOUT';
  };
}

/** What the merchant sent on AUTHENTICATE_PAYER, kept for the answer and the challenge page. */
export interface PayerRequest {
  /** The amount to authenticate (minor units) and its currency. */
  amount: number;
  currency: string;
  /** Where the payer's browser goes back to once the authentication is over. */
  redirectResponseUrl: string;
  /** The ACS's and the directory server's ids of this authentication. */
  acsTransactionId: string;
  dsTransactionId: string;
  device?: { browser?: string; ipAddress?: string; challengeWindowSize?: string };
  billing?: StepBilling;
  customer?: StepCustomer;
}

/** AUTHENTICATE_PAYER: the ACS wants a challenge; the payer is sent to the challenge page (transStatus C). */
export interface PayerAuthenticationStarted {
  type: 'PayerAuthenticationStarted';
  data: StepFacts & PayerRequest;
}

/** AUTHENTICATE_PAYER: the ACS decided without a challenge (frictionless: Y, A, I, N, U, R, or no authentication available). */
export interface PayerAuthenticated {
  type: 'PayerAuthenticated';
  data: StepFacts & PayerRequest;
}

/** The payer answered the challenge page (the emulator's select, or a one-time code). */
export interface ChallengeAnswered {
  type: 'ChallengeAnswered';
  data: Omit<StepFacts, 'requestFingerprint'> & {
    /** The outcome picked, or the one a typed code gave. */
    answer: ChallengeOption;
    /** The payer typed a code rather than picking an outcome (the code itself is not kept). */
    byCode?: boolean;
  };
}

/** A payment (PAY, AUTHORIZE, VERIFY) that named an authentication: its 3-D Secure result as used. */
export interface PaymentAuthentication {
  /** authentication.transactionId: the AUTHENTICATION transaction of the order. */
  transactionId: string;
  version: '3DS2' | 'NONE';
  outcome: AuthenticationOutcome;
  threeDSServerTransactionId: string;
  acsTransactionId?: string;
  dsTransactionId?: string;
  /** Whether the chargeback liability moved to the issuer (a full or attempted authentication). */
  liabilityShift: boolean;
}

export type AuthenticationEvent = AuthenticationInitiated | PayerAuthenticationStarted | PayerAuthenticated | ChallengeAnswered;
export const AUTHENTICATION_EVENT_TYPES: ReadonlySet<string> = new Set<AuthenticationEvent['type']>([
  'AuthenticationInitiated', 'PayerAuthenticationStarted', 'PayerAuthenticated', 'ChallengeAnswered',
]);
