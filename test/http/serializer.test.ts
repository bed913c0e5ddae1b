// Issue 7: replies are written by serializers compiled from the route response schemas
// (plugins/openapi.ts, fast-json-stringify with sorted properties). A compiled serializer writes
// only what its schema declares, so this proves, for real responses of every kind (every row of
// the pay trigger tables of docs/triggers.md, token responses of every source of funds and scheme-token
// state, retrievals, error bodies), that it writes byte for byte what lib/json.ts sortedJson
// writes of the same object, and that the HTTP body is that text. The objects come from the
// services the routes call: an identical pay repeat answers the recorded response, and a token
// request sent to the service directly is compared in shape with the same request over HTTP.
import t, { type Test } from 'tap';
import type { InjectOptions } from 'fastify';
import fc from 'fast-check';
import { Type, type TSchema } from '@sinclair/typebox';
import { sortedJson } from '../../lib/json.js';
import { responseSerializer, serializerDecisions, sortedSchema, type Serializer } from '../../plugins/openapi.js';
import { PayBody } from '../../schemas/pay.js';
import { documented, ErrorBody, PayResponse, TokenResponse } from '../../schemas/responses.js';
import { TokenBody } from '../../schemas/token.js';
import { handleOrderCommand } from '../../services/order/order-service.js';
import { payRequest } from '../../services/order/pay-request.js';
import { PayableCards } from '../../services/order/payable-cards.js';
import { retrieveOrder, retrieveToken, retrieveTransaction } from '../../services/queries/retrieval.js';
import { createToken } from '../../services/token/tokens.js';
import { buildTestApp, createToken as createStoredToken, M1, M2, UNIQUE, payAuth, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { cell, newOrderId, payAs, payBody, readmeTriggerTables, RULES, storedCard, type App, type Merchant } from './pay-triggers.fixture.js';
import { ALL_MERCHANTS, MASK04, SCHEME, SCHEME_SYNC, SCHEME_UNIQUE, ach, card, create, directDebitCanada, wallet } from './token-api.fixture.js';
import { eventually } from '../helpers/poll.js';

process.env.SCHEME_TOKEN_DELAY_MS = '150';

const MERCHANTS = { merchants: [...ALL_MERCHANTS.merchants, RULES] };
const meta = (merchantId: string) => ({ requestId: 'serializer-test', correlationId: 'serializer-test', merchantId });
const profileOf = (app: App, id: string) => {
  const profile = app.gateway.merchants.get(id);
  if (!profile) throw new Error(`no merchant ${id}`);
  return profile;
};
const resolveIn = (app: App) => (id: string): unknown => (app.getSchemas() as Record<string, unknown>)[id];

function serializersOf(t: Test, app: App): { pay: Serializer; token: Serializer; error: Serializer } {
  const resolve = resolveIn(app);
  const pay = responseSerializer(documented(PayResponse), resolve);
  const token = responseSerializer(documented(TokenResponse), resolve);
  const error = responseSerializer(Type.Ref(ErrorBody), resolve);
  t.ok(pay.compiled, `the pay response schema compiles (${pay.reason ?? ''})`);
  t.ok(token.compiled, `the token response schema compiles (${token.reason ?? ''})`);
  t.ok(error.compiled, `the error body schema compiles (${error.reason ?? ''})`);
  return { pay: pay.serialize, token: token.serialize, error: error.serialize };
}

/** Every leaf replaced by its type: the shape of a response, whatever its ids and times. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf);
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return Object.fromEntries(Object.keys(record).filter((k) => record[k] !== undefined).sort().map((k) => [k, shapeOf(record[k])]));
  }
  return typeof value === 'bigint' ? 'number' : typeof value;
}

interface Samples { pay: Array<[string, unknown]>; token: Array<[string, unknown]>; errors: Array<[string, string]> }

/** A payment over HTTP, then its identical repeat through the service: the recorded response object. */
async function pay(t: Test, app: App, samples: Samples, what: string, merchant: Merchant, token: string, body: Record<string, unknown>, order = newOrderId()) {
  const res = await payAs(app, merchant, token, body, order);
  if (res.statusCode !== 201) {
    samples.errors.push([`${what}: ${res.statusCode}`, res.body]);
    return res;
  }
  const params = { merchantid: merchant.id, tokenid: token, orderid: order, transactionid: '1' };
  const object = await handleOrderCommand(app.gateway, await payRequest(app.gateway, new PayableCards(app.gateway), profileOf(app, merchant.id), params, body as PayBody), meta(merchant.id));
  t.equal(res.body, sortedJson(object), `${what}: the HTTP body is sortedJson of the response object`);
  samples.pay.push([what, object]);
  const retrieved = await retrieveTransaction(app.gateway, profileOf(app, merchant.id), order, '1');
  samples.pay.push([`${what} (Retrieve Transaction)`, retrieved]);
  const http = await app.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${merchant.id}/order/${order}/transaction/1`, headers: { authorization: payAuth(merchant) } });
  t.equal(http.body, sortedJson(retrieved), `${what}: Retrieve Transaction over HTTP`);
  return res;
}

const CSC: Array<[string, string, string | undefined]> = [
  ['MASTERCARD', '512345xxxxxx0008', '100'], ['MASTERCARD', '512345xxxxxx0008', '101'], ['MASTERCARD', '512345xxxxxx0008', '102'],
  ['MASTERCARD', '512345xxxxxx0008', '555'], ['MASTERCARD', '512345xxxxxx0008', undefined],
  ['AMEX', '345678xxxxx4564', '1000'], ['AMEX', '345678xxxxx4564', '1010'], ['AMEX', '345678xxxxx4564', '1020'], ['AMEX', '345678xxxxx4564', '100'],
  ['UATP', '135492xxxxx4528', '100'],
];

/** Every row of the pay trigger tables of docs/triggers.md, as test/http/triggers.test.ts sends them, and more fields. */
async function payTriggers(t: Test, app: App, samples: Samples) {
  const tables = readmeTriggerTables();
  const rows = (header: string) => {
    const found = tables.get(header) ?? [];
    t.ok(found.length > 0, `docs/triggers.md has the table '${header}'`);
    return found;
  };
  for (const header of ['expiry (MM/YY)', 'sandbox expiry (MM/YY)']) {
    for (const [expiry = ''] of rows(header)) {
      const [month, year] = expiry === 'any other date not yet past' ? [3, 35] : expiry === 'a past date' ? [1, 20] : expiry.split('/').map(Number);
      const token = await storedCard(app, M1, month ?? 0, year ?? 0);
      await pay(t, app, samples, `expiry ${expiry}`, M1, token, payBody('12.50', { card: { securityCode: '100' }, billing: { address: { street: '1 Alpha St' } } }));
    }
  }
  for (const [brand, number, securityCode] of CSC) {
    const token = await storedCard(app, M1, 1, 39, brand, number);
    await pay(t, app, samples, `CSC ${brand} ${securityCode ?? 'none'}`, M1, token, payBody('10.00', securityCode ? { card: { securityCode } } : {}));
  }
  const approving = await storedCard(app, M1, 1, 39);
  const declining = await storedCard(app, M1, 5, 39);
  for (const [words = ''] of rows('street contains')) {
    const street = words === 'none of these' ? '1 Main St' : `12 ${cell(words)?.toLowerCase()} apt 4`;
    await pay(t, app, samples, `AVS ${street}`, M1, approving, payBody('10.00', { billing: { address: { street } } }));
  }
  for (const [word = ''] of rows('word in order.reference')) {
    const marker = cell(word) ?? '';
    const extra = marker.startsWith('action.')
      ? { order: { reference: 'cart RISK_REJECT' }, action: { bypassMerchantRiskRules: 'ALL' } }
      : { order: { reference: `cart-7 ${marker}` } };
    await pay(t, app, samples, `risk ${marker}`, M1, approving, payBody('12.50', extra));
    await pay(t, app, samples, `risk ${marker}, declined card`, M1, declining, payBody('12.50', extra));
  }
  for (const [word = ''] of rows("word in the holder's name")) {
    await pay(t, app, samples, `3-D Secure ${word}`, M1, approving, payBody('12.50', { card: { holder: { firstName: 'Ada', lastName: `Smith ${cell(word)}` } } }));
  }
  const rules = await storedCard(app, RULES, 1, 39);
  const visa = await storedCard(app, RULES, 1, 39, 'VISA', '450875xxxxxx1019');
  for (const [what, token, body] of [
    ['rule gatewayCode', rules, payBody('13.13')], ['rule card and amount', visa, payBody('7.77')],
    ['rule latency', rules, payBody('12.50', { order: { reference: 'slow' } })],
    ['rule busy', rules, payBody('12.50', { order: { reference: 'busy' } })],
    ['rule risk REVIEW', rules, payBody('5000.00')], ['rule risk REJECT', rules, payBody('6000.00')],
    ['rule risk bypassed', rules, payBody('6000.00', { action: { bypassMerchantRiskRules: 'ALL' } })],
  ] as const) {
    await pay(t, app, samples, what, RULES, token, body);
  }
  const lost = newOrderId();
  const lostBody = payBody('12.50', { order: { reference: 'lost' } });
  const first = await payAs(app, RULES, rules, lostBody, lost);
  samples.errors.push(['rule SERVER_FAILED', first.body]);
  await pay(t, app, samples, 'rule SERVER_FAILED, retried', RULES, rules, lostBody, lost);
  // Every optional member of the request that the response echoes, and amounts of other currencies.
  const full = (currency: string, amount: string, n: number) => ({
    apiOperation: 'PAY',
    billing: { address: { city: 'Springfield', country: 'USA', postcodeZip: '12345', stateProvince: 'IL', street: '1 Whiskey St' } },
    card: { holder: { firstName: 'Ada', fullName: 'Ada "The" Lovelace \\ \u00e9\u{1F600}', lastName: 'Lovelace', middleName: 'B', title: 'Dr' }, securityCode: '101' },
    correlationId: `corr-${n} "quoted"`,
    customer: { ipAddress: '10.1.2.3' },
    order: { reference: `ref-${n}\u2028` },
    transaction: {
      amount, currency, cashAdvance: n % 2 === 0, frequency: ['INSTALLMENT', 'RECURRING', 'SINGLE'][n % 3], reference: uniqueId('tx-'),
      source: ['CALL_CENTRE', 'CARD_PRESENT', 'INTERNET', 'MAIL_ORDER', 'MOTO', 'TELEPHONE_ORDER', 'VOICE_RESPONSE'][n % 7],
      tax: { local: { amount: '1', exempt: n % 2 === 1, reference: `tax-${n}` } },
    },
  });
  let n = 0;
  for (const [currency, amount] of [['USD', '1234.56'], ['JPY', '1200'], ['KWD', '1.234'], ['EUR', '0.01'], ['USD', '99999999.99']] as const) {
    await pay(t, app, samples, `every echoed field, ${currency} ${amount}`, M1, approving, full(currency, amount, n++));
    await pay(t, app, samples, `every echoed field, declined, ${currency} ${amount}`, M1, declining, full(currency, amount, n++));
  }
  await pay(t, app, samples, 'a 16-digit order id', M1, approving, payBody('1.00'), '9999999999999999');
}

async function tokenCase(t: Test, app: App, samples: Samples, what: string, merchant: Merchant, body: Record<string, unknown>) {
  const res = await create(app, merchant, body);
  if (res.statusCode !== 201) {
    samples.errors.push([`${what}: ${res.statusCode}`, res.body]);
    return undefined;
  }
  const object = await createToken(app.gateway, profileOf(app, merchant.id), body as TokenBody, meta(merchant.id), 'basic');
  t.same(shapeOf(JSON.parse(res.body)), shapeOf(object), `${what}: the HTTP body has every member of the response object`);
  samples.token.push([what, object]);
  return res.json() as { token?: string; schemeToken?: { status: string } };
}

const shipping = {
  address: { city: 'Shipton', country: 'CAN', postcodeZip: 'K1A 0B1', stateProvince: 'ON', street: '5 Ship St', street2: 'Suite "9"' },
  contact: { firstName: 'Sam', lastName: 'Shipper' },
  origin: { postcodeZip: '90210' },
};
const echoes = {
  billing: { address: { city: 'Billington', company: 'ACME \\ Co', country: 'USA', postcodeZip: '10001', stateProvince: 'New York', stateProvinceCode: 'NY', street: '77 Billing St', street2: 'Floor 2' } },
  correlationId: 'corr-token "1"',
  customer: { email: 'jane@example.com', firstName: 'Jane', lastName: 'Doe', mobilePhone: '+1 2125551234', phone: '+44 2071234567', taxRegistrationId: 'TAX-123' },
  device: { ipAddress: '2001:db8::1' },
};

/** Token responses of every source of funds, verification, scheme-token mode and state, and failures. */
async function tokenResponses(t: Test, app: App, samples: Samples) {
  const tokens: Array<[Merchant, string]> = [];
  const keep = (merchant: Merchant, body: { token?: string } | undefined) => { if (body?.token) tokens.push([merchant, body.token]); };
  keep(M1, await tokenCase(t, app, samples, 'card, every echo', M1, { ...echoes, schemeTokenProvisioningMode: 'SYNCHRONOUS', sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39', { nameOnCard: 'Jane "Q" Doe', securityCode: '100' }) } } }));
  keep(M2, await tokenCase(t, app, samples, 'card, preserve 6.4', M2, { sourceOfFunds: { type: 'CARD', provided: { card: card('4508750015741019', '12', '33') } } }));
  keep(MASK04, await tokenCase(t, app, samples, 'card, masked 0.4', MASK04, { sourceOfFunds: { type: 'CARD', provided: { card: card('345678901234564', '1', '39') } } }));
  keep(M1, await tokenCase(t, app, samples, 'ACH', M1, { ...echoes, sourceOfFunds: { type: 'ACH', provided: { ach: ach() } } }));
  keep(M1, await tokenCase(t, app, samples, 'ACH, UNMASK over Basic', M1, { responseControls: { sensitiveData: 'UNMASK' }, sourceOfFunds: { type: 'ACH', provided: { ach: ach({ secCode: 'PPD' }) } } }));
  keep(M1, await tokenCase(t, app, samples, 'direct debit Canada', M1, { sourceOfFunds: { type: 'DIRECT_DEBIT_CANADA', provided: { directDebitCanada: directDebitCanada() } } }));
  keep(M1, await tokenCase(t, app, samples, 'direct debit Canada, no account type', M1, { sourceOfFunds: { type: 'DIRECT_DEBIT_CANADA', provided: { directDebitCanada: directDebitCanada({ accountType: undefined }) } } }));
  keep(M1, await tokenCase(t, app, samples, 'wallet with shipping', M1, { ...echoes, shipping, sourceOfFunds: { type: 'WALLET', provided: { wallet: wallet('B-SHIP-1', 'MULTIPLE') } } }));
  keep(M1, await tokenCase(t, app, samples, 'wallet, minimal', M1, { sourceOfFunds: { type: 'WALLET', provided: { wallet: { billingAgreement: { cardinality: 'SINGLE', id: 'B-MIN-1' } } } } }));
  keep(M1, await tokenCase(t, app, samples, 'card with shipping (not kept)', M1, { shipping, sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '2', '39') } } }));
  for (const [month, year, securityCode] of [['1', '39', '100'], ['1', '39', '102'], ['5', '39', undefined], ['4', '27', undefined], ['8', '28', undefined], ['1', '36', undefined], ['7', '36', undefined]] as const) {
    keep(M1, await tokenCase(t, app, samples, `acquirer verification ${month}/${year} CSC ${securityCode ?? 'none'}`, M1, { ...echoes, transaction: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', month, year, securityCode ? { securityCode } : {}) } } }));
  }
  // Unique card: the same card again updates the same token.
  keep(UNIQUE, await tokenCase(t, app, samples, 'unique card, first', UNIQUE, { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39') } } }));
  keep(UNIQUE, await tokenCase(t, app, samples, 'unique card, again with a new expiry', UNIQUE, { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '3', '39') } } }));
  // Scheme tokens: synchronous outcomes, failures, attempts, asynchronous provisioning, lifecycle.
  for (const [number, month, year] of [['5123450000000008', '1', '39'], ['4508750015741019', '1', '39'], ['345678901234564', '1', '39'], ['5123450000000008', '2', '35'], ['6011003179988686', '1', '39'], ['5123450000000008', '1', '35'], ['5123450000000008', '3', '35']] as const) {
    keep(SCHEME_SYNC, await tokenCase(t, app, samples, `scheme token SYNCHRONOUS ${number} ${month}/${year}`, SCHEME_SYNC, { sourceOfFunds: { type: 'CARD', provided: { card: card(number, month, year) } } }));
  }
  // 04/35 and 05/35 become SUSPENDED and DEACTIVATED after being ACTIVE.
  const lifecycle: string[] = [];
  for (const month of ['4', '5']) {
    const body = await tokenCase(t, app, samples, `scheme token lifecycle ${month}/35`, SCHEME_SYNC, { sourceOfFunds: { type: 'CARD', provided: { card: card('5111111111111118', month, '35') } } });
    if (body?.token) lifecycle.push(body.token);
  }
  for (const [number, month, year, mode] of [['5123450000000008', '3', '35', 'ATTEMPT_SYNCHRONOUS'], ['5123450000000008', '1', '35', 'ATTEMPT_SYNCHRONOUS'], ['5123450000000008', '6', '35', 'ATTEMPT_SYNCHRONOUS'], ['4508750015741019', '1', '39', undefined], ['4508750015741019', '1', '35', undefined]] as const) {
    keep(SCHEME, await tokenCase(t, app, samples, `scheme token ${mode ?? 'ASYNCHRONOUS'} ${number} ${month}/${year}`, SCHEME, { ...(mode ? { schemeTokenProvisioningMode: mode } : {}), sourceOfFunds: { type: 'CARD', provided: { card: card(number, month, year) } } }));
  }
  keep(SCHEME_UNIQUE, await tokenCase(t, app, samples, 'scheme token, unique card', SCHEME_UNIQUE, { sourceOfFunds: { type: 'CARD', provided: { card: card('5123450000000008', '1', '39') } } }));
  // referenceOrderId: the card of an earlier successful payment.
  const referenced = newOrderId();
  const paidCard = await createStoredToken(app, M1, '4508750015741019');
  t.equal((await payAs(app, M1, paidCard, payBody('4.00'), referenced)).statusCode, 201);
  keep(M1, await tokenCase(t, app, samples, 'referenceOrderId', M1, { ...echoes, referenceOrderId: referenced, sourceOfFunds: { type: 'CARD' } }));
  // Updates through sourceOfFunds.token.
  const first = tokens.find(([merchant]) => merchant === M1)?.[1] ?? '';
  await tokenCase(t, app, samples, 'update by token: new expiry, echoes', M1, { ...echoes, sourceOfFunds: { token: first, provided: { card: { expiry: { month: '5', year: '39' }, nameOnCard: 'New Name' } } } });

  // Retrieve Token of each, once its scheme token settled, and again later (lifecycle changes).
  const retrieved = async (merchant: Merchant, token: string) => retrieveToken(app.gateway, profileOf(app, merchant.id), token);
  for (const [merchant, token] of tokens) {
    const settled = await eventually(() => retrieved(merchant, token), { until: (doc) => (doc.schemeToken as { status?: string } | undefined)?.status !== 'PROVISIONING' });
    samples.token.push([`Retrieve Token ${merchant.id} ${token}`, settled]);
    // Over HTTP too, once the state holds still between two reads.
    for (let attempt = 0; attempt < 5; attempt++) {
      const before = sortedJson(await retrieved(merchant, token));
      const res = await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${merchant.id}/token/${token}`, headers: { authorization: tokenAuth(merchant) } });
      if (before !== sortedJson(await retrieved(merchant, token))) continue;
      t.equal(res.body, before, `Retrieve Token ${merchant.id} ${token}: the HTTP body is sortedJson of the response object`);
      break;
    }
  }
  for (const token of lifecycle) {
    const later = await eventually(() => retrieved(SCHEME_SYNC, token), { until: (doc) => !['ACTIVE', 'PROVISIONING'].includes((doc.schemeToken as { status?: string } | undefined)?.status ?? '') });
    samples.token.push([`Retrieve Token ${token}, after its lifecycle change`, later]);
  }
  // A token paid with has usage.lastUsed.
  const paid = await payAs(app, M1, first, payBody('3.00'));
  t.equal(paid.statusCode, 201);
  samples.token.push(['Retrieve Token after a payment', await retrieved(M1, first)]);
}

