// The admin timeline API: its own credentials, filters, paging, history and time travel.
import t from 'tap';
import { ConfigError, loadConfig } from '../../config.js';
import { basic, buildTestApp, cardBody, createToken, M1, M2, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { sleep } from '../helpers/poll.js';

const ADMIN = basic('admin', 'admin-password-for-tests');

async function workload(t: Parameters<typeof buildTestApp>[0]) {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const token = await createToken(app, M1, '5123450000000008', '1', '39');
  const pay = (orderId: string, txn: string, amount: string, correlation?: string) => app.inject({
    method: 'PUT', url: payPath(M1.id, token, orderId, txn),
    headers: { authorization: payAuth(M1), ...(correlation ? { 'x-correlation-id': correlation } : {}) },
    payload: { apiOperation: 'PAY', transaction: { amount, currency: 'USD' } },
  });
  await pay('10000000001', '1', '10.00', 'corr-first');
  await sleep(5); // time passing is the point: an instant strictly between the two payments
  const between = new Date().toISOString();
  await sleep(5);
  await pay('10000000001', '2', '5.00', 'corr-second');
  await createToken(app, M2, '4508750015741019', '1', '39');
  return { app, token, between };
}

t.test('admin credentials are separate from merchants', async (t) => {
  const { app } = await workload(t);
  const none = await app.inject({ method: 'GET', url: '/admin/api/events' });
  t.equal(none.statusCode, 401);
  t.match(String(none.headers['www-authenticate']), 'Basic realm="tokengate admin"', 'the page can prompt for credentials');
  const merchant = await app.inject({ method: 'GET', url: '/admin/api/events', headers: { authorization: tokenAuth(M1) } });
  t.equal(merchant.statusCode, 401, "a merchant's credentials do not open the timeline");
  const wrong = await app.inject({ method: 'GET', url: '/admin/api/events', headers: { authorization: basic('admin', 'nope') } });
  t.equal(wrong.statusCode, 401);
  const page = await app.inject({ method: 'GET', url: '/admin/timeline', headers: { authorization: ADMIN } });
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-type'], 'text/html');
});

t.test('without ADMIN_PASSWORD the admin API is disabled', async (t) => {
  const app = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/admin/api/events', headers: { authorization: ADMIN } });
  t.equal(res.statusCode, 401);
  t.match(res.json().error.explanation, 'ADMIN_PASSWORD');
});

t.test('events by stream, correlation id and merchant, paged by position', async (t) => {
  const { app } = await workload(t);
  const get = async (query: string) => {
    const res = await app.inject({ method: 'GET', url: `/admin/api/events?${query}`, headers: { authorization: ADMIN } });
    t.equal(res.statusCode, 200, query);
    return res.json() as { events: Array<{ position: number; type: string; stream: string; data: any; metadata: any }>; next: number | null; head: number };
  };
  const all = await get('');
  t.same(all.events.map((e) => e.type), ['TokenCreated', 'PaymentRecorded', 'PaymentRecorded', 'TokenCreated']);
  t.equal(all.next, null);
  t.equal(all.head, 4);
  t.notMatch(JSON.stringify(all), '5123450000000008', 'no card number in the timeline');
  t.equal(all.events[0]!.data.sourceOfFunds.card.numberSealed, '[sealed]');

  const order = await get(`stream=order-${M1.id}:10000000001`);
  t.same(order.events.map((e) => e.data.transactionId), ['1', '2']);
  const byCorrelation = await get('correlationId=corr-second');
  t.same(byCorrelation.events.map((e) => e.data.transactionId), ['2']);
  const byMerchant = await get(`merchantId=${M2.id}`);
  t.same(byMerchant.events.map((e) => e.type), ['TokenCreated']);
  const byCategory = await get('category=token');
  t.equal(byCategory.events.length, 2);

  const first = await get('limit=2');
  t.same(first.events.map((e) => e.position), [1, 2]);
  t.equal(first.next, 2);
  const second = await get(`limit=2&after=${first.next}`);
  t.same(second.events.map((e) => e.position), [3, 4]);
  t.equal(second.next, null);

  const bad = await app.inject({ method: 'GET', url: '/admin/api/events?limit=9999', headers: { authorization: ADMIN } });
  t.equal(bad.statusCode, 400);
  t.equal(bad.json().error.field, 'limit');
});

t.test('order and token history with time travel', async (t) => {
  const { app, token, between } = await workload(t);
  const get = (url: string) => app.inject({ method: 'GET', url, headers: { authorization: ADMIN } });
  const now = (await get(`/admin/api/orders/${M1.id}/10000000001`)).json();
  t.equal(now.state.totalCapturedAmount, 1500);
  t.equal(now.events.length, 2);
  const then = (await get(`/admin/api/orders/${M1.id}/10000000001?asOf=${encodeURIComponent(between)}`)).json();
  t.equal(then.state.totalCapturedAmount, 1000, 'as of an instant between the payments, only the first counts');
  const atRevision = (await get(`/admin/api/orders/${M1.id}/10000000001?asOfRevision=0`)).json();
  t.same(atRevision.state, then.state);
  t.equal((await get(`/admin/api/orders/${M1.id}/10000000001?asOf=2000-01-01T00:00:00Z`)).statusCode, 404, 'before the order existed');
  t.equal((await get(`/admin/api/orders/${M1.id}/10000000001?asOf=yesterday`)).statusCode, 400);

  const history = (await get(`/admin/api/tokens/REPO01/${token}`)).json();
  t.same(history.events.map((e: { type: string }) => e.type), ['TokenCreated', 'PaymentRecorded', 'PaymentRecorded']);
  t.ok(history.events[0].changes.some((c: { path: string; after: string }) => c.path === 'sourceOfFunds.provided.card.number' && c.after === '512345xxxxxx0008'));
  t.equal(history.events[0].merchantId, M1.id);
  t.ok(history.events[1].changes.some((c: { path: string }) => c.path === 'usage.lastUsed'), 'a payment shows as the token being used');
  t.equal((await get(`/admin/api/tokens/REPO02/${token}`)).statusCode, 404, 'a token belongs to one repository');
});

t.test('wrong admin passwords lock the admin credential: 429 REQUEST_REJECTED, the right password too, for one window', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests', limits: { authFailureLimit: 5 } });
  const get = (authorization: string, remoteAddress = '10.1.2.3') =>
    app.inject({ method: 'GET', url: '/admin/api/events', headers: { authorization }, remoteAddress });
  // User ids other than admin can never succeed: they guess nothing and do not count.
  for (let i = 0; i < 10; i++) t.equal((await get(basic('root', `guess-${i}`))).statusCode, 401);
  t.equal((await get(ADMIN)).statusCode, 200, 'not locked by impossible user ids');
  for (let i = 0; i < 5; i++) t.equal((await get(basic('admin', `guess-${i}`))).statusCode, 401, `wrong password ${i + 1}`);
  for (const [what, res] of [['right password', await get(ADMIN)], ['from another address', await get(ADMIN, '192.0.2.9')], ['wrong password', await get(basic('admin', 'guess'))]] as const) {
    t.equal(res.statusCode, 429, `${what}: 429`);
    t.same(res.json(), { error: { cause: 'REQUEST_REJECTED', supportCode: res.headers['x-request-id'] }, result: 'ERROR' }, `${what}: gateway body`);
    t.ok(['58', '59', '60'].includes(res.headers['retry-after'] as string), `${what}: Retry-After about 60 s (${res.headers['retry-after']})`);
    t.equal(res.headers['www-authenticate'], undefined, `${what}: no prompt for credentials while locked`);
  }
  const merchant = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody(), remoteAddress: '10.1.2.3' });
  t.equal(merchant.statusCode, 201, 'merchants are not affected by the admin lock');
  const realNow = Date.now;
  Date.now = () => realNow() + 61_000;
  try {
    t.equal((await get(ADMIN)).statusCode, 200, 'after the window the right password is served');
  } finally {
    Date.now = realNow;
  }
});

