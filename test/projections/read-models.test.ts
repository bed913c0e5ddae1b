// Read models: the tokens and orders projections folded into SQLite by ReadModels, with durable
// checkpoints, version rebuilds, reset, and events from other processes sharing the file.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { PaymentRecorded, TokenCreated } from '../../domain/events.js';
import { streams } from '../../domain/events.js';
import type { OrderDoc } from '../../projections/orders.js';
import { orderKey, ordersProjection } from '../../projections/orders.js';
import type { Projection } from '../../projections/projection.js';
import type { ProjectionFeed } from '../../store/projection-feed.js';
import { ReadModels } from '../../projections/read-models.js';
import type { TokenDoc } from '../../projections/tokens.js';
import { tokenKey, tokensProjection } from '../../projections/tokens.js';
import type { EventData, EventStore, RecordedEvent } from '../../store/event-store.js';
import { MemoryEventStore } from '../../store/memory.js';
import { openDatabase, SqliteEventStore, SqliteReadModelTables } from '../../store/sqlite.js';
import { sleep, waitFor } from '../helpers/poll.js';

const MERCHANT = 'TESTMERCHANT01';
const REPO = 'REPO01';
const dir = t.testdir();
let files = 0;
const newPath = () => join(dir, `gateway-${++files}.db`);


const metadata = () => ({ correlationId: randomUUID(), merchantId: MERCHANT, recordedAt: new Date().toISOString() });

