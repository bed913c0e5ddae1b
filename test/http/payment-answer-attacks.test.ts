// Attacks on a payment's newer answer members and inputs, as a real client, a flaky network and an
// attacker send them: authenticationStatus AUTHENTICATION_NOT_IN_EFFECT (from version 50),
// authorizationResponse (responseCode, stan, transactionIdentifier) and the card's expiry month
// sent as a JSON integer on the order API. What a user sees: status and body.
import t from 'tap';
import { basic, buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { waitFor } from '../helpers/poll.js';
import { expectInvalid, type App } from './http.fixture.js';
import { authenticate, newFlow } from './three-d-secure.fixture.js';

const NOT_IN_EFFECT = 'AUTHENTICATION_NOT_IN_EFFECT';
const MONTH = 'sourceOfFunds.provided.card.expiry.month';
const url = (version: number, order: string, transaction?: string) =>
  `/api/rest/version/${version}/merchant/${M1.id}/order/${order}${transaction === undefined ? '' : `/transaction/${transaction}`}`;
const put = (a: App, version: number, order: string, transaction: string, payload: unknown) =>
  a.inject({ method: 'PUT', url: url(version, order, transaction), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
const get = (a: App, version: number, order: string, transaction?: string) =>
  a.inject({ method: 'GET', url: url(version, order, transaction), headers: { authorization: tokenAuth(M1) } });
const card = (expiry: Record<string, unknown>, number = '5123450000000008') => ({ type: 'CARD', provided: { card: { number, expiry } } });
const pay = (sourceOfFunds: object, amount = '10.00', apiOperation = 'PAY') => ({ apiOperation, order: { amount, currency: 'USD' }, sourceOfFunds });
/** A PAY's JSON text with the month written as `month` (1.0, 1e0: texts JSON.stringify never writes). */
const payText = (month: string) =>
  `{"apiOperation":"PAY","order":{"amount":"10.00","currency":"USD"},"sourceOfFunds":{"type":"CARD","provided":{"card":{"number":"5123450000000008","expiry":{"month":${month},"year":"39"}}}}}`;
const nvp = async (a: App, version: number, fields: Record<string, string>) => {
  const res = await a.inject({
    method: 'POST', url: `/api/nvp/version/${version}`, headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword, ...fields }).toString(),
  });
  return { status: res.statusCode, pairs: Object.fromEntries(new URLSearchParams(res.body)) };
};

t.test('authenticationStatus: version 49 says none, 50 says it; an identical repeat says the same as the first answer', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const old = uniqueId();
  const before = await put(a, 49, old, '1', pay({ type: 'CARD', token }));
  t.equal(before.statusCode, 201, before.body);
  t.notOk('authenticationStatus' in before.json().order, 'version 49: none');
  const order = uniqueId();
  const first = await put(a, 50, order, '1', pay({ type: 'CARD', token }));
  t.equal(first.statusCode, 201, first.body);
  t.equal(first.json().transaction.authenticationStatus, NOT_IN_EFFECT, 'version 50');
  const repeat = await put(a, 50, order, '1', pay({ type: 'CARD', token }));
  t.equal(repeat.statusCode, 201, repeat.body);
  t.equal(repeat.body, first.body, 'the repeat answers the first answer, byte for byte');
});

