// Retrieve operations in the real gateway's shapes, answered from the read models (brought up to
// date first, so writes by other processes sharing the store are seen).
import { InvalidRequest } from '../../domain/errors.js';
import { streams } from '../../domain/events.js';
import { minorUnits, toDecimal } from '../../domain/money.js';
import { optional } from '../../domain/order/order.js';
import { foldOrderStream, orderView } from '../order/order-stream.js';
import { payResponse } from '../order/responses.js';
import { schemeTokenView } from '../token/token-responses.js';
import { maskCardNumber } from '../../domain/token/accounts.js';
import type { MerchantProfile } from '../../merchants.js';
import { tokenKey, type TokenDoc } from '../../projections/tokens.js';
import type { Gateway } from '../gateway.js';
import { readOwnStream } from '../aggregates.js';
import { hiddenByReset } from '../test-control/sandbox-commands.js';

export async function retrieveToken(gateway: Gateway, merchant: MerchantProfile, token: string) {
  const doc = await gateway.readModels.getCurrent<TokenDoc>('tokens', tokenKey(merchant.repository.id, token));
  // Only this merchant's repository is consulted: nothing is said of tokens elsewhere. A token
  // of before a reset of the repository is gone for the API, though its document stays.
  if (!doc || await hiddenByReset(gateway, streams.token(merchant.repository.id, token))) throw new InvalidRequest(`Value '${token}' is invalid. No such token in the merchant's token repository`, 'tokenid');
  const { card } = doc.sourceOfFunds.provided;
  const masking = merchant.repository.cardNumberMasking ?? '6.4';
  const provided = card ? { ...doc.sourceOfFunds.provided, card: { ...card, number: maskCardNumber(card.number, masking) } } : doc.sourceOfFunds.provided;
  return optional({
    repositoryId: doc.repositoryId,
    result: 'SUCCESS',
    // The current scheme token, as the scheme-token reactor last recorded it.
    schemeToken: schemeTokenView(doc.schemeToken),
    shipping: doc.sourceOfFunds.type === 'WALLET' ? doc.shipping : undefined,
    sourceOfFunds: { ...doc.sourceOfFunds, provided },
    status: doc.status,
    token: doc.token,
    usage: doc.usage,
    verificationStrategy: doc.verificationStrategy,
  });
}

/** Retrieve Order: the order with every transaction, each as its pay response (final outcomes). */
export async function retrieveOrder(gateway: Gateway, merchant: MerchantProfile, orderId: string) {
  const state = await orderOf(gateway, merchant, orderId);
  const masking = merchant.repository.cardNumberMasking ?? '6.4';
  const transactions = [...state.transactions.values()].map((payment) => payResponse(payment, orderView(state, state.creationTime, payment.transactionId), undefined, masking));
  const amount = (minor: number) => toDecimal(minor, minorUnits(state.currency) ?? 2);
  return optional({
    amount: amount([...state.transactions.values()].reduce((sum, p) => sum + p.amount, 0)),
    creationTime: state.creationTime,
    currency: state.currency,
    id: BigInt(state.orderId),
    lastUpdatedTime: state.lastUpdatedTime,
    merchant: merchant.id,
    reference: state.reference,
    result: 'SUCCESS',
    status: state.status,
    totalAuthorizedAmount: amount(state.totals.authorized),
    totalCapturedAmount: amount(state.totals.captured),
    totalRefundedAmount: amount(state.totals.refunded),
    transaction: transactions,
  });
}

/** Retrieve Transaction: the pay response as recorded, with the final outcome once resolved. */
export async function retrieveTransaction(gateway: Gateway, merchant: MerchantProfile, orderId: string, transactionId: string) {
  const state = await orderOf(gateway, merchant, orderId);
  const payment = state.transactions.get(transactionId);
  if (!payment) throw new InvalidRequest(`Value '${transactionId}' is invalid. No such transaction on order ${orderId}`, 'transactionid');
  return payResponse(payment, orderView(state, state.creationTime, transactionId), undefined, merchant.repository.cardNumberMasking ?? '6.4');
}

async function orderOf(gateway: Gateway, merchant: MerchantProfile, orderId: string) {
  const state = foldOrderStream(await readOwnStream(gateway.store, streams.order(merchant.id, orderId)));
  if (!state.exists) throw new InvalidRequest(`Value '${orderId}' is invalid. No such order`, 'orderid');
  return state;
}
