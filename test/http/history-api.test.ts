// The history API of the admin (GET /admin/api/history, /admin/api/search): an order's steps, each
// with the request that caused it and the state after it in currency units; the UNKNOWN payment's
// resolution as a step that follows it; a token's history with the payments made with it; the
// order API's transactions as steps with the order's status and totals; search by order id,
// token, transaction id and correlation id; as-of a revision; card numbers never in plaintext,
// sealed values sealed; unknown ids 404 with an error body; admin credentials required.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { basic, buildTestApp, createToken, M1, M2, MERCHANTS, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { streams } from '../../domain/events.js';
import { ALL_MERCHANTS, SCHEME } from './token-api.fixture.js';
import { startReceiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/poll.js';

process.env.UNKNOWN_RESOLUTION_DELAY_MS = '0';
process.env.SCHEME_TOKEN_DELAY_MS = '20';
const ADMIN = basic('admin', 'admin-password-for-tests');
const CARDS = ['5123450000000008', '2223000000000007', '4508750015741019'];

type App = Awaited<ReturnType<typeof buildTestApp>>;
type Json = Record<string, any>;

const get = async (t: Test, app: App, url: string, status = 200): Promise<Json> => {
  const res = await app.inject({ method: 'GET', url, headers: { authorization: ADMIN } });
  t.equal(res.statusCode, status, `${url}: ${res.body.slice(0, 300)}`);
  for (const card of CARDS) t.notMatch(res.body, card, `${url}: no card number in plaintext`);
  return res.json() as Json;
};

async function unknownPayment(app: App) {
  const token = await createToken(app, M1, '2223000000000007', '5', '37');
  const paid = await app.inject({
    method: 'PUT', url: payPath(M1.id, token, '10000000003', '7'), headers: { authorization: payAuth(M1), 'x-correlation-id': 'checkout-77' },
    payload: { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } },
  });
  if (paid.statusCode !== 201) throw new Error(paid.body);
  await waitFor(async () => (await app.gateway.store.readStream(streams.order(M1.id, '10000000003'))).length === 2, 'the resolution');
  return { token, requestId: String(paid.headers['x-request-id']) };
}

