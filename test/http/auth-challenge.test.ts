// Issue 15, item 6 (part): "Some clients send credentials only after a challenge: every 401
// carries `WWW-Authenticate: Basic` with a realm. Credentials are checked before the path is
// matched, so a wrong password on any path under `/api/rest/` is a 401, never a 404."
// Check Gateway stays unauthenticated; the admin API keeps its own realm; a wrong password on a
// path that names no operation counts towards the credential's lock like on any operation.
import t from 'tap';
import { basic, buildTestApp, createToken, M1, M2, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { expect401, NOT_AUTHORISED } from './http.fixture.js';

const REALM = 'Basic realm="tokengate"';
const wrong = (m: { id: string }) => basic(`merchant.${m.id}`, 'not-the-password-0123456789');

t.test('every 401 of the API carries WWW-Authenticate: Basic realm="tokengate"', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const cases: Array<[string, 'GET' | 'POST' | 'PUT' | 'DELETE', string, Record<string, string>, string?]> = [
    ['pay, no credentials', 'PUT', payPath(M1.id, token, '10000000001', '1'), {}],
    ['pay, wrong password', 'PUT', payPath(M1.id, token, '10000000001', '1'), { authorization: payAuth({ apiPassword: 'wrong' }) }],
    ['create token, no credentials', 'POST', tokenPath(M1.id), {}],
    ['create token, blank user id', 'POST', tokenPath(M1.id), { authorization: payAuth(M1) }],
    ['retrieve token, wrong password', 'GET', `${tokenPath(M1.id)}/${token}`, { authorization: wrong(M1) }],
    ['delete token, another merchant', 'DELETE', `${tokenPath(M1.id)}/${token}`, { authorization: tokenAuth(M2) }, NOT_AUTHORISED],
    ['create session, no credentials', 'POST', `/api/rest/version/100/merchant/${M1.id}/session`, {}],
    ['retrieve order, wrong password', 'GET', `/api/rest/version/3/merchant/${M1.id}/order/10000000001`, { authorization: payAuth({ apiPassword: 'wrong' }) }],
  ];
  for (const [what, method, url, headers, explanation] of cases) {
    expect401(t, await app.inject({ method, url, headers }), what, explanation);
  }
});

t.test('a path under /api/rest/ that names no operation: 401 without valid credentials, 404 with them', async (t) => {
  const app = await buildTestApp(t);
  const unknown = [
    `/api/rest/version/100/merchant/${M1.id}/nothing`,
    `/api/rest/version/100/merchant/${M1.id}/token/x/y`,
    '/api/rest/version/3/nothing',
    '/api/rest/nothing/at/all',
  ];
  for (const url of unknown) {
    expect401(t, await app.inject({ method: 'GET', url }), `${url}, no credentials`);
    expect401(t, await app.inject({ method: 'GET', url, headers: { authorization: wrong(M1) } }), `${url}, wrong password`);
    expect401(t, await app.inject({ method: 'GET', url, headers: { authorization: 'Basic !!!' } }), `${url}, malformed header`);
    expect401(t, await app.inject({ method: 'GET', url, headers: { authorization: basic('someone', M1.apiPassword) } }), `${url}, a user id that is no merchant`);
    const right = await app.inject({ method: 'GET', url, headers: { authorization: tokenAuth(M1) } });
    t.equal(right.statusCode, 404, `${url}, merchant.<id> and its password: 404 (got ${right.statusCode} ${right.body})`);
    t.match(right.json().error.explanation, /^No operation for GET on this path/, `${url}: the 404 body`);
    t.notOk('www-authenticate' in right.headers, `${url}: a 404 does not challenge`);
  }
  // Another method on an operation's path is no operation either.
  expect401(t, await app.inject({ method: 'PUT', url: tokenPath(M1.id), headers: { authorization: wrong(M1) }, payload: {} }), 'PUT on the token path, wrong password');
  t.equal((await app.inject({ method: 'PUT', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: {} })).statusCode, 404, 'PUT on the token path, right password');

  // A blank user id is checked against the merchant the path names; without one, it names nobody.
  const onMerchantPath = `/api/rest/version/3/merchant/${M1.id}/token/x/order/1`;
  t.equal((await app.inject({ method: 'PUT', url: onMerchantPath, headers: { authorization: payAuth(M1) } })).statusCode, 404, 'blank user id, the path merchant\'s password: 404');
  expect401(t, await app.inject({ method: 'PUT', url: onMerchantPath, headers: { authorization: payAuth(M2) } }), 'blank user id, another merchant\'s password');
  expect401(t, await app.inject({ method: 'GET', url: '/api/rest/version/3/nothing', headers: { authorization: payAuth(M1) } }), 'blank user id on a path that names no merchant');
  // Valid credentials of another merchant than the one the path names: not authorised, as on the operations.
  expect401(t, await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M2.id}/nothing`, headers: { authorization: tokenAuth(M1) } }), 'merchant.A on a path of B', NOT_AUTHORISED);
  t.equal((await app.gateway.store.readAll()).length, 0, 'nothing recorded');
});

t.test('outside /api/rest/ and on Check Gateway nothing is asked', async (t) => {
  const app = await buildTestApp(t);
  const info = await app.inject({ method: 'GET', url: '/api/rest/version/100/information' });
  t.equal(info.statusCode, 200, info.body);
  t.equal(info.json().status, 'OPERATING');
  const infoWrong = await app.inject({ method: 'GET', url: '/api/rest/version/3/information', headers: { authorization: wrong(M1) } });
  t.equal(infoWrong.statusCode, 200, 'Check Gateway with a wrong password: credentials are not looked at');
  const post = await app.inject({ method: 'POST', url: '/api/rest/version/3/information' });
  t.equal(post.statusCode, 404, 'another method on Check Gateway\'s path: 404, no credentials needed');
  const outside = await app.inject({ method: 'GET', url: '/nothing/here' });
  t.equal(outside.statusCode, 404, 'a path outside the API: 404');
  t.notOk('www-authenticate' in outside.headers);
});

t.test('wrong passwords on paths that name no operation count towards the lock', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 3 } });
  for (let i = 0; i < 3; i++) {
    expect401(t, await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/nothing${i}`, headers: { authorization: wrong(M1) } }), `guess ${i + 1}`);
  }
  const locked = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: {} });
  t.equal(locked.statusCode, 429, `merchant.${M1.id} is locked, on every path (got ${locked.statusCode} ${locked.body})`);
  t.ok(Number(locked.headers['retry-after']) > 0, 'Retry-After');
  t.notOk('www-authenticate' in locked.headers, 'a lock does not challenge');
  const lockedUnknown = await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/nothing`, headers: { authorization: tokenAuth(M1) } });
  t.equal(lockedUnknown.statusCode, 429, 'and on a path that names no operation');
  const other = await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M2.id}/nothing`, headers: { authorization: tokenAuth(M2) } });
  t.equal(other.statusCode, 404, 'another merchant is not locked');
});

t.test('the admin API keeps its own realm', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-0123456789' });
  const res = await app.inject({ method: 'GET', url: '/admin/api/events' });
  t.equal(res.statusCode, 401);
  t.match(String(res.headers['www-authenticate']), /^Basic realm="tokengate admin"/, 'the admin realm, not the API\'s');
  t.not(res.headers['www-authenticate'], REALM);
});
