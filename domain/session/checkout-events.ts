// Hosted Checkout's events, in the checkout session's stream beside the session's own (the card the
// payer types into the payment page's hosted fields is a SessionUpdated, its expiry a
// SessionExpired): the checkout initiated by the merchant, the payment page shown, a 3-D Secure
// authentication begun for an attempt, an attempt declined, the checkout completed (the payer
// sent back to the merchant), cancelled by the payer. The payments themselves are the order's
// events (OrderTransactionRecorded, gatewayEntryPoint CHECKOUT).
import type { CheckoutDisplay, PayerDetails } from '../payer-details.js';

/** interaction.operation: what the payment page does with the card (NONE: only collects it into the session). */
export type CheckoutOperation = 'PURCHASE' | 'AUTHORIZE' | 'VERIFY' | 'NONE';

export interface CheckoutOrder {
  id: string;
  /** Minor units of the currency (VERIFY and NONE: what the merchant sent, shown on the page). */
  amount: number;
  currency: string;
  description?: string;
  reference?: string;
  /** Where the order's notifications go (allowed by the merchants file when initiated). */
  notificationUrl?: string;
}

export interface CheckoutInitiated {
  type: 'CheckoutInitiated';
  data: {
    merchantId: string;
    sessionId: string;
    apiOperation: 'INITIATE_CHECKOUT' | 'CREATE_CHECKOUT_SESSION';
    /** The request's version: the payments' answers and notifications are in it. */
    apiVersion: number;
    operation: CheckoutOperation;
    order: CheckoutOrder;
    transactionReference?: string;
    returnUrl?: string;
    cancelUrl?: string;
    timeoutUrl?: string;
    /** Where the payer goes once the attempts are used up (kept only when retryAttemptCount came with it). */
    redirectMerchantUrl?: string;
    merchantName?: string;
    /** interaction.displayControl: what the page shows and lets the payer edit. */
    display?: CheckoutDisplay;
    /** The merchant's billing.address, customer.email and shipping.address: shown, and the payment's unless the payer changes them. */
    details?: PayerDetails;
    /** Stored cards the page offers (interaction.tokens): tokens of the merchant's repository. */
    tokens?: string[];
    /** Sealed under a key of its own: the merchant's proof of success, never in clear in the log. */
    successIndicatorSealed: string;
    /** Payment attempts the payer has (a declined one leaves the payer on the page while some are left). */
    attemptsAllowed: number;
    /** The merchant's profile runs 3-D Secure on the page (merchants file: checkout.threeDSecure). */
    threeDSecure: boolean;
    checkoutMode: 'WEBSITE' | 'PAYMENT_LINK';
    /** errorUrl: where the payer goes once the link is used up or expired. */
    paymentLink?: { id: string; expiryDateTime: string; errorUrl?: string };
    initiatedAt: string;
  };
}

export interface CheckoutPageShown {
  type: 'CheckoutPageShown';
  data: { merchantId: string; sessionId: string; shownAt: string };
}

/** A 3-D Secure authentication begun for an attempt (its steps are the order's events). */
export interface CheckoutAuthenticationStarted {
  type: 'CheckoutAuthenticationStarted';
  data: {
    merchantId: string; sessionId: string; attempt: number;
    /** The authentication's transaction id on the order. */
    transactionId: string;
    /** The ACS asked for a challenge: the payment waits for the payer's answer (acs-return). */
    challenged: boolean;
    /** The stored token the payer chose (absent: the session's card). */
    token?: string;
    /** The payer's details the attempt's payment carries (it is made after the challenge). */
    details?: PayerDetails;
    startedAt: string;
  };
}

export interface CheckoutPaymentDeclined {
  type: 'CheckoutPaymentDeclined';
  data: { merchantId: string; sessionId: string; attempt: number; transactionId: string; gatewayCode: string; attemptsLeft: number; declinedAt: string };
}

export interface CheckoutCompleted {
  type: 'CheckoutCompleted';
  data: {
    merchantId: string; sessionId: string;
    outcome: 'PAID' | 'DECLINED';
    attempt: number;
    /** The payment of the last attempt (absent for interaction.operation NONE: no payment). */
    transactionId?: string;
    gatewayCode?: string;
    /** The session's version the payer is sent back with. */
    sessionVersion: string;
    /** DECLINED: the resultIndicator sent back (never the successIndicator); PAID sends the successIndicator. */
    resultIndicator?: string;
    completedAt: string;
  };
}

export interface CheckoutCancelled {
  type: 'CheckoutCancelled';
  data: { merchantId: string; sessionId: string; cancelledAt: string };
}

export type CheckoutEvent = CheckoutInitiated | CheckoutPageShown | CheckoutAuthenticationStarted | CheckoutPaymentDeclined | CheckoutCompleted | CheckoutCancelled;
export const CHECKOUT_EVENT_TYPES: ReadonlySet<string> = new Set<CheckoutEvent['type']>([
  'CheckoutInitiated', 'CheckoutPageShown', 'CheckoutAuthenticationStarted', 'CheckoutPaymentDeclined', 'CheckoutCompleted', 'CheckoutCancelled',
]);
