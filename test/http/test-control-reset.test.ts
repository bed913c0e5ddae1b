// The test-control API's reset (routes/admin-control.ts, docs/timeline-and-cli.md "Test control"):
// off unless TEST_CONTROL (404 before any input is looked at); a reset makes the merchant's
// tokens, orders and sessions unknown to the API, and nothing of another merchant's, even one
// whose id extends it (TEST1, TEST10); the merchant starts afresh (the same card, the same order
// id); the log keeps every event, and the reset holds after a restart; a repository that another
// merchant shares keeps its tokens.
import { join } from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig, testControlFromEnv } from '../../config.js';
import { streams } from '../../domain/events.js';
import { tokenAuth } from '../helpers/app.js';
import {
  control, controlApp, createSession, createToken, logTypes, pay, refused, retrieveOrder, retrieveSession, retrieveToken,
  SHARED_A, SHARED_B, TEST1, TEST10, until, type App,
} from './test-control.fixture.js';

const ORDER = '10000000001';

/** A token, a payment and a session for the merchant; the same card and order id for every merchant. */
async function workload(app: App, m: typeof TEST1) {
  const { token } = await createToken(app, m);
  t.equal((await pay(app, m, token, ORDER)).statusCode, 201);
  return { token, session: await createSession(app, m) };
}

t.test('off: every route answers 404 with the reason, before its input is looked at; TEST_CONTROL defaults to on only on a loopback HOST', async (t) => {
  const app = await controlApp(t, { testControl: false });
  const head = await app.gateway.store.headPosition();
  for (const [method, path, body] of [
    ['POST', `/merchants/${TEST1.id}/reset`, undefined],
    ['GET', `/merchants/${TEST1.id}/clock`, undefined],
    ['POST', `/merchants/${TEST1.id}/clock/advance`, { milliseconds: 'soon' }],
    ['POST', `/merchants/${TEST1.id}/orders/1/transactions/1/resolve`, { gatewayCode: 'NOT_A_CODE' }],
    ['POST', `/merchants/${TEST1.id}/notifications/x/redeliver`, undefined],
  ] as const) {
    const res = await control(app, method, path, body);
    refused(t, res, 404, undefined, `${method} ${path}`);
    t.match(res.json().error.explanation, /TEST_CONTROL=on/, 'the explanation says how to turn it on');
  }
  t.equal(await app.gateway.store.headPosition(), head, 'nothing recorded');
  const anonymous = await control(app, 'POST', `/merchants/${TEST1.id}/reset`, undefined, '');
  t.equal(anonymous.statusCode, 401, "the admin's credentials come first");

  t.equal(testControlFromEnv({}, '127.0.0.1'), true, 'loopback: on');
  t.equal(testControlFromEnv({}, 'localhost'), true);
  t.equal(testControlFromEnv({}, '0.0.0.0'), false, 'reachable from elsewhere: off');
  t.equal(testControlFromEnv({ TEST_CONTROL: 'on' }, '0.0.0.0'), true, 'on when asked');
  t.equal(testControlFromEnv({ TEST_CONTROL: 'off' }, '127.0.0.1'), false, 'off when asked');
  t.throws(() => testControlFromEnv({ TEST_CONTROL: 'yes' }, '127.0.0.1'), ConfigError);
  t.equal(loadConfig({ HOST: '0.0.0.0' }).testControl, false);
  t.equal(loadConfig({}).testControl, true);
});

