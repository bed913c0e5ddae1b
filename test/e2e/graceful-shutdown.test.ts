// Graceful shutdown: on SIGTERM the gateway finishes the requests in flight, answers them, closes
// the store cleanly and exits 0; the payment answered is there after a restart.
import { join } from 'node:path';
import t from 'tap';
import Database from 'better-sqlite3';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { waitFor } from '../helpers/poll.js';

t.test('SIGTERM during a slow payment: the payment is answered and kept', async (t) => {
  const merchants = structuredClone(MERCHANTS) as { merchants: Array<Record<string, unknown>> };
  merchants.merchants[0]!.rules = [{ match: { amount: '42.00' }, answer: { latencyMs: 1500 } }];
  const dir = t.testdir({ 'merchants.json': JSON.stringify(merchants) });
  const file = join(dir, 'gateway.db');
  const env = { EVENT_STORE: `sqlite:${file}`, MERCHANTS_FILE: join(dir, 'merchants.json') };
  const server = await startServer(env);
  t.teardown(() => server.stop('SIGKILL'));
  const token = (await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody())).json().token as string;
  const body = { apiOperation: 'PAY', transaction: { amount: '42.00', currency: 'USD' } };
  const inFlight = call(server.url, 'PUT', payPath(M1.id, token, '10000000001', '1'), payAuth(M1), body);
  // Wait until the payment has started (its PaymentStarted is in the file), then ask to stop.
  const db = new Database(file, { readonly: true });
  t.teardown(() => db.close());
  await waitFor(() => db.prepare("SELECT 1 FROM events WHERE type = 'PaymentStarted'").get() !== undefined, 'the payment to start', { intervalMs: 20 });
  const exited = server.stop('SIGTERM');
  const answer = await inFlight;
  t.equal(answer.status, 201, 'the request in flight is answered');
  t.equal(answer.json().result, 'SUCCESS');
  t.equal(await exited, 0, 'a clean exit');
  t.match(server.logs(), '"msg":"closing"');

  const again = await startServer(env);
  t.teardown(() => again.stop('SIGKILL'));
  const repeat = await call(again.url, 'PUT', payPath(M1.id, token, '10000000001', '1'), payAuth(M1), body);
  t.equal(repeat.text, answer.text, 'after the restart the recorded payment answers the same');
  t.equal(await again.stop(), 0);
});
