// Answers of the order API (versions 1-100 but the deactivated ones) built from the recorded
// OrderTransactionRecorded, so the first answer, an identical repeat and Retrieve Transaction say
// the same: the order's fields in a transaction's answer are the order as that transaction left it
// (its totals, status, amount and reference then), whatever was recorded after it. Card numbers are
// masked per the merchant's cardNumberMasking (0.4) or 6.4, as in responses.ts.
import { minorUnits, toDecimal } from '../../domain/money.js';
import { optional } from '../../domain/order/order.js';
import { currentOrderAmount, referenceAsOf, type OrderState, type OrderTransaction } from '../../domain/order/order-state.js';
import { maskCardNumber, type CardNumberMasking } from '../../domain/token/accounts.js';
import { responseView } from './responses.js';

type ExistingOrder = Extract<OrderState, { exists: true }>;
const decimal = (minor: number, currency: string) => toDecimal(minor, minorUnits(currency) ?? 2);

/**
 * order.amount right after transaction `t`: its own (a PAY or AUTHORIZE), else as the fold kept it
 * for that transaction, else (a version 3 payment seen here, or an answer never recorded:
 * LOCK_FAILURE) the order's amount as it stands.
 */
const amountAfter = (t: OrderTransaction, order: ExistingOrder): number =>
  t.orderAmount ?? order.modern?.amountsAfter?.get(t.transactionId) ?? currentOrderAmount(order);

function sourceOfFunds(t: OrderTransaction, masking: CardNumberMasking) {
  if (!t.source) return undefined;
  const { card, token } = t.source;
  const expiry = { month: String(card.expiry.month), year: String(card.expiry.year).padStart(2, '0') };
  return {
    provided: { card: { brand: card.brand, expiry, fundingMethod: card.fundingMethod, number: maskCardNumber(card.number, masking), scheme: card.scheme } },
    token,
    type: 'CARD' as const,
  };
}

export function transactionResponse(t: OrderTransaction, order: ExistingOrder, version: string, masking: CardNumberMasking, correlationId?: string) {
  const { outcome, currency } = t;
  return optional({
    correlationId,
    gatewayEntryPoint: 'WEB_SERVICES_API',
    merchant: t.merchantId,
    order: optional({
      amount: decimal(amountAfter(t, order), currency),
      creationTime: order.creationTime,
      currency,
      id: t.orderId,
      lastUpdatedTime: t.timeOfRecord,
      reference: referenceAsOf(order, t.transactionId),
      status: t.orderStatus,
      totalAuthorizedAmount: decimal(t.totalsAfter.authorized, currency),
      totalCapturedAmount: decimal(t.totalsAfter.captured, currency),
      totalRefundedAmount: decimal(t.totalsAfter.refunded, currency),
    }),
    response: responseView(outcome),
    result: outcome.result,
    sourceOfFunds: sourceOfFunds(t, masking),
    timeOfRecord: t.timeOfRecord,
    transaction: optional({
      acquirer: outcome.acquirer,
      amount: decimal(t.amount, currency),
      authorizationCode: outcome.authorizationCode,
      currency,
      id: t.transactionId,
      receipt: outcome.receipt,
      reference: t.transactionReference,
      source: 'INTERNET',
      stan: outcome.stan,
      targetTransactionId: t.targetTransactionId,
      terminal: outcome.terminal,
      type: t.transactionType,
    }),
    version,
  });
}

/** Retrieve Order: the order, its totals, and each transaction as Retrieve Transaction answers it (oldest first). */
export function orderResponse(order: ExistingOrder, transactions: readonly OrderTransaction[], version: string, masking: CardNumberMasking) {
  const { currency } = order;
  const latest = transactions[transactions.length - 1];
  return optional({
    amount: decimal(currentOrderAmount(order), currency),
    creationTime: order.creationTime,
    currency,
    id: order.orderId,
    lastUpdatedTime: order.lastUpdatedTime,
    merchant: order.merchantId,
    reference: order.reference,
    result: 'SUCCESS',
    sourceOfFunds: latest ? sourceOfFunds(latest, masking) : undefined,
    status: order.status,
    totalAuthorizedAmount: decimal(order.totals.authorized, currency),
    totalCapturedAmount: decimal(order.totals.captured, currency),
    totalRefundedAmount: decimal(order.totals.refunded, currency),
    transaction: transactions.map((t) => transactionResponse(t, order, version, masking)),
    version,
  });
}
