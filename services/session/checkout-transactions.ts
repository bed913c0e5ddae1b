// The transaction ids the payment page's requests take on the checkout's order: "1", "2", ... per
// attempt (its authentication "3DS-1", "3DS-2", ...) while the order holds no such transaction of
// another's. An order may hold some already: the merchant's own, or those of an earlier checkout
// for the same order.id (a shop initiates a new checkout each time the payer comes back to pay).
// Each request of an attempt carries a fingerprint of the checkout's session, the attempt and the
// operation rather than of its body, so the order knows a transaction of this attempt as its own:
// a repeat of the request (a double click, a retry) waits for it or replays it, and an id taken by
// anything else is passed over for the next.
import { streams } from '../../domain/events.js';
import type { OrderState } from '../../domain/order/order-state.js';
import { sortedJson } from '../../lib/json.js';
import { foldOrder, readOwnStream } from '../aggregates.js';
import type { Gateway } from '../gateway.js';
import type { FoundCheckout } from './checkout-lookup.js';

/** The fingerprint every request of `attempt` with `apiOperation` makes on the order, whatever its body. */
export const attemptFingerprint = (gateway: Gateway, sessionId: string, attempt: number, apiOperation: string): string =>
  gateway.sealer.fingerprint(sortedJson({ api: 'checkout', apiOperation, attempt, sessionId }));

/** The fingerprint of the request that holds or recorded transaction `id` of the order (null: one of no fingerprint), undefined when it is free. */
function holderOf(state: OrderState, id: string): string | null | undefined {
  if (state.inProgress?.transactionId === id) return state.inProgress.requestFingerprint;
  if (!state.exists) return undefined;
  if (state.transactions.has(id)) return null;
  const operation = state.modern?.operations.get(id);
  if (operation) return operation.requestFingerprint;
  const authentication = state.modern?.authentications?.get(id);
  return authentication ? authentication.initiated.requestFingerprint : undefined;
}

/**
 * The id the request of `attempt` (fingerprinted `fingerprint`) takes: the first from the
 * attempt's own number on that is free or already its own.
 */
export async function attemptTransactionId(gateway: Gateway, found: FoundCheckout, attempt: number, kind: 'payment' | 'authentication', fingerprint: string): Promise<string> {
  const { checkout } = found.state;
  const state = foldOrder(await readOwnStream(gateway.store, streams.order(found.merchant.id, checkout.order.id)));
  for (let n = attempt; ; n++) {
    const id = kind === 'payment' ? String(n) : `3DS-${n}`;
    const holder = holderOf(state, id);
    if (holder === undefined || holder === fingerprint) return id;
  }
}
