// Two server processes sharing one SQLite file (the real server.js of the test build),
// with a merchant rule that adds acquirer latency so that requests overlap: identical requests
// sent to both record one payment and answer one body; another transaction on the order while one
// is in flight in the other process is LOCK_FAILURE; transaction.reference is claimed once.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { cardBody, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { streams } from '../../domain/events.js';
import { waitFor } from '../helpers/poll.js';

const SLOW = {
  id: 'SLOW01',
  apiPassword: 'test-password-slow-01-0123456789abcd',
  repository: { id: 'REPO06', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
  rules: [{ match: { reference: 'slow' }, answer: { latencyMs: 3000 } }], // long enough to overlap under CI's load
};

let sequence = 0;
const orderId = () => `7${String(Date.now() % 1e8).padStart(8, '0')}${String(sequence++).padStart(2, '0')}`;

t.test('two processes on one SQLite file', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify({ merchants: [...MERCHANTS.merchants, SLOW] }) });
  const file = join(dir, 'data', 'gateway.db');
  const env = { EVENT_STORE: `sqlite:${file}`, MERCHANTS_FILE: join(dir, 'merchants.json') };
  const a = await startServer(env);
  t.teardown(() => a.stop('SIGKILL'));
  const created = await call(a.url, 'POST', tokenPath(SLOW.id), tokenAuth(SLOW), cardBody('5123450000000008', '1', '39'));
  t.equal(created.status, 201, created.text);
  const token = created.json().token as string;
  const b = await startServer(env);
  t.teardown(() => b.stop('SIGKILL'));
  const db = new Database(file, { readonly: true });
  t.teardown(() => db.close());
  const typesOf = (order: string) =>
    db.prepare<[string], { type: string }>('SELECT type FROM events WHERE stream = ? ORDER BY revision').all(streams.order(SLOW.id, order)).map((r) => r.type);
  /** Wait until the first request holds the order (its PaymentStarted is in the file). */
  const started = (order: string) => waitFor(() => typesOf(order).includes('PaymentStarted'), 'the first request to start', { intervalMs: 5 });
  const pay = (url: string, order: string, transaction: string, body: unknown) =>
    call(url, 'PUT', payPath(SLOW.id, token, order, transaction), payAuth(SLOW), body);
  const slowBody = (amount: string) => ({ apiOperation: 'PAY', transaction: { amount, currency: 'USD' }, order: { reference: 'slow' } });

  await t.test('identical requests to both while the first is in flight: one record, one body', async (t) => {
    const order = orderId();
    const first = pay(a.url, order, 'tx-1', slowBody('10.00'));
    await started(order);
    const repeats = await Promise.all([pay(b.url, order, 'tx-1', slowBody('10.00')), pay(a.url, order, 'tx-1', slowBody('10.00'))]);
    const all = [await first, ...repeats];
    t.strictSame(all.map((r) => r.status), [201, 201, 201]);
    t.equal(new Set(all.map((r) => r.text)).size, 1, 'the same body from both processes');
    t.strictSame(typesOf(order), ['PaymentStarted', 'PaymentRecorded']);
  });

  await t.test('another transaction in the other process while one is in flight: LOCK_FAILURE', async (t) => {
    const order = orderId();
    const first = pay(a.url, order, 'tx-1', slowBody('10.00'));
    await started(order);
    const second = await pay(b.url, order, 'tx-2', { apiOperation: 'PAY', transaction: { amount: '4.00', currency: 'USD' } });
    t.equal(second.status, 201);
    t.equal(second.json().response.gatewayCode, 'LOCK_FAILURE');
    t.equal(second.json().result, 'FAILURE');
    const different = await pay(b.url, order, 'tx-1', slowBody('11.00'));
    t.equal(different.status, 400, 'the same ids with a different body: refused, also from the other process');
    t.equal((await first).json().response.gatewayCode, 'APPROVED');
    t.strictSame(typesOf(order), ['PaymentStarted', 'PaymentRecorded']);
  });

  await t.test('identical requests without latency, spread over both processes: one record', async (t) => {
    const order = orderId();
    const body = { apiOperation: 'PAY', transaction: { amount: '3.00', currency: 'USD' } };
    const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => pay(i % 2 ? a.url : b.url, order, 'tx-1', body)));
    t.strictSame(new Set(replies.map((r) => r.status)), new Set([201]));
    t.equal(new Set(replies.map((r) => r.text)).size, 1);
    t.strictSame(typesOf(order), ['PaymentRecorded']);
  });

  await t.test('one transaction.reference claimed from both processes at once: one wins', async (t) => {
    const reference = `ref-${orderId()}`;
    const body = { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD', reference } };
    const orders = Array.from({ length: 6 }, () => orderId());
    const replies = await Promise.all(orders.map((order, i) => pay(i % 2 ? a.url : b.url, order, 'tx-1', body)));
    t.equal(replies.filter((r) => r.status === 201).length, 1, replies.map((r) => r.status).join(','));
    t.ok(replies.filter((r) => r.status === 400).every((r) => r.json().error.field === 'transaction.reference'));
    t.equal(orders.flatMap(typesOf).length, 1, 'one payment recorded');
  });

  t.equal(await b.stop(), 0);
  t.equal(await a.stop(), 0);
});
