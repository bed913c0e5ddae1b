// Attacks on the rule that a body member sent as null counts as not sent (plugins/request-values.ts,
// dropNullMembers) on the order API and the session operations: bodies built to cost (nested deep,
// thousands of null members), prototype names, nulls in list items' groups, a null where a card
// number would be, and the journal, which shows the body as it was sent (its nulls too), masked.
import t from 'tap';
import { basic, buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid, type App } from './http.fixture.js';

const ADMIN_PASSWORD = 'admin-password-for-tests';
const headers = { authorization: tokenAuth(M1) };
const txnUrl = (order: string) => `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/1`;
const put = (a: App, payload: string | object, order = uniqueId()) =>
  a.inject({ method: 'PUT', url: txnUrl(order), headers: { ...headers, 'content-type': 'application/json' }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
const sessionUrl = `/api/rest/version/100/merchant/${M1.id}/session`;
const payOf = (token: string, extra: Record<string, unknown> = {}) => ({ apiOperation: 'PAY', order: { amount: '20.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, ...extra });

t.test('a body nested deeper than the gateway accepts, its innermost member null: refused as too deep, not walked', async (t) => {
  // An operator's BODY_LIMIT of 2 MB: the default (64 KB) answers a larger body 413 before any walk.
  const a = await buildTestApp(t, { limits: { bodyLimit: 2_000_000 } });
  const token = await createToken(a, M1);
  const deep = `${'{"a":'.repeat(40)}null${'}'.repeat(40)}`;
  const res = await put(a, JSON.stringify(payOf(token)).replace(/}$/, `,"order2":${deep}}`).replace('"order":{', `"order":{"description":${deep},`));
  t.equal(res.statusCode, 400, res.body);
  t.match(res.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', explanation: /nest more than 32 levels/ } });
  // A body of about 1 MB of nests of nulls, each as deep as accepted: refused or taken, answered.
  const nest = `${'{"a":'.repeat(30)}null${'}'.repeat(30)}`;
  const many = Array.from({ length: Math.floor(900_000 / (nest.length + 8)) }, (_, i) => `"n${i}":${nest}`).join(',');
  const big = await put(a, `{"apiOperation":"PAY","order":{"amount":"20.00","currency":"USD",${many}},"sourceOfFunds":{"type":"CARD","token":"${token}"}}`);
  t.equal(big.statusCode, 201, 'the nests of nulls count as not sent');
  t.match(big.json(), { result: 'SUCCESS', order: { amount: 20 } });
  t.notOk(Object.keys(big.json().order).some((k) => k.startsWith('n')), 'no emptied nest echoed');
});

t.test('10,000 members sent as null: taken, the payment made', async (t) => {
  const a = await buildTestApp(t, { limits: { bodyLimit: 2_000_000 } });
  const token = await createToken(a, M1);
  const nulls = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`m${i}`, null]));
  const res = await put(a, payOf(token, { ...nulls, order: { amount: '20.00', currency: 'USD', ...nulls } }));
  t.equal(res.statusCode, 201, res.body.slice(0, 300));
  t.match(res.json(), { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } });
  t.notOk('m1' in res.json() || 'm1' in res.json().order, 'no null echoed');
});

t.test('__proto__ and constructor members sent as null, at the top and in groups', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const paid = await put(a, `{"apiOperation":"PAY","constructor":null,"order":{"amount":"20.00","currency":"USD","constructor":null,"toString":null},"sourceOfFunds":{"type":"CARD","token":"${token}"}}`);
  t.equal(paid.statusCode, 201, paid.body);
  t.notOk(Object.hasOwn(paid.json().order, 'constructor'), 'not echoed');
  for (const proto of [`{"__proto__":null,"apiOperation":"PAY"}`, `{"apiOperation":"PAY","order":{"__proto__":null,"amount":"20.00","currency":"USD"}}`]) {
    const res = await put(a, proto);
    t.equal(res.statusCode, 400, `${proto}: ${res.body}`);
    t.match(res.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST' } }, 'the gateway\'s error body');
  }
  const session = await a.inject({ method: 'POST', url: sessionUrl, headers: { ...headers, 'content-type': 'application/json' }, payload: '{"constructor":null,"hasOwnProperty":null}' });
  t.equal(session.statusCode, 201, session.body);
});

t.test('nulls in list items: a null item refused by its index, a null member of an item taken, as not sent', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const item = { name: 'Beanie', unitPrice: '10.00', quantity: '2' };
  const order = (items: unknown[]) => payOf(token, { order: { amount: '20.00', currency: 'USD', itemAmount: '20.00', item: items } });
  const taken = await put(a, order([{ ...item, sku: null, description: null }]));
  t.equal(taken.statusCode, 201, taken.body);
  expectInvalid(t, await put(a, order([item, null])), { field: 'order.item[1]', explanation: "Value 'null' is invalid. A list item must not be null" }, 'the second item null');
  expectInvalid(t, await put(a, order([[null]])), { field: 'order.item[0][0]' }, 'a null in a list in a list');
  const [noName, nameNotSent] = [await put(a, order([{ ...item, name: null }])), await put(a, order([{ unitPrice: '10.00', quantity: '2' }]))];
  t.equal(noName.statusCode, nameNotSent.statusCode, `an item's name sent as null, answered as not sent: ${noName.body}`);
});

