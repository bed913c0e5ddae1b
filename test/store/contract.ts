// The event store contract: one suite that every adapter of store/event-store.ts must pass.
// Not a test file by itself: test/store/<adapter>.test.ts runs it against an adapter.
import { randomUUID } from 'node:crypto';
import type { Test } from 'tap';
import { sleep, waitFor } from '../helpers/poll.js';
import { conditionContract } from './contract-conditions.js';
import {
  IdempotencyConflictError, WrongExpectedRevisionError,
  type EventData, type EventStore, type ExpectedRevision, type RecordedEvent,
} from '../../store/event-store.js';

export interface StoreHarness {
  store: EventStore;
  /** Open the same data again. The contract closes `store` before calling it. */
  reopen?: () => Promise<EventStore>;
}

export interface ContractOptions {
  /** The adapter keeps its data across close and reopen: makeStore must return `reopen`. */
  durable?: boolean;
  /** Known bugs of an adapter, by contract test, each marked todo with its description. */
  todo?: Partial<Record<'readIsolation', string>>;
  /** false: the adapter cannot check an append's condition atomically and refuses one (promise 8). */
  conditions?: boolean;
}


export function newEvent(type = 'ThingHappened', data: unknown = { n: Math.random() }): EventData {
  return {
    id: randomUUID(),
    type,
    data,
    metadata: { correlationId: randomUUID(), merchantId: 'TESTMERCHANT01', recordedAt: new Date().toISOString() },
  };
}

export const events = (count: number, type = 'ThingHappened') =>
  Array.from({ length: count }, (_, i) => newEvent(type, { i }));

/** The error an append is rejected with (fails the test when it resolves). */
export async function rejection(t: Test, append: Promise<unknown>, what: string): Promise<unknown> {
  try {
    const value = await append;
    t.fail(`${what}: expected a rejection, got ${String(value)}`);
    return undefined;
  } catch (error) {
    return error;
  }
}

export async function expectWrongRevision(
  t: Test, append: Promise<unknown>,
  expected: { stream: string; expected: ExpectedRevision; actual: bigint | 'no_stream' },
  what: string,
): Promise<void> {
  const error = await rejection(t, append, what);
  if (!(error instanceof WrongExpectedRevisionError)) {
    t.fail(`${what}: expected a WrongExpectedRevisionError, got ${String(error)}`);
    return;
  }
  t.equal(error.name, 'WrongExpectedRevisionError', `${what}: name`);
  t.equal(error.stream, expected.stream, `${what}: stream`);
  t.equal(error.expected, expected.expected, `${what}: expected`);
  t.equal(error.actual, expected.actual, `${what}: actual`);
}

const summary = (e: RecordedEvent) => ({ id: e.id, stream: e.stream, revision: e.revision, position: e.position });

function strictlyIncreasing(t: Test, list: readonly RecordedEvent[], what: string): void {
  const bad = list.findIndex((e, i) => i > 0 && e.position <= (list[i - 1] as RecordedEvent).position);
  t.equal(bad, -1, `${what}: positions strictly increase`);
}

