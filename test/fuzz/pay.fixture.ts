// Pay with token (PUT version 3) for the fuzz suites: the request fields of the spec with their
// bounds and formats, valid requests, and mutations that each break one known thing.
// Named *.fixture.ts so tap does not run it as a test file.
import fc from 'fast-check';
import currencyCodes from 'currency-codes';
import { buildTestApp, createToken, M1, M2, UNIQUE, payAuth } from '../helpers/app.js';
import {
  ALNUM, DIGIT, NOT_ALNUM, NOT_DIGIT, anyChar, booleanField, cardNumber, clone, codePoints, digits, enumField, groupMutations, groupsOf,
  ipv4, badIpv4, leafMutations, length, luhnValid, sensitiveValues, text, textField, toText, validBody, withBadChar,
  type App, type FieldSpec, type JsonObject, type Mutation, type Sent,
} from './fuzz.fixture.js';
import type { Test } from 'tap';

/** ISO 4217 codes whose minor unit is "N.A." (metals, funds, testing, no currency): not money a card pays in. */
export const NOT_PAYABLE = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);
export const minorDigits = (currency: string): number => currencyCodes.code(currency)?.digits ?? -1;
/** Every payable currency with its minor units. */
export const ALL_CURRENCIES = currencyCodes.codes().filter((c) => !NOT_PAYABLE.has(c) && Number.isInteger(minorDigits(c)));
/**
 * Those whose amounts fit the response decimal rule (at most 3 decimals). CLF and UYW have 4
 * minor digits: see the bug property in pay.test.ts.
 */
export const CURRENCIES = ALL_CURRENCIES.filter((c) => minorDigits(c) <= 3);

export const STORED_PAN = '5123450000000008';
const MAX_AMOUNT = 1_000_000_000_000n;

/** A request amount for a currency with `d` minor digits: > 0, at most 1e12, at most d decimals, 1-14 characters. */
export const amountFor = (d: number, allowZero = false) =>
  fc.oneof(
    fc.bigInt({ min: allowZero ? 0n : 1n, max: 100_000n }),
    fc.bigInt({ min: allowZero ? 0n : 1n, max: MAX_AMOUNT * 10n ** BigInt(d) }),
  ).chain((minor) => {
    const unit = 10n ** BigInt(d);
    const whole = (minor / unit).toString();
    const fraction = d === 0 ? '' : (minor % unit).toString().padStart(d, '0');
    const significant = fraction.replace(/0+$/, '').length;
    return fc.integer({ min: significant, max: d }).map((shown) => (shown === 0 ? whole : `${whole}.${fraction.slice(0, shown)}`));
  }).filter((s) => s.length <= 14);

/** Amounts the gateway refuses for a currency with `d` minor digits (format is right). */
const refusedAmount = (d: number, allowZero: boolean) => fc.oneof(
  ...(allowZero ? [] : [fc.constantFrom('0', '0.0', '00', '0.00', '000000000')]),
  fc.tuple(digits(1, 4), digits(d, d), fc.constantFrom(...'123456789')).map(([w, f, last]) => `${w}.${f}${last}`).filter((s) => s.length <= 14),
  fc.bigInt({ min: MAX_AMOUNT + 1n, max: 10n ** 14n - 1n }).map(String),
).map((value) => ({ value, validationType: 'INVALID' }));

const decimalFormat = fc.oneof(
  fc.constantFrom('-1', '+1', '1e5', '1E5', '.5', '5.', '0x1F', 'Infinity', 'NaN', '1,00', '1 000', '1.2.3', '١٢', '\uff11', '1\u00a0000', ' 1', '1 ', '', '.', '-0'),
  withBadChar(digits(1, 6), NOT_DIGIT.filter((c) => c !== '.')),
);