/** Error bodies of every kind: field-level 400s, 401, 404, malformed JSON, unsupported members. */
async function errorBodies(app: App, samples: Samples) {
  const send = async (what: string, options: InjectOptions) => {
    const res = await app.inject(options);
    samples.errors.push([`${what}: ${res.statusCode}`, res.body]);
  };
  const token = await storedCard(app, M1, 1, 39);
  const payUrl = (order = newOrderId()) => `/api/rest/version/3/merchant/${M1.id}/token/${token}/order/${order}/transaction/1`;
  const headers = { authorization: payAuth(M1), 'content-type': 'application/json' };
  await send('missing field', { method: 'PUT', url: payUrl(), headers, payload: { apiOperation: 'PAY' } });
  await send('unsupported member', { method: 'PUT', url: payUrl(), headers, payload: { ...payBody(), extra: 1 } });
  await send('invalid value', { method: 'PUT', url: payUrl(), headers, payload: payBody('12.x') });
  await send('invalid enum', { method: 'PUT', url: payUrl(), headers, payload: { ...payBody(), apiOperation: 'REFUND' } });
  await send('invalid order id', { method: 'PUT', url: payUrl('123'), headers, payload: payBody() });
  await send('malformed JSON', { method: 'PUT', url: payUrl(), headers, payload: '{"apiOperation":' });
  await send('no credentials', { method: 'PUT', url: payUrl(), headers: { 'content-type': 'application/json' }, payload: payBody() });
  await send('wrong password', { method: 'PUT', url: payUrl(), headers: { ...headers, authorization: payAuth({ apiPassword: 'nope' }) }, payload: payBody() });
  await send('unknown path', { method: 'GET', url: '/api/rest/version/3/nothing', headers: { authorization: tokenAuth(M1) } });
  await send('unknown path, no credentials', { method: 'GET', url: '/api/rest/version/3/nothing' });
  await send('unknown token', { method: 'PUT', url: `/api/rest/version/3/merchant/${M1.id}/token/9000000000000001/order/${newOrderId()}/transaction/1`, headers, payload: payBody() });
  const reused = newOrderId();
  await payAs(app, M1, token, payBody('1.00'), reused);
  await send('reused ids, another amount', { method: 'PUT', url: payUrl(reused), headers, payload: payBody('2.00') });
  await send('token: card data is never quoted', { method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/token`, headers: { authorization: tokenAuth(M1) }, payload: { sourceOfFunds: { type: 'CARD', provided: { card: { number: '12ab' } } } } });
  await send('token: unknown currency', { method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/token`, headers: { authorization: tokenAuth(M1) }, payload: { transaction: { currency: 'XYZ' }, sourceOfFunds: { type: 'CARD', provided: { card: card() } } } });
  await send('retrieve: no such token', { method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/token/9000000000000002`, headers: { authorization: tokenAuth(M1) } });
  await send('retrieve order: no such order', { method: 'GET', url: `/api/rest/version/3/merchant/${M1.id}/order/10000000099`, headers: { authorization: payAuth(M1) } });
}

t.test('compiled serializers write what sortedJson writes, for real responses of every kind', async (t) => {
  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '3600000'; // no outcome changes under the repeats
  const app = await buildTestApp(t, { merchants: MERCHANTS });
  await app.ready();
  const serialize = serializersOf(t, app);
  const samples: Samples = { pay: [], token: [], errors: [] };
  await payTriggers(t, app, samples);
  await tokenResponses(t, app, samples);
  await errorBodies(app, samples);

  for (const [what, object] of samples.pay) t.equal(serialize.pay(object), sortedJson(object), `pay: ${what}`);
  for (const [what, object] of samples.token) t.equal(serialize.token(object), sortedJson(object), `token: ${what}`);
  for (const [what, body] of samples.errors) {
    const parsed: unknown = JSON.parse(body);
    t.equal(sortedJson(parsed), body, `error body: ${what}: sortedJson`);
    t.equal(serialize.error(parsed), body, `error body: ${what}: compiled`);
  }
  // Retrieve Order (its schema keeps sortedJson): its transactions are pay responses.
  const order = newOrderId();
  const token = await storedCard(app, M1, 1, 39);
  await payAs(app, M1, token, payBody('1.00'), order, '1');
  await payAs(app, M1, token, payBody('2.00'), order, 'second "one"');
  const retrieved = await retrieveOrder(app.gateway, profileOf(app, M1.id), order);
  for (const transaction of retrieved.transaction ?? []) t.equal(serialize.pay(transaction), sortedJson(transaction), 'Retrieve Order: a transaction');

  // The sample reaches what it claims to.
  const codes = new Set(samples.pay.map(([, o]) => (o as { response: { gatewayCode: string } }).response.gatewayCode));
  t.ok(codes.size >= 27, `pay responses of ${codes.size} gateway codes`);
  const statuses = new Set(samples.token.map(([, o]) => (o as { schemeToken?: { status: string } }).schemeToken?.status).filter((s) => s !== undefined));
  t.same([...statuses].sort(), ['ACTIVE', 'DEACTIVATED', 'INELIGIBLE', 'PROVISIONING', 'SUSPENDED', 'TOKENIZATION_UNAVAILABLE'], 'token responses of every scheme-token status');
  const types = new Set(samples.token.map(([, o]) => (o as { sourceOfFunds: { type: string } }).sourceOfFunds.type));
  t.same([...types].sort(), ['ACH', 'CARD', 'DIRECT_DEBIT_CANADA', 'WALLET'], 'token responses of every source of funds');
  t.ok(samples.token.some(([, o]) => (o as { result: string }).result === 'FAILURE'), 'token failure responses');
  t.ok(samples.errors.length >= 15, `${samples.errors.length} error bodies`);
});

t.test('a payment answered UNKNOWN, once resolved: Retrieve Transaction and Retrieve Order', async (t) => {
  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '50';
  const app = await buildTestApp(t, { merchants: MERCHANTS });
  await app.ready();
  const serialize = serializersOf(t, app);
  const token = await storedCard(app, M1, 5, 37);
  const order = newOrderId();
  const res = await payAs(app, M1, token, payBody('12.50'), order);
  t.equal(res.json().result, 'UNKNOWN');
  const resolved = await eventually(() => retrieveTransaction(app.gateway, profileOf(app, M1.id), order, '1'), { until: (p) => p.result !== 'UNKNOWN' });
  t.not(resolved.result, 'UNKNOWN', 'resolved');
  t.equal(serialize.pay(resolved), sortedJson(resolved));
  const http = await app.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${M1.id}/order/${order}/transaction/1`, headers: { authorization: payAuth(M1) } });
  t.equal(http.body, sortedJson(resolved), 'over HTTP');
});