export function eventStoreContract(t: Test, makeStore: () => Promise<StoreHarness>, options: ContractOptions = {}): void {
  const open = async (t: Test): Promise<StoreHarness> => {
    const harness = await makeStore();
    t.teardown(() => harness.store.close());
    return harness;
  };

  t.test('an append to a new stream reads back with revisions from 0 and increasing positions', async (t) => {
    const { store } = await open(t);
    t.equal(await store.headPosition(), 0n, 'an empty store has head position 0');
    t.same(await store.readAll(), [], 'an empty store has an empty log');

    const before = Date.now();
    const first = events(3, 'AccountOpened');
    const r1 = await store.append('account-1', first, { expectedRevision: 'no_stream' });
    const after = Date.now();
    t.equal(r1.nextExpectedRevision, 2n, 'next expected revision is the last revision');

    const read = await store.readStream('account-1');
    t.equal(read.length, 3);
    t.same(read.map((e) => e.revision), [0n, 1n, 2n], 'revisions 0..n');
    t.same(read.map((e) => e.id), first.map((e) => e.id), 'ids kept, in order');
    t.same(read.map((e) => e.type), first.map((e) => e.type));
    t.same(read.map((e) => e.data), first.map((e) => e.data), 'data round-trips');
    t.same(read.map((e) => e.metadata), first.map((e) => e.metadata), 'metadata round-trips');
    t.ok(read.every((e) => e.stream === 'account-1'), 'every event names its stream');
    t.equal(read[0]?.position, 1n, 'the log starts at position 1');
    strictlyIncreasing(t, read, 'one stream');
    t.equal(r1.position, read[2]?.position, 'the append returns the position of its last event');
    for (const e of read) {
      t.match(e.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'created is ISO 8601');
      const ms = Date.parse(e.created);
      t.ok(ms >= before - 1 && ms <= after + 1, `created ${e.created} is the commit time`);
    }

    const r2 = await store.append('account-2', events(2));
    const r3 = await store.append('account-1', events(1), { expectedRevision: 2n });
    t.equal(r2.nextExpectedRevision, 1n);
    t.equal(r3.nextExpectedRevision, 3n);
    t.ok(r2.position > r1.position && r3.position > r2.position, 'positions increase across streams');
    t.same((await store.readStream('account-1')).map((e) => e.revision), [0n, 1n, 2n, 3n]);
    t.same((await store.readStream('account-2')).map((e) => e.revision), [0n, 1n]);

    const all = await store.readAll();
    t.equal(all.length, 6, 'every event is in $all');
    strictlyIncreasing(t, all, '$all');
    t.same(all.map((e) => `${e.stream}@${e.revision}`),
      ['account-1@0', 'account-1@1', 'account-1@2', 'account-2@0', 'account-2@1', 'account-1@3'], '$all is in append order');
    t.equal(await store.headPosition(), r3.position, 'head is the last position');
  });

  t.test('data is copied in: changing the appended objects afterwards changes nothing', async (t) => {
    const { store } = await open(t);
    const data = { amount: 2500, currency: 'USD', nested: { list: [1, 'two', null, { ü: 'ünïcødé ✓' }] }, flag: false };
    const event = newEvent('Nested', data);
    await store.append('copy-1', [event]);
    data.amount = 1;
    data.nested.list.push('late');
    event.metadata.correlationId = 'changed';
    const [read] = await store.readStream('copy-1');
    t.same(read?.data, { amount: 2500, currency: 'USD', nested: { list: [1, 'two', null, { ü: 'ünïcødé ✓' }] }, flag: false });
    t.not(read?.metadata.correlationId, 'changed');
  });

  // A store may hand out copies (changes stay the reader's) or frozen events (a change throws,
  // as the SQLite store's cached events do); either way history is never rewritten.
  t.test('data is copied out or frozen: changing an event read back does not rewrite history', { todo: options.todo?.readIsolation ?? false }, async (t) => {
    const { store } = await open(t);
    await store.append('iso-1', [newEvent('Nested', { amount: 2500, tags: ['a'] })]);
    const [first] = await store.readStream('iso-1');
    const change = (what: () => void) => {
      try {
        what();
      } catch (error) {
        t.type(error, TypeError, 'a frozen event refuses the change');
      }
    };
    change(() => { (first?.data as { amount: number; tags: string[] }).amount = 1; });
    change(() => { (first?.data as { amount: number; tags: string[] }).tags.push('b'); });
    const [fromAll] = await store.readAll();
    t.same(fromAll?.data, { amount: 2500, tags: ['a'] }, 'readAll still returns the committed data');
    const [again] = await store.readStream('iso-1');
    t.same(again?.data, { amount: 2500, tags: ['a'] }, 'readStream still returns the committed data');
  });

  t.test('every expectedRevision form succeeds when it matches', async (t) => {
    const { store } = await open(t);
    t.equal((await store.append('s-no-stream', events(1), { expectedRevision: 'no_stream' })).nextExpectedRevision, 0n, "'no_stream' on a new stream");
    t.equal((await store.append('s-any', events(1), { expectedRevision: 'any' })).nextExpectedRevision, 0n, "'any' on a new stream");
    t.equal((await store.append('s-any', events(2), { expectedRevision: 'any' })).nextExpectedRevision, 2n, "'any' on an existing stream");
    t.equal((await store.append('s-default', events(1))).nextExpectedRevision, 0n, 'no option means any (new stream)');
    t.equal((await store.append('s-default', events(1))).nextExpectedRevision, 1n, 'no option means any (existing stream)');
    t.equal((await store.append('s-no-stream', events(1), { expectedRevision: 'stream_exists' })).nextExpectedRevision, 1n, "'stream_exists' on an existing stream");
    t.equal((await store.append('s-no-stream', events(2), { expectedRevision: 1n })).nextExpectedRevision, 3n, 'the exact current revision');
    t.equal((await store.append('s-no-stream', events(1), { expectedRevision: 3n })).nextExpectedRevision, 4n, 'the revision returned by the last append');
    t.same((await store.readStream('s-no-stream')).map((e) => e.revision), [0n, 1n, 2n, 3n, 4n]);
    t.equal((await store.readAll()).length, 10);
  });

  t.test('every expectedRevision form fails with WrongExpectedRevisionError when it does not match', async (t) => {
    const { store } = await open(t);
    await store.append('order-1', events(3));
    const head = await store.headPosition();

    await expectWrongRevision(t, store.append('order-1', events(1), { expectedRevision: 'no_stream' }),
      { stream: 'order-1', expected: 'no_stream', actual: 2n }, "'no_stream' on an existing stream");
    await expectWrongRevision(t, store.append('order-2', events(1), { expectedRevision: 'stream_exists' }),
      { stream: 'order-2', expected: 'stream_exists', actual: 'no_stream' }, "'stream_exists' on a missing stream");
    await expectWrongRevision(t, store.append('order-2', events(1), { expectedRevision: 0n }),
      { stream: 'order-2', expected: 0n, actual: 'no_stream' }, 'a revision on a missing stream');
    await expectWrongRevision(t, store.append('order-1', events(1), { expectedRevision: 1n }),
      { stream: 'order-1', expected: 1n, actual: 2n }, 'a stale revision');
    await expectWrongRevision(t, store.append('order-1', events(1), { expectedRevision: 0n }),
      { stream: 'order-1', expected: 0n, actual: 2n }, 'an older stale revision');
    await expectWrongRevision(t, store.append('order-1', events(1), { expectedRevision: 7n }),
      { stream: 'order-1', expected: 7n, actual: 2n }, 'a revision from the future');

    t.equal(await store.headPosition(), head, 'no failed append wrote anything');
    t.equal((await store.readStream('order-1')).length, 3);
    t.same(await store.readStream('order-2'), []);
  });

  t.test('a bigint revision goes stale after another append', async (t) => {
    const { store } = await open(t);
    const { nextExpectedRevision } = await store.append('cart-1', events(2), { expectedRevision: 'no_stream' });
    t.equal(nextExpectedRevision, 1n);
    // A writer that read revision 1 appends first; a second writer holding the same revision loses.
    await store.append('cart-1', events(1), { expectedRevision: nextExpectedRevision });
    await expectWrongRevision(t, store.append('cart-1', events(1), { expectedRevision: nextExpectedRevision }),
      { stream: 'cart-1', expected: 1n, actual: 2n }, 'the second writer');
    t.equal((await store.readStream('cart-1')).length, 3);
  });

  t.test('re-appending the same event ids is a no-op returning the original position', async (t) => {
    const { store } = await open(t);
    const batch = events(2);
    const first = await store.append('pay-1', batch, { expectedRevision: 'no_stream' });
    await store.append('other', events(1));
    const head = await store.headPosition();

    const repeat = await store.append('pay-1', batch, { expectedRevision: 'no_stream' });
    t.equal(repeat.position, first.position, 'same position as the first append');
    t.equal(repeat.nextExpectedRevision, 1n);
    t.equal(await store.headPosition(), head, 'no new event in the log');
    t.equal((await store.readStream('pay-1')).length, 2, 'no new event in the stream');

    const copies = batch.map((e) => ({ ...e, data: { different: true } }));
    const repeatCopies = await store.append('pay-1', copies, { expectedRevision: 0n });
    t.equal(repeatCopies.position, first.position, 'the id decides, even with a stale expected revision');
    t.same((await store.readStream('pay-1')).map((e) => e.data), batch.map((e) => e.data), 'the original events stay');

    const later = newEvent();
    const third = await store.append('pay-1', [later], { expectedRevision: 1n });
    const repeatFirst = await store.append('pay-1', batch, { expectedRevision: 'no_stream' });
    t.equal(repeatFirst.position, first.position, 'an old append still repeats to its own position after the stream moved on');
    t.equal(repeatFirst.nextExpectedRevision, 2n, 'and reports the revision of the stream now');
    const repeatLater = await store.append('pay-1', [later], { expectedRevision: 0n });
    t.equal(repeatLater.position, third.position);
    t.equal((await store.readAll()).length, 4, 'exactly one copy of every event');
  });

  t.test('repeating some but not all ids of an earlier append is an IdempotencyConflictError', async (t) => {
    const { store } = await open(t);
    const batch = events(2);
    await store.append('pay-2', batch);
    const head = await store.headPosition();
    const fresh = newEvent();

    const error = await rejection(t, store.append('pay-2', [batch[0] as EventData, fresh]), 'partial repeat');
    t.type(error, IdempotencyConflictError);
    t.equal((error as IdempotencyConflictError).stream, 'pay-2');
    t.equal((error as IdempotencyConflictError).name, 'IdempotencyConflictError');
    const reversed = await rejection(t, store.append('pay-2', [fresh, batch[1] as EventData], { expectedRevision: 1n }), 'partial repeat, new id first');
    t.type(reversed, IdempotencyConflictError);

    const elsewhere = await rejection(t, store.append('pay-3', batch), 'ids of another stream');
    t.type(elsewhere, IdempotencyConflictError, 'ids already used by another stream are refused too');

    t.equal(await store.headPosition(), head, 'nothing was written');
    t.same(await store.readStream('pay-3'), []);
    t.notOk((await store.readAll()).some((e) => e.id === fresh.id), 'the new id was not stored');
    t.equal((await store.append('pay-2', [fresh], { expectedRevision: 1n })).nextExpectedRevision, 2n, 'the new id alone appends fine');
  });

  t.test('reading a stream that does not exist gives an empty array', async (t) => {
    const { store } = await open(t);
    t.same(await store.readStream('nope'), []);
    await store.append('nope-not', events(2));
    t.same(await store.readStream('nope'), [], 'not even a prefix match');
    t.same(await store.readStream('nope', { fromRevision: 0n, untilRevision: 10n, untilTime: new Date() }), []);
  });

  t.test('readStreamSoon gives what readStream gives; knownRevision, when it tells, tells the truth', async (t) => {
    const { store } = await open(t);
    const known = (stream: string, actual: bigint | 'no_stream', what: string) => {
      const told = store.knownRevision(stream);
      t.ok(told === undefined || told === actual, `${what}: knownRevision ${String(told)} is unknown or ${String(actual)}`);
    };
    known('soon-1', 'no_stream', 'a stream never written');
    t.same(await store.readStreamSoon('soon-1'), [], 'a stream never written reads empty');
    await store.append('soon-1', events(3), { expectedRevision: 'no_stream' });
    await store.append('soon-2', events(1));
    t.same(await store.readStreamSoon('soon-1'), await store.readStream('soon-1'), 'after appends: the same events as readStream');
    known('soon-1', 2n, 'after three events');
    await store.readStream('soon-1');
    known('soon-1', 2n, 'after a read');
    await store.append('soon-1', events(1), { expectedRevision: 2n });
    known('soon-1', 3n, 'after one more');
    t.same((await store.readStreamSoon('soon-1')).map((e) => e.revision), [0n, 1n, 2n, 3n], 'the event just appended too');
  });

  t.test('readStream fromRevision and untilRevision are inclusive bounds', async (t) => {
    const { store } = await open(t);
    await store.append('range-1', events(5));
    await store.append('range-2', events(3));
    const revs = async (o: Parameters<EventStore['readStream']>[1]) => (await store.readStream('range-1', o)).map((e) => e.revision);
    t.same(await revs({ fromRevision: 2n }), [2n, 3n, 4n]);
    t.same(await revs({ untilRevision: 1n }), [0n, 1n]);
    t.same(await revs({ fromRevision: 1n, untilRevision: 3n }), [1n, 2n, 3n]);
    t.same(await revs({ fromRevision: 3n, untilRevision: 3n }), [3n]);
    t.same(await revs({ fromRevision: 4n, untilRevision: 2n }), []);
    t.same(await revs({ fromRevision: 10n }), []);
    t.same(await revs({ untilRevision: 100n }), [0n, 1n, 2n, 3n, 4n]);
    t.ok((await store.readStream('range-1', { fromRevision: 1n })).every((e) => e.stream === 'range-1'), 'other streams stay out');
  });

  t.test('readStream untilTime travels back in time', async (t) => {
    const { store } = await open(t);
    await store.append('card-1', events(1));
    await store.append('card-1', events(1));
    const [e0, e1] = await store.readStream('card-1');
    await sleep(5); // time passing is the point: an instant strictly between two appends
    const instant = new Date();
    await sleep(5);
    await store.append('card-1', events(2));
    const all = await store.readStream('card-1');
    t.equal(all.length, 4);
    t.ok(Date.parse(all[2]?.created ?? '') > instant.getTime(), 'the later events were created after the instant');

    t.same((await store.readStream('card-1', { untilTime: instant })).map((e) => e.revision), [0n, 1n], 'events created after the instant are excluded');
    t.same((await store.readStream('card-1', { untilTime: new Date(e1?.created ?? 0) })).map((e) => e.revision), [0n, 1n], 'the bound is inclusive');
    t.same(await store.readStream('card-1', { untilTime: new Date(Date.parse(e0?.created ?? '') - 1) }), [], 'before the first event: nothing');
    t.same((await store.readStream('card-1', { untilTime: new Date(Date.now() + 60_000) })).map((e) => e.revision), [0n, 1n, 2n, 3n]);
    t.same((await store.readStream('card-1', { fromRevision: 1n, untilTime: instant })).map((e) => e.revision), [1n], 'combines with fromRevision');
    t.same((await store.readStream('card-1', { untilRevision: 2n, untilTime: new Date(Date.now() + 60_000) })).map((e) => e.revision), [0n, 1n, 2n], 'combines with untilRevision');
  });

  t.test('readAll reads after a position (exclusive) and pages with maxCount', async (t) => {
    const { store } = await open(t);
    for (let i = 0; i < 7; i++) await store.append(`page-${i % 3}`, events(1));
    const all = await store.readAll();
    t.equal(all.length, 7);
    const third = all[2] as RecordedEvent;

    t.same((await store.readAll({ fromPosition: third.position })).map(summary), all.slice(3).map(summary), 'fromPosition is exclusive');
    t.same((await store.readAll({ maxCount: 2 })).map(summary), all.slice(0, 2).map(summary), 'maxCount from the start');
    t.same((await store.readAll({ fromPosition: third.position, maxCount: 2 })).map(summary), all.slice(3, 5).map(summary));
    t.same(await store.readAll({ fromPosition: await store.headPosition() }), [], 'nothing after the head');
    t.same(await store.readAll({ maxCount: 0 }), [], 'maxCount 0 reads nothing');
    t.equal((await store.readAll({ maxCount: 100 })).length, 7, 'maxCount is an upper bound');

    const pages: RecordedEvent[][] = [];
    let from = 0n;
    for (;;) {
      const page = await store.readAll({ fromPosition: from, maxCount: 3 });
      if (page.length === 0) break;
      pages.push(page);
      from = (page[page.length - 1] as RecordedEvent).position;
      if (pages.length > 10) break;
    }
    t.same(pages.map((p) => p.length), [3, 3, 1], 'pages of at most maxCount');
    t.same(pages.flat().map(summary), all.map(summary), 'paging yields the whole log once, in order');
  });

  t.test('headPosition follows the log', async (t) => {
    const { store } = await open(t);
    t.equal(await store.headPosition(), 0n);
    const r1 = await store.append('h-1', events(2));
    t.equal(await store.headPosition(), r1.position);
    const r2 = await store.append('h-2', events(3));
    t.equal(await store.headPosition(), r2.position);
    t.equal(r2.position, (await store.readAll()).at(-1)?.position);
    await rejection(t, store.append('h-1', events(1), { expectedRevision: 'no_stream' }), 'conflict');
    t.equal(await store.headPosition(), r2.position, 'a failed append does not move the head');
    await store.append('h-2', [(await store.readStream('h-2'))[0] as EventData]);
    t.equal(await store.headPosition(), r2.position, 'an idempotent repeat does not move the head');
  });

  t.test('subscribeAll from the start catches up, then follows live appends, until closed', async (t) => {
    const { store } = await open(t);
    await store.append('sub-1', events(3));
    await store.append('sub-2', events(2));
    const existing = await store.readAll();

    const received: RecordedEvent[] = [];
    let caughtUpCalls = 0;
    let receivedAtCaughtUp = -1;
    const errors: unknown[] = [];
    const sub = store.subscribeAll({}, {
      onEvent: (e) => { received.push(e); },
      onCaughtUp: () => { caughtUpCalls++; },
      onError: (e) => { errors.push(e); },
    });
    t.teardown(() => sub.close());
    await sub.caughtUp.then(() => { receivedAtCaughtUp = received.length; });
    t.equal(receivedAtCaughtUp, 5, 'caughtUp resolves once every existing event was delivered');
    t.same(received.map(summary), existing.map(summary), 'catch-up delivers the log in order');
    t.equal(caughtUpCalls, 1, 'onCaughtUp is called once');

    await store.append('sub-1', events(2));
    await Promise.all([store.append('sub-3', events(1)), store.append('sub-4', events(2))]);
    await waitFor(() => received.length >= 10, 'live events');
    await store.append('sub-2', events(1));
    await waitFor(() => received.length >= 11, 'one more live event');
    await sleep(20); // room for a duplicate or a stray event to arrive, which must not
    const log = await store.readAll();
    t.same(received.map(summary), log.map(summary), 'live delivery: every event once, in log order, no gap');
    t.same(received.map((e) => e.data), log.map((e) => e.data), 'with their data');
    t.equal(caughtUpCalls, 1, 'onCaughtUp is not called again by live events');

    await sub.close();
    await store.append('sub-1', events(2));
    await sleep(50); // nothing may arrive after close(): waiting is the test
    t.equal(received.length, 11, 'close() stops delivery');
    t.same(errors, []);
  });

  t.test('subscribeAll from a position delivers only what follows it', async (t) => {
    const { store } = await open(t);
    await store.append('from-1', events(4));
    await store.append('from-2', events(2));
    const all = await store.readAll();
    const from = (all[2] as RecordedEvent).position;

    const received: RecordedEvent[] = [];
    const sub = store.subscribeAll({ fromPosition: from }, { onEvent: (e) => { received.push(e); } });
    t.teardown(() => sub.close());
    await sub.caughtUp;
    t.same(received.map(summary), all.slice(3).map(summary), 'catch-up starts after the position (exclusive)');

    await store.append('from-1', events(1));
    await waitFor(() => received.length >= 4, 'the live event');
    await sleep(20); // room for a duplicate to arrive, which must not
    t.same(received.map(summary), (await store.readAll({ fromPosition: from })).map(summary), 'then live, no duplicates');
  });

  t.test('subscribeAll from the head of an empty store catches up at once and then receives', async (t) => {
    const { store } = await open(t);
    const received: RecordedEvent[] = [];
    const sub = store.subscribeAll({ fromPosition: await store.headPosition() }, { onEvent: (e) => { received.push(e); } });
    t.teardown(() => sub.close());
    await sub.caughtUp;
    t.equal(received.length, 0);
    const r = await store.append('empty-1', events(1));
    await waitFor(() => received.length === 1, 'the first event');
    t.equal(received[0]?.position, r.position);
  });

  t.test('a subscription neither loses nor repeats events appended while it catches up or while a slow handler runs', async (t) => {
    const { store } = await open(t);
    await store.append('race-0', events(5));
    const received: RecordedEvent[] = [];
    const sub = store.subscribeAll({}, {
      async onEvent(e) {
        received.push(e);
        if (e.revision % 2n === 0n) await sleep(1); // a slow handler is the case under test
      },
    });
    t.teardown(() => sub.close());
    // Appends in the same turn as the subscription's start, and while it is delivering.
    const appends: Promise<unknown>[] = [];
    for (let i = 0; i < 10; i++) appends.push(store.append(`race-${i % 4}`, events(2)));
    await Promise.all(appends);
    await sub.caughtUp;
    for (let i = 0; i < 5; i++) {
      await store.append('race-9', events(1));
      await sleep(1); // appends spread over time, while the handler is slow
    }
    await waitFor(() => received.length >= 30, '30 events');
    await sleep(30); // room for a duplicate to arrive, which must not
    const log = await store.readAll();
    t.equal(log.length, 30);
    t.same(received.map(summary), log.map(summary), 'exactly the log, in order');
    t.equal(new Set(received.map((e) => e.id)).size, received.length, 'no duplicates');
  });

  t.test('positions are seen in commit order: a reader paging from the last position it saw misses nothing appended meanwhile', async (t) => {
    const { store } = await open(t);
    const seen: RecordedEvent[] = [];
    let writing = true;
    const reader = (async () => {
      for (let rounds = 0; rounds < 10_000 && (writing || rounds === 0); rounds++) {
        seen.push(...await store.readAll({ fromPosition: seen.at(-1)?.position ?? 0n }));
        await sleep(0); // a turn of the event loop between pages, for the writers
      }
      seen.push(...await store.readAll({ fromPosition: seen.at(-1)?.position ?? 0n }));
    })();
    for (let round = 0; round < 10; round++) {
      await Promise.all(Array.from({ length: 4 }, (_, i) => store.append(`order-${i}`, events(2))));
    }
    writing = false;
    await reader;
    const log = await store.readAll();
    t.equal(log.length, 80);
    t.same(seen.map(summary), log.map(summary), 'every event, once, in log order');
  });

  t.test('concurrent appends to different streams in one tick all succeed', async (t) => {
    const { store } = await open(t);
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) =>
      store.append(`conc-${i}`, events(2), { expectedRevision: 'no_stream' })));
    t.ok(results.every((r) => r.nextExpectedRevision === 1n), 'each stream got revisions 0 and 1');
    t.equal(new Set(results.map((r) => r.position)).size, 25, 'distinct positions');
    const all = await store.readAll();
    t.equal(all.length, 50);
    strictlyIncreasing(t, all, '$all');
    for (let i = 0; i < 25; i++) {
      const stream = await store.readStream(`conc-${i}`);
      if (stream.length !== 2 || stream[1]?.position !== results[i]?.position) {
        t.fail(`conc-${i} is wrong: ${JSON.stringify(stream.map((e) => String(e.position)))}`);
      }
    }
    t.equal(await store.headPosition(), all.at(-1)?.position);
  });

  t.test('concurrent appends to one stream with the same expected revision: exactly one wins', async (t) => {
    const { store } = await open(t);
    await store.append('race-stream', events(1));
    const attempts = Array.from({ length: 10 }, () => events(1));
    const settled = await Promise.allSettled(attempts.map((batch) =>
      store.append('race-stream', batch, { expectedRevision: 0n })));
    const won = settled.filter((s) => s.status === 'fulfilled');
    const lost = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason as unknown] : []));
    t.equal(won.length, 1, 'one winner');
    t.equal(lost.length, 9, 'nine losers');
    t.ok(lost.every((e) => e instanceof WrongExpectedRevisionError
      && e.stream === 'race-stream' && e.expected === 0n && e.actual === 1n), 'each loser sees the winner’s revision');
    const winner = settled.findIndex((s) => s.status === 'fulfilled');
    const stream = await store.readStream('race-stream');
    t.equal(stream.length, 2);
    t.equal(stream[1]?.id, attempts[winner]?.[0]?.id, 'the winner’s event is revision 1');

    const fresh = await Promise.allSettled(Array.from({ length: 5 }, () =>
      store.append('race-new', events(1), { expectedRevision: 'no_stream' })));
    t.equal(fresh.filter((s) => s.status === 'fulfilled').length, 1, "one winner of 'no_stream'");
    t.ok(fresh.every((s) => s.status === 'fulfilled' || (s.reason instanceof WrongExpectedRevisionError && s.reason.actual === 0n)));
    t.equal((await store.readStream('race-new')).length, 1);
  });

  t.test('a failing append does not undo the appends requested alongside it', async (t) => {
    const { store } = await open(t);
    await store.append('mixed-taken', events(1));
    const ok1 = events(1);
    const ok2 = events(2);
    const settled = await Promise.allSettled([
      store.append('mixed-a', ok1, { expectedRevision: 'no_stream' }),
      store.append('mixed-taken', events(1), { expectedRevision: 'no_stream' }),
      store.append('mixed-b', ok2, { expectedRevision: 'no_stream' }),
    ]);
    t.same(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
    t.same((await store.readStream('mixed-a')).map((e) => e.id), ok1.map((e) => e.id));
    t.same((await store.readStream('mixed-b')).map((e) => e.id), ok2.map((e) => e.id));
    t.equal((await store.readStream('mixed-taken')).length, 1);
    t.equal((await store.readAll()).length, 4);
  });

  if (options.conditions !== false) conditionContract(t, open);

  if (options.durable) {
    t.test('close and reopen: every event, revision and position is unchanged, appends continue', async (t) => {
      const harness = await open(t);
      const { store } = harness;
      if (!harness.reopen) throw new Error('a durable adapter must return reopen()');
      const firstBatch = events(3, 'TokenCreated');
      await store.append('dur-1', firstBatch, { expectedRevision: 'no_stream' });
      await store.append('dur-2', events(2), { expectedRevision: 'no_stream' });
      await Promise.all([store.append('dur-3', events(1)), store.append('dur-1', events(1), { expectedRevision: 2n })]);
      const before = await store.readAll();
      const head = await store.headPosition();
      const dur1 = await store.readStream('dur-1');
      await store.close();

      const reopened = await harness.reopen();
      t.teardown(() => reopened.close());
      t.same(await reopened.readAll(), before, 'the whole log, field by field');
      t.same(await reopened.readStream('dur-1'), dur1);
      t.equal(await reopened.headPosition(), head);

      await expectWrongRevision(t, reopened.append('dur-1', events(1), { expectedRevision: 2n }),
        { stream: 'dur-1', expected: 2n, actual: 3n }, 'a stale revision after reopening');
      const repeat = await reopened.append('dur-1', firstBatch, { expectedRevision: 'no_stream' });
      t.equal(repeat.position, before[2]?.position, 'idempotency survives reopening');
      const next = await reopened.append('dur-1', events(1), { expectedRevision: 3n });
      t.equal(next.nextExpectedRevision, 4n, 'the stream continues at the next revision');
      t.ok(next.position > head, 'the log continues after the head');
      t.same((await reopened.readStream('dur-1')).map((e) => e.revision), [0n, 1n, 2n, 3n, 4n]);
      t.equal(await reopened.headPosition(), next.position);
    });
  }
}