t.test("an UNKNOWN payment's order: steps, request, state after each in currency units, its resolution", async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const { token, requestId } = await unknownPayment(app);
  const stream = streams.order(M1.id, '10000000003');
  const h = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(stream)}`);
  t.equal(h.kind, 'order');
  t.equal(h.title, `Order 10000000003 of merchant ${M1.id}`);
  t.same(h.steps.map((s: Json) => s.type), ['PaymentRecorded', 'PaymentOutcomeResolved']);
  const [paid, resolved] = h.steps;
  t.same(paid.request, {
    method: 'PUT', path: payPath(M1.id, token, '10000000003', '7'), requestId, correlationId: 'checkout-77', merchantId: M1.id,
  }, 'the request that caused the payment: method, path, request and correlation ids');
  t.equal(paid.state.status, 'INITIATED', 'the order after the UNKNOWN payment');
  t.equal(paid.state.transactions[0].result, 'UNKNOWN');
  t.equal(paid.state.transactions[0].amount, '12.50 USD', 'amounts in currency units');
  t.equal(paid.state.totalCapturedAmount, '0.00 USD', 'nothing captured while the outcome is unknown');
  t.equal(paid.data.amount, '12.50 USD', "the event's amount too");
  t.equal(paid.data.card.number, '222300xxxxxx0007', 'the card number masked');
  t.same(paid.caused.map((c: Json) => c.type), ['PaymentOutcomeResolved'], 'the payment caused its resolution');
  t.equal(resolved.request.reactor, 'unknown-resolver', 'the resolution came from the reactor, not a request');
  t.equal(resolved.request.correlationId, 'checkout-77', 'under the payment’s correlation id');
  t.equal(resolved.causedBy.id, paid.id, 'the resolution follows the payment');
  t.equal(resolved.state.status, 'CAPTURED', 'even amount: approved');
  t.equal(resolved.state.transactions[0].gatewayCode, 'APPROVED');
  t.ok(resolved.changes.some((c: Json) => c.path === 'transactions.0.gatewayCode' && c.before === 'UNKNOWN' && c.after === 'APPROVED'), 'what changed: the gateway code');
  t.ok(resolved.changes.some((c: Json) => c.path === 'status' && c.before === 'INITIATED' && c.after === 'CAPTURED'), 'and the status');
  t.ok(resolved.changes.some((c: Json) => c.path === 'totalCapturedAmount' && c.before === '0.00 USD' && c.after === '12.50 USD'), 'and the total captured');
  t.same(h.state, resolved.state, 'the state now is the last step’s');

  const asOf = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(stream)}&asOfRevision=0`);
  t.equal(asOf.steps.length, 1, 'as of revision 0: one step');
  t.equal(asOf.state.transactions[0].gatewayCode, 'UNKNOWN', 'as of the payment, its outcome was UNKNOWN');

  // The token's history: its creation, then the payment made with it (another stream), sealed values sealed.
  const th = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(streams.token(M1.repository.id, token))}`);
  t.equal(th.kind, 'token');
  t.same(th.steps.map((s: Json) => s.type), ['TokenCreated', 'PaymentRecorded']);
  t.equal(th.steps[0].data.sourceOfFunds.card.numberSealed, '[sealed]', 'sealed values shown sealed');
  t.equal(th.steps[0].state.sourceOfFunds.provided.card.number, '222300xxxxxx0007');
  t.ok(th.steps[1].changes.some((c: Json) => c.path === 'usage.lastUsed'), "the payment changed the token's last use");
  t.equal(th.steps[0].request.method, 'POST');
});

t.test('an event of another stream caused by a step, of a type this page does not know, is shown with it', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  await unknownPayment(app);
  const order = streams.order(M1.id, '10000000003');
  const [payment] = await app.gateway.store.readStream(order);
  const notification = `newcategory-${M1.id}:1`;
  await app.gateway.store.append(notification, [{
    id: randomUUID(), type: 'SomethingNew',
    // A card number where none belongs: the answer masks it all the same.
    data: { merchantId: M1.id, url: 'http://127.0.0.1:9/hook', status: 200, note: 'card 5123450000000008' },
    metadata: { correlationId: 'elsewhere', causationId: payment!.id, merchantId: M1.id, recordedAt: new Date().toISOString(), reactor: 'notifications' },
  }]);
  const h = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(order)}`);
  t.same(h.related.events.map((e: Json) => [e.type, e.stream, e.link, e.causedBy?.id]), [['SomethingNew', notification, 'causation', payment!.id]]);
  t.equal(h.related.events[0].data.note, 'card 512345xxxxxx0008', 'masked');
  t.same(h.steps[0].caused.map((c: Json) => c.type).sort(), ['PaymentOutcomeResolved', 'SomethingNew'], 'the payment caused both');
  t.equal(h.related.next, null, 'the whole log was read');
  const own = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(notification)}`);
  t.equal(own.kind, 'newcategory');
  t.equal(own.steps[0].causedBy, undefined, 'its cause is in another stream, not among its steps');
  t.equal(own.state.status, 200, 'its state: its data');
  const later = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(order)}&relatedAfter=${h.related.scannedTo}`);
  t.same(later.related.events, [], 'nothing after the end of the log');
});

