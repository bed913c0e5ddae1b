// 3-D Secure on the order aggregate, as the real test environment's emulator runs it
// (authentication-cards.ts): Initiate Authentication records an AUTHENTICATION transaction (is
// 3-D Secure available for the card?), Authenticate Payer asks the ACS (frictionless: the outcome
// at once; else a challenge), and the payer's answer on the challenge page finishes it. Every step
// is recorded with its outcome; an identical repeat of a step answers what it answered.
import { EmulatedAuthenticationError, InvalidRequest } from '../errors.js';
import type { AuthenticationEvent, AuthenticationOutcome, AuthenticationStatus, OrderSource, PayerAuthenticated } from '../events.js';
import {
  challengeEci, CHALLENGE_OUTCOMES, CHALLENGE_TOKEN, testCardOf, type CardBehaviour, type EciFamily, type TransactionStatus,
} from './authentication-cards.js';
import type { Authentication } from './authentication-state.js';
import type { AnswerChallenge, AuthenticatePayer, AuthenticationStep, InitiateAuthentication, OrderDecision } from './commands.js';
import { differentRequest } from './hold.js';
import type { OrderState } from './order-state.js';
import { checkCurrency } from './totals.js';

type Decision = OrderDecision<AuthenticationStep>;
type Existing = Extract<OrderState, { exists: true }>;

const authenticationsOf = (state: OrderState): ReadonlyMap<string, Authentication> | undefined =>
  state.exists ? state.modern?.authentications : undefined;

/** The order has a payment (of either API): an authentication no longer changes its status. */
const hasPayments = (state: OrderState): state is Existing =>
  state.exists && (state.transactions.size > 0 || (state.modern?.operations.size ?? 0) > 0);

/** The id is a payment's (not an authentication's). */
const paymentId = (state: OrderState, id: string): boolean =>
  state.exists && (state.transactions.has(id) || state.modern?.operations.has(id) === true);

/** order.status after an authentication step: the authentication's own, until the order has a payment. */
function orderStatusAfter(state: OrderState, outcome: AuthenticationOutcome): string {
  if (hasPayments(state)) return state.status;
  return ORDER_STATUS[outcome.authenticationStatus];
}

const ORDER_STATUS: Readonly<Record<AuthenticationStatus, string>> = {
  AUTHENTICATION_AVAILABLE: 'AUTHENTICATION_INITIATED',
  AUTHENTICATION_PENDING: 'AUTHENTICATION_INITIATED',
  AUTHENTICATION_NOT_SUPPORTED: 'AUTHENTICATION_NOT_NEEDED',
  AUTHENTICATION_SUCCESSFUL: 'AUTHENTICATED',
  AUTHENTICATION_ATTEMPTED: 'AUTHENTICATED',
  AUTHENTICATION_EXEMPT: 'AUTHENTICATED',
  AUTHENTICATION_FAILED: 'AUTHENTICATION_UNSUCCESSFUL',
  AUTHENTICATION_REJECTED: 'AUTHENTICATION_UNSUCCESSFUL',
  AUTHENTICATION_UNAVAILABLE: 'AUTHENTICATION_UNSUCCESSFUL',
};

const STATUS_OF: Readonly<Record<TransactionStatus, AuthenticationStatus>> = {
  Y: 'AUTHENTICATION_SUCCESSFUL', A: 'AUTHENTICATION_ATTEMPTED', I: 'AUTHENTICATION_EXEMPT',
  N: 'AUTHENTICATION_FAILED', U: 'AUTHENTICATION_UNAVAILABLE', R: 'AUTHENTICATION_REJECTED',
};

/** While a payment holds the order (a merchant rule's latency), a step waits for it. */
function heldBy(state: OrderState, now: string): Decision | undefined {
  const lock = state.inProgress;
  return lock && lock.lockExpiresAt > now ? { kind: 'inFlight', until: lock.lockExpiresAt } : undefined;
}

const recorded = (event: AuthenticationEvent, authentication: Authentication, step: AuthenticationStep['step']): Decision =>
  ({ kind: 'recorded', events: [event], transaction: { authentication, step } });

/** Who answers on the browser channel: 3-D Secure 2 for the emulator's cards, when the request accepts it. */
function versionFor(c: InitiateAuthentication): '3DS2' | 'NONE' {
  const card = testCardOf(c.source.card.number);
  const accepted = c.acceptVersions === undefined || c.acceptVersions.split(',').map((v) => v.trim()).includes('3DS2');
  return card && accepted && c.channel === 'PAYER_BROWSER' ? '3DS2' : 'NONE';
}

