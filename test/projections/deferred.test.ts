// Deferred projections (projection.apply = 'deferred'): with the SQLite store's commit listener,
// their documents are written after the append answers, in batches; every read of the read
// models in this process sees them first; a crash before they are written loses nothing (the
// catch-up at start applies them from the log); the result equals a replay of the log.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { streams } from '../../domain/events.js';
import { orderKey, ordersProjection, type OrderDoc } from '../../projections/orders.js';
import type { Projection } from '../../projections/projection.js';
import { ReadModels } from '../../projections/read-models.js';
import { tokenKey, tokensProjection, type TokenDoc } from '../../projections/tokens.js';
import type { EventData } from '../../store/event-store.js';
import { SqliteEventStore, SqliteReadModelTables } from '../../store/sqlite.js';
import { PROJECTIONS as GATEWAY_PROJECTIONS } from '../../root.js';
import { eventually } from '../helpers/poll.js';

const MERCHANT = 'TESTMERCHANT01';
const REPO = 'REPO01';
const TOKEN = '9123456789012345';
const ORDER = '10000000001';
const dir = t.testdir();
let files = 0;
const newPath = () => join(dir, `deferred-${++files}.db`);
const metadata = () => ({ correlationId: randomUUID(), merchantId: MERCHANT, recordedAt: '2026-03-01T10:00:00.000Z' });

const tokenCreated = (): EventData => ({
  id: randomUUID(), type: 'TokenCreated', metadata: metadata(),
  data: {
    merchantId: MERCHANT, repositoryId: REPO, token: TOKEN, tokenGeneration: 'RANDOM',
    sourceOfFunds: { type: 'CARD', card: { numberSealed: `v1.${randomUUID()}.aXY.Ym9keQ`, number: '512345xxxxxx0008', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', expiry: { month: 1, year: 39 } } },
    verification: { strategy: 'BASIC', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' },
    status: 'VALID', createdAt: '2026-03-01T10:00:00.000Z',
  },
});

const paymentRecorded = (orderId: string, transactionId: string, amount: number): EventData => ({
  id: randomUUID(), type: 'PaymentRecorded', metadata: metadata(),
  data: {
    merchantId: MERCHANT, orderId, transactionId, requestFingerprint: 'n3mJ2q0bS4c1b8y0x3mZyW1nQy3hXb9m0a2cV7eQz5k',
    repositoryId: REPO, token: TOKEN,
    card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', type: 'MASTERCARD', expiry: { month: 1, year: 39 } },
    amount, currency: 'USD', outcome: { result: 'SUCCESS', gatewayCode: 'APPROVED', authorizationCode: '123456' },
    acquirer: { batch: 20260301, date: '0301', id: 'SANDBOX_ACQ', merchantId: MERCHANT, transactionId: randomUUID() },
    authorizationResponse: { stan: '123456' }, orderStatus: 'CAPTURED', totalsAfter: { authorized: amount, captured: amount, refunded: 0 },
    timeOfRecord: '2026-03-01T11:00:00.000Z',
  },
});

function open(t: Test, path: string, projections: readonly Projection[], deferMs: number, page?: number) {
  const store = new SqliteEventStore(path, { pollIntervalMs: 20 });
  const readModels = new ReadModels(new SqliteReadModelTables(store.db), store, projections, { feed: store, deferMs, ...(page === undefined ? {} : { page }) });
  // What is in the file, read past ReadModels (its reads would write what is held first).
  const raw = store.db.prepare<[string, string], { doc: string }>('SELECT doc FROM read_models WHERE projection = ? AND key = ?');
  const rawCheckpoint = store.db.prepare<[string], { position: number }>('SELECT position FROM projection_checkpoints WHERE name = ?');
  const inFile = (projection: string, key: string) => raw.get(projection, key)?.doc;
  const checkpointInFile = (name: string) => BigInt(rawCheckpoint.get(name)?.position ?? 0);
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await readModels.stop();
    await store.close();
  };
  t.teardown(close);
  return { store, readModels, inFile, checkpointInFile, close, crash: async () => { closed = true; await store.close(); } };
}

// The orders projection is 'onRead' in the gateway (test/projections/on-read.test.ts); as a
// deferred one it is the example here: a document per order.
const deferredOrders: Projection = { ...(ordersProjection as Projection), apply: 'deferred' };
const PROJECTIONS = [tokensProjection as Projection, deferredOrders];
const LONG = 60_000;

t.test('deferred projections are written after the append answers; every read sees them first', async (t) => {
  // Every read model of the gateway: none is read by an answer before a catch-up or a read.
  for (const p of GATEWAY_PROJECTIONS) t.equal(p.apply, p.name === 'orders' ? 'onRead' : 'deferred', `${p.name} is ${p.name === 'orders' ? 'written when read' : 'deferred'}`);
  const { store, readModels, inFile, checkpointInFile } = open(t, newPath(), PROJECTIONS, LONG);
  await readModels.start();
  store.setCommitListener(readModels.commitListener());
  await store.append(streams.token(REPO, TOKEN), [tokenCreated()], { expectedRevision: 'no_stream' });
  const { position } = await store.append(streams.order(MERCHANT, ORDER), [paymentRecorded(ORDER, '1', 2500)], { expectedRevision: 'no_stream' });

  t.equal(inFile('orders', orderKey(MERCHANT, ORDER)), undefined, 'no order document written when the append answers');
  t.equal(checkpointInFile('orders'), 0n, 'nor its checkpoint');
  t.equal(readModels.heldEvents, 2, 'both events held');
  await readModels.catchUp(position);
  t.equal(readModels.heldEvents, 2, 'a catch-up to the held position writes nothing');

  const order = readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER));
  t.same(order?.transactions.map((x) => x.id), ['1'], 'a read sees the payment');
  t.equal(readModels.heldEvents, 0, 'the read wrote what was held');
  t.ok(inFile('orders', orderKey(MERCHANT, ORDER)), 'now in the file');
  t.equal(checkpointInFile('orders'), position, 'with its checkpoint');
  t.ok(inFile('tokens', tokenKey(REPO, TOKEN)), 'the token too');

  const live = readModels.hash();
  await readModels.rebuild();
  t.equal(readModels.hash(), live, 'equal to a replay of the log');
});

