// Webhook notifications through the test-control API (routes/admin-control.ts), against a local
// receiver: redeliver one now (its answer says how the receiver answered; 409 while an attempt is
// under way), fire a new one of a transaction as it stands now, and a failed one's retry made
// when the merchant's clock passes its time; another merchant's notification is not found.
import t, { type Test } from 'tap';
import { streams } from '../../domain/events.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { ADMIN, CONTROL_MERCHANTS, control, controlApp, createToken, logTypes, pay, refused, SCHEME, TEST1, TEST10, until, type App } from './test-control.fixture.js';

process.env.NOTIFICATION_RETRY_DELAY_MS = '600000';
process.env.NOTIFICATION_MAX_ATTEMPTS = '3';
process.env.NOTIFICATION_TIMEOUT_MS = '2000';

const SECRET = 'test-control-notification-secret-0123456789';

/** TEST1 and TEST10 send their notifications to the receiver. */
async function withReceiver(t: Test, answer: (n: number) => number | 'hold' = () => 200) {
  const receiver = await startReceiver(answer);
  t.teardown(() => receiver.close());
  const merchants = {
    merchants: CONTROL_MERCHANTS.merchants.map((m) => (m.id === TEST1.id || m.id === TEST10.id
      ? { ...m, notifications: { url: `${receiver.origin}/hooks/${m.id}`, secret: SECRET } } : m)),
  };
  return { app: await controlApp(t, { merchants }), receiver };
}

/** The notification ids of a merchant, as the admin's timeline API lists them. */
async function notificationIds(app: App, merchantId: string): Promise<string[]> {
  const res = await app.inject({ method: 'GET', url: `/admin/api/events?category=notification&merchantId=${merchantId}`, headers: { authorization: ADMIN } });
  return (res.json().events as Array<{ type: string; data: { notificationId: string } }>).filter((e) => e.type === 'NotificationScheduled').map((e) => e.data.notificationId);
}

async function paid(app: App, receiver: Receiver, count: number) {
  const { token } = await createToken(app, TEST1);
  t.equal((await pay(app, TEST1, token, '50000000001')).statusCode, 201);
  await receiver.waitFor(count);
}

const redeliver = (app: App, merchantId: string, id: string) => control(app, 'POST', `/merchants/${merchantId}/notifications/${id}/redeliver`);

t.test("redeliver: sent again now, as the next attempt under the same id; the receiver's answer in the answer", async (t) => {
  const { app, receiver } = await withReceiver(t, (n) => (n === 3 ? 500 : 200));
  await paid(app, receiver, 1);
  const [id] = await notificationIds(app, TEST1.id);
  await until('the first delivery recorded', async () => (await logTypes(app, streams.notification(TEST1.id, id!))).includes('NotificationDelivered'));
  const again = await redeliver(app, TEST1.id, id!);
  t.equal(again.statusCode, 200);
  t.match(again.json(), { merchantId: TEST1.id, notificationId: id, attempt: 2, delivered: true, status: 200, notificationStatus: 'DELIVERED' });
  const [first, second] = await receiver.waitFor(2);
  t.equal(second!.headers['x-notification-id'], id, 'the same notification id');
  t.equal(second!.headers['x-notification-attempt'], '2');
  t.equal(second!.body, first!.body, 'the same body');
  t.match((await redeliver(app, TEST1.id, id!)).json(), { attempt: 3, delivered: false, status: 500 }, "the receiver's refusal");
  const types = await logTypes(app, streams.notification(TEST1.id, id!));
  t.same(types.slice(3, 6), ['NotificationRedeliveryRequested', 'NotificationAttempted', 'NotificationDelivered']);
  const attempted = (await app.gateway.store.readStream(streams.notification(TEST1.id, id!))).filter((e) => e.type === 'NotificationAttempted');
  t.same(attempted.map((e) => (e.data as { trigger: string }).trigger), ['SCHEDULED', 'REDELIVERY', 'REDELIVERY']);

  refused(t, await redeliver(app, TEST10.id, id!), 404, 'notificationId', "another merchant's path");
  refused(t, await redeliver(app, TEST1.id, 'no-such-notification'), 404, 'notificationId', 'an unknown notification');
  refused(t, await redeliver(app, 'NOSUCH', id!), 404, 'merchantId', 'an unknown merchant');
  refused(t, await redeliver(app, TEST1.id, 'x'.repeat(65)), 400, 'notificationId', 'a notification id too long');
  t.equal(receiver.received.length, 3, 'nothing sent by a refusal');
});