t.test('which routes compile, and why the others keep sortedJson', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS });
  await app.ready();
  const decision = (route: string) => serializerDecisions.get(route);
  const pay = 'PUT /api/rest/version/3/merchant/:merchantid/token/:tokenid/order/:orderid/transaction/:transactionid';
  for (const status of ['201', '400', '401', '404', '500', '503']) t.equal(decision(`${pay} ${status}`), 'compiled', `Pay with token ${status}`);
  t.equal(decision('POST /api/rest/version/:version/merchant/:merchantId/token 201'), 'compiled', 'Create or Update Token 201');
  t.equal(decision('GET /api/rest/version/:version/merchant/:merchantId/token/:tokenid 200'), 'compiled', 'Retrieve Token 200');
  t.equal(decision('DELETE /api/rest/version/:version/merchant/:merchantId/token/:tokenid 200'), 'compiled', 'Delete Token 200');
  t.equal(decision('GET /api/rest/version/3/merchant/:merchantid/order/:orderid/transaction/:transactionid 200'), 'compiled', 'Retrieve Transaction 200');
  t.match(decision('GET /api/rest/version/3/merchant/:merchantid/order/:orderid 200'), /^sortedJson \(.*additionalProperties/, 'Retrieve Order: additional properties');
  t.match(decision('POST /api/rest/version/:version/merchant/:merchantId/session 201'), /^sortedJson \(\/sourceOfFunds: a value of any type/, 'Create Session: a value of any type');
  // Initiate Checkout answers 201 on the same route with its own schema: its own serializer.
  t.equal(decision('POST /api/rest/version/:version/merchant/:merchantId/session 201 INITIATE_CHECKOUT'), 'compiled', 'Initiate Checkout 201');
});