t.test('the notifications an UNKNOWN payment sent: in its history, each with its own', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const merchants = { merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id ? { ...m, notifications: { url: `${receiver.origin}/webhook`, secret: 'history-notification-secret-0123456789' } } : m)) };
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests', merchants });
  await unknownPayment(app);
  await receiver.waitFor(2);
  await waitFor(async () => (await app.gateway.store.readAll()).filter((e) => e.type === 'NotificationDelivered').length === 2, 'both delivered');
  const order = streams.order(M1.id, '10000000003');
  const [payment, resolution] = await app.gateway.store.readStream(order);
  const h = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(order)}`);
  for (const [step, cause] of [[h.steps[0], payment!], [h.steps[1], resolution!]] as const) {
    const notification = streams.notification(M1.id, cause.id);
    t.same(step.caused.filter((c: Json) => c.stream === notification).map((c: Json) => c.type), ['NotificationScheduled', 'NotificationAttempted', 'NotificationDelivered'],
      `${cause.type}: its notification scheduled, attempted, delivered`);
    t.ok(h.related.events.filter((e: Json) => e.stream === notification).every((e: Json) => e.link === 'causation' && e.causedBy.id === cause.id));
  }
  t.notMatch(JSON.stringify(h), 'history-notification-secret', 'never the secret');
  // Found by the checkout's correlation id: the order first, then the notifications it sent (newer, yet about it).
  const found = (await get(t, app, '/admin/api/search?q=checkout-77')).results as Json[];
  t.same(found.map((r) => r.kind), ['order', 'notification', 'notification'], 'the order, then its notifications');
  t.same(found.slice(1).map((r) => r.stream).sort(), [streams.notification(M1.id, payment!.id), streams.notification(M1.id, resolution!.id)].sort());
  t.same(found.map((r) => r.matchedBy), ['correlation id', 'correlation id', 'correlation id']);
  const n = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(streams.notification(M1.id, payment!.id))}`);
  t.equal(n.kind, 'notification');
  t.equal(n.title, `Notification ${payment!.id} of order 10000000003 (merchant ${M1.id})`);
  t.same(n.steps.map((s: Json) => s.state.status), ['PENDING', 'PENDING', 'DELIVERED'], "the notification's status after each step");
  t.equal(n.steps[0].causedBy.id, payment!.id, 'caused by the payment, in the order stream');
  t.equal(n.steps[0].causedBy.stream, order);
});

