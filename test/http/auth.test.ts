// HTTP Basic authentication of both operations (spec "Authentication"; facts: 401 body,
// credentials of another merchant; the WWW-Authenticate challenge of issue 15).
import t from 'tap';
import { basic, buildTestApp, cardBody, createToken, M1, M2, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { expect401, expectInvalid, NOT_AUTHORISED, orderId, pay, payBody } from './http.fixture.js';

t.test('pay with a blank user id and the API password is processed (201)', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const res = await pay(app, token, payBody(), { auth: basic('', M1.apiPassword) });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().result, 'SUCCESS');
  t.equal(res.json().merchant, M1.id);
});

t.test('pay with user merchant.<id> and the API password is accepted too', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const res = await pay(app, token, payBody(), { auth: basic(`merchant.${M1.id}`, M1.apiPassword) });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().result, 'SUCCESS');
});

t.test('pay: bad or missing credentials are 401 Invalid credentials., with WWW-Authenticate: Basic realm="tokengate", and record nothing', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const head = await app.gateway.store.headPosition();
  const url = payPath(M1.id, token, orderId(), '1');
  const cases: Array<[string, Record<string, string>, string?]> = [
    ['wrong password', { authorization: basic('', `${M1.apiPassword}x`) }],
    ['password of merchant.<id> user wrong', { authorization: basic(`merchant.${M1.id}`, 'wrong-password') }],
    ['missing Authorization header', {}],
    ['malformed header (not base64)', { authorization: 'Basic !!!not-base64!!!' }],
    ['malformed header (no colon)', { authorization: `Basic ${Buffer.from('no-colon-here').toString('base64')}` }],
    ['malformed header (Bearer scheme)', { authorization: `Bearer ${M1.apiPassword}` }],
    ['malformed header (scheme only)', { authorization: 'Basic' }],
    ['empty password', { authorization: basic('', '') }],
  ];
  for (const [what, headers] of cases) {
    const res = await app.inject({ method: 'PUT', url, headers, payload: payBody() });
    expect401(t, res, what);
  }
  // Unknown merchant in the path, with a password that is valid for another merchant.
  expect401(t, await pay(app, token, payBody(), { merchant: { id: 'NOSUCHMERCHANT', apiPassword: M1.apiPassword } }), 'unknown merchant');
  t.equal(await app.gateway.store.headPosition(), head, 'no event appended by a refused request');
});

t.test('pay with merchant A password on merchant B path is 401', async (t) => {
  const app = await buildTestApp(t);
  const tokenB = await createToken(app, M2);
  const url = payPath(M2.id, tokenB, orderId(), '1');
  // Blank user id: the password is checked against the path's merchant.
  expect401(t, await app.inject({ method: 'PUT', url, headers: { authorization: payAuth(M1) }, payload: payBody() }), 'blank user, A password on B path');
  // merchant.A with A's (valid) password on B's path: authenticated, but not for B.
  const named = await app.inject({ method: 'PUT', url, headers: { authorization: basic(`merchant.${M1.id}`, M1.apiPassword) }, payload: payBody() });
  expect401(t, named, 'merchant.A user on B path', NOT_AUTHORISED);
  t.equal((await app.gateway.store.readAll()).filter((e) => e.type === 'PaymentRecorded').length, 0, 'no payment recorded');
});

t.test('token creation: blank user id is refused with 401', async (t) => {
  const app = await buildTestApp(t);
  const res = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: basic('', M1.apiPassword) }, payload: cardBody() });
  expect401(t, res, 'blank user on create token');
  t.equal(await app.gateway.store.headPosition(), 0n, 'no token created');
});

t.test('token creation: missing, wrong or unknown credentials are 401', async (t) => {
  const app = await buildTestApp(t);
  const url = tokenPath(M1.id);
  const cases: Array<[string, Record<string, string>]> = [
    ['missing header', {}],
    ['wrong password', { authorization: basic(`merchant.${M1.id}`, 'wrong') }],
    ['user without merchant. prefix', { authorization: basic(M1.id, M1.apiPassword) }],
    ['unknown merchant user', { authorization: basic('merchant.NOSUCHMERCHANT', M1.apiPassword) }],
    ['malformed header', { authorization: 'Basic %%%' }],
  ];
  for (const [what, headers] of cases) {
    expect401(t, await app.inject({ method: 'POST', url, headers, payload: cardBody() }), what);
  }
  t.equal(await app.gateway.store.headPosition(), 0n, 'no token created');
});

t.test('token creation with valid merchant.A credentials on merchant B path is 401 not authorised', async (t) => {
  const app = await buildTestApp(t);
  const res = await app.inject({ method: 'POST', url: tokenPath(M2.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody() });
  expect401(t, res, 'A on B', NOT_AUTHORISED);
  t.equal(await app.gateway.store.headPosition(), 0n, 'no token created');
  // The same credentials are fine on A's own path.
  const own = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody() });
  t.equal(own.statusCode, 201, own.body);
});

t.test('an invalid merchant id in the path is 400 on the merchant id parameter', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const long = 'A'.repeat(41);
  for (const bad of ['BAD$ID', 'bad.id', long]) {
    const payRes = await app.inject({
      method: 'PUT', url: payPath(encodeURIComponent(bad), token, orderId(), '1'), headers: { authorization: payAuth(M1) }, payload: payBody(),
    });
    expectInvalid(t, payRes, { field: 'merchantid', validationType: 'INVALID' }, `pay merchantid '${bad}'`);
    const tokenRes = await app.inject({
      method: 'POST', url: tokenPath(encodeURIComponent(bad)), headers: { authorization: basic(`merchant.${bad}`, M1.apiPassword) }, payload: cardBody(),
    });
    expectInvalid(t, tokenRes, { field: 'merchantId', validationType: 'INVALID' }, `token merchantId '${bad}'`);
  }
  // 40 characters is within the bound: an unknown merchant then, not a malformed id.
  const forty = 'A'.repeat(40);
  expect401(t, await pay(app, token, payBody(), { merchant: { id: forty, apiPassword: M1.apiPassword } }), '40-character unknown merchant');
});