t.test('the echo groups of the response schemas declare every member the requests may send', async (t) => {
  type Node = { properties?: Record<string, Node> };
  const at = (schema: TSchema, path: string[]): Node => path.reduce<Node>((node, name) => node.properties?.[name] ?? {}, schema as Node);
  const names = (node: Node) => Object.keys(node.properties ?? {}).sort();
  // [request schema, path in it, response schema, path in it, members the response never has]
  const pairs: Array<[TSchema, string[], TSchema, string[], string[]]> = [
    [PayBody, ['card', 'holder'], PayResponse, ['card', 'holder'], []],
    [PayBody, ['transaction', 'tax', 'local'], PayResponse, ['transaction', 'tax', 'local'], []],
    [TokenBody, ['billing', 'address'], TokenResponse, ['billing', 'address'], ['street2']],
    [TokenBody, ['customer'], TokenResponse, ['customer'], []],
    [TokenBody, ['device'], TokenResponse, ['device'], []],
    [TokenBody, ['shipping'], TokenResponse, ['shipping'], []],
    [TokenBody, ['shipping', 'address'], TokenResponse, ['shipping', 'address'], ['street2']],
    [TokenBody, ['shipping', 'contact'], TokenResponse, ['shipping', 'contact'], []],
    [TokenBody, ['shipping', 'origin'], TokenResponse, ['shipping', 'origin'], []],
    [TokenBody, ['sourceOfFunds', 'provided', 'ach'], TokenResponse, ['sourceOfFunds', 'provided', 'ach'], []],
    [TokenBody, ['sourceOfFunds', 'provided', 'directDebitCanada'], TokenResponse, ['sourceOfFunds', 'provided', 'directDebitCanada'], []],
    [TokenBody, ['sourceOfFunds', 'provided', 'wallet'], TokenResponse, ['sourceOfFunds', 'provided', 'wallet'], []],
    [TokenBody, ['sourceOfFunds', 'provided', 'wallet', 'billingAgreement'], TokenResponse, ['sourceOfFunds', 'provided', 'wallet', 'billingAgreement'], []],
  ];
  for (const [request, from, response, to, never] of pairs) {
    const sent = names(at(request, from)).filter((n) => !never.includes(n));
    t.ok(sent.length > 0, `${from.join('.')}: the request declares members`);
    const declared = names(at(response, to));
    t.same(sent.filter((n) => !declared.includes(n)), [], `${to.join('.')}: every member of the request's ${from.join('.')} is declared`);
  }
});