t.test('redeliver: 409 while an attempt is under way', async (t) => {
  const { app, receiver } = await withReceiver(t, (n) => (n === 1 ? 'hold' : 200));
  await paid(app, receiver, 1);
  const [id] = await notificationIds(app, TEST1.id);
  refused(t, await redeliver(app, TEST1.id, id!), 409, 'notificationId', 'the first attempt is awaiting its answer');
  t.same(await logTypes(app, streams.notification(TEST1.id, id!)), ['NotificationScheduled', 'NotificationAttempted'], 'nothing recorded');
});

t.test('fire: a new notification of the transaction as it stands now, sent by the notifier', async (t) => {
  const { app, receiver } = await withReceiver(t);
  await paid(app, receiver, 1);
  const fired = await control(app, 'POST', `/merchants/${TEST1.id}/orders/50000000001/transactions/1/notify`);
  t.equal(fired.statusCode, 202);
  const { notificationId } = fired.json();
  t.match(fired.json(), { merchantId: TEST1.id, orderId: '50000000001', transactionId: '1', url: `${receiver.origin}/hooks/${TEST1.id}` });
  const [original, sent] = await receiver.waitFor(2);
  t.equal(sent!.headers['x-notification-id'], notificationId, 'under its own id');
  t.not(notificationId, original!.headers['x-notification-id']);
  t.equal(sent!.headers['x-notification-attempt'], '1');
  t.equal(JSON.parse(sent!.body).response.gatewayCode, 'APPROVED', 'the transaction');
  await until('its delivery recorded', async () => (await logTypes(app, streams.notification(TEST1.id, notificationId))).includes('NotificationDelivered'));
  t.same((await logTypes(app, streams.notification(TEST1.id, notificationId))).slice(0, 2), ['NotificationRequestedByTest', 'NotificationScheduled']);

  const notify = (merchantId: string, order: string, txn: string) => control(app, 'POST', `/merchants/${merchantId}/orders/${order}/transactions/${txn}/notify`);
  refused(t, await notify(TEST1.id, '50000000009', '1'), 404, 'orderId', 'no such order');
  refused(t, await notify(TEST10.id, '50000000001', '1'), 404, 'orderId', "another merchant's order");
  refused(t, await notify(TEST1.id, '50000000001', '2'), 404, 'transactionId', 'no such transaction');
  refused(t, await notify(SCHEME.id, '50000000001', '1'), 409, 'merchantId', 'a merchant without notifications');
  refused(t, await notify(TEST1.id, '5'.repeat(41), '1'), 400, 'orderId', 'an order id too long');
  refused(t, await notify(TEST1.id, '50000000001', 't'.repeat(41)), 400, 'transactionId', 'a transaction id too long');
});

t.test("a failed notification's retry is made when the merchant's clock passes its time", async (t) => {
  const { app, receiver } = await withReceiver(t, (n) => (n === 1 ? 503 : 200));
  await paid(app, receiver, 1);
  const [id] = await notificationIds(app, TEST1.id);
  await until('the failure recorded', async () => (await logTypes(app, streams.notification(TEST1.id, id!))).includes('NotificationFailed'));
  t.equal((await control(app, 'POST', `/merchants/${TEST1.id}/clock/advance`, { milliseconds: 600_000 })).statusCode, 200);
  const [, retry] = await receiver.waitFor(2);
  t.equal(retry!.headers['x-notification-attempt'], '2', 'the retry, ten minutes early by the real clock');
});
