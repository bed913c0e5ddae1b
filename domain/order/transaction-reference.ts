// Who holds a transaction.reference of version 3's Pay with token (the stream
// `txref-<merchantId>:<keyed hash>`), and the decisions to hold and to let go of it. Pure; the
// protocol around the order's own append is services/order/transaction-references.ts.
//
// A reference is held by requests of one transaction (order, transaction), each by its own attempt
// id: identical requests of a transaction may run at once, and one of them may end without
// recording (LOCK_FAILURE, its twin recorded first) while another records. It is free again only
// when every request that held it has let go, so it is never freed under a recorded transaction.
import { InvalidRequest } from '../errors.js';
import type { TransactionReferenceEvent, TransactionReferenceReleased, TransactionReferenceReserved } from './events.js';

/** The transaction whose requests hold the reference, and those requests (none left: free). */
export interface ReferenceHold { orderId: string; transactionId: string; attempts: ReadonlySet<string> }
export type ReferenceState = ReferenceHold | undefined;

/** A claim recorded before holds were let go of names no attempt: this one, never released. */
const FOREVER = '';

const sameTransaction = (hold: ReferenceHold, data: { orderId: string; transactionId: string }) =>
  hold.orderId === data.orderId && hold.transactionId === data.transactionId;

export function evolveReference(state: ReferenceState, event: TransactionReferenceEvent): ReferenceState {
  const d = event.data;
  if (event.type === 'TransactionReferenceReserved') {
    const attempts = new Set(state && state.attempts.size > 0 && sameTransaction(state, d) ? state.attempts : []);
    attempts.add(event.data.attemptId ?? FOREVER);
    return { orderId: d.orderId, transactionId: d.transactionId, attempts };
  }
  if (!state || !sameTransaction(state, d) || !state.attempts.has(event.data.attemptId)) return state;
  const attempts = new Set(state.attempts);
  attempts.delete(event.data.attemptId);
  return { ...state, attempts };
}

export interface ReferenceClaim {
  merchantId: string; orderId: string; transactionId: string; reference: string;
  /** The request claiming it. */
  attemptId: string;
  now: string;
}

/**
 * Hold the reference for this request: free, or held by requests of the same transaction (an
 * identical retry), it is ours too; held by requests of another transaction, refused (400).
 */
export function decideHold(state: ReferenceState, claim: ReferenceClaim): TransactionReferenceReserved[] {
  if (state && state.attempts.size > 0) {
    if (!sameTransaction(state, claim)) {
      throw new InvalidRequest(
        `Value '${claim.reference}' is invalid. The reference is already used by another transaction of this merchant`,
        'transaction.reference',
      );
    }
    if (state.attempts.has(claim.attemptId)) return [];
  }
  const { merchantId, orderId, transactionId, attemptId, now } = claim;
  return [{ type: 'TransactionReferenceReserved', data: { merchantId, orderId, transactionId, reservedAt: now, attemptId } }];
}

/** Let go of this request's hold (its transaction was not recorded by it); nothing if it holds none. */
export function decideRelease(state: ReferenceState, claim: ReferenceClaim): TransactionReferenceReleased[] {
  if (!state || !sameTransaction(state, claim) || !state.attempts.has(claim.attemptId)) return [];
  const { merchantId, orderId, transactionId, attemptId, now } = claim;
  return [{ type: 'TransactionReferenceReleased', data: { merchantId, orderId, transactionId, attemptId, releasedAt: now } }];
}
