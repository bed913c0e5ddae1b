// Webhook notifications with the real server process: a payment answered UNKNOWN (a card expiring
// 05/37) sends one notification for the payment and one when it resolves; `tokengate
// notifications list` shows both, and `tokengate notifications redeliver` sends one more, recorded
// as the next attempt.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { cardBody, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { BIN, killAtEnd, setUp } from './notifications.fixture.js';

t.test('an UNKNOWN payment (card expiring 05/37) notifies twice; redeliver sends one more', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const { env } = setUp(t, receiver);
  const server = await startServer(env);
  killAtEnd(t, server);
  const token = (await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '5', '37'))).json().token as string;
  const order = '20000000002';
  const paid = await call(server.url, 'PUT', payPath(M1.id, token, order, '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } });
  t.equal(paid.json().response.gatewayCode, 'UNKNOWN');
  const hits = await receiver.waitFor(2, 15_000);
  t.strictSame(hits.map((h) => JSON.parse(h.body).response.gatewayCode), ['UNKNOWN', 'APPROVED'], 'the payment, then its resolution');
  t.strictSame(hits.map((h) => h.headers['x-notification-attempt']), ['1', '1']);
  const id = hits[0]?.headers['x-notification-id'] as string;

  const cli = (...args: string[]) => promisify(execFile)(process.execPath, [BIN, 'notifications', ...args], { env: { ...process.env, ...env } });
  const listed = await cli('list', M1.id, order);
  t.equal(listed.stdout.trim().split('\n').length, 2, 'two notifications listed');
  t.match(listed.stdout, new RegExp(`${id}  PaymentRecorded  transaction 1  DELIVERED  attempts 1  last answer 200`));
  const redelivered = await cli('redeliver', M1.id, id);
  t.match(redelivered.stdout, /attempt 2: answered 200 \(delivered\)/);
  t.equal(receiver.received.length, 3, 'one more request');
  t.equal(receiver.received[2]?.headers['x-notification-id'], id);
  t.equal(receiver.received[2]?.headers['x-notification-attempt'], '2', 'recorded as the next attempt');
  t.equal(receiver.received[2]?.body, hits[0]?.body);
  t.equal(await server.stop(), 0);
});
