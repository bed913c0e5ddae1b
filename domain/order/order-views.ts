// The order's transactions as the order API sees them: its own, and version 3's payments of the
// same order read as PAY transactions (a void or a refund may name them; Retrieve Order lists them).
import type { OrderSource, PaymentRecorded } from '../events.js';
import type { OrderState, OrderTransaction } from './order-state.js';

/** A version 3 payment as a transaction of the order API. */
function fromPayment(p: PaymentRecorded['data']): OrderTransaction {
  return {
    merchantId: p.merchantId, orderId: p.orderId, transactionId: p.transactionId, requestFingerprint: p.requestFingerprint,
    apiOperation: 'PAY', transactionType: 'PAYMENT', amount: p.amount, currency: p.currency,
    source: { repositoryId: p.repositoryId, token: p.token, card: p.card },
    outcome: p.outcome, orderStatus: p.orderStatus, totalsAfter: p.totalsAfter, timeOfRecord: p.timeOfRecord,
  };
}

export function transactionOf(state: OrderState, id: string): OrderTransaction | undefined {
  if (!state.exists) return undefined;
  const modern = state.modern?.operations.get(id);
  if (modern) return modern;
  const payment = state.transactions.get(id);
  return payment ? fromPayment(payment) : undefined;
}

/** The card of the order's first PAY, AUTHORIZE or VERIFY, else of its first version 3 payment. */
export function sourceOf(state: OrderState): OrderSource | undefined {
  if (!state.exists) return undefined;
  if (state.modern?.source) return state.modern.source;
  const first = state.transactions.values().next();
  return first.done ? undefined : fromPayment(first.value).source;
}

/** The authorization code the order's latest approved authorization or payment got. */
export function authorizationCodeOf(state: OrderState): string | undefined {
  if (!state.exists) return undefined;
  let code: string | undefined;
  for (const p of state.transactions.values()) code = p.outcome.authorizationCode ?? code;
  for (const t of state.modern?.operations.values() ?? []) {
    if (t.transactionType === 'AUTHORIZATION' || t.transactionType === 'PAYMENT') code = t.outcome.authorizationCode ?? code;
  }
  return code;
}
