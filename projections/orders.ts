// Read model of orders: each order with its totals and transactions (amounts in minor units).
import { Type, type Static } from '@sinclair/typebox';
import type { OrderTransactionRecorded, PaymentOutcomeResolved, PaymentRecorded } from '../domain/events.js';
import type { ProjectedEvent } from '../store/event-store.js';
import { documentSerializer } from './document-json.js';
import type { Projection } from './projection.js';

/** A transaction of an order document; its properties in this order (see serialize below). */
export const OrderTransactionDocSchema = Type.Object({
  id: Type.String(),
  /** PAYMENT (version 3 and the order API), or AUTHORIZATION, CAPTURE, REFUND, VERIFICATION, VOID_* (the order API). */
  type: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
  result: Type.String(),
  gatewayCode: Type.String(),
  authorizationCode: Type.Optional(Type.String()),
  reference: Type.Optional(Type.String()),
  token: Type.String(),
  card: Type.Object({ number: Type.String(), brand: Type.String() }),
  timeOfRecord: Type.String(),
  /** When an UNKNOWN outcome became final (PaymentOutcomeResolved). */
  resolvedAt: Type.Optional(Type.String()),
  /** A void: the transaction it voided. */
  targetTransactionId: Type.Optional(Type.String()),
});
export type OrderTransactionDoc = Static<typeof OrderTransactionDocSchema>;

export const OrderDocSchema = Type.Object({
  merchantId: Type.String(),
  id: Type.String(),
  currency: Type.String(),
  reference: Type.Optional(Type.String()),
  status: Type.String(),
  creationTime: Type.String(),
  lastUpdatedTime: Type.String(),
  totalAuthorizedAmount: Type.Number(),
  totalCapturedAmount: Type.Number(),
  totalRefundedAmount: Type.Number(),
  transactions: Type.Array(OrderTransactionDocSchema),
});
export type OrderDoc = Static<typeof OrderDocSchema>;

export const orderKey = (merchantId: string, orderId: string) => `${merchantId}/${orderId}`;

export const ordersProjection: Projection<OrderDoc> = {
  name: 'orders',
  // 2: PaymentOutcomeResolved turns an UNKNOWN transaction final and moves the order's totals.
  // 3: a resolved transaction keeps the schema's property order (an authorization code it gained
  // was written after timeOfRecord), so that the compiled serializer writes what JSON.stringify did.
  // 4: the transactions of the order API (OrderTransactionRecorded; versions 1-100 but the
  // deactivated ones).
  version: 4,
  // No answer of the API reads it (Retrieve Order and Transaction fold the order's stream; the
  // histories fold the events with this evolve): only the CLI's hash and exports and the tests
  // read it. So it is not written while the gateway serves (a document per order was the
  // largest write of a pay), but when read, from the log (issue 17).
  apply: 'onRead',
  handles: new Set(['PaymentRecorded', 'PaymentOutcomeResolved', 'OrderTransactionRecorded']),
  keysOf(event) {
    const d = event.data as { merchantId: string; orderId: string };
    return [orderKey(d.merchantId, d.orderId)];
  },
  // An order's document is written only by the events of its own stream (streams.order of the
  // same merchant and order id), so at the stream's first event there is none yet.
  isNew: (event) => event.revision === 0n,
  // Every document evolve builds holds its properties in the schema's order.
  serialize: documentSerializer<OrderDoc>(OrderDocSchema),
  evolve(doc, event) {
    if (event.type === 'PaymentOutcomeResolved') return resolved(doc, event);
    if (event.type === 'OrderTransactionRecorded') return modern(doc, event);
    if (event.type !== 'PaymentRecorded') return doc;
    const d = event.data as PaymentRecorded['data'];
    return withTransaction(doc, d, d.currency, transactionDoc(d, 'PAYMENT', d.token, d.card));
  },
};

/** A transaction of the order API: the order keeps its first currency and creation time. */
function modern(doc: OrderDoc | undefined, event: ProjectedEvent): OrderDoc {
  const d = event.data as OrderTransactionRecorded['data'];
  const transaction = transactionDoc(d, d.transactionType, d.source?.token ?? '', { number: d.source?.card.number ?? '', brand: d.source?.card.brand ?? '' });
  return withTransaction(doc, d, doc?.currency ?? d.currency, d.targetTransactionId !== undefined ? { ...transaction, targetTransactionId: d.targetTransactionId } : transaction);
}

/** A transaction of the order document (both paths), its properties in the schema's order. */
function transactionDoc(
  d: Pick<PaymentRecorded['data'], 'transactionId' | 'amount' | 'currency' | 'outcome' | 'transactionReference' | 'timeOfRecord'>,
  type: string,
  token: string,
  card: { number: string; brand: string },
): OrderTransactionDoc {
  return {
    id: d.transactionId,
    type,
    amount: d.amount,
    currency: d.currency,
    result: d.outcome.result,
    gatewayCode: d.outcome.gatewayCode,
    ...(d.outcome.authorizationCode ? { authorizationCode: d.outcome.authorizationCode } : {}),
    ...(d.transactionReference ? { reference: d.transactionReference } : {}),
    token,
    card: { number: card.number, brand: card.brand },
    timeOfRecord: d.timeOfRecord,
  };
}

/** The order after one more transaction (both paths), its properties in the schema's order. */
function withTransaction(
  doc: OrderDoc | undefined,
  d: Pick<PaymentRecorded['data'], 'merchantId' | 'orderId' | 'orderReference' | 'orderStatus' | 'timeOfRecord' | 'totalsAfter'>,
  currency: string,
  transaction: OrderTransactionDoc,
): OrderDoc {
  const reference = doc?.reference ?? d.orderReference;
  return {
    merchantId: d.merchantId,
    id: d.orderId,
    currency,
    ...(reference ? { reference } : {}),
    status: d.orderStatus,
    creationTime: doc?.creationTime ?? d.timeOfRecord,
    lastUpdatedTime: d.timeOfRecord,
    totalAuthorizedAmount: d.totalsAfter.authorized,
    totalCapturedAmount: d.totalsAfter.captured,
    totalRefundedAmount: d.totalsAfter.refunded,
    transactions: [...(doc?.transactions ?? []), transaction],
  };
}

function resolved(doc: OrderDoc | undefined, event: ProjectedEvent): OrderDoc | undefined {
  if (!doc) return doc;
  const d = event.data as PaymentOutcomeResolved['data'];
  const transactions = doc.transactions.map((t): OrderTransactionDoc => {
    if (t.id !== d.transactionId) return t;
    const authorizationCode = d.authorizationCode || t.authorizationCode;
    return {
      id: t.id,
      type: t.type,
      amount: t.amount,
      currency: t.currency,
      result: d.result,
      gatewayCode: d.gatewayCode,
      ...(authorizationCode ? { authorizationCode } : {}),
      ...(t.reference !== undefined ? { reference: t.reference } : {}),
      token: t.token,
      card: t.card,
      timeOfRecord: t.timeOfRecord,
      resolvedAt: d.resolvedAt,
    };
  });
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
