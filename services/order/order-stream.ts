// An order stream's state (PaymentStarted, PaymentRecorded, PaymentOutcomeResolved: its aggregate
// is in services/aggregates.ts) and the order fields of a pay response.
import { referenceAsOf, type OrderState } from '../../domain/order/order-state.js';
import { foldOrder } from '../aggregates.js';

export const foldOrderStream = foldOrder;

/**
 * The order fields of the answer to payment `transactionId`: the order's reference as that payment
 * left it (a later payment may give the order one); before its first record an order dates from
 * its PaymentStarted.
 */
export function orderView(state: OrderState, now: string, transactionId: string): { creationTime: string; reference: string | undefined } {
  if (state.exists) return { creationTime: state.creationTime, reference: referenceAsOf(state, transactionId) };
  return { creationTime: state.inProgress?.startedAt ?? now, reference: undefined };
}
