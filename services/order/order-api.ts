// The order API (schemas/versions.ts): Retrieve Transaction, Retrieve Order, and PUT .../order/{orderId}/transaction/{transactionId}
// with apiOperation PAY, AUTHORIZE, CAPTURE, REFUND, VOID or VERIFY, as a transaction of the order
// (order-service.ts: the same stream and path as version 3's Pay with token, so a version 3 order
// and an order of this API with the same id are one order). Here: the request's checks the
// schema cannot make (what each apiOperation requires, amounts as strings or JSON numbers), the
// token looked up in the merchant's own repository (as Pay with token reads it, where the request
// names no session: card-source.ts), the fingerprint of the request, the answer.
import type { PayerDetails } from '../../domain/payer-details.js';
import { luhnValid, mask64 } from '../../domain/card.js';
import { InvalidRequest } from '../../domain/errors.js';
import { streams } from '../../domain/events.js';
import { minorUnits } from '../../domain/money.js';
import type { OrderApiCommand, OrderState } from '../../domain/order/order.js';
import type { OrderTransaction } from '../../domain/order/order-state.js';
import { transactionOf } from '../../domain/order/order-views.js';
import { sortedJson } from '../../lib/json.js';
import { numberLiteral } from '../../lib/json-literals.js';
import type { MerchantProfile } from '../../merchants.js';
import type { OrderApiParams, TransactionApiParams, TransactionBody } from '../../schemas/transaction.js';
import { foldOrder, readOwnStream } from '../aggregates.js';
import { withSession, type HeldSession } from '../session/session-request.js';
import type { Gateway } from '../gateway.js';
import { amountOf } from './pay-request.js';
import { groupAt } from '../../lib/group-at.js';
import { requestBilling, requestCustomer } from './request-billing.js';
import { missing, providedSource, tokenSource, tokenSourceRead } from './card-source.js';
import type { CommandFacts, OrderRequest } from './order-service.js';
import type { ReadBeside } from './read-beside.js';
import { maskingOf, orderResponse, transactionResponse } from './responses.js';
import { authenticationFacts } from './authentication-request.js';
import { authenticationResponse } from './authentication-responses.js';
import { DEFAULT_ORIGIN } from './authentication-html.js';
import { keepBodyAsSent } from '../../lib/body-as-sent.js';

export { DEFAULT_ORIGIN };

type ExistingOrder = Extract<OrderState, { exists: true }>;


/** An id that is a card number (13 to 19 digits passing Luhn) would put it in a stream name and in events. */
export function checkNotCardNumber(value: string, field: string): void {
  if (/^[0-9]{13,19}$/.test(value) && luhnValid(value)) {
    throw new InvalidRequest('Value is invalid. The identifier must not be a card number', field);
  }
}

/**
 * The request as sent, without correlationId, as version 3 does: a security code counts by its
 * length only and a card number by its 6.4 mask (the fingerprint is stored, its key is in the key
 * file). What a session adds is not part of it: an identical repeat is recognised by what it sends.
 * The expiry month counts by its value: "1" (or the integer 1, already read as "1") and "01" are
 * one month, shown as "1" in both answers, so a retry writing it the other way is the same request.
 */
function fingerprintOf(gateway: Gateway, body: TransactionBody): string {
  const provided = body.sourceOfFunds?.provided?.card;
  const { correlationId: _notFingerprinted, ...fingerprinted } = body;
  const securityCode = provided?.securityCode;
  // The schema let through only 1-9, 01-09 and 10-12.
  const month = provided?.expiry?.month;
  const masked = provided === undefined ? fingerprinted : {
    ...fingerprinted,
    sourceOfFunds: {
      ...fingerprinted.sourceOfFunds,
      provided: {
        ...fingerprinted.sourceOfFunds?.provided,
        card: {
          ...provided,
          ...(provided.number !== undefined ? { number: mask64(provided.number) } : {}),
          ...(securityCode !== undefined ? { securityCode: 'x'.repeat(securityCode.length) } : {}),
          ...(month?.length === 2 && month.startsWith('0') ? { expiry: { ...provided.expiry, month: month.slice(1) } } : {}),
        },
      },
    },
  };
  return gateway.sealer.fingerprint(sortedJson({ api: 'order', body: masked }));
}