function tokenCreated(token: string, overrides: Partial<TokenCreated['data']> = {}): EventData<'TokenCreated', TokenCreated['data']> {
  return {
    id: randomUUID(),
    type: 'TokenCreated',
    metadata: metadata(),
    data: {
      merchantId: MERCHANT,
      repositoryId: REPO,
      token,
      tokenGeneration: 'RANDOM',
      sourceOfFunds: {
        type: 'CARD',
        card: {
          numberSealed: `v1.${randomUUID()}.c2VhbGVkLWl2LTEy.c2VhbGVkLWNpcGhlcnRleHQtYW5kLXRhZw`,
          number: '512345xxxxxx0008',
          brand: 'MASTERCARD',
          scheme: 'MASTERCARD',
          fundingMethod: 'CREDIT',
          expiry: { month: 1, year: 39 },
        },
      },
      verification: { strategy: 'BASIC', gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' },
      status: 'VALID',
      createdAt: '2026-03-01T10:00:00.000Z',
      ...overrides,
    },
  };
}

interface PaymentInput {
  token: string; orderId: string; transactionId: string; amount: number; totalAfter: number;
  timeOfRecord: string; orderReference?: string; transactionReference?: string; declined?: boolean;
}

function paymentRecorded(p: PaymentInput): EventData<'PaymentRecorded', PaymentRecorded['data']> {
  return {
    id: randomUUID(),
    type: 'PaymentRecorded',
    metadata: metadata(),
    data: {
      merchantId: MERCHANT,
      orderId: p.orderId,
      transactionId: p.transactionId,
      requestFingerprint: 'n3mJ2q0bS4c1b8y0x3mZyW1nQy3hXb9m0a2cV7eQz5k',
      repositoryId: REPO,
      token: p.token,
      card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', type: 'MASTERCARD', expiry: { month: 1, year: 39 } },
      amount: p.amount,
      currency: 'USD',
      ...(p.orderReference ? { orderReference: p.orderReference } : {}),
      ...(p.transactionReference ? { transactionReference: p.transactionReference } : {}),
      source: 'INTERNET',
      outcome: {
        gatewayCode: p.declined ? 'DECLINED' : 'APPROVED',
        result: p.declined ? 'FAILURE' : 'SUCCESS',
        acquirerCode: p.declined ? '05' : '00',
        acquirerMessage: p.declined ? 'Do not honour' : 'Approved',
        ...(p.declined ? {} : { authorizationCode: '012345' }),
        cardSecurityCode: { gatewayCode: 'NOT_PROCESSED' },
        acquirer: {
          id: 'TEST_ACQUIRER', batch: 20260301, date: '0301', merchantId: '123456789',
          settlementDate: '2026-03-01', timeZone: '+0000', transactionId: '123456789012345',
        },
        receipt: '606010000001',
        stan: '1',
        terminal: '12345678',
      },
      orderStatus: p.declined ? 'FAILED' : 'CAPTURED',
      totalsAfter: { authorized: p.totalAfter, captured: p.totalAfter, refunded: 0 },
      timeOfRecord: p.timeOfRecord,
    },
  };
}

const merchantConfigured = (): EventData => ({
  id: randomUUID(),
  type: 'MerchantConfigured',
  metadata: metadata(),
  data: {
    merchantId: MERCHANT,
    repository: { id: REPO, tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
  },
});

const TOKEN_A = '9123456789012345';
const TOKEN_B = '9876543210987654';
const ORDER_1 = '10000000001';
const ORDER_2 = '10000000002';

/** A small history: a merchant, two tokens, three payments on two orders (one declined). */
async function appendHistory(store: EventStore): Promise<void> {
  await store.append(streams.merchant(MERCHANT), [merchantConfigured()], { expectedRevision: 'no_stream' });
  await store.append(streams.token(REPO, TOKEN_A), [tokenCreated(TOKEN_A)], { expectedRevision: 'no_stream' });
  await store.append(streams.token(REPO, TOKEN_B), [tokenCreated(TOKEN_B, {
    createdAt: '2026-03-01T10:05:00.000Z',
    sourceOfFunds: { type: 'CARD', card: { numberSealed: `v1.${randomUUID()}.aXY.Ym9keQ`, number: '450875xxxxxx1019', brand: 'VISA', scheme: 'VISA', fundingMethod: 'DEBIT', expiry: { month: 5, year: 9 } } },
  })], { expectedRevision: 'no_stream' });
  await store.append(streams.order(MERCHANT, ORDER_1), [paymentRecorded({
    token: TOKEN_A, orderId: ORDER_1, transactionId: 'txn-1', amount: 2500, totalAfter: 2500,
    timeOfRecord: '2026-03-01T11:00:00.000Z', orderReference: 'cart-1', transactionReference: 'ref-1',
  })], { expectedRevision: 'no_stream' });
  await store.append(streams.order(MERCHANT, ORDER_1), [paymentRecorded({
    token: TOKEN_A, orderId: ORDER_1, transactionId: 'txn-2', amount: 500, totalAfter: 3000,
    timeOfRecord: '2026-03-01T12:00:00.000Z', orderReference: 'ignored-later-reference',
  })], { expectedRevision: 0n });
  await store.append(streams.order(MERCHANT, ORDER_2), [paymentRecorded({
    token: TOKEN_B, orderId: ORDER_2, transactionId: 'txn-1', amount: 999, totalAfter: 0,
    timeOfRecord: '2026-03-01T13:00:00.000Z', declined: true,
  })], { expectedRevision: 'no_stream' });
  await store.append('unrelated-1', [{ id: randomUUID(), type: 'SomethingElse', data: { merchantId: MERCHANT }, metadata: metadata() }]);
}

/** A projection that counts the events it folds. */
function counting<Doc>(projection: Projection<Doc>, overrides: Partial<Projection<Doc>> = {}) {
  const counter = { evolved: 0 };
  const wrapped: Projection = {
    ...(projection as Projection),
    // These tests count the folds of catch-ups: an 'onRead' projection (orders) is made a deferred
    // one here (test/projections/on-read.test.ts covers 'onRead').
    ...((projection as Projection).apply === 'onRead' ? { apply: 'deferred' as const } : {}),
    ...(overrides as Partial<Projection>),
    evolve(doc, event: RecordedEvent, key: string) {
      counter.evolved++;
      return (projection as Projection).evolve(doc, event, key);
    },
  };
  return { projection: wrapped, counter };
}

/** An event store and read models on one SQLite file, as root.ts wires them. */
function openGatewayLike(t: Test, path: string, projections: readonly Projection[], pollIntervalMs = 20) {
  const store = new SqliteEventStore(path, { pollIntervalMs });
  const readModels = new ReadModels(new SqliteReadModelTables(store.db), store, projections, { feed: store });
  const close = async () => {
    await readModels.stop();
    await store.close();
  };
  t.teardown(close);
  return { store, readModels, close };
}

// The orders projection is 'onRead' in the gateway (test/projections/on-read.test.ts); these
// tests of the catch-ups use it as a deferred one, a document per order.
const deferredOrders: Projection = { ...(ordersProjection as Projection), apply: 'deferred' };
const PROJECTIONS = [tokensProjection as Projection, deferredOrders];

/** The projection feed of a SQLite store (store/projection-feed.ts), bound, as a plain object a test can change. */
const feedOf = (store: SqliteEventStore): ProjectionFeed => ({
  readAllForProjections: store.readAllForProjections.bind(store),
  readPagesAhead: store.readPagesAhead,
  durable: () => store.durable(),
});

t.test('catchUp folds tokens and orders into their documents', async (t) => {
  const store = new MemoryEventStore();
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const readModels = new ReadModels(new SqliteReadModelTables(db), store, PROJECTIONS);
  await appendHistory(store);
  await readModels.catchUp();

  const a = readModels.get<TokenDoc>('tokens', tokenKey(REPO, TOKEN_A));
  t.same(a, {
    merchantId: MERCHANT,
    repositoryId: REPO,
    token: TOKEN_A,
    status: 'VALID',
    sourceOfFunds: { type: 'CARD', provided: { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', expiry: '0139' } } },
    verificationStrategy: 'BASIC',
    usage: { lastUpdated: '2026-03-01T10:00:00.000Z', lastUpdatedBy: MERCHANT, lastUsed: '2026-03-01T12:00:00.000Z' },
    createdAt: '2026-03-01T10:00:00.000Z',
    revision: 0,
  }, 'token A: masked number, expiry MMYY, lastUsed from its last payment');
  t.strictSame(Object.keys(a?.sourceOfFunds.provided.card ?? {}).sort(), ['brand', 'expiry', 'fundingMethod', 'number', 'scheme'], 'no sealed number in the read model');
  t.notMatch(JSON.stringify(readModels.all('tokens')), 'numberSealed');
  t.notMatch(JSON.stringify(readModels.all('tokens')), /v1\.[0-9a-f-]{36}\./, 'no sealed value in any token document');

  const b = readModels.get<TokenDoc>('tokens', tokenKey(REPO, TOKEN_B));
  t.equal(b?.sourceOfFunds.provided.card!.expiry, '0509', 'single-digit month and year are padded');
  t.equal(b?.sourceOfFunds.provided.card!.number, '450875xxxxxx1019');
  t.equal(b?.usage.lastUsed, '2026-03-01T13:00:00.000Z', 'a declined payment still uses the token');
  t.equal(readModels.all('tokens').length, 2);

  const order1 = readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_1));
  t.same(order1, {
    merchantId: MERCHANT,
    id: ORDER_1,
    currency: 'USD',
    reference: 'cart-1',
    status: 'CAPTURED',
    creationTime: '2026-03-01T11:00:00.000Z',
    lastUpdatedTime: '2026-03-01T12:00:00.000Z',
    totalAuthorizedAmount: 3000,
    totalCapturedAmount: 3000,
    totalRefundedAmount: 0,
    transactions: [
      { id: 'txn-1', type: 'PAYMENT', amount: 2500, currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', authorizationCode: '012345', reference: 'ref-1', token: TOKEN_A, card: { number: '512345xxxxxx0008', brand: 'MASTERCARD' }, timeOfRecord: '2026-03-01T11:00:00.000Z' },
      { id: 'txn-2', type: 'PAYMENT', amount: 500, currency: 'USD', result: 'SUCCESS', gatewayCode: 'APPROVED', authorizationCode: '012345', token: TOKEN_A, card: { number: '512345xxxxxx0008', brand: 'MASTERCARD' }, timeOfRecord: '2026-03-01T12:00:00.000Z' },
    ],
  }, 'order 1: totals after the last payment, both transactions in order, the first reference kept');

  const order2 = readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_2));
  t.equal(order2?.status, 'FAILED');
  t.equal(order2?.totalCapturedAmount, 0);
  t.same(order2?.transactions.map((x) => [x.id, x.result, x.gatewayCode]), [['txn-1', 'FAILURE', 'DECLINED']]);
  t.notOk(order2?.transactions[0] && 'authorizationCode' in order2.transactions[0], 'no authorization code on a decline');
  t.notOk(order2 && 'reference' in order2, 'no reference when none was given');
  t.same(readModels.all('orders').map((r) => r.key), [orderKey(MERCHANT, ORDER_1), orderKey(MERCHANT, ORDER_2)]);

  const head = await store.headPosition();
  t.equal(head, 7n, 'seven events in the history');
  t.equal(readModels.checkpoint('tokens'), head, 'the tokens checkpoint is the last position, even past events it ignores');
  t.equal(readModels.checkpoint('orders'), head, 'so is the orders checkpoint');

  await store.append(streams.order(MERCHANT, ORDER_2), [paymentRecorded({
    token: TOKEN_B, orderId: ORDER_2, transactionId: 'txn-2', amount: 999, totalAfter: 999, timeOfRecord: '2026-03-01T14:00:00.000Z',
  })]);
  await readModels.catchUp();
  const after = readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_2));
  t.same(after?.transactions.map((x) => x.id), ['txn-1', 'txn-2'], 'a second catchUp applies only the new event');
  t.equal(after?.totalCapturedAmount, 999);
  t.equal(after?.creationTime, '2026-03-01T13:00:00.000Z', 'creation time stays the first payment’s');
  t.equal(readModels.checkpoint('orders'), 8n);
});