/** INITIATE_AUTHENTICATION: AUTHENTICATION_AVAILABLE (version 3DS2) or AUTHENTICATION_NOT_SUPPORTED (NONE). */
export function decideInitiateAuthentication(c: InitiateAuthentication, state: OrderState): Decision {
  const own = authenticationsOf(state)?.get(c.transactionId);
  if (own?.initiated.requestFingerprint === c.requestFingerprint) return { kind: 'replayed', transaction: { authentication: own, step: 'initiate' } };
  if (own || paymentId(state, c.transactionId)) throw differentRequest(c, 'recorded');
  const held = heldBy(state, c.now);
  if (held) return held;
  checkCurrency(state, c.currency, 'order.currency');
  if (testCardOf(c.source.card.number)?.behaviour.kind === 'initiateError') throw new EmulatedAuthenticationError('INITIATE_AUTHENTICATION');
  const version = versionFor(c);
  const outcome: AuthenticationOutcome = { authenticationStatus: version === '3DS2' ? 'AUTHENTICATION_AVAILABLE' : 'AUTHENTICATION_NOT_SUPPORTED' };
  const event: AuthenticationEvent = {
    type: 'AuthenticationInitiated',
    data: {
      merchantId: c.merchantId, orderId: c.orderId, transactionId: c.transactionId, requestFingerprint: c.requestFingerprint,
      outcome, orderStatus: orderStatusAfter(state, outcome), timeOfRecord: c.now,
      currency: c.currency, source: c.source, channel: c.channel, purpose: c.purpose,
      ...(c.acceptVersions !== undefined ? { acceptVersions: c.acceptVersions } : {}),
      ...(c.orderReference !== undefined ? { orderReference: c.orderReference } : {}),
      ...(c.transactionReference !== undefined ? { transactionReference: c.transactionReference } : {}),
      version, methodSupported: version === '3DS2' && testCardOf(c.source.card.number)?.method === true,
      threeDSServerTransactionId: c.threeDSServerTransactionId,
      ...(c.billing !== undefined ? { billing: c.billing } : {}),
      ...(c.customer !== undefined ? { customer: c.customer } : {}),
      ...(c.entryPoint !== undefined ? { gatewayEntryPoint: c.entryPoint } : {}),
    },
  };
  return recorded(event, { initiated: event.data, outcome, orderStatus: event.data.orderStatus, lastUpdated: c.now }, 'initiate');
}

/** The outcome of a finished authentication with transStatus `status` (none: the ACS could not authenticate). */
export function finishedOutcome(status: TransactionStatus | undefined, extra: Omit<AuthenticationOutcome, 'authenticationStatus' | 'transactionStatus'> = {}): AuthenticationOutcome {
  if (status === undefined) return { authenticationStatus: 'AUTHENTICATION_UNAVAILABLE' };
  return { authenticationStatus: STATUS_OF[status], transactionStatus: status, ...extra };
}

/** What the ACS answers Authenticate Payer for a card's behaviour. */
function payerOutcome(behaviour: CardBehaviour | undefined): AuthenticationOutcome {
  switch (behaviour?.kind) {
    case undefined:
      return { authenticationStatus: 'AUTHENTICATION_NOT_SUPPORTED' };
    case 'initiateError':
    case 'authenticateError':
      throw new EmulatedAuthenticationError('AUTHENTICATE_PAYER');
    case 'unavailable':
      return finishedOutcome(undefined);
    case 'challenge':
      return { authenticationStatus: 'AUTHENTICATION_PENDING', transactionStatus: 'C' };
    case 'frictionless': {
      const { status, reason, eci, token } = behaviour;
      return finishedOutcome(status, {
        ...(reason !== undefined ? { statusReasonCode: reason } : {}), ...(eci !== undefined ? { eci } : {}),
        ...(token !== undefined ? { authenticationToken: token } : {}),
      });
    }
  }
}

const sameCard = (a: OrderSource, b: OrderSource): boolean => a.card.number === b.card.number;

/** The authentication a step names, on an existing order (else 400 on the transaction id). */
function authenticationNamed(c: { orderId: string; transactionId: string }, state: OrderState): Authentication {
  const found = authenticationsOf(state)?.get(c.transactionId);
  if (found) return found;
  if (paymentId(state, c.transactionId)) throw differentRequest(c, 'recorded');
  throw new InvalidRequest(
    `Value '${c.transactionId}' is invalid. No authentication was initiated with this transaction id on order ${c.orderId}: Initiate Authentication first`, 'transactionId');
}

