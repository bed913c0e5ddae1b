// The orders read model's 3-D Secure: an authentication is a transaction of the order document
// (type AUTHENTICATION), replaced at each of its steps by what the step left (its amount once
// Authenticate Payer named one, its status, result and gateway code), and the order's status and
// time after the step. The payment that names it records its id (orders.ts).
import type { AuthenticationEvent, AuthenticationInitiated } from '../domain/events.js';
import { STATUS_ANSWERS } from '../domain/order/authentication-state.js';
import type { ProjectedEvent } from '../store/event-store.js';
import type { OrderDoc, OrderTransactionDoc } from './order-docs.js';

/** The order document after an authentication's step (an event of an authentication it does not hold changes nothing). */
export function authenticated(doc: OrderDoc | undefined, event: ProjectedEvent): OrderDoc | undefined {
  const step = { type: event.type, data: event.data } as AuthenticationEvent;
  const d = step.data;
  const before = doc?.transactions.find((t) => t.id === d.transactionId);
  if (step.type !== 'AuthenticationInitiated' && !before) return doc;
  const initiated = step.type === 'AuthenticationInitiated' ? step.data : undefined;
  const amount = 'amount' in d ? d.amount : before?.amount ?? 0;
  const answer = STATUS_ANSWERS[d.outcome.authenticationStatus];
  const transaction: OrderTransactionDoc = {
    id: d.transactionId,
    type: 'AUTHENTICATION',
    amount,
    currency: initiated?.currency ?? before?.currency ?? doc?.currency ?? '',
    result: answer.result,
    gatewayCode: answer.gatewayCode,
    ...(initiated?.transactionReference ?? before?.reference ? { reference: initiated?.transactionReference ?? before?.reference } : {}),
    token: initiated ? initiated.source.token ?? '' : before?.token ?? '',
    card: initiated ? { number: initiated.source.card.number, brand: initiated.source.card.brand } : before?.card ?? { number: '', brand: '' },
    timeOfRecord: before?.timeOfRecord ?? d.timeOfRecord,
    authenticationStatus: d.outcome.authenticationStatus,
  };
  const transactions = before ? (doc?.transactions ?? []).map((t) => (t.id === d.transactionId ? transaction : t)) : [...(doc?.transactions ?? []), transaction];
  return doc ? { ...doc, status: d.orderStatus, lastUpdatedTime: d.timeOfRecord, transactions } : opened(initiated as AuthenticationInitiated['data'], transactions);
}

/** An order opened by Initiate Authentication: no amount yet, totals zero. */
function opened(d: AuthenticationInitiated['data'], transactions: OrderTransactionDoc[]): OrderDoc {
  return {
    merchantId: d.merchantId,
    id: d.orderId,
    currency: d.currency,
    ...(d.orderReference ? { reference: d.orderReference } : {}),
    status: d.orderStatus,
    creationTime: d.timeOfRecord,
    lastUpdatedTime: d.timeOfRecord,
    totalAuthorizedAmount: 0,
    totalCapturedAmount: 0,
    totalRefundedAmount: 0,
    transactions,
  };
}
