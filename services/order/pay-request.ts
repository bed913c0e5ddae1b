// Version 3's Pay with token as a transaction of the order: the checks the schema cannot make
// (currency and its minor units, amounts, country codes), the token looked up in the merchant's
// own repository only, the command's facts and how its answer is written. Every refusal is a 400
// naming the field.
import { isCountryAlpha3 } from '../../domain/countries.js';
import { InvalidRequest } from '../../domain/errors.js';
import { streams } from '../../domain/events.js';
import { minorUnits, parseAmount, type AmountProblem } from '../../domain/money.js';
import { optional, type PayWithToken } from '../../domain/order/order.js';
import { sortedJson } from '../../lib/json.js';
import type { MerchantProfile } from '../../merchants.js';
import type { PayBody, PayParams } from '../../schemas/pay.js';
import type { Gateway } from '../gateway.js';
import { orderView } from './order-stream.js';
import { tokenBeside, type PayableCards, type PayableRead } from './payable-cards.js';
import type { ReadBeside } from './read-beside.js';
import type { CommandFacts, OrderRequest } from './order-service.js';
import { maskingOf, payResponse, type PayResponse } from './responses.js';

export function amountExplanation(text: string, problem: AmountProblem, currency: string): string {
  switch (problem.kind) {
    case 'format': return `Value '${text}' is invalid. Expected a decimal number such as 100.00`;
    case 'zero': return `Value '${text}' is invalid. Transaction or order amount must be greater than zero`;
    case 'too_large': return `Value '${text}' is invalid. Amount must not exceed 1000000000000`;
    case 'too_many_decimals':
      return `Value '${text}' is invalid. Currency ${currency} allows at most ${problem.allowed} decimal places`;
  }
}

/** A value quoted in an explanation: at most 100 characters. */
const quote = (text: string): string => ([...text].length > 100 ? `${[...text].slice(0, 100).join('')}...` : text);

/**
 * An amount sent as a string ("1.00") or a JSON number (1.00), in the currency's minor units. Both
 * forms are checked by their text as written, with the spec's request decimal rule (characters
 * 0-9 and '.', 1 to 14 of them) and then the currency's: a number's text is `written`, the literal
 * the body parser kept (lib/json-literals.ts), so 1e12 and 0.009999999999999999999 are refused as
 * their strings are, not read as the doubles 1000000000000 and 0.01.
 */
export function amountOf(value: unknown, currency: string, field: string, written?: string): number {
  if (value === undefined) throw new InvalidRequest(`Missing parameter '${field}' required for this apiOperation`, field, 'MISSING');
  const digits = minorUnits(currency);
  if (digits === undefined) throw new InvalidRequest(`Value '${currency}' is invalid. Currency is not supported`, field.replace(/amount$/, 'currency'), 'UNSUPPORTED');
  // (A number without its literal, from no text the parser saw: its shortest text.)
  const text = typeof value === 'string' ? value : typeof value === 'number' ? written ?? (Number.isFinite(value) ? String(value) : undefined) : undefined;
  if (text === undefined) throw new InvalidRequest(`Value '${typeof value}' is invalid. Expected a decimal number such as 100.00`, field);
  const length = [...text].length;
  if (length > 14) throw new InvalidRequest(`Value '${quote(text)}' is invalid. Length is ${length} characters, but must be less than 15`, field);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text)) throw new InvalidRequest(`Value '${quote(text)}' is invalid. Expected a decimal number such as 100.00`, field);
  const parsed = parseAmount(text, digits);
  if (!parsed.ok) throw new InvalidRequest(amountExplanation(text, parsed.problem, currency), field);
  return parsed.minor;
}

function checkAmounts(body: PayBody): { amount: number; taxAmount: number | undefined } {
  const { transaction } = body;
  const digits = minorUnits(transaction.currency);
  if (digits === undefined) {
    throw new InvalidRequest(`Value '${transaction.currency}' is invalid. Currency is not supported`, 'transaction.currency', 'UNSUPPORTED');
  }
  const amount = parseAmount(transaction.amount, digits);
  if (!amount.ok) throw new InvalidRequest(amountExplanation(transaction.amount, amount.problem, transaction.currency), 'transaction.amount');
  const taxText = transaction.tax?.local?.amount;
  if (taxText === undefined) return { amount: amount.minor, taxAmount: undefined };
  // A local tax of zero is a valid tax amount (only the payment's own amount must be above zero).
  const tax = parseAmount(taxText, digits);
  if (!tax.ok && tax.problem.kind !== 'zero') {
    throw new InvalidRequest(amountExplanation(taxText, tax.problem, transaction.currency), 'transaction.tax.local.amount');
  }
  return { amount: amount.minor, taxAmount: tax.ok ? tax.minor : 0 };
}

