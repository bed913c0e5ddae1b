// Payment Options Inquiry as an attacker and a careless client would use it: wrong and other
// merchants' credentials, merchant ids that extend one another, the lock after repeated wrong
// passwords (counted as on every operation), the 401 before the body is read, other methods, and
// bodies that are no JSON object. Every answer is the gateway's error body, never a 500.
import t from 'tap';
import { basic, buildTestApp, M1, M2, tokenAuth, tokenPath } from '../helpers/app.js';
import { expectInvalid, INVALID_CREDENTIALS, NOT_AUTHORISED } from './http.fixture.js';

const url = (merchantId = M1.id, version = 100) => `/api/rest/version/${version}/merchant/${merchantId}/paymentOptionsInquiry`;
const wrong = basic(`merchant.${M1.id}`, 'not-the-password-0123456789');

t.test('credentials: wrong, another merchant\'s, a merchant id extending the path\'s, none', async (t) => {
  const a = await buildTestApp(t);
  for (const method of ['POST', 'GET', 'HEAD'] as const) {
    const denied = await a.inject({ method, url: url(), headers: { authorization: wrong }, ...(method === 'POST' ? { payload: {} } : {}) });
    t.equal(denied.statusCode, 401, `${method}: a wrong password`);
    if (method !== 'HEAD') t.equal(denied.body, INVALID_CREDENTIALS);
  }
  const other = await a.inject({ method: 'POST', url: url(), headers: { authorization: tokenAuth(M2) }, payload: {} });
  t.equal(other.statusCode, 401);
  t.equal(other.json().error.explanation, NOT_AUTHORISED, "another merchant's valid credentials");
  // TESTMERCHANT011 is no merchant: M1's credentials do not reach it, nor its name with M1's password.
  const extended = await a.inject({ method: 'POST', url: url(`${M1.id}1`), headers: { authorization: tokenAuth(M1) }, payload: {} });
  t.equal(extended.statusCode, 401, extended.body);
  t.notOk(extended.body.includes('paymentTypes'));
  const extendedUser = await a.inject({ method: 'POST', url: url(`${M1.id}1`), headers: { authorization: basic(`merchant.${M1.id}1`, M1.apiPassword) }, payload: {} });
  t.equal(extendedUser.body, INVALID_CREDENTIALS, 'a longer merchant id with the shorter one\'s password');
  const prefix = await a.inject({ method: 'POST', url: url(M1.id.slice(0, -1)), headers: { authorization: tokenAuth(M1) }, payload: {} });
  t.equal(prefix.statusCode, 401, 'a merchant id the path\'s extends');
  t.equal((await a.inject({ method: 'POST', url: url(), payload: {} })).body, INVALID_CREDENTIALS, 'no credentials');
  const blank = await a.inject({ method: 'POST', url: url(), headers: { authorization: basic('', M1.apiPassword) }, payload: {} });
  t.equal(blank.statusCode, 401, 'a blank user id, from version 2 (as the order API)');
});

t.test('a wrong password is refused before the body is read: no JSON, another content type, an oversized body', async (t) => {
  const a = await buildTestApp(t, { limits: { bodyLimit: 1024 } });
  for (const [type, payload] of [['application/json', '{not json'], ['text/plain', 'hello'], ['application/json', `{"x":"${'a'.repeat(4096)}"}`]] as const) {
    const res = await a.inject({ method: 'POST', url: url(), headers: { authorization: wrong, 'content-type': type }, payload });
    t.equal(res.body, INVALID_CREDENTIALS, `${type}, ${payload.length} bytes: 401`);
  }
  const big = await a.inject({ method: 'POST', url: url(), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload: `{"x":"${'a'.repeat(4096)}"}` });
  t.equal(big.statusCode, 413, 'with the right one, the oversized body is refused as such');
});

t.test('the lock after repeated wrong passwords is counted and kept as on the other operations', async (t) => {
  const a = await buildTestApp(t, { limits: { authFailureLimit: 3 } });
  for (let i = 0; i < 3; i++) t.equal((await a.inject({ method: 'POST', url: url(), headers: { authorization: wrong }, payload: {} })).statusCode, 401);
  const locked = await a.inject({ method: 'POST', url: url(), headers: { authorization: tokenAuth(M1) }, payload: {} });
  t.equal(locked.statusCode, 429, `the inquiry is locked with the right password too (${locked.body})`);
  t.equal((await a.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: {} })).statusCode, 429, 'and so is Create Token');
  const m2 = await a.inject({ method: 'GET', url: url(M2.id), headers: { authorization: tokenAuth(M2) } });
  t.equal(m2.statusCode, 200, 'another merchant is not locked');
});

