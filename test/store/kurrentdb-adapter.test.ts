// The KurrentDB adapter's own logic (store/kurrentdb.ts, kurrentdb-subscription.ts) against an
// in-memory stand-in of the client (kurrentdb.fixture.ts): translation at the boundary, the
// port's idempotency on top of the server's weaker one, $all without system events, exclusive
// positions over inclusive reads, stream prefixes, the subscription. No server is involved: the
// contract suite against a real KurrentDB is kurrentdb.test.ts (needs KURRENTDB_URL).
import t from 'tap';
import { IdempotencyConflictError, WrongExpectedRevisionError, type RecordedEvent } from '../../store/event-store.js';
import { KurrentDbEventStore } from '../../store/kurrentdb.js';
import { sleep, waitFor } from '../helpers/poll.js';
import { events, expectWrongRevision, newEvent, rejection } from './contract.js';
import { FakeKurrentClient } from './kurrentdb.fixture.js';

const open = (prefix?: string, fake = new FakeKurrentClient()) => ({
  fake, store: new KurrentDbEventStore(fake.asClient(), prefix === undefined ? {} : { streamPrefix: prefix }),
});
const ours = (fake: FakeKurrentClient) => fake.log.filter((r) => !r.type.startsWith('$'));

t.test('events round-trip with commit positions as our positions, system events left out', async (t) => {
  const { fake, store } = open();
  const batch = events(3, 'TokenCreated');
  batch[0]!.metadata.causationId = 'request-1';
  const appended = await store.append('token-REPO01-9001', batch, { expectedRevision: 'no_stream' });
  await store.append('order-M-1', events(2));
  const read = await store.readStream('token-REPO01-9001');
  t.same(read.map((e) => [e.id, e.type, e.data, e.metadata]), batch.map((e) => [e.id, e.type, e.data, e.metadata]),
    'ids, types, data and metadata exactly as appended (the $correlationId/$causationId copies are not surfaced)');
  t.same(read.map((e) => e.revision), [0n, 1n, 2n]);
  const stored = ours(fake).slice(0, 3);
  t.same(read.map((e) => e.position), stored.map((r) => r.position), 'position = KurrentDB commit position');
  t.ok(read[0]!.position > 1n, 'so positions are sparse log offsets, not 1, 2, 3');
  t.equal(appended.position, read[2]!.position, 'the append returns its last event position');
  t.same(JSON.parse(stored[0]!.metadata), { ...batch[0]!.metadata, $correlationId: batch[0]!.metadata.correlationId, $causationId: 'request-1' },
    'stored metadata carries the reserved members too');
  t.notOk('$causationId' in JSON.parse(stored[1]!.metadata), 'no $causationId without a causation id');

  t.ok(fake.log.some((r) => r.type.startsWith('$')), 'the log holds system events');
  const all = await store.readAll();
  t.same(all.map((e) => `${e.stream}@${e.revision}`),
    ['token-REPO01-9001@0', 'token-REPO01-9001@1', 'token-REPO01-9001@2', 'order-M-1@0', 'order-M-1@1'], '$all: ours only, in order');
  t.equal(await store.headPosition(), all.at(-1)!.position);
});

t.test('conflicts become WrongExpectedRevisionError with our stream name and expected revision', async (t) => {
  const { store } = open('run1-');
  await store.append('order-1', events(3));
  await expectWrongRevision(t, store.append('order-1', events(1), { expectedRevision: 'no_stream' }),
    { stream: 'order-1', expected: 'no_stream', actual: 2n }, "'no_stream' on an existing stream");
  await expectWrongRevision(t, store.append('order-2', events(1), { expectedRevision: 'stream_exists' }),
    { stream: 'order-2', expected: 'stream_exists', actual: 'no_stream' }, "'stream_exists' on a missing stream");
  await expectWrongRevision(t, store.append('order-1', events(1), { expectedRevision: 1n }),
    { stream: 'order-1', expected: 1n, actual: 2n }, 'a stale revision');
  const settled = await Promise.allSettled(Array.from({ length: 5 }, () => store.append('order-1', events(1), { expectedRevision: 2n })));
  t.equal(settled.filter((s) => s.status === 'fulfilled').length, 1, 'one of five concurrent writers wins');
  t.ok(settled.every((s) => s.status === 'fulfilled' || (s.reason instanceof WrongExpectedRevisionError && s.reason.actual === 3n)));
});

t.test('the port’s idempotency holds where the server’s would write duplicates', async (t) => {
  const { fake, store } = open();
  const batch = events(2);
  const first = await store.append('pay-1', batch, { expectedRevision: 'no_stream' });
  await store.append('pay-1', events(1), { expectedRevision: 1n });
  const repeat = await store.append('pay-1', batch, { expectedRevision: 2n });
  t.equal(repeat.position, first.position, 'a repeat at the current revision (the server would append copies) is a no-op');
  t.equal(repeat.nextExpectedRevision, 2n, 'reporting the stream’s revision now');
  const fresh = newEvent();
  t.type(await rejection(t, store.append('pay-1', [fresh, batch[1]!], { expectedRevision: 2n }), 'partial'), IdempotencyConflictError);
  t.type(await rejection(t, store.append('pay-1', [batch[0]!, fresh]), 'partial, any'), IdempotencyConflictError);
  t.equal(ours(fake).length, 3, 'nothing was written');

  const twice = newEvent();
  const [a, b] = await Promise.all([
    store.append('pay-2', [twice], { expectedRevision: 'no_stream' }),
    store.append('pay-2', [twice], { expectedRevision: 'no_stream' }),
  ]);
  t.equal(a.position, b.position, 'two concurrent identical appends: both answer the one position');
  t.equal((await store.readStream('pay-2')).length, 1, 'one copy');
});

