// Webhook notifications (docs/notifications.md), against a local receiver: a payment sends one
// POST with the Retrieve Transaction body and the X-Notification-* headers; non-2xx answers are
// retried with the same id and the next attempt number, up to NOTIFICATION_MAX_ATTEMPTS; the
// order API's order.notificationUrl is used only when the merchants file allows it (else 400 with
// the field); the secret and card numbers appear in no event and no log line.
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { buildApp, loggerOptions } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import type { EventStoreConfig } from '../../config.js';
import { openStores } from '../../root.js';
import { streams } from '../../domain/events.js';
import { MERCHANTS, M1, M2, createToken, tokenAuth } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { newOrderId, payAs, payBody, storedCard } from './pay-triggers.fixture.js';
import { sleep, waitFor } from '../helpers/poll.js';

process.env.NOTIFICATION_RETRY_DELAY_MS = '20';
process.env.NOTIFICATION_MAX_ATTEMPTS = '3';
process.env.NOTIFICATION_TIMEOUT_MS = '2000';
process.env.UNKNOWN_RESOLUTION_DELAY_MS = '100';

const SECRET = 'notification-secret-0123456789abcdef-QZ';
const CARD = '5123450000000008';

type App = Awaited<ReturnType<typeof buildApp>>;

/** An app whose merchant M1 sends notifications to the receiver (and may name URLs under /hooks/); every log line kept. */
async function appWith(t: Test, receiver: Receiver, extra: Record<string, unknown> = {}, eventStore: EventStoreConfig = { kind: 'memory' }) {
  const lines: string[] = [];
  const merchants = {
    merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id
      ? { ...m, notifications: { url: `${receiver.origin}/hooks/main`, secret: SECRET, allowedUrls: [`${receiver.origin}/hooks/`], ...extra } }
      : m)),
  };
  const stream = new Writable({ write(chunk, _enc, done) { lines.push(String(chunk)); done(); } });
  const app = await buildApp({
    eventStore, merchants: parseMerchants(merchants, 'test'), limits: { authFailureLimit: 1_000_000 },
    logger: { ...loggerOptions('trace'), stream },
  });
  t.teardown(() => app.close());
  return { app, lines };
}

async function notificationEvents(app: App) {
  return (await app.gateway.store.readAll()).filter((e) => e.stream.startsWith('notification-'));
}

const modernPath = (merchantId: string, order: string, txn: string, version = 61) => `/api/rest/version/${version}/merchant/${merchantId}/order/${order}/transaction/${txn}`;