t.test('search by order id, token, transaction id, correlation id and request id', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const { token, requestId } = await unknownPayment(app);
  const order = streams.order(M1.id, '10000000003');
  const search = (q: string) => get(t, app, `/admin/api/search?q=${encodeURIComponent(q)}`);
  t.same((await search('10000000003')).results.map((r: Json) => [r.stream, r.matchedBy]), [[order, 'order id']]);
  t.same((await search(token)).results.map((r: Json) => r.stream), [streams.token(M1.repository.id, token)]);
  t.same((await search('7')).results.map((r: Json) => [r.stream, r.matchedBy]), [[order, 'transaction id']]);
  const byCorrelation = await search('checkout-77');
  t.same(byCorrelation.results.map((r: Json) => r.matchedBy), ['correlation id']);
  t.same(byCorrelation.results.map((r: Json) => r.stream), [order], 'the streams with events of that correlation id');
  t.ok((await search(requestId)).results.some((r: Json) => r.stream === order), 'the request id finds its order');

  const missing = await get(t, app, '/admin/api/search?q=no-such-thing', 404);
  t.equal(missing.result, 'ERROR');
  t.equal(missing.error.cause, 'INVALID_REQUEST');
  t.equal(missing.error.field, 'q');
  const none = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(streams.order(M2.id, '1'))}`, 404);
  t.equal(none.error.field, 'stream');
  t.match(none.error.explanation, 'No such stream');
  await get(t, app, '/admin/api/search', 400);
  await get(t, app, `/admin/api/history?stream=${encodeURIComponent(order)}&asOfRevision=x`, 400);
});

t.test('the order API: each transaction a step with the order’s status and totals after it', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const token = await createToken(app, M1);
  const order = uniqueId();
  const put = async (txn: string, payload: Json) => {
    const res = await app.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${txn}`, headers: { authorization: tokenAuth(M1) }, payload });
    t.equal(res.statusCode, 201, `${txn}: ${res.body.slice(0, 200)}`);
  };
  await put('auth-1', { apiOperation: 'AUTHORIZE', order: { amount: '100.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } });
  await put('cap-1', { apiOperation: 'CAPTURE', transaction: { amount: '60.00', currency: 'USD' } });
  await put('ref-1', { apiOperation: 'REFUND', transaction: { amount: '10.00', currency: 'USD' } });
  await put('void-1', { apiOperation: 'VOID', transaction: { targetTransactionId: 'ref-1' } });
  const found = await get(t, app, `/admin/api/search?q=${order}`);
  t.equal(found.results.length, 1);
  const h = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(found.results[0].stream)}`);
  const after = h.steps.map((s: Json) => [s.data.apiOperation, s.state.status, s.state.totalAuthorizedAmount, s.state.totalCapturedAmount, s.state.totalRefundedAmount]);
  t.same(after, [
    ['AUTHORIZE', 'AUTHORIZED', '100.00 USD', '0.00 USD', '0.00 USD'],
    ['CAPTURE', 'PARTIALLY_CAPTURED', '100.00 USD', '60.00 USD', '0.00 USD'],
    ['REFUND', 'PARTIALLY_REFUNDED', '100.00 USD', '60.00 USD', '10.00 USD'],
    ['VOID', 'PARTIALLY_CAPTURED', '100.00 USD', '60.00 USD', '0.00 USD'],
  ]);
  t.same(h.steps.map((s: Json) => s.request.method), ['PUT', 'PUT', 'PUT', 'PUT']);
  t.match(h.steps[1].request.path, `/order/${order}/transaction/cap-1`);
  t.same((await get(t, app, '/admin/api/search?q=cap-1')).results.map((r: Json) => r.stream), [h.stream], 'found by transaction id');
});

t.test("a session's history: its card masked and sealed, found by its id", async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const sessions = `/api/rest/version/100/merchant/${M1.id}/session`;
  const created = await app.inject({ method: 'POST', url: sessions, headers: { authorization: tokenAuth(M1) } });
  const id = created.json().session.id as string;
  const updated = await app.inject({
    method: 'PUT', url: `${sessions}/${id}`, headers: { authorization: tokenAuth(M1) },
    payload: { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '123' } } } },
  });
  t.equal(updated.statusCode, 200, updated.body);
  const found = await get(t, app, `/admin/api/search?q=${id}`);
  t.same(found.results.map((r: Json) => [r.kind, r.matchedBy]), [['session', 'session id']]);
  const h = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(found.results[0].stream)}`);
  t.equal(h.title, `Session ${id} of merchant ${M1.id}`);
  t.same(h.steps.map((s: Json) => `${s.request.method} ${s.request.path}`), [`POST ${sessions}`, `PUT ${sessions}/${id}`], 'the session id in the path as it is');
  const body = JSON.stringify(h);
  t.notMatch(body, /"123"/, 'no security code');
  t.match(body, '512345xxxxxx0008', 'the card number masked');
  t.match(body, '[sealed]', 'its sealed number shown sealed');
  t.ok(h.steps[1].changes.length > 0, 'the update changed the session');
  t.ok(h.steps[0].changes.some((c: Json) => c.path === 'sessionId' && c.after === id), 'its id as it is, not masked as a card number');
});