const currencyFormat = fc.oneof(
  fc.constantFrom(...CURRENCIES).map((c) => c.toLowerCase()),
  fc.constantFrom('Usd', 'uSD', 'U1D', 'U D', '\uff35SD', 'US\u0000', 'E\u200bU', '\u00c9UR', '123', 'U$D', '\u202eUSD'.slice(0, 3)),
  fc.tuple(codePoints(fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ'), 2, 2), fc.oneof(NOT_ALNUM, DIGIT, fc.constantFrom(...'abcxyz')), fc.nat(2))
    .map(([letters, bad, at]) => { const cs = [...letters]; cs.splice(at, 0, bad); return cs.join(''); }),
).filter((c) => !/^[A-Z]{3}$/.test(c) && length(c) === 3);

export const COUNTRIES = ['USA', 'GBR', 'FRA', 'DEU', 'JPN', 'AUS', 'BRA', 'IND', 'ZAF', 'CAN', 'ALA'];

/** The pay request fields of the spec ("Pay with token: request body"), for a currency with `d` minor digits. */
export function paySpecs(d: number): FieldSpec[] {
  const UPPER = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
  return [
    enumField('apiOperation', ['PAY'], { required: true }),
    enumField('action.bypassMerchantRiskRules', ['ALL']),
    textField('billing.address.city', 1, 100),
    {
      path: 'billing.address.country', type: 'string', min: 3, max: 3, valid: fc.constantFrom(...COUNTRIES), fill: UPPER,
      badFormat: currencyFormat, semantic: fc.constantFrom('ZZZ', 'AAA', 'XKK', 'QQQ', 'EUR').map((value) => ({ value, validationType: 'INVALID' })),
    },
    textField('billing.address.postcodeZip', 1, 9),
    textField('billing.address.stateProvince', 1, 20),
    textField('billing.address.street', 1, 100),
    textField('billing.phone', 1, 20),
    textField('card.holder.firstName', 1, 50),
    textField('card.holder.fullName', 1, 100),
    textField('card.holder.lastName', 1, 50),
    textField('card.holder.middleName', 1, 50),
    textField('card.holder.title', 0, 20),
    { path: 'card.securityCode', type: 'string', min: 3, max: 4, valid: digits(3, 4), fill: DIGIT, badFormat: withBadChar(digits(2, 3), NOT_DIGIT), sensitive: true },
    textField('correlationId', 1, 100),
    { path: 'customer.ipAddress', type: 'string', min: 7, max: 15, valid: ipv4, fill: DIGIT, badFormat: badIpv4 },
    textField('order.reference', 1, 40),
    { path: 'transaction.amount', type: 'string', min: 1, max: 14, required: true, valid: amountFor(d), fill: DIGIT, badFormat: decimalFormat, semantic: refusedAmount(d, false) },
    booleanField('transaction.cashAdvance'),
    {
      path: 'transaction.currency', type: 'string', min: 3, max: 3, required: true, valid: fc.constant('USD'), fill: UPPER, badFormat: currencyFormat,
      semantic: fc.constantFrom('ZZZ', 'QQQ', 'AAA', 'ABC', ...NOT_PAYABLE).map((value) => ({ value, validationType: 'UNSUPPORTED' })),
    },
    enumField('transaction.frequency', ['INSTALLMENT', 'RECURRING', 'SINGLE']),
    textField('transaction.reference', 1, 40),
    enumField('transaction.source', ['CALL_CENTRE', 'CARD_PRESENT', 'INTERNET', 'MAIL_ORDER', 'MOTO', 'TELEPHONE_ORDER', 'VOICE_RESPONSE']),
    { path: 'transaction.tax.local.amount', type: 'string', min: 1, max: 14, valid: amountFor(d, true), fill: DIGIT, badFormat: decimalFormat, semantic: refusedAmount(d, true) },
    booleanField('transaction.tax.local.exempt'),
    textField('transaction.tax.local.reference', 1, 20),
  ];
}

/** Groups of the pay body; `transaction` is required. */
export const PAY_GROUPS = groupsOf(paySpecs(2));
const REQUIRED_GROUPS = new Set(['transaction']);

export interface Payer { id: string; password: string; token: string }

export interface PayRequest {
  merchantId: string;
  password: string;
  tokenid: string;
  orderid: string;
  transactionid: string;
  currency: string;
  digits: number;
  body: JsonObject;
  /** Undefined: the payer's credentials; null: no Authorization header. */
  authorization?: string | null;
  /** Undefined: application/json; null: no Content-Type header. */
  contentType?: string | null;
  /** Sent instead of the body's JSON text (malformed JSON); null: no body at all. */
  payload?: string | null;
}

export interface PayWorld {
  app: App;
  payers: Payer[];
  /** A payment recorded at start: M1, USD, its order, transaction, reference and body. */
  recorded: { orderid: string; transactionid: string; reference: string; body: JsonObject };
}

/** A fresh app with a token for each pay merchant and one recorded payment. */
export async function payWorld(t: Test): Promise<PayWorld> {
  const app = await buildTestApp(t);
  const payers: Payer[] = [];
  for (const m of [M1, M2, UNIQUE]) payers.push({ id: m.id, password: m.apiPassword, token: await createToken(app, m, STORED_PAN, '1', '39') });
  const payer = payers[0] as Payer;
  const recorded = {
    orderid: '5555555555555555', transactionid: 'recorded-1', reference: 'recorded-reference',
    body: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD', reference: 'recorded-reference' } },
  };
  const res = await app.inject({
    method: 'PUT', url: payUrl(payer.id, payer.token, recorded.orderid, recorded.transactionid),
    headers: { authorization: payAuth(M1), 'content-type': 'application/json' }, payload: JSON.stringify(recorded.body),
  });
  if (res.statusCode !== 201) throw new Error(`setup payment failed: ${res.statusCode} ${res.body}`);
  return { app, payers, recorded };
}

const enc = (s: string) => encodeURIComponent(s);
export const payUrl = (merchantId: string, tokenid: string, orderid: string, transactionid: string) =>
  `/api/rest/version/3/merchant/${enc(merchantId)}/token/${enc(tokenid)}/order/${enc(orderid)}/transaction/${enc(transactionid)}`;

/** An order id of version 3: 10000000000 to 9999999999999999, and no card number (13 digits or more passing Luhn: refused). */
export const orderIdArb = fc.bigInt({ min: 10n ** 10n, max: 10n ** 16n - 1n }).map(String).filter((v) => v.length < 13 || !luhnValid(v));
/**
 * Any characters but NUL (refused in every parameter: PostgreSQL cannot hold one), 1-40 (but '.'
 * and '..', which every URL parser turns into a dot segment).
 */
export const transactionIdArb = codePoints(anyChar, 1, 40).filter((s) => s !== '.' && s !== '..' && !s.includes('\u0000'));

/** A valid pay request of a random merchant, currency and optional fields. */
export function validPay(world: PayWorld, currencies: readonly string[] = CURRENCIES): fc.Arbitrary<PayRequest> {
  return fc.tuple(fc.constantFrom(...currencies), fc.constantFrom(...world.payers)).chain(([currency, payer]) => {
    const d = minorDigits(currency);
    return fc.record({
      orderid: orderIdArb,
      transactionid: transactionIdArb,
      body: validBody(paySpecs(d), { 'transaction.currency': fc.constant(currency) }),
    }).map((r): PayRequest => ({ ...r, merchantId: payer.id, password: payer.password, tokenid: payer.token, currency, digits: d }));
  });
}

export function paySent(r: PayRequest): Sent {
  const headers: Record<string, string> = {};
  const authorization = r.authorization === undefined ? payAuth({ apiPassword: r.password }) : r.authorization;
  if (authorization !== null) headers.authorization = authorization;
  const contentType = r.contentType === undefined ? 'application/json' : r.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  const payload = r.payload === undefined ? toText(r.body) : r.payload;
  return { method: 'PUT', url: payUrl(r.merchantId, r.tokenid, r.orderid, r.transactionid), headers, ...(payload === null ? {} : { payload }) };
}

export function paySecrets(r: PayRequest) {
  const { values, rest } = sensitiveValues(r.body);
  return { values: [...values, STORED_PAN], elsewhere: `${rest} ${r.payload ?? ''}` };
}

// ---------------------------------------------------------------------------------------------
// Mutations

export type PayMutation = Mutation<PayRequest>;

/** One wrong field or member of the body. */
export function bodyMutation(r: PayRequest): fc.Arbitrary<PayMutation> {
  const leaves = paySpecs(r.digits).map((s) => leafMutations<PayRequest>(s));
  const groups = [...PAY_GROUPS].map(([g, members]) => groupMutations<PayRequest>(g, members, REQUIRED_GROUPS.has(g)));
  return fc.oneof(...leaves, ...groups);
}

const param = (name: 'merchantid' | 'tokenid' | 'orderid' | 'transactionid', what: string, value: string, status: number[] = [400]): PayMutation => ({
  what: `${what}: ${name} = ${JSON.stringify(value)}`, at: `url:${name}`,
  apply: (r) => {
    if (name === 'merchantid') r.merchantId = value;
    else r[name] = value;
  },
  expect: { status, fields: [name], validationTypes: ['INVALID'] },
});

const MERCHANT_FORMAT = /^[0-9A-Za-z_-]{1,40}$/;
const NO_LONE = (c: string) => !/[\ud800-\udfff]/.test(c) || /[\ud800-\udbff][\udc00-\udfff]/.test(c);

/** One wrong URL parameter. */
export function urlMutation(world: PayWorld, r: PayRequest): fc.Arbitrary<PayMutation> {
  const known = new Set(world.payers.map((p) => p.id));
  const tokens = new Set(world.payers.map((p) => p.token));
  const urlChar = NOT_ALNUM.filter(NO_LONE);
  return fc.oneof(
    // merchantid: a bad one is 400 naming it; a well-formed unknown one fails authentication.
    codePoints(ALNUM, 41, 80).map((v) => param('merchantid', 'too long', v)),
    withBadChar(fc.constant(r.merchantId), urlChar.filter((c) => c !== '-' && c !== '_')).map((v) => param('merchantid', 'bad character', v)),
    fc.constant(param('merchantid', 'empty', '')),
    codePoints(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'), 1, 40).filter((v) => MERCHANT_FORMAT.test(v) && !known.has(v))
      .map((v) => ({ ...param('merchantid', 'unknown merchant', v), expect: { status: [401] } })),
    // tokenid: format, length, and tokens that are not this merchant's.
    codePoints(ALNUM, 41, 80).map((v) => param('tokenid', 'too long', v)),
    withBadChar(fc.constant(r.tokenid), urlChar).map((v) => param('tokenid', 'bad character', v)),
    fc.constant(param('tokenid', 'empty', '')),
    codePoints(ALNUM, 1, 40).filter((v) => !tokens.has(v)).map((v) => param('tokenid', 'unknown token', v)),
    fc.constantFrom(...world.payers.filter((p) => p.id !== r.merchantId)).map((p) => param('tokenid', "another merchant's token", p.token)),
    fc.constant(param('tokenid', "the card number instead of the token", STORED_PAN)),
    // orderid: 10000000000 to 9999999999999999, digits only.
    fc.bigInt({ min: 0n, max: 10n ** 10n - 1n }).map((v) => param('orderid', 'below 10000000000', String(v))),
    fc.bigInt({ min: 10n ** 16n, max: 10n ** 30n }).map((v) => param('orderid', 'above 9999999999999999', String(v))),
    fc.tuple(fc.integer({ min: 1, max: 5 }), orderIdArb).map(([zeros, v]) => param('orderid', 'leading zeros', '0'.repeat(zeros) + v)),
    withBadChar(orderIdArb, urlChar).map((v) => param('orderid', 'bad character', v)),
    // (A gateway token id, 16 digits beginning with 9, is no card number.)
    cardNumber(13, 16).filter((v) => !/^9[0-9]{15}$/.test(v)).map((v) => param('orderid', 'a card number', v)),
    fc.constantFrom('1e10', '-10000000000', '10000000000.0', '0x2540BE400', '\u0661\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0660\u0660', '', ' 10000000000')
      .map((v) => param('orderid', 'not an integer', v)),
    // transactionid: any characters but NUL, 1-40.
    fc.constant(param('transactionid', 'empty', '')),
    transactionIdArb.map((v) => param('transactionid', 'a NUL', `${v}\u0000`.slice(-40))),
    codePoints(anyChar, 41, 44).map((v) => param('transactionid', 'too long', v)),
  );
}

/** Refusals that depend on what is recorded: same ids with another request, a used reference, another currency. */
export function stateMutation(world: PayWorld): fc.Arbitrary<PayMutation> {
  const payer = world.payers[0] as Payer;
  const onRecorded = (apply: (q: PayRequest) => void) => (q: PayRequest) => {
    q.merchantId = payer.id; q.password = payer.password; q.tokenid = payer.token; q.orderid = world.recorded.orderid;
    apply(q);
  };
  return fc.constantFrom<PayMutation>(
    {
      what: 'the recorded transaction ids with another request', at: 'state',
      apply: onRecorded((q) => { q.transactionid = world.recorded.transactionid; }),
      // An identical body is a repeat (201); the base body is random, so it differs.
      expect: { status: [400], fields: [null] },
    },
    {
      what: 'a transaction.reference already used by another transaction of the merchant', at: 'state',
      apply: (q) => {
        q.merchantId = payer.id; q.password = payer.password; q.tokenid = payer.token;
        if (q.orderid === world.recorded.orderid) q.orderid = '10000000001';
        const t = q.body.transaction as JsonObject;
        t.reference = world.recorded.reference;
      },
      expect: { status: [400], fields: ['transaction.reference'], validationTypes: ['INVALID'] },
    },
    {
      what: "a new transaction on the recorded order in another currency", at: 'state',
      apply: onRecorded((q) => {
        q.transactionid = `other-${q.transactionid}`.slice(0, 40);
        const currency = q.currency === 'USD' ? 'EUR' : q.currency;
        const t = q.body.transaction as JsonObject;
        t.currency = currency;
        if (currency === 'EUR') { t.amount = '1.00'; const tax = (t.tax as JsonObject | undefined)?.local as JsonObject | undefined; if (tax?.amount !== undefined) tax.amount = '0.10'; }
      }),
      expect: { status: [400], fields: ['transaction.currency'], validationTypes: ['INVALID'] },
    },
  );
}

export function applied(r: PayRequest, mutations: readonly PayMutation[]): PayRequest {
  const copy: PayRequest = { ...r, body: clone(r.body) as JsonObject };
  for (const m of mutations) m.apply(copy);
  return copy;
}

export { text };