t.test("an order's first event does not look its document up; a later event of the order does", async (t) => {
  const store = new MemoryEventStore();
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const tables = new SqliteReadModelTables(db);
  const readModels = new ReadModels(tables, store, [deferredOrders]);
  const lookups: string[] = [];
  // The tables are where a page's fold looks a document up (store/sqlite/read-model-tables.ts).
  const get = tables.get.bind(tables);
  tables.get = (projection: string, key: string): string | undefined => { lookups.push(`${projection} ${key}`); return get(projection, key); };

  t.equal(ordersProjection.isNew?.({ type: 'PaymentRecorded', data: {}, stream: 's', revision: 0n, position: 1n, created: '' }, 'k'), true, 'revision 0: new');
  t.equal(ordersProjection.isNew?.({ type: 'PaymentRecorded', data: {}, stream: 's', revision: 1n, position: 2n, created: '' }, 'k'), false, 'revision 1: not new');
  t.equal(tokensProjection.isNew?.({ type: 'TokenCreated', data: {}, stream: 's', revision: 0n, position: 1n, created: '' }, 'k'), true, "a token's TokenCreated at revision 0: new");
  t.equal(tokensProjection.isNew?.({ type: 'TokenCreated', data: {}, stream: 's', revision: 2n, position: 3n, created: '' }, 'k'), false, 'later: looked up');
  t.equal(tokensProjection.isNew?.({ type: 'PaymentRecorded', data: {}, stream: 'o', revision: 0n, position: 4n, created: '' }, 'k'), false, "an order's first payment names an existing token: looked up");

  const pay = (orderId: string, transactionId: string, totalAfter: number) => paymentRecorded({
    token: TOKEN_A, orderId, transactionId, amount: 100, totalAfter, timeOfRecord: `2026-03-01T11:00:0${totalAfter / 100}.000Z`,
  });
  await store.append(streams.order(MERCHANT, ORDER_1), [pay(ORDER_1, '1', 100)], { expectedRevision: 'no_stream' });
  await store.append(streams.order(MERCHANT, ORDER_2), [pay(ORDER_2, '1', 100)], { expectedRevision: 'no_stream' });
  await readModels.catchUp();
  t.same(lookups, [], 'two new orders: no lookup');

  await store.append(streams.order(MERCHANT, ORDER_1), [pay(ORDER_1, '2', 200)], { expectedRevision: 0n });
  await readModels.catchUp();
  t.same(lookups, [`orders ${orderKey(MERCHANT, ORDER_1)}`], 'the second payment of an order looks its document up');
  t.same(readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_1))?.transactions.map((x) => x.id), ['1', '2'], 'and adds to it');
  t.same(readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_2))?.transactions.map((x) => x.id), ['1']);
});

