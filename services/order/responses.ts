// The answers of both order paths, built from recorded facts, so the first answer, an identical
// repeat, a replay and a retrieval say exactly the same: version 3's Pay with token (payResponse)
// and the order API's transactions and orders (transactionResponse, orderResponse: the order's
// fields in a transaction's answer are the order as that transaction left it, whatever was
// recorded after it). The recorded card number is masked 6.4 (never more is stored); the
// merchant's stricter masking (cardNumberMasking 0.4) is applied here, when answering, to every
// answer alike.
import type { OrderTotals, PaymentRecorded } from '../../domain/events.js';
import { minorUnits, toDecimal } from '../../domain/money.js';
import { optional } from '../../domain/order/order.js';
import { currentOrderAmount, referenceAsOf, ZERO_TOTALS, type OrderState, type OrderTransaction } from '../../domain/order/order-state.js';
import { maskCardNumber, type CardNumberMasking } from '../../domain/token/accounts.js';
import type { MerchantProfile } from '../../merchants.js';
import { paymentAuthenticationFields } from './authentication-view.js';

type Payment = PaymentRecorded['data'];
type Outcome = Payment['outcome'];
type ExistingOrder = Extract<OrderState, { exists: true }>;

/** How the merchant's answers mask card numbers. */
export const maskingOf = (merchant: MerchantProfile): CardNumberMasking => merchant.repository.cardNumberMasking ?? '6.4';

export const decimal = (minor: number, currency: string) => toDecimal(minor, minorUnits(currency) ?? 2);

type ResponseView = Partial<{
  '3dsecure': Outcome['threeDSecure']; acquirerCode: Outcome['acquirerCode']; acquirerMessage: Outcome['acquirerMessage'];
  avs: Outcome['avs']; cardSecurityCode: Outcome['cardSecurityCode']; gatewayCode: Outcome['gatewayCode']; risk: Outcome['risk'];
}>;

