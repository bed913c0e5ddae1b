// The pending-work read model (projections/pending.ts): a document while a payment answered
// UNKNOWN waits for its resolution or a scheme token has a next action due, none otherwise; and
// a store written before this model existed gets it at start-up, so the reactors still find
// their work.
import { join } from 'node:path';
import t from 'tap';
import { PENDING_PAYMENT, PENDING_SCHEME_TOKEN, pendingPaymentKey, pendingProjection, type PendingDoc } from '../../projections/pending.js';
import { ordersProjection } from '../../projections/orders.js';
import type { Projection } from '../../projections/projection.js';
import { ReadModels } from '../../projections/read-models.js';
import { tokensProjection } from '../../projections/tokens.js';
import type { ProjectedEvent } from '../../store/event-store.js';
import { SqliteEventStore, SqliteReadModelTables } from '../../store/sqlite.js';

let position = 0n;
const event = (stream: string, type: string, data: Record<string, unknown>): ProjectedEvent =>
  ({ type, data, stream, revision: 0n, position: ++position, created: '2026-03-01T10:00:00.000Z' });

/** The documents after folding `events`, as ReadModels folds them (keysOf, then evolve). */
function fold(events: readonly ProjectedEvent[]): Map<string, PendingDoc> {
  const docs = new Map<string, PendingDoc>();
  for (const e of events) {
    if (!pendingProjection.handles.has(e.type)) continue;
    for (const key of pendingProjection.keysOf(e)) {
      const after = pendingProjection.evolve(docs.get(key), e, key);
      if (after === undefined) docs.delete(key);
      else docs.set(key, after);
    }
  }
  return docs;
}

const ORDER = 'order-M1:1001';
const TOKEN = 'token-REPO01:9123456789012345';
const payment = (transactionId: string, result: string) =>
  event(ORDER, 'PaymentRecorded', {
    merchantId: 'M1', orderId: '1001', transactionId, repositoryId: 'REPO01', token: '9123456789012345',
    card: { number: '512345xxxxxx0008', brand: 'MASTERCARD' }, amount: 100, currency: 'USD', orderStatus: 'AUTHORIZED',
    totalsAfter: { authorized: 0, captured: 0, refunded: 0 }, timeOfRecord: '2026-03-01T10:00:01.000Z',
    outcome: { result, gatewayCode: result === 'UNKNOWN' ? 'UNKNOWN' : 'APPROVED' },
  });
const resolved = (transactionId: string) => event(ORDER, 'PaymentOutcomeResolved', { merchantId: 'M1', orderId: '1001', transactionId, result: 'SUCCESS' });
const schemeToken = (nextActionAt?: string) => ({ status: 'PROVISIONING', ...(nextActionAt ? { nextActionAt } : {}) });

t.test('an UNKNOWN payment is pending until its PaymentOutcomeResolved; other outcomes never are', async (t) => {
  t.same([...fold([payment('t1', 'SUCCESS'), payment('t2', 'FAILURE')]).keys()], [], 'approved and declined payments: nothing');
  t.same([...fold([payment('t1', 'UNKNOWN'), payment('t2', 'UNKNOWN'), payment('t3', 'SUCCESS')])], [
    [pendingPaymentKey(ORDER, 't1'), { stream: ORDER, transactionId: 't1' }],
    [pendingPaymentKey(ORDER, 't2'), { stream: ORDER, transactionId: 't2' }],
  ], 'one document per UNKNOWN transaction, naming its order stream');
  t.same([...fold([payment('t1', 'UNKNOWN'), payment('t2', 'UNKNOWN'), resolved('t1')]).keys()], [pendingPaymentKey(ORDER, 't2')], 'a resolution removes only its transaction');
});

t.test('a scheme token is pending while its events carry a nextActionAt', async (t) => {
  const created = event(TOKEN, 'TokenCreated', { schemeToken: schemeToken('2026-03-01T10:00:02.000Z') });
  t.same([...fold([created])], [[`${PENDING_SCHEME_TOKEN}${TOKEN}`, { stream: TOKEN, nextActionAt: '2026-03-01T10:00:02.000Z' }]]);
  t.same([...fold([event(TOKEN, 'TokenCreated', {})]).keys()], [], 'no scheme token: nothing');
  t.same([...fold([created, event(TOKEN, 'TokenUpdated', { card: {} })]).keys()], [`${PENDING_SCHEME_TOKEN}${TOKEN}`], 'an update without a scheme token leaves the work');
  t.same([...fold([created, event(TOKEN, 'SchemeTokenStatusChanged', { schemeToken: { status: 'ACTIVE' } })]).keys()], [], 'done: no next action');
  t.equal(fold([created, event(TOKEN, 'SchemeTokenStatusChanged', { schemeToken: schemeToken('2026-03-01T10:00:04.000Z') })]).get(`${PENDING_SCHEME_TOKEN}${TOKEN}`)?.nextActionAt,
    '2026-03-01T10:00:04.000Z', 'a retry moves the due time');
  t.same([...fold([created, event(TOKEN, 'TokenUpdated', { schemeToken: { status: 'ACTIVE' } })]).keys()], [], 'an update with a finished scheme token ends it');
  t.same([...fold([created, event(TOKEN, 'TokenDeleted', {})]).keys()], [], 'a deleted token has no work left');
});

t.test('a store written before the pending model existed gets it at start-up', async (t) => {
  const path = join(t.testdir(), 'gateway.db');
  const store = new SqliteEventStore(path);
  t.teardown(() => store.close());
  const data = (e: ProjectedEvent) => ({ id: crypto.randomUUID(), type: e.type, data: e.data, metadata: { correlationId: 'c', recordedAt: e.created } });
  await store.append(ORDER, [data(payment('t1', 'UNKNOWN'))]);
  await store.append(TOKEN, [data(event(TOKEN, 'TokenCreated', { merchantId: 'M1', repositoryId: 'REPO01', token: '9123456789012345', sourceOfFunds: { type: 'CARD', card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', expiry: { month: 1, year: 39 } } }, schemeToken: schemeToken('2026-03-01T10:00:02.000Z'), createdAt: '2026-03-01T10:00:00.000Z', status: 'VALID' }))]);
  const before = new ReadModels(new SqliteReadModelTables(store.db), store, [tokensProjection as Projection, ordersProjection as Projection]);
  await before.start();
  await before.stop();
  t.same(before.all('pending'), [], 'the older set of models: no pending documents');

  const after = new ReadModels(new SqliteReadModelTables(store.db), store, [tokensProjection as Projection, ordersProjection as Projection, pendingProjection as Projection]);
  await after.start();
  t.teardown(() => after.stop());
  t.same(after.withPrefix('pending', PENDING_PAYMENT).map((r) => r.key), [pendingPaymentKey(ORDER, 't1')], 'the UNKNOWN payment');
  t.same(after.withPrefix('pending', PENDING_SCHEME_TOKEN).map((r) => r.key), [`${PENDING_SCHEME_TOKEN}${TOKEN}`], 'the provisioning scheme token');
  t.equal(after.checkpoint('pending'), await store.headPosition());
});