/**
 * PAY, AUTHORIZE, VERIFY: the card (sent, or held by the session: it takes precedence over a token,
 * as the spec says: "explicit or session account details take precedence over it") or the token,
 * the amount and currency, and what the outcome rules read. `body` is the request with the
 * session's fields merged in; `sent` what the client sent.
 */
async function initiatingFacts(gateway: Gateway, merchant: MerchantProfile, sent: TransactionBody, body: TransactionBody, session: HeldSession | undefined) {
  const card = body.sourceOfFunds?.provided?.card;
  const inRequest = providedSource(card);
  // The session gave the card: its id is recorded (referenceOrderId reads the card from it).
  if (inRequest && session && sent.sourceOfFunds?.provided?.card?.number === undefined) inRequest.sessionId = session.sessionId;
  const currency = body.order?.currency;
  if (currency === undefined) throw missing('order.currency');
  // The literal is the client's own text (a session's amount is already text): the request's own wins.
  const amount = sent.apiOperation === 'VERIFY' ? 0 : amountOf(body.order?.amount, currency, 'order.amount', numberLiteral(sent.order, 'amount'));
  if (sent.apiOperation === 'VERIFY' && minorUnits(currency) === undefined) {
    throw new InvalidRequest(`Value '${currency}' is invalid. Currency is not supported`, 'order.currency', 'UNSUPPORTED');
  }
  const token = body.sourceOfFunds?.token;
  if (token === undefined && !inRequest) {
    if (session) throw new InvalidRequest(`Value '${session.sessionId}' is invalid. The session holds no card: update it with the card first`, 'session.id');
    throw missing('sourceOfFunds.token');
  }
  const billing = requestBilling(body);
  const customer = requestCustomer(body, false);
  // With a session, the token the careful way (card-source.ts tokenSourceRead says why).
  const read = inRequest || session ? undefined : await tokenSourceRead(gateway, merchant, token as string);
  const source = inRequest ?? read?.source ?? await tokenSource(gateway, merchant, token as string);
  const facts = {
    ...(billing || customer ? { payer: { ...(billing ? { billing } : {}), ...(customer ? { customer } : {}) } } : {}),
    amount, currency, source, rules: merchant.rules ?? [],
    securityCode: card?.securityCode, billingStreet: body.billing?.address?.street ?? undefined, orderReference: body.order?.reference,
    transactionReference: body.transaction?.reference,
    // The card holder's name carries the 3-D Secure marker, as card.holder.lastName does in version 3.
    holderLastName: card?.nameOnCard,
  };
  return { facts, read };
}

/**
 * A 3DSecureId names the result of a 3-D Secure 1 Check 3DS Enrollment. tokengate makes none, so
 * every one a payment names is one the gateway has no check for: refused with its answer, which
 * clients match (ActiveMerchant's Citrus Pay remote test), before anything is recorded. A null
 * names none, as any member sent as null counts as not sent (plugins/request-values.ts):
 * Mastercard's WooCommerce module has sent `"3DSecureId":null` on every PAY and AUTHORIZE made
 * without 3-D Secure 1 since 2020, and those payments go through.
 */
function checkNo3DSecureId(sent: TransactionBody): void {
  if (sent['3DSecureId'] !== undefined) {
    throw new InvalidRequest('No check has been performed for this merchant and 3D Secure Id.', '3DSecureId');
  }
}

/** The command's facts, and the token's stream they were made from when it may have been read unconfirmed (read-beside.ts). */
interface MadeFacts { readonly facts: CommandFacts<OrderApiCommand>; readonly depends?: ReadBeside | undefined }