t.test('a payment for a token without a TokenCreated leaves no token document', async (t) => {
  const store = new MemoryEventStore();
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const readModels = new ReadModels(new SqliteReadModelTables(db), store, PROJECTIONS);
  await store.append(streams.order(MERCHANT, ORDER_1), [paymentRecorded({
    token: TOKEN_A, orderId: ORDER_1, transactionId: 'txn-1', amount: 100, totalAfter: 100, timeOfRecord: '2026-03-01T11:00:00.000Z',
  })]);
  await readModels.catchUp();
  t.same(readModels.all('tokens'), []);
  t.equal(readModels.all('orders').length, 1);
});

t.test('after a restart, read models resume from their checkpoint without re-applying', async (t) => {
  const path = newPath();
  const first = openGatewayLike(t, path, PROJECTIONS);
  await first.readModels.start();
  await appendHistory(first.store);
  await first.readModels.catchUp();
  const tokensBefore = first.readModels.all('tokens');
  const ordersBefore = first.readModels.all('orders');
  const head = await first.store.headPosition();
  t.equal(first.readModels.checkpoint('orders'), head);
  await first.close();

  const tokens = counting(tokensProjection);
  const orders = counting(ordersProjection);
  const second = openGatewayLike(t, path, [tokens.projection, orders.projection]);
  t.equal(second.readModels.checkpoint('tokens'), head, 'the checkpoint is durable');
  await second.readModels.start();
  t.equal(tokens.counter.evolved + orders.counter.evolved, 0, 'start() re-applies nothing');
  t.same(second.readModels.all('tokens'), tokensBefore, 'token documents unchanged');
  t.same(second.readModels.all('orders'), ordersBefore, 'order documents unchanged');

  await second.store.append(streams.order(MERCHANT, ORDER_1), [paymentRecorded({
    token: TOKEN_A, orderId: ORDER_1, transactionId: 'txn-3', amount: 100, totalAfter: 3100, timeOfRecord: '2026-03-02T09:00:00.000Z',
  })], { expectedRevision: 1n });
  await second.readModels.catchUp();
  t.equal(orders.counter.evolved, 1, 'only the new payment is folded into orders');
  t.same(second.readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_1))?.transactions.map((x) => x.id),
    ['txn-1', 'txn-2', 'txn-3'], 'no transaction twice');
  t.equal(second.readModels.get<TokenDoc>('tokens', tokenKey(REPO, TOKEN_A))?.usage.lastUsed, '2026-03-02T09:00:00.000Z');
  t.equal(second.readModels.checkpoint('tokens'), head + 1n);
});