t.test('a payment sends one notification: the Retrieve Transaction body and the X-Notification headers', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { app, lines } = await appWith(t, receiver);
  const token = await createToken(app, M1, CARD);
  const order = newOrderId();
  const paid = await payAs(app, M1, token, payBody('12.50'), order, 'tx-1');
  t.equal(paid.statusCode, 201);
  const [hit] = await receiver.waitFor(1);
  t.equal(hit?.method, 'POST');
  t.equal(hit?.url, '/hooks/main');
  t.equal(hit?.headers['x-notification-secret'], SECRET);
  t.equal(hit?.headers['x-notification-attempt'], '1');
  t.match(hit?.headers['content-type'], /^application\/json/);
  const id = hit?.headers['x-notification-id'] as string;
  t.match(id, /^[0-9a-f-]{36}$/);
  const retrieved = await app.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${M1.id}/order/${order}/transaction/tx-1`, headers: { authorization: tokenAuth(M1) } });
  t.equal(retrieved.statusCode, 200);
  t.equal(hit?.body, retrieved.body, 'the body is what Retrieve Transaction answers');
  const body = JSON.parse(hit?.body ?? '{}');
  t.equal(body.sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'the card number masked');
  t.notOk(hit?.body.includes(CARD));
  await waitFor(async () => (await notificationEvents(app)).some((e) => e.type === 'NotificationDelivered'), 'the delivery recorded');
  const events = await notificationEvents(app);
  t.strictSame(events.map((e) => e.type), ['NotificationScheduled', 'NotificationAttempted', 'NotificationDelivered']);
  const [payment] = await app.gateway.store.readStream(streams.order(M1.id, order));
  t.equal(id, payment?.id, 'the notification is named after the event that caused it');
  for (const e of events) {
    t.equal(e.stream, streams.notification(M1.id, id));
    t.equal(e.metadata.causationId, payment?.id, 'caused by the payment');
    t.equal(e.metadata.correlationId, payment?.metadata.correlationId);
    t.match(e.data, { merchantId: M1.id, orderId: order, transactionId: 'tx-1', notificationId: id });
  }
  t.match(events[2]?.data, { attempt: 1, status: 200 });
  await sleep(100); // room for a second sending, which must not come
  t.equal(receiver.received.length, 1, 'one notification, sent once');
  const everything = JSON.stringify((await app.gateway.store.readAll()).map((e) => [e.data, e.metadata])) + lines.join('');
  t.notOk(everything.includes(SECRET), 'the secret is in no event and no log line');
  t.notOk(everything.includes(CARD), 'nor is the card number');
});

t.test('500, 500, then 200: attempts 1, 2 and 3 under one X-Notification-Id', async (t) => {
  const receiver = await startReceiver((n) => (n < 3 ? 500 : 200));
  t.teardown(() => receiver.close());
  const { app } = await appWith(t, receiver);
  const token = await createToken(app, M1, CARD);
  t.equal((await payAs(app, M1, token, payBody('3.00'))).statusCode, 201);
  const hits = await receiver.waitFor(3);
  t.strictSame(hits.map((h) => h.headers['x-notification-attempt']), ['1', '2', '3']);
  t.equal(new Set(hits.map((h) => h.headers['x-notification-id'])).size, 1, 'the same notification id');
  t.equal(new Set(hits.map((h) => h.body)).size, 1, 'the same body');
  await waitFor(async () => (await notificationEvents(app)).some((e) => e.type === 'NotificationDelivered'), 'the delivery recorded');
  const events = await notificationEvents(app);
  t.strictSame(events.map((e) => e.type), [
    'NotificationScheduled', 'NotificationAttempted', 'NotificationFailed', 'NotificationAttempted', 'NotificationFailed', 'NotificationAttempted', 'NotificationDelivered',
  ]);
  t.match(events[2]?.data, { attempt: 1, status: 500, nextAttemptAt: String });
  t.match(events[4]?.data, { attempt: 2, status: 500, nextAttemptAt: String });
  t.match(events[6]?.data, { attempt: 3, status: 200 });
  const doc = app.gateway.readModels.get<{ status: string; attempts: number }>('notifications', `${M1.id}/${hits[0]?.headers['x-notification-id']}`);
  t.match(doc, { status: 'DELIVERED', attempts: 3 });
});

t.test('a retry whose timer fires before its time by the wall clock (set back meanwhile) is scheduled again, not left waiting for a restart', async (t) => {
  const receiver = await startReceiver((n) => (n === 1 ? 503 : 200));
  t.teardown(() => receiver.close());
  process.env.NOTIFICATION_RETRY_DELAY_MS = '1000';
  const built = await appWith(t, receiver);
  process.env.NOTIFICATION_RETRY_DELAY_MS = '20';
  const { app } = built;
  const token = await createToken(app, M1, CARD);
  await payAs(app, M1, token, payBody('4.00'));
  await waitFor(async () => (await notificationEvents(app)).some((e) => e.type === 'NotificationFailed'), 'the first attempt failed');
  // The retry's timer is set (1 s); the wall clock now goes back 2 s: when the timer fires, the
  // retry's time has not come by the clock (as when the event loop's clock lags it under load).
  const realNow = Date.now;
  Date.now = () => realNow() - 2000;
  t.teardown(() => { Date.now = realNow; });
  await waitFor(async () => (await notificationEvents(app)).some((e) => e.type === 'NotificationDelivered'), 'delivered');
  Date.now = realNow;
  t.equal(receiver.received.length, 2, 'the second attempt was made');
  t.strictSame((await notificationEvents(app)).map((e) => e.type),
    ['NotificationScheduled', 'NotificationAttempted', 'NotificationFailed', 'NotificationAttempted', 'NotificationDelivered']);
});

t.test('a receiver that never answers 2xx: given up after NOTIFICATION_MAX_ATTEMPTS; a redirect is not followed', async (t) => {
  const elsewhere = await startReceiver();
  t.teardown(() => elsewhere.close());
  const receiver = await startReceiver((n) => (n === 1 ? 302 : 503));
  t.teardown(() => receiver.close());
  const { app } = await appWith(t, receiver);
  const token = await createToken(app, M1, CARD);
  await payAs(app, M1, token, payBody('4.00'));
  await waitFor(async () => (await notificationEvents(app)).some((e) => e.type === 'NotificationAbandoned'), 'given up');
  const events = await notificationEvents(app);
  t.strictSame(events.map((e) => e.type).slice(-2), ['NotificationFailed', 'NotificationAbandoned']);
  t.equal(events.filter((e) => e.type === 'NotificationAttempted').length, 3);
  t.match(events.filter((e) => e.type === 'NotificationFailed').map((e) => (e.data as { status: number }).status), [302, 503, 503]);
  t.match(events.at(-1)?.data, { attempts: 3 });
  t.equal(events.at(-2)?.data && (events.at(-2)?.data as { nextAttemptAt?: string }).nextAttemptAt, undefined, 'no next attempt');
  await sleep(150); // room for a fourth attempt, which must not come
  t.equal(receiver.received.length, 3, 'no fourth attempt');
  t.equal(elsewhere.received.length, 0);
  const id = receiver.received[0]?.headers['x-notification-id'];
  t.match(app.gateway.readModels.get('notifications', `${M1.id}/${id}`), { status: 'ABANDONED', attempts: 3, lastStatus: 503 });
  t.strictSame(app.gateway.readModels.withPrefix('notifications', '~pending/'), [], 'nothing left for the reactor at its next start');
});

t.test('order.notificationUrl: an allowed URL is used for the order; another, a malformed one, or one that could leave its prefix, is refused with the field', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { app } = await appWith(t, receiver);
  const token = await createToken(app, M1, CARD);
  const order = newOrderId();
  const pay = (txn: string, notificationUrl?: string, merchant = M1) => app.inject({
    method: 'PUT', url: modernPath(merchant.id, order, txn), headers: { authorization: tokenAuth(merchant) },
    payload: { apiOperation: 'AUTHORIZE', order: { amount: '10.00', currency: 'USD', ...(notificationUrl ? { notificationUrl } : {}) }, sourceOfFunds: { token } },
  });
  for (const [url, why] of [
    ['http://169.254.169.254/latest/meta-data/', 'another host'],
    [`${receiver.origin}/other/path`, 'a path outside the allowed prefix'],
    [`${receiver.origin.replace('127.0.0.1', '127.0.0.1.nip.io')}/hooks/x`, 'a host that only starts like the allowed one'],
    ['not a url', 'not a URL'],
    ['file:///etc/passwd', 'not http'],
    // Paths a server that decodes them would read as leaving the prefix.
    [`${receiver.origin}/hooks/..%2fadmin`, "'..' and an encoded '/'"],
    [`${receiver.origin}/hooks/..%2Fadmin`, "'..' and an encoded '/' (upper case)"],
    [`${receiver.origin}/hooks/..%5cadmin`, "'..' and an encoded '\\'"],
    [`${receiver.origin}/hooks/%2e%2e%2fadmin`, "an encoded '../'"],
    [`${receiver.origin}/hooks/%252e%252e%252fadmin`, "'../' encoded twice"],
    [`${receiver.origin}/hooks/..;/admin`, "'..;', which some servers take for '..'"],
    [`${receiver.origin}/hooks/%2e%2e/admin`, "encoded dots, which the URL parser resolves (outside the prefix)"],
  ] as const) {
    const refused = await pay('a-1', url);
    t.equal(refused.statusCode, 400, why);
    t.match(refused.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'order.notificationUrl' } }, why);
  }
  t.equal((await app.gateway.store.readStream(streams.order(M1.id, order))).length, 0, 'a refused request records nothing');
  const accepted = await pay('a-1', `${receiver.origin}/hooks/order-${order}`);
  t.equal(accepted.statusCode, 201);
  const [first] = await receiver.waitFor(1);
  t.equal(first?.url, `/hooks/order-${order}`, 'sent to the URL the order named');
  const body = JSON.parse(first?.body ?? '{}');
  t.match(body, { version: '61', transaction: { id: 'a-1', type: 'AUTHORIZATION' }, order: { id: order } }, "in the request's version");
  const capture = await app.inject({
    method: 'PUT', url: modernPath(M1.id, order, 'c-1'), headers: { authorization: tokenAuth(M1) },
    payload: { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD' } },
  });
  t.equal(capture.statusCode, 201);
  const [, second] = await receiver.waitFor(2);
  t.equal(second?.url, `/hooks/order-${order}`, 'a later transaction of the order goes to the URL last used for it');
  t.match(JSON.parse(second?.body ?? '{}'), { transaction: { id: 'c-1', type: 'CAPTURE' } });

  const other = await app.inject({
    method: 'PUT', url: modernPath(M2.id, newOrderId(), '1'), headers: { authorization: tokenAuth(M2) },
    payload: { apiOperation: 'AUTHORIZE', order: { amount: '1.00', currency: 'USD', notificationUrl: `${receiver.origin}/hooks/x` }, sourceOfFunds: { token: await createToken(app, M2, CARD) } },
  });
  t.equal(other.statusCode, 400, 'a merchant without notifications cannot name a URL');
  t.match(other.json(), { error: { field: 'order.notificationUrl' } });
});

t.test('an UNKNOWN payment: one notification for the payment, one when it resolves', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { app } = await appWith(t, receiver);
  const token = await storedCard(app, M1, 5, 37);
  const order = newOrderId();
  t.equal((await payAs(app, M1, token, payBody('12.50'), order, 'tx-1')).json().response.gatewayCode, 'UNKNOWN');
  const hits = await receiver.waitFor(2);
  const bodies = hits.map((h) => JSON.parse(h.body));
  t.strictSame(bodies.map((b) => b.response.gatewayCode), ['UNKNOWN', 'APPROVED']);
  t.not(hits[0]?.headers['x-notification-id'], hits[1]?.headers['x-notification-id'], 'two notifications');
  const orderEvents = await app.gateway.store.readStream(streams.order(M1.id, order));
  t.strictSame(hits.map((h) => h.headers['x-notification-id']), orderEvents.map((e) => e.id), 'each named after its order event');
});

t.test('stopping during an attempt: the attempt ends at once, recorded as failed with its next attempt', async (t) => {
  const receiver = await startReceiver(() => 'hold');
  t.teardown(() => receiver.close());
  const path = `${t.testdir()}/gateway.db`;
  const { app } = await appWith(t, receiver, {}, { kind: 'sqlite', path });
  const token = await createToken(app, M1, CARD);
  await payAs(app, M1, token, payBody('6.00'));
  await receiver.waitFor(1);
  await app.close();
  const opened = openStores({ kind: 'sqlite', path });
  t.teardown(() => opened.close());
  const events = (await opened.store.readAll()).filter((e) => e.stream.startsWith('notification-'));
  t.strictSame(events.map((e) => e.type), ['NotificationScheduled', 'NotificationAttempted', 'NotificationFailed']);
  t.match(events[2]?.data, { attempt: 1, error: 'the gateway stopped during the attempt', nextAttemptAt: String });
});

t.test('two gateways on one SQLite file: each attempt is made once, by one of them', async (t) => {
  const receiver = await startReceiver((n) => (n === 1 ? 500 : 200));
  t.teardown(() => receiver.close());
  const eventStore: EventStoreConfig = { kind: 'sqlite', path: `${t.testdir()}/gateway.db` };
  const { app: one, lines: linesOne } = await appWith(t, receiver, {}, eventStore);
  const { app: two, lines: linesTwo } = await appWith(t, receiver, {}, eventStore);
  const token = await createToken(one, M1, CARD);
  const orders = [newOrderId(), newOrderId(), newOrderId()];
  for (const [i, order] of orders.entries()) t.equal((await payAs(i % 2 ? two : one, M1, token, payBody('2.00'), order)).statusCode, 201);
  // Three notifications: the first answered 500 once, then 200: four requests in all.
  await receiver.waitFor(4);
  await waitFor(async () => (await notificationEvents(one)).filter((e) => e.type === 'NotificationDelivered').length === 3, 'every delivery recorded');
  await sleep(200); // room for an attempt sent twice, which must not come
  t.equal(receiver.received.length, 4, 'no attempt sent twice');
  const attempts = receiver.received.map((r) => `${r.headers['x-notification-id']}#${r.headers['x-notification-attempt']}`);
  t.equal(new Set(attempts).size, 4, 'each (id, attempt) once');
  t.equal((await notificationEvents(one)).filter((e) => e.type === 'NotificationScheduled').length, 3, 'each scheduled once');
  // Both notifiers schedule each notification; the one that appends second meets a conflict, which
  // the command handler resolves by reading the stream: scheduled already, nothing to append.
  t.strictSame([...linesOne, ...linesTwo].filter((line) => line.includes('scheduling the notification')), [], 'no scheduling failed');
});