/** The command's facts for the request's apiOperation (the session it names merged in first). */
async function commandFacts(gateway: Gateway, merchant: MerchantProfile, params: TransactionApiParams, sent: TransactionBody): Promise<MadeFacts> {
  checkNotCardNumber(params.orderId, 'orderId');
  checkNotCardNumber(params.transactionId, 'transactionId');
  const base = {
    merchantId: merchant.id, orderId: params.orderId, transactionId: params.transactionId,
    requestFingerprint: fingerprintOf(gateway, sent), acquirerMerchantId: merchant.id,
  };
  // The request as the gateway forms it: the fields of the session it names under its own.
  const { request: body, session } = await withSession(gateway, merchant, sent);
  const type = sent.apiOperation;
  switch (type) {
    case 'PAY':
    case 'AUTHORIZE':
    case 'VERIFY': {
      checkNo3DSecureId(sent);
      const { facts: initiating, read } = await initiatingFacts(gateway, merchant, sent, body, session);
      const facts = { type, ...base, ...initiating, authenticationTransactionId: body.authentication?.transactionId };
      // Confirming the token (after a failed condition) writes its card anew into the command.
      return { facts, depends: read?.beside((source) => { facts.source = source; }) };
    }
    case 'CAPTURE':
    case 'REFUND': {
      const currency = body.transaction?.currency;
      if (currency === undefined) throw missing('transaction.currency');
      const amount = amountOf(body.transaction?.amount, currency, 'transaction.amount', numberLiteral(body.transaction, 'amount'));
      return { facts: { type, ...base, currency, amount, transactionReference: body.transaction?.reference } };
    }
    case 'VOID': {
      const target = body.transaction?.targetTransactionId;
      if (target === undefined) throw missing('transaction.targetTransactionId');
      return { facts: { type, ...base, targetTransactionId: target, transactionReference: body.transaction?.reference } };
    }
    case 'INITIATE_AUTHENTICATION':
    case 'AUTHENTICATE_PAYER':
      return { facts: await authenticationFacts(type, gateway, merchant, base, sent, body, session) };
  }
}

/**
 * A transaction of the order API as a transaction of the order (order-service.ts): its facts, and
 * its answer in the request's version with the merchant's masking. transaction.reference is
 * echoed, never held: on this API a client may send the same one on many transactions. `origin`:
 * the gateway's own address as the client reached it (3-D Secure's HTML sends the payer's browser
 * to the emulator's pages there). `entryPoint`: CHECKOUT for the payments and authentications of the gateway's payment page.
 */
export async function orderApiRequest(
  gateway: Gateway, merchant: MerchantProfile, params: TransactionApiParams, body: TransactionBody, origin = DEFAULT_ORIGIN, entryPoint?: 'CHECKOUT', payer?: PayerDetails,
): Promise<OrderRequest<OrderApiCommand, object>> {
  const { facts, depends } = await commandFacts(gateway, merchant, params, body);
  // The payment page's payments show where they came from (gatewayEntryPoint), and the payer's details the page took
  // (a merchant's own payment: the billing address and customer details it sent).
  if (entryPoint && (facts.type === 'PAY' || facts.type === 'AUTHORIZE' || facts.type === 'VERIFY')) {
    facts.entryPoint = entryPoint;
    if (payer) facts.payer = payer;
  }
  // Its authentications too (Authenticate Payer's answers read it from the initiated authentication).
  if (entryPoint && facts.type === 'INITIATE_AUTHENTICATION') facts.entryPoint = entryPoint;
  const masking = maskingOf(merchant);
  const { version } = params;
  return {
    facts,
    uniqueReference: undefined,
    depends,
    answer: (transaction, state) => ('step' in transaction
      ? authenticationResponse(transaction.authentication, transaction.step, { order: state as ExistingOrder, version, masking, origin, correlationId: body.correlationId })
      : transactionResponse(transaction, asOrder(state, transaction), version, masking, body.correlationId)),
  };
}

