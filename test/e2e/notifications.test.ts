// Webhook notifications with the real server process on a SQLite file and a local receiver: an
// attempt cut short by a kill is not made again under the same number after the restart (it is
// recorded as failed, and attempt 2 follows). notifications-cli.test.ts: UNKNOWN and redeliver.
import t from 'tap';
import { cardBody, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { killAtEnd, notificationEvents, SECRET, setUp } from './notifications.fixture.js';
import { eventually } from '../helpers/poll.js';

t.test('killed between an attempt and its answer: after the restart the next attempt has the next number', async (t) => {
  const receiver = await startReceiver((n) => (n === 1 ? 'hold' : 200));
  t.teardown(() => receiver.close());
  const { env, db } = setUp(t, receiver);
  // The held attempt must still be open at the kill: no timeout of the gateway's own before it.
  const first = await startServer({ ...env, NOTIFICATION_TIMEOUT_MS: '60000' });
  killAtEnd(t, first);
  const token = (await call(first.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'))).json().token as string;
  const paid = await call(first.url, 'PUT', payPath(M1.id, token, '20000000001', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '5.00', currency: 'USD' } });
  t.equal(paid.status, 201);
  const [held] = await receiver.waitFor(1);
  t.equal(held?.headers['x-notification-attempt'], '1');
  t.equal(await first.stop('SIGKILL'), null, 'killed while the receiver holds attempt 1');

  const second = await startServer(env);
  killAtEnd(t, second);
  const [, again] = await receiver.waitFor(2, 60_000);
  t.equal(again?.headers['x-notification-attempt'], '2', 'attempt 1 is not made again as attempt 1');
  t.equal(again?.headers['x-notification-id'], held?.headers['x-notification-id'], 'the same notification');
  t.equal(again?.body, held?.body, 'the same body');
  const id = held?.headers['x-notification-id'] as string;
  await eventually(async () => (await notificationEvents(db, id)).some((e) => e.type === 'NotificationDelivered'), { timeoutMs: 30_000, intervalMs: 50 });
  t.equal(await second.stop(), 0);
  const events = await notificationEvents(db, id);
  t.strictSame(events.map((e) => e.type), ['NotificationScheduled', 'NotificationAttempted', 'NotificationFailed', 'NotificationAttempted', 'NotificationDelivered']);
  t.match(events[2]?.data, { attempt: 1, error: /no answer recorded/ });
  t.match(events[4]?.data, { attempt: 2, status: 200 });
  t.equal(receiver.received.length, 2, 'two requests in all');
  t.notMatch(first.logs() + second.logs(), SECRET, 'the secret is in no log line');
});
