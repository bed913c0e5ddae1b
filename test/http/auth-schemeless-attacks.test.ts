// Attacks on Basic credentials sent without the `Basic ` scheme (the base64 text alone, read as
// Basic on every route), on the 404's list of operations and on the retrieval of an unknown order,
// as an attacker, a flaky network and a real client send them. What a user sees: status and body.
import { Writable } from 'node:stream';
import t from 'tap';
import { buildApp, loggerOptions } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { basic, buildTestApp, M1, M2, MERCHANTS, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { waitFor } from '../helpers/poll.js';
import { expect401, INVALID_CREDENTIALS, type App } from './http.fixture.js';

const ADMIN_PASSWORD = 'admin-password-for-tests';
const bare = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');
const M1_BARE = bare(`merchant.${M1.id}`, M1.apiPassword);
const orderUrl = (order: string, merchant = M1.id) => `/api/rest/version/100/merchant/${merchant}/order/${encodeURIComponent(order)}`;
const payBody = {
  apiOperation: 'PAY', order: { amount: '10.00', currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' } } },
};
const payAs = (a: App, authorization: string, order = uniqueId(), payload: string | object = payBody) =>
  a.inject({ method: 'PUT', url: `${orderUrl(order)}/transaction/1`, headers: { authorization, 'content-type': 'application/json' }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });

t.test('the admin API: the base64 alone is its Basic credentials; a wrong one is 401 with the admin realm', async (t) => {
  const a = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD });
  const ok = await a.inject({ method: 'GET', url: '/admin/api/requests', headers: { authorization: bare('admin', ADMIN_PASSWORD) } });
  t.equal(ok.statusCode, 200, ok.body);
  const wrong = await a.inject({ method: 'GET', url: '/admin/api/requests', headers: { authorization: bare('admin', 'not-the-admin-password') } });
  t.equal(wrong.statusCode, 401);
  t.equal(wrong.body, INVALID_CREDENTIALS);
  t.match(wrong.headers['www-authenticate'], /^Basic realm="tokengate admin"/, 'the admin\'s realm');
  const merchant = await a.inject({ method: 'GET', url: '/admin/api/requests', headers: { authorization: M1_BARE } });
  t.equal(merchant.statusCode, 401, 'a merchant\'s credentials are no admin\'s');
});

t.test('wrong passwords without the scheme count toward the same lock as with it', async (t) => {
  const a = await buildTestApp(t, { limits: { authFailureLimit: 3 } });
  for (let i = 0; i < 3; i++) t.equal((await payAs(a, bare(`merchant.${M1.id}`, `guess-${i}-0123456789`))).statusCode, 401, `guess ${i}`);
  const locked = await payAs(a, tokenAuth(M1));
  t.equal(locked.statusCode, 429, 'then the right password with the scheme is refused too');
  t.equal(locked.json().error.cause, 'REQUEST_REJECTED');
  t.equal((await payAs(a, M1_BARE)).statusCode, 429, 'and without it');
  const other = await payAs(a, bare(`merchant.${M2.id}`, M2.apiPassword), uniqueId());
  t.equal(other.statusCode, 401, 'another merchant on this path: not authorised, not locked out of its own');
});

t.test('401 before the body: a wrong password without the scheme and a body that is no JSON is 401, not 400', async (t) => {
  const a = await buildTestApp(t);
  expect401(t, await payAs(a, bare(`merchant.${M1.id}`, 'wrong-password-0123456789'), uniqueId(), '{"apiOperation":'), 'no JSON');
  const right = await payAs(a, M1_BARE, uniqueId(), '{"apiOperation":');
  t.equal(right.statusCode, 400, 'the right one reaches the body\'s refusal');
});

