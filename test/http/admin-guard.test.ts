// The admin pages and API: security headers on every answer, and a Host check before the
// password. A page of another site, its name re-resolved to the gateway's address (DNS
// rebinding), sends its own name in Host: its wrong passwords must not lock the admin out.
import t from 'tap';
import { ConfigError, loadConfig } from '../../config.js';
import { basic, buildTestApp, M1, tokenAuth, tokenPath, cardBody } from '../helpers/app.js';
import { buildApp } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { MERCHANTS } from '../helpers/app.js';

const PASSWORD = 'admin-password-for-tests';
const ADMIN = basic('admin', PASSWORD);

t.test('every admin answer, a refusal too, has the security headers; the pages\' inline code is allowed by its hash only', async (t) => {
  const app = await buildTestApp(t, { adminPassword: PASSWORD });
  for (const [url, authorization, status] of [
    ['/admin/timeline', ADMIN, 200], ['/admin/history', ADMIN, 200], ['/admin/api/events', ADMIN, 200],
    ['/admin/api/events', undefined, 401], ['/admin/api/search?q=', ADMIN, 400], ['/admin', ADMIN, 302],
  ] as const) {
    const res = await app.inject({ method: 'GET', url, headers: authorization ? { authorization } : {} });
    t.equal(res.statusCode, status, `${url}: ${status}`);
    t.equal(res.headers['x-frame-options'], 'DENY', `${url}: X-Frame-Options`);
    t.equal(res.headers['x-content-type-options'], 'nosniff', `${url}: nosniff`);
    t.equal(res.headers['referrer-policy'], 'no-referrer', `${url}: Referrer-Policy`);
    const csp = String(res.headers['content-security-policy'] ?? '');
    t.match(csp, /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/=]+'( 'sha256-[A-Za-z0-9+/=]+')*; style-src 'sha256-/, `${url}: a policy allowing scripts and styles by hash`);
    t.match(csp, /frame-ancestors 'none'/);
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, `${url}: nothing inline without its hash, no eval, no wildcard`);
  }
  const api = await app.inject({ method: 'GET', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) } });
  t.notOk(api.headers['content-security-policy'], 'the gateway API is not the admin');
});

t.test('an admin request for another host is refused before its password is looked at: no lockout', async (t) => {
  const app = await buildTestApp(t, { adminPassword: PASSWORD, limits: { authFailureLimit: 3 } });
  const get = (host: string, authorization = basic('admin', 'guessed-by-a-rebound-page')) =>
    app.inject({ method: 'GET', url: '/admin/api/events', headers: { host, authorization } });
  for (let i = 0; i < 10; i++) {
    const res = await get('evil.example:8080');
    t.equal(res.statusCode, 403, `attempt ${i + 1}: 403`);
    t.same(Object.keys(res.json().error).sort(), ['cause', 'explanation']);
    t.match(res.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', explanation: /Host/ } });
  }
  for (const host of ['localhost:8080', 'localhost', '127.0.0.1:8080', '[::1]:8080', 'tokengate.localhost:8080', '10.1.2.3:8080', 'LOCALHOST.:8080']) {
    const res = await get(host, ADMIN);
    t.equal(res.statusCode, 200, `${host}: the right password is not locked out (${res.body.slice(0, 120)})`);
  }
  for (const host of ['evil.example', 'localhost.evil.example:8080', '127.0.0.1.nip.io:8080', 'evil.example:8080'] as const) {
    t.equal((await get(host, ADMIN)).statusCode, 403, `${host}: refused even with the password`);
  }
  // The gateway API answers whatever the Host.
  const created = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { host: 'evil.example', authorization: tokenAuth(M1) }, payload: cardBody() });
  t.equal(created.statusCode, 201);
});

t.test('ADMIN_HOSTS names more hosts', async (t) => {
  const app = await buildApp({
    eventStore: { kind: 'memory' }, merchants: parseMerchants(MERCHANTS, 'test'), adminPassword: PASSWORD,
    adminHosts: loadConfig({ ADMIN_HOSTS: ' Gateway.Internal , ops.example.' }).adminHosts,
  });
  t.teardown(() => app.close());
  for (const [host, status] of [['gateway.internal:8080', 200], ['GATEWAY.INTERNAL', 200], ['ops.example:443', 200], ['other.example', 403]] as const) {
    t.equal((await app.inject({ method: 'GET', url: '/admin/api/events', headers: { host, authorization: ADMIN } })).statusCode, status, host);
  }
  t.throws(() => loadConfig({ ADMIN_HOSTS: 'ok.example,bad host:80' }), ConfigError);
  t.same(loadConfig({}).adminHosts, []);
});
