// Several gateway instances on one store, proven with two real server processes sharing one
// SQLite file (what docker-compose.cluster.yml does with KurrentDB, where no server is needed
// here): both started at once on a fresh file, a token created on A pays on B, a payment recorded
// on A is what B answers for a repeat and guards against a changed request, every read model both
// keep reaches the log's head, the same request fired at both concurrently records one payment,
// and the order read model (written when read: the CLI's read after the stop) holds each
// transaction once.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { eventually, sleep } from '../helpers/poll.js';
import { call, startServer, type RunningServer } from '../helpers/server.js';
import { streams } from '../../domain/events.js';
import { ReadModels } from '../../projections/read-models.js';
import { PROJECTIONS } from '../../root.js';
import { SqliteEventStore, SqliteReadModelTables } from '../../store/sqlite.js';

interface OrderDoc { transactions: Array<{ id: string }>; totalCapturedAmount: number }

/** A read-only look at the shared file, as an operator would take it. */
function inspect(file: string, stream: string, orderKey: string) {
  // (orderKey: only to show that no serving process wrote the order's document.)
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const payments = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM events WHERE stream = ? AND type = 'PaymentRecorded'").get(stream)?.n;
    const head = db.prepare<[], { p: number | null }>('SELECT MAX(position) AS p FROM events').get()?.p ?? 0;
    const checkpoints = db.prepare<[], { name: string; position: number }>('SELECT name, position FROM projection_checkpoints ORDER BY name').all();
    const orderDoc = db.prepare<[string], { doc: string }>("SELECT doc FROM read_models WHERE projection = 'orders' AND key = ?").get(orderKey)?.doc;
    // The order documents are written when read ('onRead'): not by the serving processes.
    return { payments, orderDoc, head, checkpoints: checkpoints.filter((c) => c.name !== 'orders') };
  } finally {
    db.close();
  }
}

/** The order documents as the CLI reads them: brought up from the log by the read. */
async function ordersAfterStop(file: string, keys: string[]) {
  const store = new SqliteEventStore(file);
  try {
    const readModels = new ReadModels(new SqliteReadModelTables(store.db), store, PROJECTIONS, { feed: store });
    return keys.map((key) => readModels.get<OrderDoc>('orders', key));
  } finally {
    await store.close();
  }
}