t.test('a required member sent as null is MISSING, as not sent: the same answer both ways', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  for (const [path, nulled, absent] of [
    ['order.amount', payOf(token, { order: { amount: null, currency: 'USD' } }), payOf(token, { order: { currency: 'USD' } })],
    ['order', payOf(token, { order: null }), (({ order: _o, ...rest }) => rest)(payOf(token))],
    ['sourceOfFunds', payOf(token, { sourceOfFunds: null }), (({ sourceOfFunds: _s, ...rest }) => rest)(payOf(token))],
  ] as const) {
    const [sentNull, notSent] = [await put(a, nulled), await put(a, absent)];
    t.equal(sentNull.statusCode, 400, `${path} null: ${sentNull.body}`);
    t.same(sentNull.json(), notSent.json(), `${path}: null answered as not sent`);
  }
});

t.test('a null where a card number would be: as not sent; a card number beside nulls is still refused in free text', async (t) => {
  const a = await buildTestApp(t);
  const noNumber = await put(a, { apiOperation: 'PAY', order: { amount: '20.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: { number: null, expiry: { month: '1', year: '39' } } } } });
  const notSent = await put(a, { apiOperation: 'PAY', order: { amount: '20.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: { expiry: { month: '1', year: '39' } } } } });
  t.equal(noNumber.statusCode, 400, noNumber.body);
  t.same(noNumber.json(), notSent.json(), 'answered as a card without a number');
  expectInvalid(t, await put(a, { apiOperation: 'PAY', order: { amount: '20.00', currency: 'USD', description: null, reference: '5123456789012346', custom: null }, sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123456789012346', expiry: { month: '1', year: '39' } } } } }),
    { field: 'order.reference', explanation: /must not hold a card number/ }, 'a card number in free text, beside nulls');
});

t.test('the journal shows the body as sent, its nulls too, masked', async (t) => {
  const a = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD });
  const body = { apiOperation: 'PAY', order: { amount: '20.00', currency: 'USD', reference: null }, shipping: null, sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123456789012346', expiry: { month: '1', year: '39' }, securityCode: '123' } } }, customer: { email: 'ada@example.com', phone: null } };
  const paid = await put(a, body);
  t.equal(paid.statusCode, 201, paid.body);
  const missing = await put(a, { ...body, order: { amount: '20.00', currency: null } });
  t.equal(missing.statusCode, 400, missing.body);
  const read = async (res: { headers: Record<string, unknown> }) =>
    (await a.inject({ method: 'GET', url: `/admin/api/requests/${encodeURIComponent(String(res.headers['x-request-id']))}`, headers: { authorization: basic('admin', ADMIN_PASSWORD) } })).json();
  const shown = { ...body, sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx2346', expiry: { month: '1', year: '39' }, securityCode: 'xxx' } } } };
  t.same((await read(paid)).request, shown, 'the payment: its nulls shown, its card number masked');
  const refused = await read(missing);
  t.same(refused.request.order, { amount: '20.00', currency: null }, 'the refusal: the currency it calls missing shown as sent, null');
  t.notOk(JSON.stringify(refused).includes('5123456789012346'), 'no card number in the clear');
  // A session's and a checkout's bodies, too.
  const session = await a.inject({ method: 'POST', url: sessionUrl, headers, payload: { authentication: null } });
  t.equal(session.statusCode, 201, session.body);
  t.same((await read(session)).request, { authentication: null }, 'Create Session as sent');
});

t.test("a refused repeat's differences leave out a member sent as null where the other request sent none: the gateway took both as not sent", async (t) => {
  const a = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD });
  const token = await createToken(a, M1);
  const order = uniqueId();
  const paid = await put(a, payOf(token, { order: { amount: '1.00', currency: 'USD' } }), order);
  t.equal(paid.statusCode, 201, paid.body);
  t.equal((await put(a, payOf(token, { order: { amount: '1.00', currency: 'USD', reference: null }, shipping: null }), order)).statusCode, 201, 'the repeat with nulls replays');
  const refused = await put(a, payOf(token, { order: { amount: '2.00', currency: 'USD', reference: null }, shipping: null }), order);
  t.equal(refused.statusCode, 400, refused.body);
  const id = String(refused.headers['x-request-id']);
  const read = async () => (await a.inject({ method: 'GET', url: `/admin/api/requests/${encodeURIComponent(id)}`, headers: { authorization: basic('admin', ADMIN_PASSWORD) } })).json();
  // The original's entry lists its events once the log hands them over.
  let entry = await read();
  for (const deadline = Date.now() + 10_000; entry.differences === undefined && Date.now() < deadline; entry = await read()) await new Promise((r) => setTimeout(r, 20));
  t.same(entry.differences, [{ path: 'order.amount', before: '1.00', after: '2.00' }], 'only the amount differs');
  t.same(entry.request.shipping, null, 'the body shown as sent');
});

t.test("NVP: a form holds no null; a field sent as the text 'null' is that text, and the journal shows the form as sent", async (t) => {
  const a = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD });
  const token = await createToken(a, M1);
  const fields = { apiOperation: 'PAY', merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword, 'order.id': uniqueId(), 'transaction.id': '1',
    'order.amount': '20.00', 'order.currency': 'USD', 'order.reference': 'null', 'sourceOfFunds.type': 'CARD', 'sourceOfFunds.token': token };
  const paid = await a.inject({ method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
  t.equal(paid.statusCode, 201, paid.body);
  t.equal(new URLSearchParams(paid.body).get('order.reference'), 'null', "the text 'null', echoed");
  const entry = (await a.inject({ method: 'GET', url: `/admin/api/requests/${encodeURIComponent(String(paid.headers['x-request-id']))}`, headers: { authorization: basic('admin', ADMIN_PASSWORD) } })).json();
  t.match(entry.request, { 'order.reference': 'null', apiPassword: '[redacted]' }, 'the form as sent, its password redacted');
});