t.test("changing a projection's version rebuilds that projection at start()", async (t) => {
  const path = newPath();
  const first = openGatewayLike(t, path, PROJECTIONS);
  await first.readModels.start();
  await appendHistory(first.store);
  await first.readModels.catchUp();
  const tokensBefore = first.readModels.all('tokens');
  const ordersBefore = first.readModels.all('orders');
  // Spoil one document of each model, so that a rebuild shows (and a skipped one too).
  first.store.db.prepare("UPDATE read_models SET doc = '{\"stale\":true}' WHERE projection = ?").run('orders');
  first.store.db.prepare("UPDATE read_models SET doc = '{\"stale\":true}' WHERE projection = ? AND key = ?").run('tokens', tokenKey(REPO, TOKEN_B));
  first.store.db.prepare("INSERT INTO read_models (projection, key, doc) VALUES ('orders', 'TESTMERCHANT01/orphan', '{}')").run();
  await first.close();

  const tokens = counting(tokensProjection);
  const orders = counting(ordersProjection, { version: ordersProjection.version + 1 });
  const second = openGatewayLike(t, path, [tokens.projection, orders.projection]);
  await second.readModels.start();
  t.equal(orders.counter.evolved, 3, 'every payment is folded again into the new version');
  t.equal(tokens.counter.evolved, 0, 'the unchanged projection is left alone');
  t.same(second.readModels.all('orders'), ordersBefore, 'orders rebuilt: spoiled and orphan documents gone');
  t.same(second.readModels.all('tokens').find((r) => r.key === tokenKey(REPO, TOKEN_B))?.doc, '{"stale":true}', 'tokens not rebuilt');
  t.notSame(second.readModels.all('tokens'), tokensBefore, 'so the spoiled token document is still spoiled');
  const head = await second.store.headPosition();
  t.equal(second.readModels.checkpoint('orders'), head);
  const row = second.store.db.prepare('SELECT version FROM projection_checkpoints WHERE name = ?').get('orders') as { version: number };
  t.equal(row.version, ordersProjection.version + 1, 'the new version is recorded');
  await second.close();

  const third = counting(ordersProjection, { version: ordersProjection.version + 1 });
  const again = openGatewayLike(t, path, [tokensProjection as Projection, third.projection]);
  await again.readModels.start();
  t.equal(third.counter.evolved, 0, 'the same version again: no second rebuild');
});

