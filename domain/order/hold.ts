// What every transaction of an order checks before it is decided, on both paths (version 3's Pay
// with token, the order API): its id recorded before (an identical repeat replays, anything else
// is refused), and the order's hold. A merchant rule's latency holds the order (PaymentStarted)
// until the record or lockExpiresAt: meanwhile another transaction is answered LOCK_FAILURE (never
// recorded) and an identical repeat waits for the record.
import { InvalidRequest } from '../errors.js';
import type { PaymentOutcome, OrderTotals, PaymentStarted } from '../events.js';
import type { AcquirerIds, OrderDecision } from './commands.js';
import { LOCK_MARGIN_MS, ZERO_TOTALS, type OrderState } from './order-state.js';
import { gatewayDecision, type OutcomeRequest } from './payment-outcome.js';

/** What a request that may hold the order says of itself. */
export interface HoldingRequest {
  merchantId: string; orderId: string; transactionId: string; requestFingerprint: string;
  attemptId?: string | undefined; amount: number; currency: string; now: string;
}

/** The words of differentRequest's explanation that say what it refused (the request journal recognises the refusal by them). */
export const DIFFERENT_REQUEST = ' with a different request. ';

export const differentRequest = (c: { orderId: string; transactionId: string }, state: 'recorded' | 'in progress') => new InvalidRequest(
  `Transaction '${c.transactionId}' of order '${c.orderId}' is ${state === 'recorded' ? 'already recorded' : 'in progress'}${DIFFERENT_REQUEST}` +
  'Repeat the identical request to read its outcome, or use a new transaction id.',
);

/**
 * A transaction id recorded before: the identical request (the same fingerprint, recorded by the
 * same path: `own`) replays the record; another request, or the id taken on the other path
 * (`takenElsewhere`), is refused. Undefined: the id is new.
 */
export function replayOf<T extends { requestFingerprint: string }>(
  c: { orderId: string; transactionId: string; requestFingerprint: string }, own: T | undefined, takenElsewhere: boolean,
): OrderDecision<T> | undefined {
  if (own?.requestFingerprint === c.requestFingerprint) return { kind: 'replayed', transaction: own };
  if (own !== undefined || takenElsewhere) throw differentRequest(c, 'recorded');
  return undefined;
}

export type Hold = { kind: 'other' } | { kind: 'same'; until: string } | { kind: 'differentRequest' } | { kind: 'free'; ours: boolean };

/**
 * The order's hold as this request sees it: held by another transaction, by this one in another
 * request (`same`, until the lock expires), by this one with another body, or free (`ours`: this
 * very request holds it and now records).
 */
export function holdOf(state: OrderState, request: Pick<HoldingRequest, 'attemptId' | 'transactionId' | 'requestFingerprint' | 'now'>): Hold {
  const lock = state.inProgress;
  const ours = lock !== undefined && request.attemptId !== undefined && lock.attemptId === request.attemptId;
  if (!lock || ours || lock.lockExpiresAt <= request.now) return { kind: 'free', ours };
  if (lock.transactionId !== request.transactionId) return { kind: 'other' };
  if (lock.requestFingerprint !== request.requestFingerprint) return { kind: 'differentRequest' };
  return { kind: 'same', until: lock.lockExpiresAt };
}

/**
 * The decision while the order is held: LOCK_FAILURE (`locked`, made only then), a wait for this
 * transaction's record, or the refusal of another body for it (`says`: how its explanation words it).
 */
export function whileHeld<T>(
  hold: Exclude<Hold, { kind: 'free' }>, c: { orderId: string; transactionId: string }, locked: () => T, says: 'recorded' | 'in progress',
): OrderDecision<T> {
  if (hold.kind === 'other') return { kind: 'locked', transaction: locked() };
  if (hold.kind === 'differentRequest') throw differentRequest(c, says);
  return { kind: 'inFlight', until: hold.until };
}

/** PaymentStarted: the request holds the order for the rule's latency and a margin (a dead process frees it then). */
export function startedEvent(request: HoldingRequest, latencyMs: number): PaymentStarted {
  const lockExpiresAt = new Date(Date.parse(request.now) + latencyMs + LOCK_MARGIN_MS).toISOString();
  const { merchantId, orderId, transactionId, requestFingerprint, amount, currency, now } = request;
  const attemptId = request.attemptId ?? `${transactionId}@${now}`;
  return {
    type: 'PaymentStarted',
    data: { merchantId, orderId, transactionId, requestFingerprint, attemptId, amount, currency, latencyMs, startedAt: now, lockExpiresAt },
  };
}

/** LOCK_FAILURE as a transaction refused by the hold reads: the gateway's outcome, the order as it stands. */
export function lockFailure(state: OrderState, c: { acquirerMerchantId: string; ids: AcquirerIds; now: string }):
  { outcome: PaymentOutcome; orderStatus: string; totalsAfter: OrderTotals; timeOfRecord: string } {
  const request = { acquirerMerchantId: c.acquirerMerchantId, ids: c.ids, now: c.now } as OutcomeRequest;
  return {
    outcome: gatewayDecision(request, 'LOCK_FAILURE'),
    orderStatus: state.exists ? state.status : 'INITIATED',
    totalsAfter: state.exists ? state.totals : ZERO_TOTALS,
    timeOfRecord: c.now,
  };
}