t.test("a scheme token's status changes: steps of the token that follow the event before them", async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests', merchants: ALL_MERCHANTS });
  // 04/35: provisioned asynchronously, then suspended by the issuer.
  const token = await createToken(app, SCHEME as typeof M1, '4508750015741019', '4', '35');
  const stream = streams.token((SCHEME as unknown as { repository: { id: string } }).repository.id, token);
  await waitFor(async () => (await app.gateway.store.readStream(stream)).filter((e) => e.type === 'SchemeTokenStatusChanged').length >= 2, 'the scheme token suspended');
  const h = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(stream)}`);
  const changes = h.steps.filter((s: Json) => s.type === 'SchemeTokenStatusChanged');
  t.ok(changes.length >= 2, 'the status changes are steps');
  for (const change of changes) {
    const before = h.steps[h.steps.indexOf(change) - 1];
    t.equal(change.request.reactor, 'scheme-tokens', 'by the scheme-tokens reactor');
    t.equal(change.causedBy?.id, before.id, 'following the step before it');
    t.ok(before.caused.some((c: Json) => c.id === change.id), 'which names it among what it caused');
    t.ok(change.changes.some((c: Json) => c.path.startsWith('schemeToken.')), "what changed: the scheme token's fields");
  }
  t.equal(changes.at(-1).state.schemeToken.status, 'SUSPENDED');
});

t.test('a card number sent as a correlation id is never answered in plaintext', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const token = await createToken(app, M1);
  const paid = await app.inject({
    method: 'PUT', url: payPath(M1.id, token, '10000000009', '1'), headers: { authorization: payAuth(M1), 'x-correlation-id': '4508750015741019' },
    payload: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } },
  });
  t.equal(paid.statusCode, 201);
  const h = await get(t, app, `/admin/api/history?stream=${encodeURIComponent(streams.order(M1.id, '10000000009'))}`);
  t.equal(h.steps[0].request.correlationId, '450875xxxxxx1019', 'masked');
  const found = await get(t, app, '/admin/api/search?q=450875xxxxxx1019');
  t.same(found.results.map((r: Json) => r.stream), [streams.order(M1.id, '10000000009')], 'found by the masked correlation id');
});

t.test('related events come a page at a time', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  await unknownPayment(app);
  // A client that sends one correlation id with everything: 600 events of other streams match.
  for (let i = 0; i < 600; i++) {
    await app.gateway.store.append(`other-${M1.id}:${i}`, [{ id: randomUUID(), type: 'SomethingElse', data: { i }, metadata: { correlationId: 'checkout-77', recordedAt: new Date().toISOString() } }]);
  }
  const order = encodeURIComponent(streams.order(M1.id, '10000000003'));
  const first = await get(t, app, `/admin/api/history?stream=${order}`);
  t.equal(first.related.events.length, 500, 'at most 500 an answer');
  t.not(first.related.next, null, 'and where to ask for more');
  const second = await get(t, app, `/admin/api/history?stream=${order}&relatedAfter=${first.related.next}`);
  t.same(second.related.events.map((e: Json) => e.data.i), Array.from({ length: 100 }, (_, i) => 500 + i), 'the rest, in order');
  t.equal(second.related.next, null, 'the end of the log');
});

t.test('odd inputs: never a 5xx', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  await unknownPayment(app);
  const order = encodeURIComponent(streams.order(M1.id, '10000000003'));
  const urls = [
    '/admin/api/history?stream=%25', '/admin/api/history?stream=order-', '/admin/api/history?stream=order-%3A', `/admin/api/history?stream=${'x'.repeat(301)}`,
    `/admin/api/history?stream=${order}&asOfRevision=9999999999999999`, `/admin/api/history?stream=${order}&relatedAfter=9999999999999999`,
    `/admin/api/history?stream=${order}&relatedAfter=-1`, `/admin/api/history?stream=${order}&other=1`, '/admin/api/history?stream=merchant-',
    '/admin/api/search?q=%00', '/admin/api/search?q=%20', `/admin/api/search?q=${'9'.repeat(300)}`, '/admin/api/search?q=order-%3A1', '/admin/api/search?q=a&q=b',
  ];
  for (const url of urls) {
    const res = await app.inject({ method: 'GET', url, headers: { authorization: ADMIN } });
    t.ok(res.statusCode < 500, `${url}: ${res.statusCode} ${res.body.slice(0, 120)}`);
    if (res.statusCode >= 400) t.equal(res.json().result, 'ERROR', `${url}: the error body`);
  }
});

t.test('the history API needs the admin’s credentials', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  await unknownPayment(app);
  for (const url of ['/admin/history', '/admin/api/search?q=10000000003', `/admin/api/history?stream=${encodeURIComponent(streams.order(M1.id, '10000000003'))}`]) {
    t.equal((await app.inject({ method: 'GET', url })).statusCode, 401, `${url}: no credentials`);
    t.equal((await app.inject({ method: 'GET', url, headers: { authorization: tokenAuth(M1) } })).statusCode, 401, `${url}: a merchant's`);
    t.equal((await app.inject({ method: 'GET', url, headers: { authorization: ADMIN } })).statusCode, 200, `${url}: the admin's`);
  }
});