t.test('schemas the compiled serializer cannot write exactly keep sortedJson', async (t) => {
  const none = () => undefined;
  const cases: Array<[string, unknown]> = [
    ['a value of any type', Type.Object({ a: Type.Unknown() })],
    ['a union of objects', Type.Object({ a: Type.Union([Type.Object({ x: Type.String() }), Type.Object({ y: Type.String() })]) })],
    ['additional properties', Type.Object({ a: Type.String() }, { additionalProperties: true })],
    ['additional properties of a type', Type.Object({ a: Type.String() }, { additionalProperties: Type.String() })],
    ['pattern properties', { type: 'object', properties: { a: { type: 'string' } }, patternProperties: { '^x': { type: 'string' } } }],
    ['an object without properties', Type.Object({})],
    ['a list of types', { type: ['string', 'null'] }],
    ['a number const', Type.Object({ a: Type.Literal(1) })],
    ['allOf', { allOf: [Type.Object({ a: Type.String() })] }],
    ['an unresolved $ref', { $ref: 'Nowhere' }],
    ['a tuple', Type.Tuple([Type.String(), Type.Number()])],
  ];
  for (const [what, schema] of cases) {
    const result = responseSerializer(schema, none);
    t.notOk(result.compiled, `${what}: not compiled (${result.reason ?? ''})`);
    t.equal(result.serialize({ a: 'x', b: 2 }), sortedJson({ a: 'x', b: 2 }), `${what}: sortedJson`);
  }
  const literals = responseSerializer(Type.Object({ z: Type.Union([Type.Literal('A'), Type.Literal('B')]), a: Type.Optional(Type.Literal('X')), e: Type.Optional(Type.Unsafe({ type: 'string', enum: ['P', 'Q'] })) }), none);
  t.ok(literals.compiled, 'string literals, unions of them, string enums and required members compile');
  t.equal(literals.serialize({ z: 'C', a: 'not X', e: 'R' }), '{"a":"not X","e":"R","z":"C"}', 'written as the value is, not as the schema expects; sorted though z is required');
  t.same(sortedSchema({ type: 'object', properties: { b: { type: 'string', const: 'x' }, a: { type: 'integer' } }, required: ['b'] }, none),
    { type: 'object', properties: { a: { type: 'integer', nullable: true }, b: { type: 'string', nullable: true } }, nullable: true });
  const pay = responseSerializer(documented(PayResponse), (id) => (id === 'ErrorBody' ? ErrorBody : undefined)).serialize;
  const odd = { merchant: 'M', order: { id: 10000000001n, amount: NaN, totalAuthorizedAmount: Infinity }, card: null, result: 'SUCCESS' };
  t.equal(pay(odd), sortedJson(odd), 'a value the schema does not expect (NaN, null): sortedJson');
  t.equal(pay('{"already":"text"}'), '{"already":"text"}', 'text is already the body');
});