/** AUTHENTICATE_PAYER: frictionless (the outcome at once) or a challenge (PENDING: the payer goes to the challenge page). */
export function decideAuthenticatePayer(c: AuthenticatePayer, state: OrderState): Decision {
  const authentication = authenticationNamed(c, state);
  const payer = authentication.payer;
  if (payer?.requestFingerprint === c.requestFingerprint) return { kind: 'replayed', transaction: { authentication, step: 'payer' } };
  if (payer) throw differentRequest(c, 'recorded');
  const held = heldBy(state, c.now);
  if (held) return held;
  const { initiated } = authentication;
  if (c.currency !== initiated.currency) {
    throw new InvalidRequest(`Value '${c.currency}' is invalid. The authentication was initiated in ${initiated.currency}`, 'order.currency');
  }
  if (c.source && !sameCard(c.source, initiated.source)) {
    throw new InvalidRequest('Value is invalid. The card is not the one the authentication was initiated with', 'sourceOfFunds');
  }
  const outcome = payerOutcome(initiated.version === '3DS2' ? testCardOf(initiated.source.card.number)?.behaviour : undefined);
  const { amount, currency, redirectResponseUrl, acsTransactionId, dsTransactionId, device, billing, customer } = c;
  const challenged = outcome.transactionStatus === 'C';
  const data: PayerAuthenticated['data'] = {
    merchantId: c.merchantId, orderId: c.orderId, transactionId: c.transactionId, requestFingerprint: c.requestFingerprint,
    outcome, orderStatus: orderStatusAfter(state, outcome), timeOfRecord: c.now,
    amount, currency, redirectResponseUrl, acsTransactionId, dsTransactionId, ...(device ? { device } : {}), ...(billing ? { billing } : {}),
    ...(customer ? { customer } : {}),
  };
  const event: AuthenticationEvent = challenged ? { type: 'PayerAuthenticationStarted', data } : { type: 'PayerAuthenticated', data };
  const after: Authentication = { ...authentication, payer: data, challenged, outcome, orderStatus: data.orderStatus, lastUpdated: c.now };
  return recorded(event, after, 'payer');
}

/** The ECI family of the authentication's card: the emulator's row, else by the card's brand. */
function eciFamilyOf(source: OrderSource): EciFamily {
  const card = testCardOf(source.card.number);
  if (card) return card.eciFamily;
  return source.card.brand === 'MASTERCARD' || source.card.brand === 'MAESTRO' ? 'MASTERCARD' : 'VISA';
}

/**
 * The payer's answer on the challenge page: the authentication finishes with it. Only a challenge
 * open on this authentication, named by its creq's 3DS server transaction id, is answered; the
 * first answer stands (a second one is answered with the first).
 */
export function decideAnswerChallenge(c: AnswerChallenge, state: OrderState): Decision {
  const authentication = authenticationsOf(state)?.get(c.transactionId);
  if (!authentication?.challenged || authentication.initiated.threeDSServerTransactionId !== c.threeDSServerTransactionId) {
    throw new InvalidRequest('Value is invalid. No challenge is open for this request', 'creq');
  }
  if (authentication.challenge) return { kind: 'replayed', transaction: { authentication, step: 'challenge' } };
  const { status, challengeCancel } = CHALLENGE_OUTCOMES[c.answer];
  const passed = status === 'Y';
  const outcome = finishedOutcome(status, {
    ...(challengeCancel !== undefined ? { challengeCancel } : {}),
    ...(status !== undefined ? { eci: challengeEci(eciFamilyOf(authentication.initiated.source), passed) } : {}),
    ...(passed ? { authenticationToken: CHALLENGE_TOKEN } : {}),
  });
  const event: AuthenticationEvent = {
    type: 'ChallengeAnswered',
    data: {
      merchantId: c.merchantId, orderId: c.orderId, transactionId: c.transactionId, outcome,
      orderStatus: orderStatusAfter(state, outcome), timeOfRecord: c.now, answer: c.answer, ...(c.byCode ? { byCode: true } : {}),
    },
  };
  const after: Authentication = { ...authentication, challenge: event.data, outcome, orderStatus: event.data.orderStatus, lastUpdated: c.now };
  return recorded(event, after, 'challenge');
}
