// Folding an order stream into the order's state (PaymentStarted, PaymentRecorded,
// PaymentOutcomeResolved).
import { ORDER_EVENT_TYPES, type OrderEvent } from '../domain/events.js';
import { evolveOrder, initialOrderState, type OrderState } from '../domain/order-state.js';
import type { RecordedEvent } from '../store/event-store.js';

export const foldOrderStream = (events: readonly RecordedEvent[]): OrderState =>
  events.reduce((state, e) => (ORDER_EVENT_TYPES.has(e.type) ? evolveOrder(state, e as unknown as OrderEvent) : state), initialOrderState());

/** The order fields of a pay response; before its first record an order dates from its PaymentStarted. */
export function orderView(state: OrderState, now: string): { creationTime: string; reference: string | undefined } {
  if (state.exists) return { creationTime: state.creationTime, reference: state.reference };
  return { creationTime: state.inProgress?.startedAt ?? now, reference: undefined };
}
