// A Hosted Checkout session: a session (session.ts: the card the payer types in, its expiry) with
// the checkout the merchant initiated, folded from the same stream. Its status for the payment
// page: OPEN until paid, finally declined (no attempt left), cancelled by the payer, or past its
// expiry (interaction.timeout, or a payment link's expiryDateTime). Pure; time, ids and indicators passed in.
import { InvalidRequest } from '../errors.js';
import type { PayerDetails } from '../payer-details.js';
import type { SessionEvent } from './events.js';
import { evolveSession, initialSessionState, usable, type SessionState } from './session.js';
import type {
  CheckoutAuthenticationStarted, CheckoutCancelled, CheckoutCompleted, CheckoutEvent, CheckoutInitiated, CheckoutPageShown, CheckoutPaymentDeclined,
} from './checkout-events.js';

export type CheckoutStatus = 'OPEN' | 'PAID' | 'DECLINED' | 'CANCELLED' | 'EXPIRED';

export interface CheckoutState {
  session: SessionState;
  checkout?: CheckoutInitiated['data'];
  shown: boolean;
  /** Attempts declined so far. */
  declined: number;
  lastDecline?: CheckoutPaymentDeclined['data'];
  /** The authentication of the current attempt, once begun. */
  authentication?: CheckoutAuthenticationStarted['data'];
  completed?: CheckoutCompleted['data'];
  cancelledAt?: string;
}

export const initialCheckoutState = (): CheckoutState => ({ session: initialSessionState(), shown: false, declined: 0 });

