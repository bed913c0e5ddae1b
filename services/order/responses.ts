// Response bodies built from recorded facts, so a repeated request, a replay and a retrieval
// answer exactly what the first request answered. The recorded card number is masked 6.4 (never
// more is stored); the merchant's stricter masking (cardNumberMasking 0.4) is applied here, when
// answering, to every answer alike: the first, an identical repeat, Retrieve Order and Retrieve
// Transaction.
import type { PaymentRecorded } from '../../domain/events.js';
import { minorUnits, toDecimal } from '../../domain/money.js';
import { optional } from '../../domain/order/order.js';
import { maskCardNumber, type CardNumberMasking } from '../../domain/token/accounts.js';

type Payment = PaymentRecorded['data'];

const amount = (minor: number, currency: string) => toDecimal(minor, minorUnits(currency) ?? 2);

type Outcome = PaymentRecorded['data']['outcome'];
type ResponseView = Partial<{
  '3dsecure': Outcome['threeDSecure']; acquirerCode: Outcome['acquirerCode']; acquirerMessage: Outcome['acquirerMessage'];
  avs: Outcome['avs']; cardSecurityCode: Outcome['cardSecurityCode']; gatewayCode: Outcome['gatewayCode']; risk: Outcome['risk'];
}>;

/**
 * `response` of a transaction's answer (both paths): the outcome's codes, in the gateway's names,
 * sorted, the members without a value left out (member by member: one object, issue 17).
 */
export function responseView(outcome: Outcome): ResponseView {
  const view: ResponseView = {};
  if (outcome.threeDSecure !== undefined) view['3dsecure'] = outcome.threeDSecure;
  if (outcome.acquirerCode !== undefined) view.acquirerCode = outcome.acquirerCode;
  if (outcome.acquirerMessage !== undefined) view.acquirerMessage = outcome.acquirerMessage;
  if (outcome.avs !== undefined) view.avs = outcome.avs;
  if (outcome.cardSecurityCode !== undefined) view.cardSecurityCode = outcome.cardSecurityCode;
  if (outcome.gatewayCode !== undefined) view.gatewayCode = outcome.gatewayCode;
  if (outcome.risk !== undefined) view.risk = outcome.risk;
  return view;
}

/**
 * A member without a value is `undefined` here, not left out: every writer of the answer leaves it
 * out (the route's compiled serializer, sortedJson), and a copy without it per object cost µs on
 * every pay (issue 17).
 */
export function payResponse(payment: Payment, order: { creationTime: string; reference: string | undefined }, correlationId: string | undefined, masking: CardNumberMasking) {
  const { outcome, card, currency } = payment;
  const number = maskCardNumber(card.number, masking);
  const paid = amount(payment.amount, currency);
  const expiry = { month: String(card.expiry.month), year: String(card.expiry.year).padStart(2, '0') };
  const taxLocal = payment.taxLocal
    ? { local: optional({ ...payment.taxLocal, amount: payment.taxLocal.amount === undefined ? undefined : amount(payment.taxLocal.amount, currency) }) }
    : undefined;
  return {
    card: { expiry, holder: payment.holder, number, token: payment.token, type: card.type },
    correlationId,
    merchant: payment.merchantId,
    order: {
      amount: paid,
      creationTime: order.creationTime,
      currency,
      id: BigInt(payment.orderId),
      lastUpdatedTime: payment.timeOfRecord,
      reference: order.reference,
      status: payment.orderStatus,
      totalAuthorizedAmount: amount(payment.totalsAfter.authorized, currency),
      totalCapturedAmount: amount(payment.totalsAfter.captured, currency),
      totalRefundedAmount: amount(payment.totalsAfter.refunded, currency),
    },
    response: responseView(outcome),
    result: outcome.result,
    sourceOfFunds: {
      provided: { card: { brand: card.brand, expiry, fundingMethod: card.fundingMethod, number, scheme: card.scheme } },
      token: payment.token,
      type: 'CARD' as const,
    },
    timeOfRecord: payment.timeOfRecord,
    transaction: {
      acquirer: outcome.acquirer,
      amount: paid,
      authorizationCode: outcome.authorizationCode,
      batch: outcome.acquirer.batch,
      cashAdvance: payment.cashAdvance,
      currency,
      frequency: payment.frequency,
      id: payment.transactionId,
      receipt: outcome.receipt,
      reference: payment.transactionReference,
      source: payment.source,
      stan: outcome.stan,
      tax: taxLocal,
      terminal: outcome.terminal,
      type: 'PAYMENT' as const,
    },
  };
}