/** The order as a LOCK_FAILURE answer shows it: as it stands, or (none recorded yet) as the refused transaction would have opened it. */
function asOrder(state: OrderState, t: OrderTransaction): Extract<OrderState, { exists: true }> {
  if (state.exists) return state;
  return {
    exists: true, merchantId: t.merchantId, orderId: t.orderId, currency: t.currency, reference: t.orderReference,
    creationTime: t.timeOfRecord, lastUpdatedTime: t.timeOfRecord, status: t.orderStatus, totals: t.totalsAfter, transactions: new Map(),
  } as Extract<OrderState, { exists: true }>;
}

/** The order a retrieval names; an unknown one is refused in the real gateway's words (no field: a recorded answer, test/fixtures/recorded/README.md). */
async function orderOf(gateway: Gateway, merchant: MerchantProfile, orderId: string) {
  const state = foldOrder(await readOwnStream(gateway.store, streams.order(merchant.id, orderId)));
  if (!state.exists) throw new InvalidRequest(`Unable to find order ${orderId} for merchant ${merchant.id}`);
  return state;
}

/** Retrieve Transaction: the transaction as recorded (a version 3 payment of the same order too; an authentication as it stands). */
export async function retrieveOrderTransaction(gateway: Gateway, merchant: MerchantProfile, params: TransactionApiParams, origin = DEFAULT_ORIGIN) {
  const state = await orderOf(gateway, merchant, params.orderId);
  const authentication = state.modern?.authentications?.get(params.transactionId);
  if (authentication) return authenticationResponse(authentication, 'latest', { order: state, version: params.version, masking: maskingOf(merchant), origin });
  const transaction = transactionOf(state, params.transactionId);
  if (!transaction) throw new InvalidRequest(`Value '${params.transactionId}' is invalid. No such transaction on order ${params.orderId}`, 'transactionId');
  return transactionResponse(transaction, state, params.version, maskingOf(merchant));
}

/** Retrieve Order: the order with every transaction, oldest first. */
export async function retrieveOrderApi(gateway: Gateway, merchant: MerchantProfile, params: OrderApiParams, origin = DEFAULT_ORIGIN) {
  const state = await orderOf(gateway, merchant, params.orderId);
  const ids = [...state.transactions.keys(), ...(state.modern?.operations.keys() ?? [])];
  const transactions = ids.map((id) => transactionOf(state, id)).filter((t): t is OrderTransaction => t !== undefined)
    .sort((a, b) => (a.timeOfRecord < b.timeOfRecord ? -1 : a.timeOfRecord > b.timeOfRecord ? 1 : 0));
  const masking = maskingOf(merchant);
  const authentications = [...(state.modern?.authentications?.values() ?? [])];
  const views = authentications.map((a) => ({
    time: a.initiated.timeOfRecord, view: authenticationResponse(a, 'latest', { order: state, version: params.version, masking, origin }) as object,
  }));
  const latest = authentications.reduce<(typeof authentications)[number] | undefined>((l, a) => (!l || a.lastUpdated >= l.lastUpdated ? a : l), undefined);
  return orderResponse(state, transactions, params.version, masking, { views, status: latest?.outcome.authenticationStatus });
}

/**
 * The card's expiry month sent as a JSON integer (1 to 12) is read as its digits, before the schema
 * checks it: Omnipay's CreditCard holds the month as an integer, so its drivers send `"month":5`,
 * and the real gateway took that PAY, answering `"month":"5"`. Anything else is left to the schema.
 * The request journal shows the body as sent: it is kept before the month is rewritten.
 */
export function readExpiryMonthNumber(request: { body: unknown; bodyAsSent: unknown }): void {
  const expiry = groupAt(request.body, ['sourceOfFunds', 'provided', 'card', 'expiry']);
  if (expiry === undefined) return;
  const month = expiry.month;
  if (typeof month !== 'number' || !Number.isInteger(month) || month < 1 || month > 12) return;
  keepBodyAsSent(request);
  expiry.month = String(month);
}