for (const [name, eventStore] of [['memory', { kind: 'memory' }], ['sqlite', { kind: 'sqlite', path: ':memory:' }]] as const) {
  t.test(`a reset: the merchant's tokens, orders and sessions are unknown to the API, TEST10's untouched; it starts afresh (${name})`, async (t) => {
    const app = await controlApp(t, { eventStore });
    const one = await workload(app, TEST1);
    const ten = await workload(app, TEST10);

    const reset = await control(app, 'POST', `/merchants/${TEST1.id}/reset`);
    t.equal(reset.statusCode, 200);
    t.match(reset.json(), { merchantId: TEST1.id, reset: 1, repositoryId: TEST1.repository.id, resetAt: /^\d{4}-/ });

    refused(t, await retrieveToken(app, TEST1, one.token), 400, 'tokenid', 'Retrieve Token of the reset merchant');
    refused(t, await retrieveOrder(app, TEST1, ORDER), 400, 'orderid', 'Retrieve Order of the reset merchant');
    refused(t, await retrieveSession(app, TEST1, one.session), 400, 'sessionId', 'Retrieve Session of the reset merchant');
    t.equal((await pay(app, TEST1, one.token, ORDER)).statusCode, 400, 'an identical repeat of the old payment: its token is unknown');

    t.equal((await retrieveToken(app, TEST10, ten.token)).statusCode, 200, "TEST10's token");
    const order10 = await retrieveOrder(app, TEST10, ORDER);
    t.equal(order10.statusCode, 200, "TEST10's order");
    t.equal(order10.json().totalCapturedAmount, 12.5);
    t.equal((await retrieveSession(app, TEST10, ten.session)).statusCode, 200, "TEST10's session");
    t.equal((await pay(app, TEST10, ten.token, ORDER)).json().response.gatewayCode, 'APPROVED', "TEST10's identical repeat answers as before");

    // Afresh: the same card is a new token (UNIQUE_CARD would have answered the old one), the same order id a new order.
    const again = await createToken(app, TEST1);
    t.not(again.token, one.token, 'the same card stored again: a new token');
    t.equal((await pay(app, TEST1, again.token, ORDER)).statusCode, 201);
    const order1 = (await retrieveOrder(app, TEST1, ORDER)).json();
    t.equal(order1.transaction.length, 1, 'the order id holds only the new payment');
    t.equal(order1.totalCapturedAmount, 12.5);
    t.equal((await createToken(app, TEST10)).token, ten.token, "TEST10's UNIQUE_CARD still answers its token");

    // The log keeps everything: the reset is a new epoch, not a wipe.
    t.same(await logTypes(app, streams.order(TEST1.id, ORDER)), ['PaymentRecorded', 'PaymentRecorded']);
    t.same(await logTypes(app, streams.sandbox(TEST1.id)), ['MerchantReset']);
    const second = await control(app, 'POST', `/merchants/${TEST1.id}/reset`);
    t.equal(second.json().reset, 2, 'the resets are counted');
    refused(t, await retrieveToken(app, TEST1, again.token), 400, 'tokenid', 'the second reset hides the first epoch\'s tokens');
  });
}