t.test('other methods, other paths, bodies that are no JSON object: the gateway\'s errors, never a 500', async (t) => {
  const a = await buildTestApp(t);
  const headers = { authorization: tokenAuth(M1) };
  for (const method of ['PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
    const res = await a.inject({ method, url: url(), headers, payload: {} });
    t.equal(res.statusCode, 404, `${method}: no such operation`);
    t.match(res.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST' } });
  }
  const head = await a.inject({ method: 'HEAD', url: url(), headers });
  t.equal(head.statusCode, 200, 'HEAD: as GET, without the body');
  t.equal(head.body, '');
  const getBody = await a.inject({ method: 'GET', url: `${url()}?correlationId=q`, headers: { ...headers, 'content-type': 'application/json' }, payload: '{"correlationId":""}' });
  t.equal(getBody.statusCode, 200, 'a body on GET is not read');
  t.equal(getBody.json().correlationId, 'q');
  for (const payload of ['null', '[]', '"x"', '7', '{']) {
    const res = await a.inject({ method: 'POST', url: url(), headers: { ...headers, 'content-type': 'application/json' }, payload });
    t.equal(res.statusCode, 400, `${payload}: 400`);
    t.match(res.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST' } });
  }
  expectInvalid(t, await a.inject({ method: 'POST', url: url(), headers, payload: { correlationId: null } }), { field: 'correlationId' });
  expectInvalid(t, await a.inject({ method: 'POST', url: url(), headers, payload: { correlationId: ['a'] } }), { field: 'correlationId' });
  expectInvalid(t, await a.inject({ method: 'GET', url: `${url()}?correlationId=a&correlationId=b`, headers }), { field: 'correlationId' }, 'a repeated URL parameter');
  expectInvalid(t, await a.inject({ method: 'GET', url: `${url()}?correlationId=${'x'.repeat(101)}`, headers }), { field: 'correlationId' }, 'too long');
  for (const path of [`${url()}/`, url().replace('paymentOptionsInquiry', 'paymentoptionsinquiry'), url().replace('/paymentOptionsInquiry', '//paymentOptionsInquiry')]) {
    t.equal((await a.inject({ method: 'POST', url: path, headers, payload: {} })).statusCode, 404, `${path}: no such operation`);
  }
});

t.test('a card number in a URL parameter of the GET is refused as in the POST\'s body, not quoted in the answer', async (t) => {
  const a = await buildTestApp(t);
  const headers = { authorization: tokenAuth(M1) };
  for (const query of ['correlationId=5123450000000008', 'correlationId=ref%205123%204500%200000%200008', 'order.currency=4111111111111111']) {
    const res = await a.inject({ method: 'GET', url: `${url()}?${query}`, headers });
    const field = query.split('=')[0];
    expectInvalid(t, res, { field, validationType: 'INVALID', explanation: /must not hold a card number/ }, query);
    t.notOk(/5123450000000008|5123 4500 0000 0008|4111111111111111/.test(res.body), `${query}: the number not quoted`);
  }
  const posted = await a.inject({ method: 'POST', url: url(), headers, payload: { correlationId: '5123450000000008' } });
  expectInvalid(t, posted, { field: 'correlationId', explanation: /must not hold a card number/ }, 'the POST alike');
  const fine = await a.inject({ method: 'GET', url: `${url()}?correlationId=2026.11.29-123456&sourceOfFunds.provided.card.prefix=512345`, headers });
  t.equal(fine.statusCode, 200, 'a date and a card prefix are no card numbers');
});

t.test('NVP: apiOperation=PAYMENT_OPTIONS_INQUIRY answers as REST does, with the same checks', async (t) => {
  const a = await buildTestApp(t);
  const nvp = (fields: Record<string, string>) => a.inject({
    method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString(),
  });
  const creds = { merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword };
  const res = await nvp({ apiOperation: 'PAYMENT_OPTIONS_INQUIRY', ...creds, correlationId: 'c1', 'order.currency': 'USD' });
  t.equal(res.statusCode, 200, res.body);
  const pairs = new URLSearchParams(res.body);
  t.equal(pairs.get('result'), 'SUCCESS');
  t.equal(pairs.get('correlationId'), 'c1');
  t.equal(pairs.get('merchant'), M1.id);
  t.equal(pairs.get('paymentTypes.card.cardTypes[0].cardType'), 'AMEX');
  t.equal(pairs.get('paymentTypes.card.cardTypes[9].cardType'), 'VISA');
  const denied = await nvp({ apiOperation: 'PAYMENT_OPTIONS_INQUIRY', ...creds, apiPassword: 'not-the-password-0123456789' });
  t.equal(denied.statusCode, 401);
  const other = await nvp({ apiOperation: 'PAYMENT_OPTIONS_INQUIRY', ...creds, merchant: M2.id });
  t.equal(other.statusCode, 401, "another merchant's inquiry with M1's credentials");
  expectInvalid(t, await nvp({ apiOperation: 'PAYMENT_OPTIONS_INQUIRY', ...creds, correlationId: '5123450000000008' }), { field: 'correlationId', explanation: /card number/ });
  expectInvalid(t, await nvp({ apiOperation: 'PAYMENT_OPTIONS_INQUIRY', ...creds, correlationId: '' }), { field: 'correlationId' });
});

t.test('the request journal names the operation, in REST as in NVP', async (t) => {
  const a = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const headers = { authorization: tokenAuth(M1) };
  t.equal((await a.inject({ method: 'POST', url: url(), headers, payload: { correlationId: 'p' } })).statusCode, 200);
  t.equal((await a.inject({ method: 'GET', url: `${url()}?correlationId=g`, headers })).statusCode, 200);
  const form = new URLSearchParams({ apiOperation: 'PAYMENT_OPTIONS_INQUIRY', merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword }).toString();
  t.equal((await a.inject({ method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: form })).statusCode, 200);
  const journal = await a.inject({ method: 'GET', url: '/admin/api/requests?operation=PAYMENT_OPTIONS_INQUIRY', headers: { authorization: basic('admin', 'admin-password-for-tests') } });
  t.equal(journal.statusCode, 200, journal.body);
  const entries = (journal.json() as { requests: Array<{ method: string; path: string }> }).requests;
  t.same(entries.map((r) => (r.path.startsWith('/api/nvp/') ? 'NVP' : r.method)).sort(), ['GET', 'NVP', 'POST']);
});