t.test('without a read, the held events are written a few ms later', async (t) => {
  const { store, readModels, inFile, checkpointInFile } = open(t, newPath(), PROJECTIONS, 1);
  await readModels.start();
  store.setCommitListener(readModels.commitListener());
  await store.append(streams.token(REPO, TOKEN), [tokenCreated()], { expectedRevision: 'no_stream' });
  const appends = [1, 2, 3].map((i) => store.append(streams.order(MERCHANT, String(10000000000 + i)), [paymentRecorded(String(10000000000 + i), '1', 100 * i)], { expectedRevision: 'no_stream' }));
  const last = (await Promise.all(appends)).at(-1)!.position;
  await eventually(() => checkpointInFile('orders') >= last, { intervalMs: 5 });
  t.equal(checkpointInFile('orders'), last, 'the checkpoint reached the last append');
  t.equal(readModels.heldEvents, 0);
  for (const i of [1, 2, 3]) t.ok(inFile('orders', orderKey(MERCHANT, String(10000000000 + i))), `order ${i} written`);
  const token = JSON.parse(inFile('tokens', tokenKey(REPO, TOKEN)) ?? '{}') as TokenDoc;
  t.equal(token.token, TOKEN);
});

t.test('a crash before the held events are written loses nothing: the start-up catch-up applies them', async (t) => {
  const path = newPath();
  const first = open(t, path, PROJECTIONS, LONG);
  await first.readModels.start();
  first.store.setCommitListener(first.readModels.commitListener());
  await first.store.append(streams.token(REPO, TOKEN), [tokenCreated()], { expectedRevision: 'no_stream' });
  const { position } = await first.store.append(streams.order(MERCHANT, ORDER), [paymentRecorded(ORDER, '1', 2500)], { expectedRevision: 'no_stream' });
  t.equal(first.readModels.heldEvents, 2);
  // The process dies: the store's file is closed, the read models never write what they held.
  await first.crash();

  const second = open(t, path, PROJECTIONS, LONG);
  t.equal(second.checkpointInFile('orders'), 0n, 'the file holds the events, not their documents');
  t.equal(second.inFile('orders', orderKey(MERCHANT, ORDER)), undefined);
  await second.readModels.start();
  t.equal(second.checkpointInFile('orders'), position, 'caught up at start');
  t.same(second.readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER))?.transactions.map((x) => x.id), ['1']);
  const live = second.readModels.hash();
  await second.readModels.rebuild();
  t.equal(second.readModels.hash(), live, 'equal to a replay of the log');
});