t.test('for any value of the response schema, the compiled serializer writes what sortedJson writes', async (t) => {
  /** Values of a (sorted) schema, members present or not, in any order, strings of any characters. */
  const valueOf = (schema: Record<string, unknown>): fc.Arbitrary<unknown> => {
    switch (schema.type) {
      case 'string': return fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme', maxLength: 300 }), fc.constantFrom('', '"', '\\', '\u2028', '\ud800'));
      case 'number': return fc.oneof(fc.double({ noNaN: true }), fc.integer(), fc.constantFrom(0.1, 12.5, 1e21, -0));
      case 'integer': return fc.oneof(fc.integer(), fc.bigInt({ min: 10000000000n, max: 9999999999999999n }));
      case 'boolean': return fc.boolean();
      case 'array': return fc.array(valueOf(schema.items as Record<string, unknown>), { maxLength: 3 });
      case 'object': {
        const properties = schema.properties as Record<string, Record<string, unknown>>;
        const names = Object.keys(properties);
        return fc.tuple(fc.record(Object.fromEntries(names.map((n) => [n, valueOf(properties[n] ?? {})])), { requiredKeys: [] }), fc.boolean())
          .map(([record, reversed]) => (reversed ? Object.fromEntries(Object.entries(record).reverse()) : record));
      }
      default: throw new Error(`no values for ${JSON.stringify(schema)}`);
    }
  };
  const resolve = (id: string) => (id === 'ErrorBody' ? ErrorBody : undefined);
  for (const [name, schema] of [['pay', PayResponse], ['token', TokenResponse], ['error', Type.Ref(ErrorBody)]] as const) {
    const { serialize } = responseSerializer(documented(schema), resolve);
    const values = valueOf(sortedSchema(documented(schema), resolve));
    fc.assert(fc.property(values, (value) => serialize(value) === sortedJson(value)), { numRuns: Number(process.env.FUZZ_RUNS ?? 300) });
    t.pass(`${name}: generated values`);
  }
});