t.test('merchants file: notifications checked at start-up', async (t) => {
  const base = { ...M1, repository: { ...M1.repository } };
  const file = (notifications: unknown) => ({ merchants: [{ ...base, notifications }] });
  t.throws(() => parseMerchants(file({ url: 'https://shop.example/hook', secret: 'short' }), 'f'), /notifications\/secret/);
  t.throws(() => parseMerchants(file({ url: 'ftp://shop.example/hook', secret: SECRET }), 'f'), /notifications\.url: not an http or https URL/);
  t.throws(() => parseMerchants(file({ secret: SECRET, allowedUrls: ['https://shop.example/hooks'] }), 'f'), /must end with '\/'/);
  t.throws(() => parseMerchants(file({ secret: SECRET, allowedUrls: ['https://shop.example/hooks/..%2f'] }), 'f'), /allowedUrls\[0\]: a URL whose path has an encoded/);
  t.ok(parseMerchants(file({ url: 'https://shop.example/hook', secret: SECRET }), 'f').get(M1.id)?.notifications);
  try {
    parseMerchants(file({ url: 'https://shop.example/hook', secret: 'a-secret-that-is-too-short' }), 'f');
  } catch (error) {
    t.notOk(String(error).includes('a-secret-that-is-too-short'), 'the secret is not quoted');
  }
});