/** `response` of a transaction's answer: the outcome's codes, in the gateway's names, sorted, the members without a value left out. */
function responseView(outcome: Outcome): ResponseView {
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

const expiryView = (expiry: { month: number; year: number }) => ({ month: String(expiry.month), year: String(expiry.year).padStart(2, '0') });

/** `sourceOfFunds` of an answer: the card (number already masked) and the token it was paid with. */
export function cardSourceOfFunds(card: Payment['card'], number: string, token: string | undefined) {
  return {
    provided: { card: { brand: card.brand, expiry: expiryView(card.expiry), fundingMethod: card.fundingMethod, number, scheme: card.scheme } },
    token,
    type: 'CARD' as const,
  };
}

/**
 * A version 3 payment's answer. A member without a value is `undefined` here, not left out: every
 * writer of the answer leaves it out (the route's compiled serializer, sortedJson).
 */
export function payResponse(payment: Payment, order: { creationTime: string; reference: string | undefined }, correlationId: string | undefined, masking: CardNumberMasking) {
  const { outcome, card, currency } = payment;
  const number = maskCardNumber(card.number, masking);
  const paid = decimal(payment.amount, currency);
  const taxLocal = payment.taxLocal
    ? { local: optional({ ...payment.taxLocal, amount: payment.taxLocal.amount === undefined ? undefined : decimal(payment.taxLocal.amount, currency) }) }
    : undefined;
  return {
    card: { expiry: expiryView(card.expiry), holder: payment.holder, number, token: payment.token, type: card.type },
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
      totalAuthorizedAmount: decimal(payment.totalsAfter.authorized, currency),
      totalCapturedAmount: decimal(payment.totalsAfter.captured, currency),
      totalRefundedAmount: decimal(payment.totalsAfter.refunded, currency),
    },
    response: responseView(outcome),
    result: outcome.result,
    sourceOfFunds: cardSourceOfFunds(card, number, payment.token),
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

export type PayResponse = ReturnType<typeof payResponse>;

/**
 * order.amount right after transaction `t`: its own (a PAY or AUTHORIZE), else as the fold kept it
 * for that transaction, else (a version 3 payment seen here, or an answer never recorded:
 * LOCK_FAILURE) the order's amount as it stands.
 */
const amountAfter = (t: OrderTransaction, order: ExistingOrder): number =>
  t.orderAmount ?? order.modern?.amountsAfter?.get(t.transactionId) ?? currentOrderAmount(order);

const sourceOfFunds = (t: OrderTransaction, masking: CardNumberMasking) =>
  t.source ? cardSourceOfFunds(t.source.card, maskCardNumber(t.source.card.number, masking), t.source.token) : undefined;

/**
 * The order's totals at `time`: those its latest payment (of either API) recorded at or before
 * then left (an authentication's answer shows the order as its step found it).
 */
export function totalsAsOf(order: ExistingOrder, time: string): OrderTotals {
  let latest: { timeOfRecord: string; totalsAfter: OrderTotals } | undefined;
  for (const t of [...order.transactions.values(), ...(order.modern?.operations.values() ?? [])]) {
    if (t.timeOfRecord <= time && (!latest || t.timeOfRecord >= latest.timeOfRecord)) latest = t;
  }
  return latest?.totalsAfter ?? ZERO_TOTALS;
}

/** The operations that pay (or verify) with a card: each shows its own payer's details and authenticationStatus. */
const PAYMENTS: ReadonlySet<string> = new Set(['PAY', 'AUTHORIZE', 'VERIFY']);

/**
 * The payer's details a transaction's answer shows: a payment's own (PAY, AUTHORIZE, VERIFY: what
 * it sent, or the payment page took); a CAPTURE's, REFUND's or VOID's, the order's as it found
 * them, those of its latest payment that carried any (the real gateway's answers to a VOID that
 * sent none carried the authorization's billing details). Latest in the order of record, not by
 * time: a payment recorded after it in the same millisecond must not change a repeat's answer.
 */
function payerShown(t: OrderTransaction, order: ExistingOrder): OrderTransaction['payer'] {
  if (PAYMENTS.has(t.apiOperation)) return t.payer;
  let payer: OrderTransaction['payer'];
  // The operations in the order they were recorded (a transaction not recorded, LOCK_FAILURE's: all of them).
  for (const p of order.modern?.operations.values() ?? []) {
    if (p.transactionId === t.transactionId) break;
    if (p.payer !== undefined) payer = p.payer;
  }
  return payer;
}

/** From this version the payment page's transactions are CHECKOUT_VIA_WEBSITE (see entryPointShown). */
const CHECKOUT_VIA_WEBSITE_FROM = 70;

/**
 * gatewayEntryPoint in the answer's version: a transaction of the payment page (recorded as
 * CHECKOUT) says CHECKOUT before version 70, as captured answers at versions 50 and 57 do, and
 * CHECKOUT_VIA_WEBSITE from 70, the name version 70's reference gives it (and the only one
 * Mastercard's WooCommerce module at version 100 acts on in its webhook); between 57 and 70 the
 * version of the change is not known. Any other transaction: WEB_SERVICES_API.
 */
export function entryPointShown(recorded: string | undefined, version: string | number): string {
  if (recorded === undefined) return 'WEB_SERVICES_API';
  return recorded === 'CHECKOUT' && Number(version) >= CHECKOUT_VIA_WEBSITE_FROM ? 'CHECKOUT_VIA_WEBSITE' : recorded;
}

/** From this version a payment shows authenticationStatus (the Authentication API's first version). */
const AUTHENTICATION_STATUS_FROM = 50;

/**
 * What a payment that used no authentication says in order.authenticationStatus and
 * transaction.authenticationStatus: AUTHENTICATION_NOT_IN_EFFECT, as the real gateway's answers to
 * a PAY without 3-D Secure do at versions 56 and 74 (at 46 they carry neither); shops read it
 * (Lunar's MPGS driver stores it as its transaction's status). Other operations show nothing.
 */
function notInEffect(apiOperation: string, version: string): 'AUTHENTICATION_NOT_IN_EFFECT' | undefined {
  return PAYMENTS.has(apiOperation) && Number(version) >= AUTHENTICATION_STATUS_FROM ? 'AUTHENTICATION_NOT_IN_EFFECT' : undefined;
}

/**
 * `authorizationResponse` of a PAY or AUTHORIZE the acquirer answered: its response code, STAN and
 * transaction identifier, the members the real gateway's answers from the test acquirer carry with
 * these values (versions 56, 57 and 74: equal to response.acquirerCode, transaction.stan and
 * transaction.acquirer.transactionId). The Omnipay driver of workhouse-advertising reads
 * transactionIdentifier as the payment's reference. The acquirer's other members are not emulated.
 */
function authorizationResponseOf(t: OrderTransaction) {
  const { outcome } = t;
  if ((t.apiOperation !== 'PAY' && t.apiOperation !== 'AUTHORIZE') || outcome.acquirerCode === undefined) return undefined;
  return optional({ responseCode: outcome.acquirerCode, stan: outcome.stan, transactionIdentifier: outcome.acquirer.transactionId });
}

/** An order API transaction's answer (the first, a repeat, Retrieve Transaction, a notification). */
export function transactionResponse(t: OrderTransaction, order: ExistingOrder, version: string, masking: CardNumberMasking, correlationId?: string) {
  const { outcome, currency } = t;
  // A payment that named its authentication shows the 3-D Secure result it used.
  const used = paymentAuthenticationFields(t.authentication);
  const authenticationStatus = used?.authenticationStatus ?? notInEffect(t.apiOperation, version);
  const payer = payerShown(t, order);
  return optional({
    authentication: used?.authentication,
    authorizationResponse: authorizationResponseOf(t),
    billing: payer?.billing,
    correlationId,
    customer: payer?.customer,
    gatewayEntryPoint: entryPointShown(t.gatewayEntryPoint, version),
    merchant: t.merchantId,
    order: optional({
      amount: decimal(amountAfter(t, order), currency),
      authenticationStatus,
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
    risk: used?.risk,
    shipping: payer?.shipping,
    sourceOfFunds: sourceOfFunds(t, masking),
    timeOfRecord: t.timeOfRecord,
    transaction: optional({
      acquirer: outcome.acquirer,
      amount: decimal(t.amount, currency),
      authenticationStatus,
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

/** An order's 3-D Secure authentications in Retrieve Order: each as Retrieve Transaction answers it, and the latest one's status. */
export interface AuthenticationsShown { views: ReadonlyArray<{ time: string; view: object }>; status: string | undefined }

/** Retrieve Order: the order, its totals, and each transaction as Retrieve Transaction answers it (oldest first). */
export function orderResponse(
  order: ExistingOrder, transactions: readonly OrderTransaction[], version: string, masking: CardNumberMasking,
  authentications: AuthenticationsShown = { views: [], status: undefined },
) {
  const { currency } = order;
  const latest = transactions[transactions.length - 1];
  // The payer's details as the latest payment of the payment page carried them.
  const payer = [...transactions].reverse().find((t) => t.payer !== undefined)?.payer;
  const views = [...authentications.views, ...transactions.map((t) => ({ time: t.timeOfRecord, view: transactionResponse(t, order, version, masking) as object }))];
  // Oldest first; a stable sort keeps an authentication before a payment of the same instant.
  views.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : 0));
  return optional({
    amount: decimal(currentOrderAmount(order), currency),
    authenticationStatus: authentications.status ?? (transactions.some((t) => notInEffect(t.apiOperation, version)) ? 'AUTHENTICATION_NOT_IN_EFFECT' : undefined),
    billing: payer?.billing,
    creationTime: order.creationTime,
    customer: payer?.customer,
    currency,
    id: order.orderId,
    lastUpdatedTime: order.lastUpdatedTime,
    merchant: order.merchantId,
    reference: order.reference,
    result: 'SUCCESS',
    shipping: payer?.shipping,
    sourceOfFunds: latest ? sourceOfFunds(latest, masking) : undefined,
    status: order.status,
    totalAuthorizedAmount: decimal(order.totals.authorized, currency),
    totalCapturedAmount: decimal(order.totals.captured, currency),
    totalRefundedAmount: decimal(order.totals.refunded, currency),
    transaction: views.map((v) => v.view),
    version,
  });
}