t.test('NVP takes the header without the scheme when the form names no apiPassword', async (t) => {
  const a = await buildTestApp(t);
  const fields = new URLSearchParams({ apiOperation: 'RETRIEVE_ORDER', merchant: M1.id, 'order.id': 'no-such-order' }).toString();
  const nvp = (authorization: string) => a.inject({ method: 'POST', url: '/api/nvp/version/100', headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' }, payload: fields });
  const ok = Object.fromEntries(new URLSearchParams((await nvp(M1_BARE)).body));
  t.equal(ok['error.explanation'], `Unable to find order no-such-order for merchant ${M1.id}`, 'authenticated: the unknown order\'s answer');
  t.notOk('error.field' in ok, 'no field');
  const wrong = Object.fromEntries(new URLSearchParams((await nvp(bare(`merchant.${M1.id}`, 'wrong-password-0123456789'))).body));
  t.equal(wrong['error.explanation'], 'Invalid credentials.');
});

t.test('headers that are not base64 alone: refused as before; spaces, commas, unicode, very long ones are 401, never 500', async (t) => {
  const a = await buildTestApp(t, { limits: { authFailureLimit: 1_000_000 } });
  const headers = [
    'Basic', 'Bearer', `Bearer ${M1_BARE}`, `Digest ${M1_BARE}`, `${M1_BARE},${M1_BARE}`, `${M1_BARE} ${M1_BARE}`, `${M1_BARE}\t`, `merchant.${M1.id}:${M1.apiPassword}`,
    Buffer.from(`merchant.${M1.id}:${M1.apiPassword}é`).toString('base64'), 'A'.repeat(12_000), '='.repeat(40), bare(`merchant.${M1.id}`, ''),
  ];
  for (const authorization of headers) {
    const res = await a.inject({ method: 'GET', url: orderUrl('anything'), headers: { authorization } });
    t.equal(res.statusCode, 401, `${JSON.stringify(authorization.slice(0, 30))}: ${res.body}`);
    t.equal(res.body, INVALID_CREDENTIALS);
  }
  // Padding beyond the text's own: decoded alike with the scheme and without it.
  const padded = async (authorization: string) => (await a.inject({ method: 'GET', url: orderUrl('anything'), headers: { authorization } })).statusCode;
  t.equal(await padded(`${M1_BARE}==`), await padded(`Basic ${M1_BARE}==`), 'extra padding: as with the scheme');
  const lower = await a.inject({ method: 'GET', url: orderUrl('anything'), headers: { authorization: `basic ${M1_BARE}` } });
  t.equal(lower.statusCode, 400, 'the scheme in lower case is Basic (RFC 7617): the unknown order\'s answer');
});

t.test('the logs and the journal never show the credentials sent without the scheme', async (t) => {
  let text = '';
  const stream = new Writable({ write(chunk, _encoding, done) { text += String(chunk); done(); } });
  const a = await buildApp({ eventStore: { kind: 'memory' }, merchants: parseMerchants(MERCHANTS, 'test'), logger: { ...loggerOptions('debug'), stream }, adminPassword: ADMIN_PASSWORD });
  t.teardown(() => a.close());
  const paid = await payAs(a, M1_BARE);
  t.equal(paid.statusCode, 201, paid.body);
  const wrongBare = bare(`merchant.${M1.id}`, 'a-wrong-password-0123456789');
  t.equal((await payAs(a, wrongBare)).statusCode, 401);
  const listed = await waitFor(() => a.inject({ method: 'GET', url: '/admin/api/requests', headers: { authorization: basic('admin', ADMIN_PASSWORD) } }), 'the journal', { until: (r) => r.statusCode === 200 && (r.json() as { requests: unknown[] }).requests.length >= 2, intervalMs: 20 });
  for (const [where, body] of [['logs', text], ['journal', listed.body]] as const) {
    for (const secret of [M1_BARE, wrongBare, M1.apiPassword, 'a-wrong-password-0123456789']) t.notOk(body.includes(secret), `${where}: no ${secret.slice(0, 12)}...`);
  }
  t.ok(text.length > 0, 'the logs were written');
});

t.test('the 404\'s list: within 1000 characters, every operation\'s path once, with or without the scheme', async (t) => {
  const a = await buildTestApp(t);
  const res = await a.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/nothing`, headers: { authorization: M1_BARE } });
  t.equal(res.statusCode, 404, res.body);
  const { explanation } = res.json().error as { explanation: string };
  t.ok(explanation.length <= 1000, `${explanation.length} characters`);
  const [, under = ''] = explanation.split(' and under /api/rest/version/{version}/merchant/{merchantId}: ');
  for (const path of ['/token', '/token/{tokenid}', '/session', '/session/{sessionId}', '/order/{orderId}/transaction/{transactionId}', '/order/{orderId}', '/paymentOptionsInquiry']) {
    t.ok(under.split('; ').some((entry) => entry.endsWith(` ${path}`)), `lists ${path}`);
  }
  t.equal(explanation.match(/\/api\/rest\/version\/\{version\}\/merchant\/\{merchantId\}/g)?.length, 1, 'the prefix written once');
  t.equal((await a.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/nothing`, headers: { authorization: bare(`merchant.${M1.id}`, 'wrong-0123456789') } })).statusCode, 401, 'a wrong password: 401 before the 404');
});

t.test('Retrieve Order and Transaction of an unknown order: odd ids quoted as sent, card-number-like ids never; another merchant\'s order of the same id is unknown', async (t) => {
  const a = await buildTestApp(t);
  for (const order of ['a b', 'x"y\\z', '<script>', 'é€', '100%', 'line\nbreak'.replace('\n', ' ')]) {
    for (const suffix of ['', '/transaction/1']) {
      const res = await a.inject({ method: 'GET', url: orderUrl(order) + suffix, headers: { authorization: tokenAuth(M1) } });
      t.equal(res.statusCode, 400, `${order}${suffix}`);
      t.same(res.json(), { error: { cause: 'INVALID_REQUEST', explanation: `Unable to find order ${order} for merchant ${M1.id}` }, result: 'ERROR' }, `${order}${suffix}`);
    }
  }
  for (const order of ['5123450000000008', '5123 4500 0000 0008', '5123-4500-0000-0008', '5123.4500.0000.0008', 'o5123450000000008']) {
    for (const suffix of ['', '/transaction/1']) {
      const res = await a.inject({ method: 'GET', url: orderUrl(order) + suffix, headers: { authorization: tokenAuth(M1) } });
      t.equal(res.statusCode, 400, `${order}${suffix}`);
      t.equal(res.json().error.field, 'orderId', 'refused on orderId');
      t.notOk(/\d{4}[ .-]?\d{4}[ .-]?\d{4}[ .-]?\d{4}/.test(res.body), `${order}${suffix}: the number is not quoted`);
    }
  }
  const shared = uniqueId();
  t.equal((await a.inject({ method: 'PUT', url: `${orderUrl(shared, M2.id)}/transaction/1`, headers: { authorization: tokenAuth(M2) }, payload: payBody })).statusCode, 201);
  for (const suffix of ['', '/transaction/1']) {
    const res = await a.inject({ method: 'GET', url: orderUrl(shared) + suffix, headers: { authorization: tokenAuth(M1) } });
    t.same(res.json(), { error: { cause: 'INVALID_REQUEST', explanation: `Unable to find order ${shared} for merchant ${M1.id}` }, result: 'ERROR' }, `M2's order is unknown to M1${suffix}`);
    t.notOk(res.body.includes(M2.id), 'nothing of the other merchant');
  }
});