t.test('readAll: exclusive positions and exact pages over inclusive, filtered reads', async (t) => {
  const { store } = open();
  for (let i = 0; i < 12; i++) await store.append(`page-${i % 3}`, events(1));
  const all = await store.readAll();
  t.equal(all.length, 12);
  t.same((await store.readAll({ fromPosition: all[4]!.position })).map((e) => e.id), all.slice(5).map((e) => e.id), 'after the position');
  const pages: RecordedEvent[][] = [];
  for (let from = 0n; ;) {
    const page = await store.readAll({ fromPosition: from, maxCount: 5 });
    if (page.length === 0) break;
    pages.push(page);
    from = page.at(-1)!.position;
  }
  t.same(pages.map((p) => p.length), [5, 5, 2], 'full pages until the last, so a pager never stops early');
  t.same(await store.readAll({ fromPosition: await store.headPosition() }), []);
  t.same(await store.readAll({ maxCount: 0 }), []);
});

t.test('readStream: bounds, time travel, a missing stream', async (t) => {
  const { store } = open();
  await store.append('range-1', events(5));
  const revs = async (o: Parameters<KurrentDbEventStore['readStream']>[1]) => (await store.readStream('range-1', o)).map((e) => e.revision);
  t.same(await revs({ fromRevision: 1n, untilRevision: 3n }), [1n, 2n, 3n]);
  t.same(await revs({ fromRevision: 4n, untilRevision: 2n }), []);
  t.same(await revs({ untilTime: new Date(Date.now() - 60_000) }), []);
  t.same(await revs({ untilTime: new Date(Date.now() + 60_000) }), [0n, 1n, 2n, 3n, 4n]);
  t.same(await store.readStream('nope'), [], 'StreamNotFoundError is an empty stream');
});

t.test('stores with different stream prefixes on one node do not see each other', async (t) => {
  const fake = new FakeKurrentClient();
  const a = open('runA-', fake).store;
  const b = open('runB-', fake).store;
  await a.append('order-1', events(2));
  t.equal(await b.headPosition(), 0n, 'an empty prefix is an empty store');
  t.same(await b.readAll(), []);
  t.same(await b.readStream('order-1'), []);
  await b.append('order-1', events(1), { expectedRevision: 'no_stream' });
  t.same((await a.readAll()).map((e) => e.stream), ['order-1', 'order-1'], 'the prefix is invisible to callers');
  t.ok(fake.log.some((r) => r.streamId === 'runB-order-1'), 'and on the server');
});

t.test('subscribeAll: catch up, caught up once, live, from a position, close', async (t) => {
  const { fake, store } = open();
  await store.append('sub-1', events(3));
  const from = (await store.readAll())[0]!.position;
  const received: RecordedEvent[] = [];
  let caughtUpCalls = 0;
  const sub = store.subscribeAll({ fromPosition: from }, {
    async onEvent(e) { received.push(e); await sleep(1); }, // a handler that takes time, as a real one does
    onCaughtUp: () => { caughtUpCalls++; },
  });
  await sub.caughtUp;
  t.equal(received.length, 2, 'caught up once the events after the position went through the handler');
  await store.append('sub-2', events(2));
  await waitFor(() => received.length === 4, 'live events');
  t.same(received.map((e) => e.position), (await store.readAll({ fromPosition: from })).map((e) => e.position), 'in order, once');
  t.equal(caughtUpCalls, 1);
  await sub.close();
  await store.append('sub-1', events(1));
  await sleep(20); // nothing may arrive after close(): waiting is the test
  t.equal(received.length, 4, 'close() stops delivery');
  await store.close();
  t.ok(fake.disposed, 'close() disposes the client');
});

t.test('a dropped subscription resubscribes after its last event: nothing lost, nothing repeated', async (t) => {
  const { fake, store } = open();
  await store.append('drop-1', events(5));
  fake.failSubscriptionsAfter = 2;
  const received: RecordedEvent[] = [];
  const errors: unknown[] = [];
  const sub = store.subscribeAll({}, { onEvent: (e) => { received.push(e); }, onError: (e) => { errors.push(e); } });
  t.teardown(() => sub.close());
  await waitFor(() => received.length >= 4, 'events across a reconnection');
  fake.failSubscriptionsAfter = undefined;
  await waitFor(() => received.length >= 5, 'the rest');
  await store.append('drop-2', events(1));
  await waitFor(() => received.length >= 6, 'a live event after reconnecting');
  t.ok(fake.subscriptionsOpened >= 3, `resubscribed (${fake.subscriptionsOpened} subscriptions)`);
  t.same(received.map((e) => e.id), (await store.readAll()).map((e) => e.id), 'exactly the log, in order');
  t.same(errors, [], 'a transient drop is not reported as an error');
});

t.test('an append carrying a condition is refused, nothing written, and no unconfirmed read is offered (promise 8)', async (t) => {
  const { fake, store } = open();
  await store.append('token-1', events(1));
  const error = await rejection(t, store.append('order-1', events(1), { condition: { stream: 'token-1', revision: 0n } }), 'a conditioned append');
  t.match(String(error), /kurrentdb: append conditions are not supported/);
  t.same(await store.readStream('order-1'), [], 'nothing written');
  t.equal(ours(fake).length, 1);
  t.equal((store as { readStreamUnconfirmed?: unknown }).readStreamUnconfirmed, undefined, 'callers never have a read to condition on');
});