t.test('a short ADMIN_PASSWORD stops start-up with one clear line, and buildApp refuses it too', async (t) => {
  const short = 'fifteen-chars!!';
  t.equal(short.length, 15);
  const error = (() => { try { loadConfig({ ADMIN_PASSWORD: short }); return undefined; } catch (e) { return e as Error; } })();
  t.ok(error instanceof ConfigError, 'a ConfigError (server.ts prints its message alone and exits 1)');
  t.equal(error?.message, 'ADMIN_PASSWORD is too short (15 characters): it needs at least 16, or leave it unset (on a loopback HOST one is then generated at start; elsewhere the admin API is disabled)');
  t.notMatch(error?.message ?? '', short, 'the password is not quoted');
  t.equal(loadConfig({ ADMIN_PASSWORD: 'sixteen-chars!!!' }).adminPassword, 'sixteen-chars!!!', '16 characters are enough');
  t.equal(loadConfig({ ADMIN_PASSWORD: '' }).adminPassword, undefined, 'empty: unset, the admin API is disabled');
  t.equal(loadConfig({}).adminPassword, undefined);
  await t.rejects(buildTestApp(t, { adminPassword: short }), { name: 'ConfigError', message: /ADMIN_PASSWORD is too short \(15 characters\)/ });
  await t.rejects(buildTestApp(t, { adminPassword: '' }), { name: 'ConfigError' }, 'an empty password passed directly is refused');
});