/** billing.address.country: an ISO 3166 alpha-3 code the gateway knows. */
export function checkCountry(body: { billing?: { address?: { country?: string | null } } }): void {
  const country = body.billing?.address?.country;
  if (typeof country === 'string' && !isCountryAlpha3(country)) {
    throw new InvalidRequest(`Value '${country}' is invalid. Expected an ISO 3166-1 alpha-3 country code`, 'billing.address.country');
  }
}

/** The request, and the token's stream as it read it (its revision: the one the final decision used). */
export type PayRequest = OrderRequest<PayWithToken, PayResponse> & { depends: ReadBeside };

/**
 * Pay with token as a transaction of the order (order-service.ts): the checks, the token's card
 * (`cards`: kept, or read from the store's memory where it can), the command's facts; the answer
 * written with the merchant's masking and the request's correlationId. Without a promise when the
 * card is known at once (most pays); a refusal is thrown.
 */
export function payRequest(gateway: Gateway, cards: PayableCards, merchant: MerchantProfile, params: PayParams, body: PayBody): PayRequest | Promise<PayRequest> {
  const amounts = checkAmounts(body);
  checkCountry(body);
  const stream = streams.token(merchant.repository.id, params.tokenid);
  const payable = cards.of(stream, params.tokenid);
  const made = (read: PayableRead) => requestOf(gateway, merchant, params, body, amounts, read, (facts) => tokenBeside(cards, stream, params.tokenid, read, (payable) => {
    facts.token = payable.token;
    facts.card = payable.card;
  }));
  return payable instanceof Promise ? payable.then(made) : made(payable);
}

function requestOf(
  gateway: Gateway, merchant: MerchantProfile, params: PayParams, body: PayBody,
  { amount, taxAmount }: ReturnType<typeof checkAmounts>, { payable: { token, card } }: PayableRead, beside: (facts: CommandFacts<PayWithToken>) => ReadBeside,
): PayRequest {
  const { transaction } = body;
  const { correlationId, ...fingerprinted } = body;
  // The fingerprint is kept in the order's events and keyed by a secret of the key file: a security
  // code in it could be found again from a copy of the files in at most 10,000 tries. It counts as
  // present or not, of its length; an identical repeat with another code is the same request.
  const securityCode = body.card?.securityCode;
  if (securityCode !== undefined && fingerprinted.card) fingerprinted.card = { ...fingerprinted.card, securityCode: 'x'.repeat(securityCode.length) };
  const facts: CommandFacts<PayWithToken> = {
    type: 'PayWithToken',
    merchantId: merchant.id,
    orderId: params.orderid,
    transactionId: params.transactionid,
    // (Members written in sorted order: sortedJson has nothing to sort in this object.)
    requestFingerprint: gateway.sealer.fingerprint(sortedJson({ body: fingerprinted, tokenid: params.tokenid })),
    repositoryId: merchant.repository.id,
    token,
    card,
    amount,
    currency: transaction.currency,
    securityCode,
    billingStreet: body.billing?.address?.street,
    orderReference: body.order?.reference,
    transactionReference: transaction.reference,
    source: transaction.source,
    frequency: transaction.frequency,
    cashAdvance: transaction.cashAdvance,
    taxLocal: transaction.tax?.local ? optional({ ...transaction.tax.local, amount: taxAmount }) : undefined,
    holder: body.card?.holder,
    rules: merchant.rules ?? [],
    bypassMerchantRiskRules: body.action?.bypassMerchantRiskRules === 'ALL',
    acquirerMerchantId: merchant.id,
  };
  const masking = maskingOf(merchant);
  return {
    facts,
    depends: beside(facts),
    uniqueReference: transaction.reference,
    answer: (payment, state, now) => payResponse(payment, orderView(state, now, payment.transactionId), correlationId, masking),
  };
}