t.test('inline and deferred projections side by side: the inline one commits with the events', async (t) => {
  const inlineTokens: Projection = { ...(tokensProjection as Projection), apply: 'inline' };
  const { store, readModels, inFile, checkpointInFile, close } = open(t, newPath(), [inlineTokens, deferredOrders], LONG);
  await readModels.start();
  store.setCommitListener(readModels.commitListener());
  await store.append(streams.token(REPO, TOKEN), [tokenCreated()], { expectedRevision: 'no_stream' });
  const { position } = await store.append(streams.order(MERCHANT, ORDER), [paymentRecorded(ORDER, '1', 2500)], { expectedRevision: 'no_stream' });
  t.ok(inFile('tokens', tokenKey(REPO, TOKEN)), 'the inline projection is written in the commit');
  t.equal(checkpointInFile('tokens'), position);
  t.equal(inFile('orders', orderKey(MERCHANT, ORDER)), undefined, 'the deferred one is not');
  // A clean stop writes what is held.
  await close();
  const again = open(t, store.db.name, [inlineTokens, deferredOrders], LONG);
  t.equal(again.checkpointInFile('orders'), position, 'written at stop');
  t.ok(again.inFile('orders', orderKey(MERCHANT, ORDER)));
});

// 'onRead' (the gateway's orders): not written while serving, brought up from the log by a read.
const onReadOrders = () => {
  const counter = { evolved: 0 };
  const projection: Projection = {
    ...(ordersProjection as Projection),
    evolve(doc, event, key) {
      counter.evolved++;
      return (ordersProjection as Projection).evolve(doc, event, key);
    },
  };
  t.equal(projection.apply, 'onRead');
  return { projection, counter };
};
const pay = (store: SqliteEventStore, order: number, transaction: string, revision: bigint | 'no_stream') =>
  store.append(streams.order(MERCHANT, String(order)), [paymentRecorded(String(order), transaction, 100 * order)], { expectedRevision: revision });
const transactionsOf = (readModels: ReadModels<SqliteReadModelTables>, order: number) => readModels.get<OrderDoc>('orders', orderKey(MERCHANT, String(order)))?.transactions.map((x) => x.id);

t.test("an 'onRead' projection is written by its reads only, in pages, and equals a replay", async (t) => {
  const orders = onReadOrders();
  const { store, readModels, inFile, checkpointInFile, close } = open(t, newPath(), [tokensProjection as Projection, orders.projection], 1, 2);
  await readModels.start();
  store.setCommitListener(readModels.commitListener());
  await store.append(streams.token(REPO, TOKEN), [tokenCreated()], { expectedRevision: 'no_stream' });
  for (const order of [1, 2, 3]) await pay(store, order, '1', 'no_stream');
  await pay(store, 1, '2', 0n);
  t.ok(readModels.get<TokenDoc>('tokens', tokenKey(REPO, TOKEN)), 'a read of another model');
  await readModels.catchUp();
  t.equal(orders.counter.evolved, 0, 'folded no payment: neither the reads of other models nor the catch-ups write it');
  t.equal(checkpointInFile('orders'), 0n);
  t.equal(inFile('orders', orderKey(MERCHANT, '1')), undefined);

  t.same(transactionsOf(readModels, 1), ['1', '2'], 'a read brings it up from the log (pages of 2 events)');
  t.equal(orders.counter.evolved, 4, 'each payment folded once');
  t.equal(checkpointInFile('orders'), await store.headPosition(), 'its checkpoint at the head');
  t.ok(inFile('orders', orderKey(MERCHANT, '3')), 'documents in the file');

  const { position } = await pay(store, 4, '1', 'no_stream');
  t.same(transactionsOf(readModels, 4), ['1'], 'the next read sees the next payment');
  t.equal(readModels.checkpoint('orders'), position);
  t.equal(orders.counter.evolved, 5);

  const live = readModels.hash();
  await readModels.rebuild();
  t.equal(checkpointInFile('orders'), 0n, 'a rebuild drops it and does not replay it');
  t.equal(readModels.hash(), live, 'the hash reads it: equal to a replay of the log');
  await close();
  t.equal(orders.counter.evolved, 10, 'the stop wrote nothing more of it');
});