export function evolveCheckout(state: CheckoutState, event: SessionEvent | CheckoutEvent): CheckoutState {
  switch (event.type) {
    case 'SessionCreated':
    case 'SessionUpdated':
    case 'SessionExpired':
      return { ...state, session: evolveSession(state.session, event) };
    case 'CheckoutInitiated':
      return { ...state, checkout: event.data };
    case 'CheckoutPageShown':
      return { ...state, shown: true };
    case 'CheckoutAuthenticationStarted':
      return { ...state, authentication: event.data };
    case 'CheckoutPaymentDeclined': {
      const { authentication: _done, ...rest } = state;
      return { ...rest, declined: event.data.attempt, lastDecline: event.data };
    }
    case 'CheckoutCompleted':
      return { ...state, completed: event.data };
    case 'CheckoutCancelled':
      return { ...state, cancelledAt: event.data.cancelledAt };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** The checkout's status at `now` (a session's lifetime: `lifetimeMs`, for sessions without a recorded expiry). */
export function checkoutStatus(state: CheckoutState, now: string, lifetimeMs: number): CheckoutStatus {
  if (state.completed) return state.completed.outcome;
  if (state.cancelledAt !== undefined) return 'CANCELLED';
  return usable(state.session, now, lifetimeMs) ? 'OPEN' : 'EXPIRED';
}

export const attemptsLeft = (state: CheckoutState): number => Math.max(0, (state.checkout?.attemptsAllowed ?? 0) - state.declined);

/** The attempt a payment now makes (1, 2, ...): its payment is transaction "1", "2", ... of the order. */
export const currentAttempt = (state: CheckoutState): number => state.declined + 1;

export class CheckoutClosed extends InvalidRequest {
  constructor(status: CheckoutStatus) {
    super(`Value is invalid. The checkout is ${status}: it takes no more payments`, 'sessionId');
    this.name = 'CheckoutClosed';
  }
}

/** Refuses a step of the payer's on a checkout that is no longer open. */
export function requireOpen(state: CheckoutState, now: string, lifetimeMs: number): asserts state is CheckoutState & { checkout: CheckoutInitiated['data'] } {
  const status = checkoutStatus(state, now, lifetimeMs);
  if (status !== 'OPEN' || !state.checkout) throw new CheckoutClosed(status);
}

const ids = (state: CheckoutState) => ({ merchantId: state.checkout?.merchantId ?? '', sessionId: state.checkout?.sessionId ?? '' });

/** The payment page shown: once, while the checkout is open. */
export function decideShowPage(state: CheckoutState, now: string, lifetimeMs: number): CheckoutPageShown[] {
  if (state.shown || !state.checkout || checkoutStatus(state, now, lifetimeMs) !== 'OPEN') return [];
  return [{ type: 'CheckoutPageShown', data: { ...ids(state), shownAt: now } }];
}

/** The payer cancelled: refused once the checkout is no longer open; a second cancel records nothing. */
export function decideCancel(state: CheckoutState, now: string, lifetimeMs: number): CheckoutCancelled[] {
  if (state.cancelledAt !== undefined) return [];
  requireOpen(state, now, lifetimeMs);
  return [{ type: 'CheckoutCancelled', data: { ...ids(state), cancelledAt: now } }];
}

/** An authentication begun for the current attempt (recorded once per attempt). */
export function decideAuthenticationStarted(
  state: CheckoutState,
  c: { attempt: number; transactionId: string; challenged: boolean; token?: string | undefined; details?: PayerDetails | undefined; now: string; lifetimeMs: number },
): CheckoutAuthenticationStarted[] {
  if (state.authentication?.attempt === c.attempt || c.attempt !== currentAttempt(state)) return [];
  requireOpen(state, c.now, c.lifetimeMs);
  return [{
    type: 'CheckoutAuthenticationStarted',
    data: {
      ...ids(state), attempt: c.attempt, transactionId: c.transactionId, challenged: c.challenged,
      ...(c.token === undefined ? {} : { token: c.token }), ...(c.details === undefined ? {} : { details: c.details }), startedAt: c.now,
    },
  }];
}

/** What the payment of an attempt ended in. */
export interface AttemptOutcome {
  attempt: number;
  transactionId?: string;
  approved: boolean;
  gatewayCode?: string;
  sessionVersion: string;
  /** Drawn by the caller: sent back when the checkout ends declined. */
  failureIndicator: string;
  now: string;
}

/**
 * The attempt's outcome: approved, the checkout completes PAID; declined with attempts left, the
 * payer stays on the page; declined with none left, it completes DECLINED. An attempt already
 * recorded (a repeat of the same payment) records nothing.
 */
export function decideAttemptOutcome(state: CheckoutState, c: AttemptOutcome): Array<CheckoutPaymentDeclined | CheckoutCompleted> {
  if (state.completed || c.attempt !== currentAttempt(state)) return [];
  const completed = (outcome: 'PAID' | 'DECLINED'): CheckoutCompleted => ({
    type: 'CheckoutCompleted',
    data: {
      ...ids(state), outcome, attempt: c.attempt,
      ...(c.transactionId === undefined ? {} : { transactionId: c.transactionId }),
      ...(c.gatewayCode === undefined ? {} : { gatewayCode: c.gatewayCode }),
      sessionVersion: c.sessionVersion, ...(outcome === 'DECLINED' ? { resultIndicator: c.failureIndicator } : {}), completedAt: c.now,
    },
  });
  if (c.approved) return [completed('PAID')];
  const left = attemptsLeft(state) - 1;
  const declined: CheckoutPaymentDeclined = {
    type: 'CheckoutPaymentDeclined',
    data: { ...ids(state), attempt: c.attempt, transactionId: c.transactionId ?? '', gatewayCode: c.gatewayCode ?? 'DECLINED', attemptsLeft: left, declinedAt: c.now },
  };
  return left > 0 ? [declined] : [declined, completed('DECLINED')];
}

/**
 * `url` with resultIndicator and sessionVersion merged into its query (the merchant's own
 * parameters kept, as the gateway appends to a returnUrl that has a query).
 */
export function returnUrlOf(url: string, resultIndicator: string, sessionVersion: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('resultIndicator', resultIndicator);
  parsed.searchParams.set('sessionVersion', sessionVersion);
  return parsed.href;
}