t.test('two gateway processes on one SQLite file act as one gateway', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const file = join(dir, 'data', 'gateway.db');
  const env = { EVENT_STORE: `sqlite:${file}`, MERCHANTS_FILE: join(dir, 'merchants.json') };
  // Both at once on the new file; if one fails to start, the other is still stopped.
  const started = await Promise.allSettled([startServer(env), startServer(env)]);
  t.teardown(() => Promise.all(started.flatMap((s) => (s.status === 'fulfilled' ? [s.value.stop('SIGKILL')] : []))));
  const [a, b] = started.map((s) => {
    if (s.status === 'rejected') throw s.reason;
    return s.value;
  }) as [RunningServer, RunningServer];
  const body = { apiOperation: 'PAY', transaction: { amount: '25.00', currency: 'USD' }, order: { reference: 'cart-1' } };

  const created = await call(a.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
  t.equal(created.status, 201, created.text);
  const token = created.json().token as string;
  const onB = await call(b.url, 'PUT', payPath(M1.id, token, '10000000001', '1'), payAuth(M1), body);
  t.equal(onB.status, 201, onB.text);
  t.equal(onB.json().response.gatewayCode, 'APPROVED', 'a token created on A pays on B');

  const order = '10000000002';
  const stream = streams.order(M1.id, order);
  const key = `${M1.id}/${order}`;
  const onA = await call(a.url, 'PUT', payPath(M1.id, token, order, '1'), payAuth(M1), body);
  t.equal(onA.status, 201, onA.text);
  const repeatOnB = await call(b.url, 'PUT', payPath(M1.id, token, order, '1'), payAuth(M1), body);
  t.equal(repeatOnB.status, 201);
  t.equal(repeatOnB.text, onA.text, 'B answers a repeat of A’s payment with A’s recorded body, byte for byte');
  const changedOnB = await call(b.url, 'PUT', payPath(M1.id, token, order, '1'), payAuth(M1), { ...body, transaction: { amount: '26.00', currency: 'USD' } });
  t.equal(changedOnB.status, 400, 'B refuses a different request with A’s ids');
  t.equal(changedOnB.json().error.cause, 'INVALID_REQUEST');

  // Both processes apply the log to the read models in the file (A inline, B through its
  // subscription's polling); each transaction must land once, and both checkpoints reach the head.
  const caughtUp = (s: ReturnType<typeof inspect>) => s.checkpoints.every((c) => c.position === s.head);
  const settled = await eventually(() => inspect(file, stream, key), { until: caughtUp, intervalMs: 50 });
  t.equal(settled.payments, 1, 'one PaymentRecorded for the order in the file');
  t.equal(settled.orderDoc, undefined, 'no serving process wrote the order document (written when read)');
  t.same(settled.checkpoints.map((c) => [c.name, c.position]), [['lookup', settled.head], ['notifications', settled.head], ['pending', settled.head], ['tokens', settled.head]], 'every projection they keep caught up with the log');

  // Exactly once: the same request, ten times at each process, all at once.
  const raced = '10000000003';
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
    call(i % 2 === 0 ? a.url : b.url, 'PUT', payPath(M1.id, token, raced, 'race-1'), payAuth(M1), body)));
  t.same([...new Set(replies.map((r) => r.status))], [201], 'all twenty answered 201');
  t.equal(new Set(replies.map((r) => r.text)).size, 1, 'with one identical body');
  const afterRace = await eventually(() => inspect(file, streams.order(M1.id, raced), `${M1.id}/${raced}`), { until: caughtUp, intervalMs: 50 });
  t.equal(afterRace.payments, 1, 'exactly one PaymentRecorded in the file');

  // Contention: ten different transactions on one order, half at each process, all at once.
  const busy = '10000000004';
  const paid = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    call(i % 2 === 0 ? a.url : b.url, 'PUT', payPath(M1.id, token, busy, `t${i}`), payAuth(M1), body)));
  t.same([...new Set(paid.map((r) => r.status))], [201], 'ten transactions on one order, from both processes: all recorded');
  t.same(paid.map((r) => r.json().order.totalCapturedAmount as number).sort((x, y) => x - y),
    Array.from({ length: 10 }, (_, i) => 25 * (i + 1)), 'each saw every earlier one: no lost update');
  const afterBusy = await eventually(() => inspect(file, streams.order(M1.id, busy), `${M1.id}/${busy}`), { until: caughtUp, intervalMs: 50 });
  t.equal(afterBusy.payments, 10);

  await sleep(300); // the time under test: a few more polls by both processes, which must append nothing
  const later = inspect(file, stream, key);
  t.equal(later.payments, 1, 'later polls append nothing');
  const [codeA, codeB] = await Promise.all([a.stop(), b.stop()]);
  t.same([codeA, codeB], [0, 0], 'both exit cleanly on SIGTERM');

  const [paidOnA, racedDoc, busyDoc] = await ordersAfterStop(file, [key, `${M1.id}/${raced}`, `${M1.id}/${busy}`]);
  t.same(paidOnA?.transactions.map((x) => x.id), ['1'], 'the order read model has the transaction exactly once');
  t.equal(paidOnA?.totalCapturedAmount, 2500);
  t.same(racedDoc?.transactions.map((x) => x.id), ['race-1'], 'one transaction of the race');
  t.same(busyDoc?.transactions.map((x) => x.id).sort(), Array.from({ length: 10 }, (_, i) => `t${i}`), 'each transaction of the busy order once');
  t.equal(busyDoc?.totalCapturedAmount, 25_000);
});