t.test("an 'onRead' projection resumes from its checkpoint in another process", async (t) => {
  const path = newPath();
  const first = open(t, path, [tokensProjection as Projection, onReadOrders().projection], 1, 2);
  await first.readModels.start();
  await first.store.append(streams.token(REPO, TOKEN), [tokenCreated()], { expectedRevision: 'no_stream' });
  for (const order of [1, 2, 3]) await pay(first.store, order, '1', 'no_stream');
  t.same(transactionsOf(first.readModels, 2), ['1']);
  const read = await first.store.headPosition();
  await pay(first.store, 2, '2', 0n);
  await pay(first.store, 5, '1', 'no_stream');
  await first.close();

  const orders = onReadOrders();
  const second = open(t, path, [tokensProjection as Projection, orders.projection], 1, 2);
  await second.readModels.start();
  t.equal(second.checkpointInFile('orders'), read, 'start() leaves it where the last read left it');
  t.same(transactionsOf(second.readModels, 2), ['1', '2']);
  t.same(transactionsOf(second.readModels, 5), ['1']);
  t.equal(orders.counter.evolved, 2, 'only the two payments after its checkpoint folded');
});

t.test("a rebuild up to a position replays an 'onRead' projection to it, and reads leave it there", async (t) => {
  // As the CLI's replay: read models on the store, not started (no subscription catching up).
  const { store, readModels, checkpointInFile } = open(t, newPath(), [tokensProjection as Projection, onReadOrders().projection], 1, 2);
  await store.append(streams.token(REPO, TOKEN), [tokenCreated()], { expectedRevision: 'no_stream' });
  await pay(store, 1, '1', 'no_stream');
  const { position } = await pay(store, 1, '2', 0n);
  await pay(store, 2, '1', 'no_stream');
  await readModels.rebuild({ untilPosition: position });
  t.equal(checkpointInFile('orders'), position, 'replayed up to the position');
  t.same(transactionsOf(readModels, 1), ['1', '2']);
  t.equal(transactionsOf(readModels, 2), undefined, 'a read does not bring it past the position');
  readModels.hash();
  t.equal(readModels.checkpoint('tokens'), position, 'nor does the hash: every model shows the same moment');
  t.equal(readModels.checkpoint('orders'), position);
  await readModels.catchUp();
  t.same(transactionsOf(readModels, 2), ['1'], 'after the next catch-up, reads bring it up again');

  await readModels.rebuild({ everyModel: true });
  t.equal(checkpointInFile('orders'), await store.headPosition(), 'everyModel: the rebuild replays it too');
});

t.test("without a synchronous feed (KurrentDB, memory) an 'onRead' projection is kept as a deferred one", async (t) => {
  const { MemoryEventStore } = await import('../../store/memory.js');
  const store = new MemoryEventStore();
  const file = new SqliteEventStore(newPath());
  t.teardown(() => file.close());
  const orders = onReadOrders();
  const readModels = new ReadModels(new SqliteReadModelTables(file.db), store, [orders.projection]);
  await readModels.start();
  await store.append(streams.order(MERCHANT, '1'), [paymentRecorded('1', '1', 100)], { expectedRevision: 'no_stream' });
  await readModels.catchUp();
  t.equal(orders.counter.evolved, 1, 'a catch-up folds it');
  t.same(transactionsOf(readModels, 1), ['1']);
  await readModels.stop();
});
