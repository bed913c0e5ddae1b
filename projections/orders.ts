// Read model of orders: each order with its totals and transactions (amounts in minor units).
import type { PaymentOutcomeResolved, PaymentRecorded } from '../domain/events.js';
import type { ProjectedEvent } from '../store/event-store.js';
import type { Projection } from './projection.js';

export interface OrderTransactionDoc {
  id: string;
  type: 'PAYMENT';
  amount: number;
  currency: string;
  result: string;
  gatewayCode: string;
  authorizationCode?: string;
  reference?: string;
  token: string;
  card: { number: string; brand: string };
  timeOfRecord: string;
  /** When an UNKNOWN outcome became final (PaymentOutcomeResolved). */
  resolvedAt?: string;
}

export interface OrderDoc {
  merchantId: string;
  id: string;
  currency: string;
  reference?: string;
  status: string;
  creationTime: string;
  lastUpdatedTime: string;
  totalAuthorizedAmount: number;
  totalCapturedAmount: number;
  totalRefundedAmount: number;
  transactions: OrderTransactionDoc[];
}

export const orderKey = (merchantId: string, orderId: string) => `${merchantId}/${orderId}`;

export const ordersProjection: Projection<OrderDoc> = {
  name: 'orders',
  // 2: PaymentOutcomeResolved turns an UNKNOWN transaction final and moves the order's totals.
  version: 2,
  handles: new Set(['PaymentRecorded', 'PaymentOutcomeResolved']),
  keysOf(event) {
    const d = event.data as { merchantId: string; orderId: string };
    return [orderKey(d.merchantId, d.orderId)];
  },
  // An order's document is written only by the events of its own stream (streams.order of the
  // same merchant and order id), so at the stream's first event there is none yet.
  isNew: (event) => event.revision === 0n,
  evolve(doc, event) {
    if (event.type === 'PaymentOutcomeResolved') return resolved(doc, event);
    if (event.type !== 'PaymentRecorded') return doc;
    const d = event.data as PaymentRecorded['data'];
    const transaction: OrderTransactionDoc = {
      id: d.transactionId,
      type: 'PAYMENT',
      amount: d.amount,
      currency: d.currency,
      result: d.outcome.result,
      gatewayCode: d.outcome.gatewayCode,
      ...(d.outcome.authorizationCode ? { authorizationCode: d.outcome.authorizationCode } : {}),
      ...(d.transactionReference ? { reference: d.transactionReference } : {}),
      token: d.token,
      card: { number: d.card.number, brand: d.card.brand },
      timeOfRecord: d.timeOfRecord,
    };
    const reference = doc?.reference ?? d.orderReference;
    return {
      merchantId: d.merchantId,
      id: d.orderId,
      currency: d.currency,
      ...(reference ? { reference } : {}),
      status: d.orderStatus,
      creationTime: doc?.creationTime ?? d.timeOfRecord,
      lastUpdatedTime: d.timeOfRecord,
      totalAuthorizedAmount: d.totalsAfter.authorized,
      totalCapturedAmount: d.totalsAfter.captured,
      totalRefundedAmount: d.totalsAfter.refunded,
      transactions: [...(doc?.transactions ?? []), transaction],
    };
  },
};

function resolved(doc: OrderDoc | undefined, event: ProjectedEvent): OrderDoc | undefined {
  if (!doc) return doc;
  const d = event.data as PaymentOutcomeResolved['data'];
  const transactions = doc.transactions.map((t): OrderTransactionDoc => (t.id !== d.transactionId ? t : {
    ...t,
    result: d.result,
    gatewayCode: d.gatewayCode,
    ...(d.authorizationCode ? { authorizationCode: d.authorizationCode } : {}),
    resolvedAt: d.resolvedAt,
  }));
  return {
    ...doc,
    status: d.orderStatus,
    lastUpdatedTime: d.resolvedAt,
    totalAuthorizedAmount: d.totalsAfter.authorized,
    totalCapturedAmount: d.totalsAfter.captured,
    totalRefundedAmount: d.totalsAfter.refunded,
    transactions,
  };
}
