// Hosted Checkout's browser half through inject: the Checkout library on its two paths (the
// modern checkout.min.js, the legacy checkout.js of versions up to 62) and the payment page's
// three paths, with their headers. The browser itself: test/e2e/hosted-checkout*.test.ts.
import { Script } from 'node:vm';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';

t.test('checkout.min.js: the library for any page, Checkout with showEmbeddedPage and no Lightbox', async (t) => {
  const a = await buildTestApp(t);
  const res = await a.inject({ method: 'GET', url: '/static/checkout/checkout.min.js?_=1' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/javascript/);
  t.equal(res.headers['access-control-allow-origin'], '*');
  t.equal(res.headers['x-content-type-options'], 'nosniff');
  t.doesNotThrow(() => new Script(res.body), 'JavaScript the browser can parse');
  t.match(res.body, 'window.Checkout = api;');
  t.match(res.body, '})({"version":null,"legacy":false});', 'no version: the checkout\'s own decides');
});

t.test('checkout.js of a legacy version: its version in the library; from version 63 refused on the version', async (t) => {
  const a = await buildTestApp(t);
  const legacy = await a.inject({ method: 'GET', url: '/checkout/version/57/checkout.js' });
  t.equal(legacy.statusCode, 200);
  t.match(legacy.body, '})({"version":57,"legacy":true});');
  t.equal(legacy.headers['access-control-allow-origin'], '*');
  const modern = await a.inject({ method: 'GET', url: '/checkout/version/63/checkout.js' });
  t.equal(modern.statusCode, 400);
  t.match(modern.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'version', explanation: /checkout\.min\.js/ } });
  const deactivated = await a.inject({ method: 'GET', url: '/checkout/version/22/checkout.js' });
  t.equal(deactivated.statusCode, 400);
  t.equal(deactivated.json().error.field, 'version');
  t.equal((await a.inject({ method: 'GET', url: '/checkout/version/abc/checkout.js' })).statusCode, 400, 'not a version');
});

t.test('the payment page, its embedded variant and the receipt: one page, framed only where it is embedded', async (t) => {
  const a = await buildTestApp(t);
  const pages: Record<string, string> = {};
  for (const kind of ['pay', 'entry', 'receipt']) {
    const res = await a.inject({ method: 'GET', url: `/checkout/${kind}/SESSION0001234567890123456789012?checkoutVersion=1.0.0` });
    t.equal(res.statusCode, 200, kind);
    t.match(res.headers['content-type'], /^text\/html/);
    t.equal(res.headers['cache-control'], 'no-store');
    t.equal(res.headers['referrer-policy'], 'no-referrer', 'the session id stays out of the merchant\'s logs');
    const policy = String(res.headers['content-security-policy']);
    t.match(policy, /script-src 'self' ('sha256-[^']+' ?)+;/, 'its own inline scripts, by hash, and the gateway\'s (session.js)');
    t.match(policy, "connect-src 'self'");
    t.match(policy, "form-action 'self'");
    t.match(policy, kind === 'entry' ? 'frame-ancestors http: https:' : "frame-ancestors 'none'");
    t.notMatch(res.body, /<script src=/, 'its scripts written in');
    t.match(res.body, 'id="card-number"');
    pages[kind] = res.body;
  }
  t.equal(pages.pay, pages.entry, 'the same document: the path decides what it shows');
  t.equal((await a.inject({ method: 'GET', url: `/checkout/pay/${'S'.repeat(65)}` })).statusCode, 400, 'not a session id');
});
