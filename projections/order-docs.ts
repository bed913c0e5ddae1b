// The documents of the orders read model (orders.ts): an order and its transactions, amounts in
// minor units; the properties in the schemas' order (the documents are serialized by them).
import { Type, type Static } from '@sinclair/typebox';

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
  /** A 3-D Secure authentication's status (type AUTHENTICATION), or that of the one a payment used. */
  authenticationStatus: Type.Optional(Type.String()),
  /** A payment that named a 3-D Secure authentication: its transaction id. */
  authenticationTransactionId: Type.Optional(Type.String()),
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