t.test('after a reset, a PAY naming a 3-D Secure authentication of the new epoch uses it: the order is read, not guessed new', async (t) => {
  const app = await controlApp(t);
  t.equal((await control(app, 'POST', `/merchants/${TEST1.id}/reset`)).statusCode, 200);
  const url = (transaction: string) => `/api/rest/version/100/merchant/${TEST1.id}/order/order-3ds-1/transaction/${transaction}`;
  const put = (transaction: string, payload: object) => app.inject({ method: 'PUT', url: url(transaction), headers: { authorization: tokenAuth(TEST1) }, payload });
  const sourceOfFunds = { provided: { card: { number: '5123456789012346', expiry: { month: '1', year: '39' } } } };
  t.equal((await put('auth-1', { apiOperation: 'INITIATE_AUTHENTICATION', authentication: { channel: 'PAYER_BROWSER' }, order: { currency: 'USD' }, sourceOfFunds })).statusCode, 201);
  const payer = await put('auth-1', { apiOperation: 'AUTHENTICATE_PAYER', authentication: { redirectResponseUrl: 'https://shop.example/3ds/return' }, order: { amount: '12.50', currency: 'USD' } });
  t.equal(payer.json().authentication?.['3ds2']?.transactionStatus, 'Y', 'frictionless: authenticated');
  const paid = await put('pay-1', { apiOperation: 'PAY', authentication: { transactionId: 'auth-1' }, order: { amount: '12.50', currency: 'USD' }, sourceOfFunds });
  t.equal(paid.statusCode, 201, paid.body);
  t.match(paid.json(), { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' }, authentication: { transactionId: 'auth-1' }, order: { authenticationStatus: 'AUTHENTICATION_SUCCESSFUL' } });
});

t.test('a reset holds after a restart; a repository another merchant shares keeps its tokens', async (t) => {
  const dir = t.testdir({});
  const eventStore = { kind: 'sqlite' as const, path: join(dir, 'gateway.db') };
  const first = await controlApp(t, { eventStore });
  const one = await workload(first, TEST1);
  const ten = await workload(first, TEST10);
  const a = await workload(first, SHARED_A);
  const b = await workload(first, SHARED_B);
  t.equal((await control(first, 'POST', `/merchants/${TEST1.id}/reset`)).statusCode, 200);
  const shared = await control(first, 'POST', `/merchants/${SHARED_A.id}/reset`);
  t.match(shared.json(), { merchantId: SHARED_A.id, reset: 1, repositorySharedWith: [SHARED_B.id] });
  t.notOk('repositoryId' in shared.json(), 'the shared repository is not reset');
  await first.close();

  const second = await controlApp(t, { eventStore });
  refused(t, await retrieveToken(second, TEST1, one.token), 400, 'tokenid', 'after a restart: the token');
  refused(t, await retrieveOrder(second, TEST1, ORDER), 400, 'orderid', 'after a restart: the order');
  t.equal((await retrieveToken(second, TEST10, ten.token)).statusCode, 200);
  t.equal((await retrieveOrder(second, TEST10, ORDER)).statusCode, 200);
  refused(t, await retrieveOrder(second, SHARED_A, ORDER), 400, 'orderid', "the sharing merchant's order");
  refused(t, await retrieveSession(second, SHARED_A, a.session), 400, 'sessionId', "the sharing merchant's session");
  t.equal((await retrieveToken(second, SHARED_A, a.token)).statusCode, 200, "the shared repository's tokens stay");
  t.equal((await retrieveToken(second, SHARED_B, b.token)).statusCode, 200);
  t.equal((await retrieveOrder(second, SHARED_B, ORDER)).statusCode, 200, "the other sharing merchant's order");
});

t.test('reset: an unknown merchant is 404, a malformed id 400, with the field', async (t) => {
  const app = await controlApp(t);
  refused(t, await control(app, 'POST', '/merchants/NOSUCH/reset'), 404, 'merchantId', 'an unknown merchant');
  refused(t, await control(app, 'POST', '/merchants/TEST1%20X/reset'), 400, 'merchantId', 'a malformed merchant id');
  t.same(await logTypes(app, streams.sandbox('NOSUCH')), [], 'nothing recorded');
});

t.test('the OpenAPI document shows the test-control routes in the admin tag, after the gateway operations', async (t) => {
  const app = await controlApp(t, { testControl: false });
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { tags?: string[]; security?: unknown; summary?: string }>> };
  const paths = Object.keys(doc.paths);
  const control = paths.filter((p) => p.startsWith('/admin/api/test-control/'));
  t.same(control.sort(), [
    '/admin/api/test-control/merchants/{merchantId}/clock',
    '/admin/api/test-control/merchants/{merchantId}/clock/advance',
    '/admin/api/test-control/merchants/{merchantId}/notifications/{notificationId}/redeliver',
    '/admin/api/test-control/merchants/{merchantId}/orders/{orderId}/transactions/{transactionId}/notify',
    '/admin/api/test-control/merchants/{merchantId}/orders/{orderId}/transactions/{transactionId}/resolve',
    '/admin/api/test-control/merchants/{merchantId}/reset',
  ], 'documented even while off (they answer 404 then)');
  for (const path of control) {
    for (const [method, operation] of Object.entries(doc.paths[path]!)) {
      t.same(operation.tags, ['admin'], `${method} ${path}: tag admin`);
      t.same(operation.security, [{ adminAuth: [] }], `${method} ${path}: the admin's credentials`);
      t.match(operation.summary, /^Test control: /, `${method} ${path}: a summary`);
    }
  }
  t.ok(paths.indexOf(control[0]!) > paths.findIndex((p) => p.startsWith('/api/')), 'after the gateway operations');
});

t.test('another gateway on the same store follows a reset and a clock advance from the log', async (t) => {
  const dir = t.testdir({});
  const eventStore = { kind: 'sqlite' as const, path: join(dir, 'gateway.db') };
  const a = await controlApp(t, { eventStore });
  const b = await controlApp(t, { eventStore });
  const { token } = await createToken(b, TEST1);
  t.equal((await retrieveToken(b, TEST1, token)).statusCode, 200);
  t.equal((await control(a, 'POST', `/merchants/${TEST1.id}/reset`)).statusCode, 200);
  t.equal((await control(a, 'POST', `/merchants/${TEST1.id}/clock/advance`, { milliseconds: 60_000 })).statusCode, 200);
  await until("the other gateway's reset", async () => (await retrieveToken(b, TEST1, token)).statusCode === 400);
  await until("the other gateway's clock", async () => (await control(b, 'GET', `/merchants/${TEST1.id}/clock`)).json().offsetMs === 60_000);
  t.pass('both followed');
});