t.test('authenticationStatus: a CAPTURE after it shows none; the order keeps AUTHENTICATION_NOT_IN_EFFECT; an authentication after the payment takes over the order\'s', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  t.equal((await put(a, 100, order, '1', pay({ type: 'CARD', token }, '10.00', 'AUTHORIZE'))).statusCode, 201);
  const captured = await put(a, 100, order, '2', { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD' } });
  t.equal(captured.statusCode, 201, captured.body);
  t.notOk('authenticationStatus' in captured.json().transaction, 'the CAPTURE: none');
  t.notOk('authorizationResponse' in captured.json(), 'the CAPTURE: no authorizationResponse');
  const whole = (await get(a, 100, order)).json();
  t.equal(whole.authenticationStatus, NOT_IN_EFFECT, 'Retrieve Order after the CAPTURE');
  t.same(whole.transaction.map((x: { transaction: { authenticationStatus?: string } }) => x.transaction.authenticationStatus ?? null), [NOT_IN_EFFECT, null], 'its AUTHORIZE says it, its CAPTURE does not');

  // An order whose VERIFY used no authentication, then 3-D Secure and a PAY naming it.
  const f = newFlow(a);
  const verified = await put(a, 100, f.orderId, 'v1', { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: card({ month: '1', year: '39' }, '5123450000000008') });
  t.equal(verified.statusCode, 201, verified.body);
  t.equal(verified.json().order.authenticationStatus, NOT_IN_EFFECT, 'the VERIFY');
  const { initiated, payer } = await authenticate(f, '5123450000000008');
  t.equal(initiated.statusCode, 201, initiated.body);
  const read = (await get(a, 100, f.orderId)).json();
  t.not(read.authenticationStatus, NOT_IN_EFFECT, 'Retrieve Order: the authentication\'s status, once the order has one');
  t.equal(read.authenticationStatus, payer.json().order.authenticationStatus, 'the authentication\'s status as its latest answer gave it');
  const verify = read.transaction.find((x: { transaction: { id: string } }) => x.transaction.id === 'v1');
  t.equal(verify.transaction.authenticationStatus, NOT_IN_EFFECT, 'the VERIFY as recorded still says it used none');
});

t.test('authorizationResponse: a decline, an UNKNOWN and a payment the gateway blocked before the acquirer', async (t) => {
  const a = await buildTestApp(t);
  for (const [month, year, gatewayCode, responseCode] of [['5', '39', 'DECLINED', '05'], ['5', '37', 'UNKNOWN', '91']] as const) {
    const order = uniqueId();
    const res = await put(a, 100, order, '1', pay(card({ month, year })));
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    t.equal(body.response.gatewayCode, gatewayCode);
    t.same(body.authorizationResponse, { responseCode, stan: body.transaction.stan, transactionIdentifier: body.transaction.acquirer.transactionId }, `${gatewayCode}: the acquirer's answer`);
    t.same((await get(a, 100, order, '1')).json().authorizationResponse, body.authorizationResponse, `${gatewayCode}: Retrieve Transaction alike`);
    t.same((await get(a, 100, order)).json().transaction[0].authorizationResponse, body.authorizationResponse, `${gatewayCode}: Retrieve Order alike`);
  }
});

t.test('NVP: the pairs of authorizationResponse and authenticationStatus from version 50, none at 46', async (t) => {
  const a = await buildTestApp(t);
  const fields = { apiOperation: 'PAY', 'transaction.id': '1', 'order.amount': '10.00', 'order.currency': 'USD', 'sourceOfFunds.type': 'CARD', 'sourceOfFunds.provided.card.number': '5123450000000008', 'sourceOfFunds.provided.card.expiry.month': '1', 'sourceOfFunds.provided.card.expiry.year': '39' };
  const now = await nvp(a, 55, { ...fields, 'order.id': uniqueId() });
  t.equal(now.status, 201, JSON.stringify(now.pairs));
  t.equal(now.pairs['order.authenticationStatus'], NOT_IN_EFFECT);
  t.equal(now.pairs['transaction.authenticationStatus'], NOT_IN_EFFECT);
  t.equal(now.pairs['authorizationResponse.responseCode'], '00');
  t.equal(now.pairs['authorizationResponse.transactionIdentifier'], now.pairs['transaction.acquirer.transactionId']);
  t.equal(now.pairs['authorizationResponse.stan'], now.pairs['transaction.stan']);
  const old = await nvp(a, 46, { ...fields, 'order.id': uniqueId() });
  t.equal(old.status, 201, JSON.stringify(old.pairs));
  t.notOk('order.authenticationStatus' in old.pairs, 'version 46: no authenticationStatus');
  t.equal(old.pairs['authorizationResponse.responseCode'], '00', 'authorizationResponse at any version');
  const month = await nvp(a, 55, { ...fields, 'order.id': uniqueId(), 'sourceOfFunds.provided.card.expiry.month': '1.0' });
  t.equal(month.status, 400, 'NVP\'s month is text: 1.0 is no month');
  t.equal(month.pairs['error.field'], MONTH);
});

t.test('the month as a JSON number: 1.0, 1e0, 0.1e1 are 1; 0, 13, -1, -0, 5.5, huge and overflowing numbers refused on the field', async (t) => {
  const a = await buildTestApp(t);
  for (const text of ['1.0', '1e0', '0.1e1', '12.0']) {
    const res = await put(a, 100, uniqueId(), '1', payText(text));
    t.equal(res.statusCode, 201, `${text}: ${res.body}`);
    t.equal(res.json().sourceOfFunds.provided.card.expiry.month, String(Number(text)), `${text}: shown as its digits`);
  }
  for (const text of ['0', '13', '-1', '-0', '5.5', '1e21', '1e400', '99999999999999999999999', '"1.0"', '" 1"', 'true', '[1]', '{"value":1}']) {
    expectInvalid(t, await put(a, 100, uniqueId(), '1', payText(text)), { field: MONTH, validationType: 'INVALID' }, `month ${text}`);
  }
  expectInvalid(t, await put(a, 100, uniqueId(), '1', pay(card({ month: 1, year: 39 }))), { field: 'sourceOfFunds.provided.card.expiry.year', validationType: 'INVALID' }, 'the year as a number');
});

t.test('the month as a number, repeated as its text, padded or not (and back): the same request, the first answer; another month refused as a different request', async (t) => {
  const a = await buildTestApp(t);
  const order = uniqueId();
  const first = await put(a, 100, order, '1', pay(card({ month: 1, year: '39' })));
  t.equal(first.statusCode, 201, first.body);
  for (const month of ['1', 1, '01', '1'] as const) {
    const again = await put(a, 100, order, '1', pay(card({ month, year: '39' })));
    t.equal(again.statusCode, 201, again.body);
    t.equal(again.body, first.body, `the repeat with ${JSON.stringify(month)}: the first answer`);
  }
  const other = uniqueId();
  t.equal((await put(a, 100, other, '1', pay(card({ month: '1', year: '39' })))).statusCode, 201);
  const asNumber = await put(a, 100, other, '1', pay(card({ month: 1, year: '39' })));
  t.equal(asNumber.statusCode, 201, 'sent as "1", repeated as 1: the same request');
  const another = await put(a, 100, order, '1', pay(card({ month: '10', year: '39' })));
  t.equal(another.statusCode, 400, another.body);
  t.match(another.json().error.explanation, /already recorded with a different request/);
});

t.test('the month as a number elsewhere: Create Token, Update Session and version 3\'s Pay with token still refuse it on the field', async (t) => {
  const a = await buildTestApp(t);
  const created = await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/token`, headers: { authorization: tokenAuth(M1) }, payload: { sourceOfFunds: card({ month: 1, year: '39' }) } });
  expectInvalid(t, created, { field: MONTH, validationType: 'INVALID' }, 'Create Token');
  const session = await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/session`, headers: { authorization: tokenAuth(M1) }, payload: {} });
  t.equal(session.statusCode, 201, session.body);
  const sessionId = session.json().session.id as string;
  const updated = await a.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/session/${sessionId}`, headers: { authorization: tokenAuth(M1) }, payload: { sourceOfFunds: card({ month: 1, year: '39' }) } });
  expectInvalid(t, updated, { field: MONTH, validationType: 'INVALID' }, 'Update Session');
  const token = await createToken(a, M1);
  const v3 = await a.inject({
    method: 'PUT', url: `/api/rest/version/3/merchant/${M1.id}/token/${token}/order/10000000001/transaction/1`, headers: { authorization: tokenAuth(M1) },
    payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' }, card: { expiry: { month: 1, year: '39' } } },
  });
  t.equal(v3.statusCode, 400, v3.body);
  t.match(v3.json().error.field, /^card\.expiry/, 'version 3: on its own field');
});

t.test('the request journal shows the month as sent, a number; a refused repeat\'s differences leave out 1 against "1" (the same month to the gateway)', async (t) => {
  const a = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const entry = (res: { headers: Record<string, unknown> }) => waitFor(
    () => a.inject({ method: 'GET', url: `/admin/api/requests/${encodeURIComponent(String(res.headers['x-request-id']))}`, headers: { authorization: basic('admin', 'admin-password-for-tests') } }),
    'the journal entry', { until: (r) => r.statusCode === 200, intervalMs: 20 },
  ).then((r) => r.json() as { request: { sourceOfFunds: { provided: { card: { expiry: unknown } } } }; differences?: unknown });
  const order = uniqueId();
  const first = await put(a, 100, order, '1', pay(card({ month: 1, year: '39' }), '1.00'));
  t.equal(first.statusCode, 201, first.body);
  t.strictSame((await entry(first)).request.sourceOfFunds.provided.card.expiry, { month: 1, year: '39' }, 'the month as sent: the number 1');
  const refused = await put(a, 100, order, '1', pay(card({ month: '1', year: '39' }), '2.00'));
  t.equal(refused.statusCode, 400, refused.body);
  t.strictSame((await entry(refused)).differences, [{ path: 'order.amount', before: '1.00', after: '2.00' }], 'only the amount differs');
  const again = await put(a, 100, order, '1', pay(card({ month: 12, year: '39' }), '1.00'));
  t.equal(again.statusCode, 400, again.body);
  t.strictSame((await entry(again)).differences, [{ path: 'sourceOfFunds.provided.card.expiry.month', before: 1, after: 12 }], 'another month does differ');
});
