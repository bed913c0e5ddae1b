// Read model of orders: each order with its totals and transactions (amounts in minor units).
import { AUTHENTICATION_EVENT_TYPES, type OrderTransactionRecorded, type PaymentOutcomeResolved, type PaymentRecorded } from '../domain/events.js';
import { authenticated } from './order-authentications.js';
import { OrderDocSchema, type OrderDoc, type OrderTransactionDoc } from './order-docs.js';
import type { ProjectedEvent } from '../store/event-store.js';
import { documentSerializer } from './document-json.js';
import type { Projection } from './projection.js';

export { OrderDocSchema, type OrderDoc, type OrderTransactionDoc } from './order-docs.js';

export const orderKey = (merchantId: string, orderId: string) => `${merchantId}/${orderId}`;

export const ordersProjection: Projection<OrderDoc> = {
  name: 'orders',
  // 2: PaymentOutcomeResolved turns an UNKNOWN transaction final and moves the order's totals.
  // 3: a resolved transaction keeps the schema's property order (an authorization code it gained
  // was written after timeOfRecord), so that the compiled serializer writes what JSON.stringify did.
  // 4: the transactions of the order API (OrderTransactionRecorded; versions 1-100 but the
  // deactivated ones).
  // 5: 3-D Secure: authentications (type AUTHENTICATION, by step), and the one a payment used.
  version: 5,
  // No answer of the API reads it (Retrieve Order and Transaction fold the order's stream; the
  // histories fold the events with this evolve): only the CLI's hash and exports and the tests
  // read it. So it is not written while the gateway serves (a document per order was the
  // largest write of a pay), but when read, from the log.
  apply: 'onRead',
  handles: new Set(['PaymentRecorded', 'PaymentOutcomeResolved', 'OrderTransactionRecorded', ...AUTHENTICATION_EVENT_TYPES]),
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
    if (AUTHENTICATION_EVENT_TYPES.has(event.type)) return authenticated(doc, event);
    if (event.type !== 'PaymentRecorded') return doc;
    const d = event.data as PaymentRecorded['data'];
    return withTransaction(doc, d, d.currency, transactionDoc(d, 'PAYMENT', d.token, d.card));
  },
};

/** A transaction of the order API: the order keeps its first currency and creation time. */
function modern(doc: OrderDoc | undefined, event: ProjectedEvent): OrderDoc {
  const d = event.data as OrderTransactionRecorded['data'];
  const transaction = transactionDoc(d, d.transactionType, d.source?.token ?? '', { number: d.source?.card.number ?? '', brand: d.source?.card.brand ?? '' });
  if (d.targetTransactionId !== undefined) transaction.targetTransactionId = d.targetTransactionId;
  if (d.authentication) {
    transaction.authenticationStatus = d.authentication.outcome.authenticationStatus;
    transaction.authenticationTransactionId = d.authentication.transactionId;
  }
  return withTransaction(doc, d, doc?.currency ?? d.currency, transaction);
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
      ...(t.authenticationStatus !== undefined ? { authenticationStatus: t.authenticationStatus } : {}),
      ...(t.authenticationTransactionId !== undefined ? { authenticationTransactionId: t.authenticationTransactionId } : {}),
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