t.test('reset() then catchUp() rebuilds documents byte for byte', async (t) => {
  const path = newPath();
  const { store, readModels } = openGatewayLike(t, path, PROJECTIONS);
  await appendHistory(store);
  await store.append(streams.order(MERCHANT, ORDER_1), [paymentRecorded({
    token: TOKEN_A, orderId: ORDER_1, transactionId: 'txn-3', amount: 100, totalAfter: 3100, timeOfRecord: '2026-03-02T09:00:00.000Z',
  })]);
  await readModels.catchUp();
  const tokensBefore = readModels.all('tokens');
  const ordersBefore = readModels.all('orders');
  t.equal(ordersBefore.length, 2);
  const head = await store.headPosition();

  await readModels.reset(tokensProjection as Projection);
  await readModels.reset(deferredOrders);
  t.same(readModels.all('tokens'), [], 'reset drops the documents');
  t.same(readModels.all('orders'), []);
  t.equal(readModels.checkpoint('tokens'), 0n, 'and the checkpoint');
  await readModels.catchUp();
  t.strictSame(readModels.all('tokens'), tokensBefore, 'tokens: same keys, same JSON text');
  t.strictSame(readModels.all('orders'), ordersBefore, 'orders: same keys, same JSON text');
  t.equal(readModels.checkpoint('orders'), head);

  await readModels.reset(deferredOrders);
  t.equal(readModels.all('tokens').length, 2, 'resetting one projection leaves the other');
  t.equal(readModels.checkpoint('tokens'), head);
  await readModels.catchUp();
  t.strictSame(readModels.all('orders'), ordersBefore, 'one projection rebuilt alone');
  t.strictSame(readModels.all('tokens'), tokensBefore, 'the other not applied twice');
});

t.test('after start(), events appended by another process are picked up by the subscription', async (t) => {
  const path = newPath();
  const { store, readModels } = openGatewayLike(t, path, PROJECTIONS, 20);
  await appendHistory(store);
  await readModels.start();
  t.equal(readModels.checkpoint('tokens'), await store.headPosition(), 'start() catches up');

  const other = new SqliteEventStore(path, { pollIntervalMs: 20 });
  t.teardown(() => other.close());
  const tokenC = '9000000000000001';
  await other.append(streams.token(REPO, tokenC), [tokenCreated(tokenC)], { expectedRevision: 'no_stream' });
  await other.append(streams.order(MERCHANT, '10000000003'), [paymentRecorded({
    token: tokenC, orderId: '10000000003', transactionId: 'txn-1', amount: 4200, totalAfter: 4200, timeOfRecord: '2026-03-03T08:00:00.000Z',
  })], { expectedRevision: 'no_stream' });
  const key = orderKey(MERCHANT, '10000000003');
  await waitFor(() => readModels.get('orders', key) !== undefined && readModels.checkpoint('tokens') === 9n, 'the other process’s events');
  t.equal(readModels.get<TokenDoc>('tokens', tokenKey(REPO, tokenC))?.usage.lastUsed, '2026-03-03T08:00:00.000Z');
  t.equal(readModels.get<OrderDoc>('orders', key)?.totalCapturedAmount, 4200);
  t.equal(readModels.checkpoint('orders'), await other.headPosition());

  // And appends through this process's own store arrive without an explicit catchUp.
  await store.append(streams.order(MERCHANT, '10000000003'), [paymentRecorded({
    token: tokenC, orderId: '10000000003', transactionId: 'txn-2', amount: 800, totalAfter: 5000, timeOfRecord: '2026-03-03T09:00:00.000Z',
  })], { expectedRevision: 0n });
  await waitFor(() => readModels.get<OrderDoc>('orders', key)?.transactions.length === 2, 'the own store’s event');
  await sleep(60); // a few polls, which must apply nothing twice
  t.same(readModels.get<OrderDoc>('orders', key)?.transactions.map((x) => x.id), ['txn-1', 'txn-2'], 'each payment once');
  t.equal(readModels.get<OrderDoc>('orders', key)?.totalCapturedAmount, 5000);

  await readModels.stop();
  await other.append(streams.order(MERCHANT, '10000000003'), [paymentRecorded({
    token: tokenC, orderId: '10000000003', transactionId: 'txn-3', amount: 1, totalAfter: 5001, timeOfRecord: '2026-03-03T10:00:00.000Z',
  })], { expectedRevision: 1n });
  await sleep(80); // four poll intervals: nothing may be applied after stop()
  t.equal(readModels.get<OrderDoc>('orders', key)?.transactions.length, 2, 'stop() ends the subscription');
});

