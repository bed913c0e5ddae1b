// Pay with token: read the token and the order, decide, append with the order's revision as
// the expected one, bring the read models up to date, answer. A conflict (another request
// wrote the order first) re-reads and decides again: an identical repeat then finds its
// transaction recorded and answers with it, so a payment is never recorded twice.
import { randomUUID } from 'node:crypto';
import { InvalidRequest } from '../domain/errors.js';
import { streams } from '../domain/events.js';
import { minorUnits, parseAmount, type AmountProblem } from '../domain/money.js';
import { decidePay, evolveOrder, optional, type OrderState } from '../domain/order.js';
import { sortedJson } from '../lib/json.js';
import type { MerchantProfile } from '../merchants.js';
import type { PayBody, PayParams } from '../schemas/pay.js';
import { WrongExpectedRevisionError } from '../store/event-store.js';
import { foldOrder, foldToken, revisionAfter } from './aggregates.js';
import { Busy, randomDigits, toEventData, type RequestMeta } from './context.js';
import type { Gateway } from './gateway.js';
import { payResponse } from './responses.js';

const MAX_ATTEMPTS = 20;

export function amountExplanation(text: string, problem: AmountProblem, currency: string): string {
  switch (problem.kind) {
    case 'format': return `Value '${text}' is invalid. Expected a decimal number such as 100.00`;
    case 'zero': return `Value '${text}' is invalid. Transaction or order amount must be greater than zero`;
    case 'too_large': return `Value '${text}' is invalid. Amount must not exceed 1000000000000`;
    case 'too_many_decimals':
      return `Value '${text}' is invalid. Currency ${currency} allows at most ${problem.allowed} decimal places`;
  }
}

export async function payWithToken(gateway: Gateway, merchant: MerchantProfile, params: PayParams, body: PayBody, meta: RequestMeta) {
  const { transaction } = body;
  const digits = minorUnits(transaction.currency);
  if (digits === undefined) {
    throw new InvalidRequest(`Value '${transaction.currency}' is invalid. Currency is not supported`, 'transaction.currency', 'UNSUPPORTED');
  }
  const amount = parseAmount(transaction.amount, digits);
  if (!amount.ok) throw new InvalidRequest(amountExplanation(transaction.amount, amount.problem, transaction.currency), 'transaction.amount');
  const taxText = transaction.tax?.local?.amount;
  let taxAmount: number | undefined;
  if (taxText !== undefined) {
    const tax = parseAmount(taxText, digits);
    if (!tax.ok && tax.problem.kind !== 'zero') {
      throw new InvalidRequest(amountExplanation(taxText, tax.problem, transaction.currency), 'transaction.tax.local.amount');
    }
    taxAmount = tax.ok ? tax.minor : 0;
  }

  const repositoryId = merchant.repository.id;
  const token = foldToken(await gateway.store.readStream(streams.token(repositoryId, params.tokenid)));
  if (token.status !== 'VALID') {
    // Looked up only in this merchant's repository: the answer says nothing of other repositories.
    throw new InvalidRequest(`Value '${params.tokenid}' is invalid. No such token in the merchant's token repository`, 'tokenid');
  }

  const { correlationId, ...fingerprinted } = body;
  const requestFingerprint = gateway.sealer.fingerprint(sortedJson({ tokenid: params.tokenid, body: fingerprinted }));
  const { numberSealed: _sealed, ...card } = token.card;
  const stream = streams.order(merchant.id, params.orderid);

  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const history = await gateway.store.readStream(stream);
    const state = foldOrder(history);
    const now = new Date().toISOString();
    const decision = decidePay(state, {
      type: 'PayWithToken',
      merchantId: merchant.id,
      orderId: params.orderid,
      transactionId: params.transactionid,
      requestFingerprint,
      repositoryId,
      token: token.token,
      card,
      amount: amount.minor,
      currency: transaction.currency,
      securityCode: body.card?.securityCode,
      billingStreet: body.billing?.address?.street,
      orderReference: body.order?.reference,
      transactionReference: transaction.reference,
      source: transaction.source,
      frequency: transaction.frequency,
      cashAdvance: transaction.cashAdvance,
      taxLocal: transaction.tax?.local
        ? optional({ ...transaction.tax.local, amount: taxAmount })
        : undefined,
      acquirerMerchantId: merchant.id,
      ids: {
        authorizationCode: randomDigits(6),
        receipt: randomDigits(12),
        stan: randomDigits(6),
        acquirerTransactionId: randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase(),
        batch: Number(now.slice(0, 10).replace(/-/g, '')),
      },
      now,
    });
    if (decision.kind === 'replayed') {
      return payResponse(decision.payment, orderView(state), correlationId);
    }
    try {
      await gateway.store.append(stream, toEventData(decision.events, meta, now), {
        expectedRevision: revisionAfter(history),
      });
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) continue;
      throw error;
    }
    await gateway.readModels.catchUp();
    const after = decision.events.reduce(evolveOrder, state);
    return payResponse(decision.payment, orderView(after), correlationId);
  }
  throw new Busy(`Order '${params.orderid}' is being changed by too many requests at once`);
}

function orderView(state: OrderState): { creationTime: string; reference: string | undefined } {
  if (!state.exists) throw new Error('order state must exist after a payment');
  return { creationTime: state.creationTime, reference: state.reference };
}
