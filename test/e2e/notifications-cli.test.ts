// Webhook notifications with the real server process: a payment answered UNKNOWN (a card expiring
// 05/37) sends one notification for the payment and one when it resolves; `tokengate
// notifications list` shows both, and `tokengate notifications redeliver` sends one more, recorded
// as the next attempt.
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { promisify } from 'node:util';
import t from 'tap';
import { cardBody, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { BIN, killAtEnd, setUp } from './notifications.fixture.js';
import { eventually } from '../helpers/poll.js';

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
  const hits = await receiver.waitFor(2, 45_000);
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

t.test('`tokengate notifications receive`: the demo merchant\'s notifications, secret checked, printed one a line', async (t) => {
  const { spawn } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { PROJECT_ROOT } = await import('../../config.js');
  const demo = JSON.parse(readFileSync(join(PROJECT_ROOT, 'config', 'merchants.demo.json'), 'utf8')) as { merchants: Array<{ id: string; apiPassword: string; notifications?: { url: string; secret: string; allowedUrls?: string[] } }> };
  const merchant = demo.merchants.find((m) => m.notifications !== undefined);
  t.equal(merchant?.id, 'TESTMERCHANT01', 'the demo merchant notifies');
  t.equal(merchant?.notifications?.url, 'http://127.0.0.1:8081/notifications', 'to the receiver\'s default address');
  const dir = t.testdir({});
  const receiver = spawn(process.execPath, [BIN, 'notifications', 'receive', '--port', '0'], { env: { ...process.env, MERCHANTS_FILE: join(PROJECT_ROOT, 'config', 'merchants.demo.json') } });
  t.teardown(() => { if (receiver.exitCode === null && receiver.signalCode === null) receiver.kill('SIGKILL'); });
  let out = '';
  let err = '';
  receiver.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const port = await new Promise<number>((resolve, reject) => {
    receiver.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const match = /on http:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
      if (match) resolve(Number(match[1]));
    });
    receiver.once('exit', () => reject(new Error(`receiver exited: ${err}`)));
  });
  // The demo file with the receiver's port (the gateway only calls the URLs the file names).
  const file = join(dir, 'merchants.json');
  const copy = { merchants: demo.merchants.map((m) => (m.notifications ? { ...m, notifications: { ...m.notifications, url: `http://127.0.0.1:${port}/notifications`, allowedUrls: [`http://127.0.0.1:${port}/`] } } : m)) };
  (await import('node:fs')).writeFileSync(file, JSON.stringify(copy));
  const server = await startServer({ EVENT_STORE: `sqlite:${join(dir, 'data', 'gateway.db')}`, MERCHANTS_FILE: file, UNKNOWN_RESOLUTION_DELAY_MS: '200' });
  killAtEnd(t, server);
  const m = { id: merchant!.id, apiPassword: merchant!.apiPassword };
  const token = (await call(server.url, 'POST', tokenPath(m.id), tokenAuth(m), cardBody('5123450000000008', '5', '37'))).json().token as string;
  const paid = await call(server.url, 'PUT', payPath(m.id, token, '30000000001', '1'), payAuth(m), { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } });
  t.equal(paid.json().response.gatewayCode, 'UNKNOWN');
  await eventually(() => out.trim().split('\n').filter(Boolean).length >= 2, { intervalMs: 50 });
  const lines = out.trim().split('\n');
  t.equal(lines.length, 2, out);
  t.match(lines[0], /POST \/notifications {2}id \S+ {2}attempt 1 {2}200 {2}order 30000000001 INITIATED {2}transaction 1 PAYMENT {2}UNKNOWN UNKNOWN/);
  t.match(lines[1], /attempt 1 {2}200 {2}order 30000000001 CAPTURED {2}transaction 1 PAYMENT {2}SUCCESS APPROVED/);
  t.notMatch(out, /5123450000000008/, 'no card number printed');
  t.equal(await server.stop(), 0);
  receiver.kill('SIGINT');
  const [code] = (await once(receiver, 'exit')) as [number | null];
  t.equal(code, 0, 'Ctrl-C stops it cleanly');
});

t.test('`tokengate notifications receive --host`: listens on the address given (0.0.0.0 in a compose container)', async (t) => {
  const { spawn } = await import('node:child_process');
  const { join } = await import('node:path');
  const { PROJECT_ROOT } = await import('../../config.js');
  const receiver = spawn(process.execPath, [BIN, 'notifications', 'receive', 'TESTMERCHANT01', '--host', '127.0.0.2', '--port', '0'], { env: { ...process.env, MERCHANTS_FILE: join(PROJECT_ROOT, 'config', 'merchants.demo.json') } });
  t.teardown(() => { if (receiver.exitCode === null && receiver.signalCode === null) receiver.kill('SIGKILL'); });
  let out = '';
  let err = '';
  receiver.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
  const port = await new Promise<number>((resolve, reject) => {
    receiver.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
      const match = /on http:\/\/127\.0\.0\.2:(\d+)\//.exec(err);
      if (match) resolve(Number(match[1]));
    });
    receiver.once('exit', () => reject(new Error(`receiver exited: ${err}`)));
  });
  const post = (secret: string) => fetch(`http://127.0.0.2:${port}/notifications`, { method: 'POST', headers: { 'x-notification-secret': secret, 'x-notification-id': 'n-1', 'x-notification-attempt': '1' }, body: JSON.stringify({ order: { id: 1, status: 'CAPTURED' }, transaction: { id: '1', type: 'PAYMENT' }, result: 'SUCCESS', response: { gatewayCode: 'APPROVED' } }) });
  t.equal((await post('demo-notification-secret-0123456789abcdef')).status, 200, "the demo merchant's secret: 200");
  t.equal((await post('not-the-secret-of-the-demo-merchant-00')).status, 401, 'another: 401');
  await eventually(() => out.trim().split('\n').filter(Boolean).length >= 2, { intervalMs: 20 });
  t.match(out, /POST \/notifications {2}id n-1 {2}attempt 1 {2}200 {2}order 1 CAPTURED/, 'printed');
  receiver.kill('SIGINT');
  const [code] = (await once(receiver, 'exit')) as [number | null];
  t.equal(code, 0);
});