t.test('two read models sharing one file never apply an event twice', async (t) => {
  const path = newPath();
  const a = openGatewayLike(t, path, PROJECTIONS, 20);
  const b = openGatewayLike(t, path, PROJECTIONS, 20);
  await a.readModels.start();
  await b.readModels.start();
  await appendHistory(a.store);
  await Promise.all([a.readModels.catchUp(), b.readModels.catchUp()]);
  await waitFor(() => b.readModels.checkpoint('orders') === 7n, 'both caught up');
  await sleep(60); // a few polls, which must apply nothing twice
  t.same(a.readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_1))?.transactions.map((x) => x.id), ['txn-1', 'txn-2']);
  t.same(a.readModels.all('orders'), b.readModels.all('orders'), 'one set of documents');
});

t.test('with the commit listener, read models commit with the events: current when the append resolves, equal to a rebuild', async (t) => {
  const path = newPath();
  const { store, readModels } = openGatewayLike(t, path, PROJECTIONS);
  await readModels.start();
  store.setCommitListener(readModels.commitListener());
  await appendHistory(store);
  // No catchUp(): every checkpoint already stands at the head, in the same commits as the events.
  const head = await store.headPosition();
  t.equal(readModels.checkpoint('orders'), head, 'orders checkpoint at the head');
  t.equal(readModels.checkpoint('tokens'), head, 'tokens checkpoint at the head');
  t.same(readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_1))?.transactions.map((x) => x.id), ['txn-1', 'txn-2']);
  const live = readModels.hash();
  await readModels.rebuild();
  t.equal(readModels.hash(), live, 'the same documents as a replay of the log');

  // A second process's events leave this process's checkpoint behind them: the listener does not
  // apply past the gap (the events of the other process would be skipped); the catch-up does.
  const other = new SqliteEventStore(path);
  t.teardown(() => other.close());
  await other.append(streams.order(MERCHANT, '9100000001'), [paymentRecorded({
    token: TOKEN_A, orderId: '9100000001', transactionId: 'txn-1', amount: 100, totalAfter: 100, timeOfRecord: '2026-03-02T10:00:00.000Z',
  })]);
  await store.append(streams.order(MERCHANT, '9100000002'), [paymentRecorded({
    token: TOKEN_B, orderId: '9100000002', transactionId: 'txn-1', amount: 200, totalAfter: 200, timeOfRecord: '2026-03-02T10:01:00.000Z',
  })]);
  await readModels.catchUp();
  t.ok(readModels.get<OrderDoc>('orders', orderKey(MERCHANT, '9100000001')), "the other process's order");
  t.ok(readModels.get<OrderDoc>('orders', orderKey(MERCHANT, '9100000002')), 'this process order');
  t.equal(readModels.checkpoint('orders'), await store.headPosition());
  const caughtUp = readModels.hash();
  await readModels.rebuild();
  t.equal(readModels.hash(), caughtUp, 'still equal to a replay');
});

t.test('far behind the head, start() and rebuild() read the log ahead on a worker thread: the same documents', async (t) => {
  const path = newPath();
  const store = new SqliteEventStore(path);
  t.teardown(() => store.close());
  await appendHistory(store);
  for (let i = 0; i < 30; i++) {
    const orderId = String(9200000000 + i);
    await store.append(streams.order(MERCHANT, orderId), [paymentRecorded({
      token: i % 2 ? TOKEN_A : TOKEN_B, orderId, transactionId: 'txn-1', amount: 100 + i, totalAfter: 100 + i, timeOfRecord: `2026-03-03T10:00:${String(i).padStart(2, '0')}.000Z`,
    })]);
  }
  // Page by page (no reading ahead): the reference.
  const reference = new ReadModels(new SqliteReadModelTables(store.db), store, PROJECTIONS, { page: 2, feed: { ...feedOf(store), readPagesAhead: undefined } });
  await reference.catchUp();
  const tokens = reference.all('tokens');
  const orders = reference.all('orders');
  t.equal(orders.length, 32);

  let aheadCalls = 0;
  const counted: ProjectionFeed = { ...feedOf(store), readPagesAhead: (o) => { aheadCalls += 1; return store.readPagesAhead!(o); } };
  for (const p of PROJECTIONS) await reference.reset(p);
  const readModels = new ReadModels(new SqliteReadModelTables(store.db), store, PROJECTIONS, { page: 2, feed: counted });
  await readModels.start();
  t.equal(aheadCalls, 1, '37 events behind, pages of 2: start() read ahead');
  t.strictSame(readModels.all('tokens'), tokens, 'tokens: same keys, same JSON text');
  t.strictSame(readModels.all('orders'), orders, 'orders: same keys, same JSON text');
  t.equal(readModels.checkpoint('orders'), await store.headPosition());
  await readModels.stop();

  const result = await readModels.rebuild({ untilPosition: 20n });
  t.equal(aheadCalls, 2, 'rebuild() reads ahead too');
  t.equal(result.events, 20, 'up to untilPosition, not past it');
  t.equal(readModels.checkpoint('orders'), 20n);
  await readModels.rebuild();
  t.strictSame(readModels.all('orders'), orders, 'a whole rebuild: the same documents');

  const restarted = new ReadModels(new SqliteReadModelTables(store.db), store, PROJECTIONS, { page: 2, feed: counted });
  await store.append(streams.order(MERCHANT, '9300000000'), [paymentRecorded({
    token: TOKEN_A, orderId: '9300000000', transactionId: 'txn-1', amount: 1, totalAfter: 1, timeOfRecord: '2026-03-04T10:00:00.000Z',
  })]);
  await restarted.start();
  t.equal(aheadCalls, 3, 'one event behind: page by page, no thread (the two rebuilds made calls 2 and 3)');
  t.ok(restarted.get<OrderDoc>('orders', orderKey(MERCHANT, '9300000000')), 'and the event applied');
  await restarted.stop();
});

t.test('a projection that throws inside the commit undoes only its own writes: the events commit, a later catch-up applies them', async (t) => {
  const path = newPath();
  let failures = 1;
  const fragile: Projection<{ count: number }> = {
    name: 'fragile',
    version: 1,
    handles: new Set(['PaymentRecorded']),
    keysOf: () => ['all'],
    evolve: (doc) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('projection bug');
      }
      return { count: (doc?.count ?? 0) + 1 };
    },
  };
  const { store, readModels } = openGatewayLike(t, path, [...PROJECTIONS, fragile as Projection]);
  await readModels.start();
  store.setCommitListener(readModels.commitListener());
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  t.teardown(() => { process.off('warning', onWarning); });
  await store.append(streams.order(MERCHANT, ORDER_1), [paymentRecorded({
    token: TOKEN_A, orderId: ORDER_1, transactionId: 'txn-1', amount: 2500, totalAfter: 2500, timeOfRecord: '2026-03-01T11:00:00.000Z',
  })]);
  t.equal((await store.readStream(streams.order(MERCHANT, ORDER_1))).length, 1, 'the event committed');
  t.equal(readModels.checkpoint('orders'), 0n, 'no projection advanced (one savepoint for all)');
  await waitFor(() => warnings.length > 0, 'the warning');
  t.match(warnings[0], /commit listener failed/);
  await readModels.catchUp();
  t.same(readModels.get<{ count: number }>('fragile', 'all'), { count: 1 }, 'the catch-up applied it');
  t.equal(readModels.checkpoint('orders'), 1n);
});

t.test("a catch-up leaves the connection's synchronous setting as it found it (NORMAL under group durability)", async (t) => {
  const path = newPath();
  const { store, readModels } = openGatewayLike(t, path, PROJECTIONS);
  await readModels.start();
  const other = new SqliteEventStore(path);
  t.teardown(() => other.close());
  t.equal(store.db.pragma('synchronous', { simple: true }), 1, 'NORMAL before');
  await appendHistory(other);
  await readModels.catchUp();
  t.ok(readModels.get<OrderDoc>('orders', orderKey(MERCHANT, ORDER_1)), 'the catch-up applied the other connection events');
  t.equal(store.db.pragma('synchronous', { simple: true }), 1, 'NORMAL after');
  const full = new SqliteEventStore(newPath(), { durability: 'commit' });
  t.teardown(() => full.close());
  const models = new ReadModels(new SqliteReadModelTables(full.db), full, PROJECTIONS, { page: 2 });
  await appendHistory(full);
  await models.catchUp();
  t.equal(full.db.pragma('synchronous', { simple: true }), 2, 'FULL stays FULL');
  t.equal(models.checkpoint('orders'), await full.headPosition(), 'pages of two events reach the head');
});
