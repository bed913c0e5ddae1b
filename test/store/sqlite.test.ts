// The event store contract against the SQLite adapter (on files, with reopen), and what only
// SQLite promises: several connections on one file behave like several processes, appends of one
// event-loop turn commit together, WAL, durability.
import { randomUUID } from 'node:crypto';
import { existsSync, fdatasync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { ConditionFailedError, WrongExpectedRevisionError, type RecordedEvent } from '../../store/event-store.js';
import { SqliteEventStore } from '../../store/sqlite.js';
import { sleep, waitFor } from '../helpers/poll.js';
import { budget } from '../helpers/slowdown.js';
import { eventStoreContract, events, expectWrongRevision, newEvent, rejection } from './contract.js';

const dir = t.testdir();
let files = 0;
const newPath = () => join(dir, `events-${++files}.db`);

/** Open a store and close it at the end of the test. */
function openStore(t: Test, path: string, pollIntervalMs?: number): SqliteEventStore {
  const store = new SqliteEventStore(path, pollIntervalMs === undefined ? {} : { pollIntervalMs });
  t.teardown(() => store.close());
  return store;
}

t.test('contract', async (t) => {
  eventStoreContract(t, async () => {
    const path = newPath();
    return { store: new SqliteEventStore(path), reopen: async () => new SqliteEventStore(path) };
  }, { durable: true });
});

t.test('contract, without the stream cache and the cached tail of the log', async (t) => {
  const options = { cachedStreams: 0, cachedTail: 0 };
  eventStoreContract(t, async () => {
    const path = newPath();
    return { store: new SqliteEventStore(path, options), reopen: async () => new SqliteEventStore(path, options) };
  }, { durable: true });
});

/** Resolves in a later millisecond of the clock than the one it was called in. */
async function nextMillisecond(): Promise<void> {
  const now = Date.now();
  while (Date.now() === now) await new Promise<void>((resolve) => setImmediate(resolve));
}

t.test("what one connection keeps in memory never hides another connection's writes", async (t) => {
  const path = newPath();
  const a = openStore(t, path, 20);
  const b = openStore(t, path, 20);
  const raw = new Database(path);
  t.teardown(() => raw.close());
  const ids = (list: RecordedEvent[]) => list.map((e) => `${e.stream}@${e.revision}#${e.position}`);

  await a.append('cache-1', events(2), { expectedRevision: 'no_stream' });
  t.same(ids(await a.readStream('cache-1')), ['cache-1@0#1', 'cache-1@1#2'], 'a reads its own stream (from its cache)');
  t.same(ids(await a.readAll({ fromPosition: 1n })), ['cache-1@1#2'], "a reads the log's tail (from its cache)");

  await b.append('cache-1', events(1), { expectedRevision: 1n });
  // Reads look at data_version at most once per millisecond of the clock (store/recent-events.ts).
  await nextMillisecond();
  t.same(ids(await a.readStream('cache-1')), ['cache-1@0#1', 'cache-1@1#2', 'cache-1@2#3'], "a sees b's append to a stream it had cached");
  t.same(ids(await a.readAll({ fromPosition: 2n })), ['cache-1@2#3'], "a's readAll at its old head sees b's event");
  await expectWrongRevision(t, a.append('cache-1', events(1), { expectedRevision: 1n }),
    { stream: 'cache-1', expected: 1n, actual: 2n }, "a's cached revision is not trusted after b wrote");
  t.equal((await a.append('cache-1', events(1), { expectedRevision: 2n })).nextExpectedRevision, 3n, 'a appends at the real revision');

  await expectWrongRevision(t, b.append('cache-1', events(1), { expectedRevision: 2n }),
    { stream: 'cache-1', expected: 2n, actual: 3n }, "b's revision goes stale after a's append");

  // A change made outside the store altogether (another program on the file) is seen too, from
  // the next millisecond of the clock (reads look at data_version at most once per millisecond).
  await nextMillisecond();
  const before = await a.readStream('cache-1');
  raw.prepare("INSERT INTO events (event_id, stream, revision, type, data, metadata, created) VALUES ('00000000-0000-4000-8000-00000000c0de', 'cache-1', 4, 'Outside', '{}', '{\"correlationId\":\"x\",\"recordedAt\":\"2026-01-01T00:00:00.000Z\"}', '2026-01-01T00:00:00.000Z')").run();
  await nextMillisecond();
  const after = await a.readStream('cache-1');
  t.equal(after.length, before.length + 1, 'a reads the row written by another program');
  t.equal(after.at(-1)?.type, 'Outside');
  t.same(ids(await a.readAll({ fromPosition: 4n })), ['cache-1@4#5'], "a's readAll sees it");
});

t.test('the cache keeps only whole streams and at most cachedStreams of them; results are the same without it', async (t) => {
  const path = newPath();
  const small = openStore(t, path);
  const none = new SqliteEventStore(path, { cachedStreams: 0, cachedTail: 0 });
  t.teardown(() => none.close());
  const limited = new SqliteEventStore(path, { cachedStreams: 2, cachedTail: 3 });
  t.teardown(() => limited.close());
  for (let i = 0; i < 5; i++) await limited.append(`lru-${i}`, events(2));
  await limited.append('lru-0', events(1), { expectedRevision: 1n });
  for (let i = 0; i < 5; i++) {
    t.same(await limited.readStream(`lru-${i}`), await none.readStream(`lru-${i}`), `lru-${i} read alike`);
    t.same(await small.readStream(`lru-${i}`, { fromRevision: 1n, untilRevision: 1n }), await none.readStream(`lru-${i}`, { fromRevision: 1n, untilRevision: 1n }));
  }
  for (const from of [0n, 3n, 8n, 9n, 10n, 11n, 12n]) {
    t.same(await limited.readAll({ fromPosition: from, maxCount: 2 }), await none.readAll({ fromPosition: from, maxCount: 2 }), `readAll from ${from} alike`);
  }
  // An append whose stream is not cached and whose expected revision is not 'no_stream' takes
  // the careful path; a repeat of the same ids is still a no-op.
  const again = events(1);
  const first = await limited.append('lru-1', again, { expectedRevision: 'stream_exists' });
  const repeat = await limited.append('lru-1', again, { expectedRevision: 'stream_exists' });
  t.same(repeat, first, 'the repeat answers the original append');
  t.equal((await none.readStream('lru-1')).length, 3, 'recorded once');
});

/** Commits in a WAL file: frames whose "database size after commit" field is set, up to the
 *  first frame of an older generation (salts differ from the header's). */
function walCommits(dbPath: string): number {
  const walPath = `${dbPath}-wal`;
  if (!existsSync(walPath)) return 0;
  const wal = readFileSync(walPath);
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  let commits = 0;
  for (let offset = 32; offset + 24 + pageSize <= wal.length; offset += 24 + pageSize) {
    if (wal.readUInt32BE(offset + 8) !== salt1 || wal.readUInt32BE(offset + 12) !== salt2) break;
    if (wal.readUInt32BE(offset + 4) !== 0) commits++;
  }
  return commits;
}

t.test('an event this process wrote is handed out as a read of its row gives it: the JSON value, frozen; the caller keeps its objects', async (t) => {
  const path = newPath();
  const store = openStore(t, path);
  const data = { kept: 'x', gone: undefined, when: new Date(0), zero: -0, list: [1, undefined, () => 2], nested: { n: Number.NaN } };
  const metadata = { correlationId: 'c-1', recordedAt: '2026-03-01T10:00:00.000Z', extra: undefined };
  await store.append('copy-1', [{ id: randomUUID(), type: 'Copied', data, metadata }]);
  const [cached] = await store.readStream('copy-1');
  const other = openStore(t, path); // another connection: nothing cached, the row is read and parsed
  const [read] = await other.readStream('copy-1');
  t.strictSame(cached?.data, read?.data, 'data: the same value as a read of the row');
  t.strictSame(cached?.metadata, read?.metadata, 'metadata too');
  t.equal(JSON.stringify(cached?.data), JSON.stringify(read?.data), 'members in the same order');
  t.strictSame(cached?.data, { kept: 'x', when: '1970-01-01T00:00:00.000Z', zero: 0, list: [1, null, null], nested: { n: null } });
  t.ok(Object.isFrozen(cached) && Object.isFrozen(cached?.data) && Object.isFrozen((cached?.data as { nested: object }).nested), 'frozen throughout');
  t.notOk(Object.isFrozen(data) || Object.isFrozen(data.nested), "the caller's objects stay theirs, unfrozen");
});

t.test('appends requested in one event-loop turn are committed in one transaction', async (t) => {
  const path = newPath();
  const store = openStore(t, path);
  store.db.pragma('wal_autocheckpoint = 0'); // keep every commit in the WAL file to count them
  await store.append('batch-taken', events(1));

  // The counter itself: three appends awaited one by one are three commits.
  const c0 = walCommits(path);
  for (let i = 0; i < 3; i++) await store.append(`one-by-one-${i}`, events(1));
  const c1 = walCommits(path);
  t.equal(c1 - c0, 3, 'three separate turns: three commits (the counter works)');

  // Twelve appends in one turn, one of them failing: one commit.
  const settled = await Promise.allSettled([
    ...Array.from({ length: 11 }, (_, i) => store.append(`same-turn-${i}`, events(2), { expectedRevision: 'no_stream' })),
    store.append('batch-taken', events(1), { expectedRevision: 'no_stream' }),
  ]);
  const c2 = walCommits(path);
  t.equal(settled.filter((s) => s.status === 'fulfilled').length, 11);
  t.type((settled[11] as PromiseRejectedResult).reason, WrongExpectedRevisionError);
  t.equal(c2 - c1, 1, 'eleven appends and a conflict of one turn: one commit');
  const created = new Set((await store.readAll({ fromPosition: 4n })).map((e) => e.created));
  t.equal(created.size, 1, 'the batch shares one commit time');
  t.equal((await store.readAll()).length, 4 + 22);
});

t.test('an append that fails halfway is rolled back alone (its savepoint), the rest of its batch commits', async (t) => {
  const path = newPath();
  const store = openStore(t, path);
  const good = events(2);
  const twice = newEvent();
  const settled = await Promise.allSettled([
    store.append('half-a', good, { expectedRevision: 'no_stream' }),
    // The second insert breaks the unique event id after the first one was written.
    store.append('half-b', [newEvent(), twice, twice], { expectedRevision: 'no_stream' }),
    store.append('half-c', events(1), { expectedRevision: 'no_stream' }),
  ]);
  t.same(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.same(await store.readStream('half-b'), [], 'nothing of the failed append is left');
  t.same((await store.readStream('half-a')).map((e) => e.id), good.map((e) => e.id));
  t.equal((await store.readAll()).length, 3);
  t.equal((await store.append('half-b', events(1), { expectedRevision: 'no_stream' })).nextExpectedRevision, 0n,
    'the stream is still new');
});

t.test('two stores on one file behave like two processes', async (t) => {
  const path = newPath();
  const a = openStore(t, path, 20);
  const b = openStore(t, path, 20);

  const first = await a.append('acct-1', events(1), { expectedRevision: 'no_stream' });
  await expectWrongRevision(t, b.append('acct-1', events(1), { expectedRevision: 'no_stream' }),
    { stream: 'acct-1', expected: 'no_stream', actual: 0n }, "b's 'no_stream' after a's append");
  const second = await b.append('acct-1', events(1), { expectedRevision: 0n });
  t.equal(second.nextExpectedRevision, 1n);
  t.ok(second.position > first.position);
  await expectWrongRevision(t, a.append('acct-1', events(1), { expectedRevision: 0n }),
    { stream: 'acct-1', expected: 0n, actual: 1n }, "a's stale revision after b's append");

  // Both in the same turn, with the same expected revision: one of the two processes wins.
  const settled = await Promise.allSettled([
    a.append('acct-1', events(1), { expectedRevision: 1n }),
    b.append('acct-1', events(1), { expectedRevision: 1n }),
  ]);
  t.equal(settled.filter((s) => s.status === 'fulfilled').length, 1, 'exactly one winner across processes');
  const loser = settled.find((s) => s.status === 'rejected') as PromiseRejectedResult | undefined;
  t.ok(loser?.reason instanceof WrongExpectedRevisionError && loser.reason.actual === 2n, 'the loser sees revision 2');

  const fromA = await a.readAll();
  t.same(await b.readAll(), fromA, 'both see one log');
  t.same(fromA.map((e) => e.position), [1n, 2n, 3n], 'positions unique across the two writers');
  t.equal(await a.headPosition(), await b.headPosition());
});

t.test("a condition is checked against the file: another process's write to its stream fails it, and the next read sees that write", async (t) => {
  const path = newPath();
  const a = openStore(t, path, 20);
  const b = openStore(t, path, 20);
  await a.append('token-1', events(1), { expectedRevision: 'no_stream' });
  t.equal((await b.readStream('token-1')).length, 1, 'b reads the condition stream');
  t.equal(b.readStreamUnconfirmed('token-1')?.length, 1, "b's memory holds it");
  const deleted = events(1, 'TokenDeleted');
  await a.append('token-1', deleted, { expectedRevision: 0n });
  // Within the same millisecond b's memory may not have looked yet; the write transaction does.
  const error = await rejection(t, b.append('order-1', events(1), { expectedRevision: 'no_stream', condition: { stream: 'token-1', revision: 0n } }), "b's conditioned append");
  t.ok(error instanceof ConditionFailedError && error.actual === 1n && error.stream === 'order-1', `a ConditionFailedError at revision 1: ${String(error)}`);
  t.same(await b.readStream('order-1'), [], 'nothing written');
  t.equal(b.readStreamUnconfirmed('token-1'), undefined, "b's memory forgot the condition stream");
  t.same((await b.readStream('token-1')).map((e) => e.id).at(-1), deleted[0]?.id, "b's next read sees a's event");
  const written = await b.append('order-1', events(1), { expectedRevision: 'no_stream', condition: { stream: 'token-1', revision: 1n } });
  t.equal(written.nextExpectedRevision, 0n, 'decided again on what it read, the append writes');
});

t.test("a subscription sees another process's appends within its poll interval", async (t) => {
  const path = newPath();
  const writer = openStore(t, path, 20);
  const reader = openStore(t, path, 20);
  await writer.append('before', events(2));

  const received: RecordedEvent[] = [];
  const sub = reader.subscribeAll({}, { onEvent: (e) => { received.push(e); } });
  t.teardown(() => sub.close());
  await sub.caughtUp;
  t.equal(received.length, 2, 'catch-up sees what the other process wrote before');

  const started = Date.now();
  await writer.append('live', events(3));
  await waitFor(() => received.length >= 5, 'the other process’s events');
  const elapsed = Date.now() - started;
  t.ok(elapsed < budget(5000), `delivered after ${elapsed} ms (poll interval 20 ms; the bound allows for the machine's load)`);
  await writer.append('live', events(1));
  await writer.append('other', events(1));
  await waitFor(() => received.length >= 7, 'two more events');
  await sleep(60); // a few more polls, which must deliver nothing twice
  t.same(received.map((e) => e.id), (await writer.readAll()).map((e) => e.id), 'in order, no duplicates, no gap');

  await sub.close();
  await writer.append('after-close', events(1));
  await sleep(80); // four poll intervals: nothing may arrive after close()
  t.equal(received.length, 7, 'a closed subscription stops polling');
});

t.test('data survives close and reopen, including appends still queued at close()', async (t) => {
  const path = newPath();
  const store = new SqliteEventStore(path);
  const stored = await store.append('durable-1', events(2));
  const queued = newEvent('Queued', { amount: 100 });
  const pending = store.append('durable-1', [queued], { expectedRevision: 1n });
  await store.close();
  const result = await pending;
  t.equal(result.nextExpectedRevision, 2n, 'an append requested before close() is committed by it');

  const reopened = openStore(t, path);
  const stream = await reopened.readStream('durable-1');
  t.same(stream.map((e) => e.revision), [0n, 1n, 2n]);
  t.equal(stream[2]?.id, queued.id);
  t.same(stream[2]?.data, { amount: 100 });
  t.equal(stream[1]?.position, stored.position);

  // A plain connection, as another tool would open the file, sees the same rows.
  const raw = new Database(path, { readonly: true });
  t.teardown(() => raw.close());
  t.equal((raw.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n, 3);
});

/** An append's outcome, or 'unsettled' when it neither resolves nor rejects within 2 s (scaled: a bound on a hang). */
const settleWithin = (append: Promise<unknown>) => Promise.race([
  append.then(() => 'resolved', (error: unknown) => (error instanceof Error ? error.message : String(error))),
  sleep(budget(2000)).then(() => 'unsettled'),
]);

t.test('an append after close() is rejected (store that has written)', async (t) => {
  const store = new SqliteEventStore(newPath());
  await store.append('before-close', events(1));
  await store.close();
  t.match(await settleWithin(store.append('after-close', events(1))), /not open/);
});

t.test('an append after close() is rejected (store that never wrote)', async (t) => {
  const store = new SqliteEventStore(newPath());
  await store.close();
  t.match(await settleWithin(store.append('after-close', events(1))), /not open/);
});

t.test('the file is in WAL journal mode; commits sync in groups (NORMAL + fdatasync of the WAL), or in the commit (FULL)', async (t) => {
  const path = newPath();
  const store = openStore(t, path);
  await store.append('wal', events(1));
  t.equal(store.db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(store.db.pragma('synchronous', { simple: true }), 1, "synchronous = NORMAL: the store syncs the WAL itself ('group')");
  const full = new SqliteEventStore(newPath(), { durability: 'commit' });
  t.teardown(() => full.close());
  await full.append('wal', events(1));
  t.equal(full.db.pragma('synchronous', { simple: true }), 2, "synchronous = FULL with durability 'commit'");
  t.ok(existsSync(`${path}-wal`), 'a -wal file sits next to the database');
  const raw = new Database(path);
  t.teardown(() => raw.close());
  t.equal(raw.pragma('journal_mode', { simple: true }), 'wal', 'WAL is a property of the file: a fresh connection finds it');
});

t.test('readAllForProjections reads what readAll reads, without ids and metadata (from the file and from the cached tail)', async (t) => {
  const path = newPath();
  const writer = openStore(t, path);
  for (let i = 0; i < 4; i++) await writer.append(`lean-${i % 2}`, events(3));
  const fresh = openStore(t, path); // nothing cached: every read comes from the file
  const strip = (list: RecordedEvent[]) => list.map(({ id: _id, metadata: _metadata, ...rest }) => rest);
  for (const store of [writer, fresh]) {
    for (const [from, max] of [[0n, undefined], [0n, 5], [4n, 3], [11n, 10], [12n, 1]] as const) {
      const options = max === undefined ? { fromPosition: from } : { fromPosition: from, maxCount: max };
      t.same(strip(await store.readAllForProjections(options) as RecordedEvent[]), strip(await store.readAll(options)),
        `${store === writer ? 'cached' : 'file'}: from ${from}, max ${max ?? 'all'}`);
    }
  }
});

t.test('group durability: an append resolves, and its events are read, only after the fdatasync that covers it', async (t) => {
  const path = newPath();
  const pending: Array<(error: NodeJS.ErrnoException | null) => void> = [];
  const syncs: number[] = [];
  const store = new SqliteEventStore(path, {
    syncFile: (fd, done) => { syncs.push(fd); pending.push(done); },
  });
  t.teardown(async () => {
    while (pending.length > 0) pending.shift()?.(null);
    await store.close();
  });
  let resolved = false;
  const first = store.append('durable-1', events(1)).then((r) => { resolved = true; return r; });
  await waitFor(() => pending.length > 0, 'the sync after the commit');
  t.equal(pending.length, 1, 'one sync started after the commit');
  t.notOk(resolved, 'the append waits for the sync');
  let read = false;
  const reading = store.readStream('durable-1').then((list) => { read = true; return list; });
  let readAll = false;
  const readingAll = store.readAll().then((list) => { readAll = true; return list; });
  // Commits made while a sync runs wait for the next one: one sync for both of them.
  const second = store.append('durable-2', events(1));
  const third = store.append('durable-3', events(1));
  await sleep(20); // time for a second sync to start, which must not
  t.equal(pending.length, 1, 'no second sync while the first runs');
  t.notOk(read, 'a read of a committed but unsynced event waits');
  t.notOk(readAll, 'readAll too');
  pending.shift()?.(null);
  t.equal((await first).position, 1n, 'the first append resolves after its sync');
  t.same((await reading).map((e) => e.position), [1n]);
  t.same((await readingAll).map((e) => e.position), [1n], 'the read returns what was committed when it was made');
  await waitFor(() => pending.length > 0, 'the next sync');
  t.equal(pending.length, 1, 'the next sync covers the two commits made meanwhile');
  pending.shift()?.(null);
  t.same([(await second).position, (await third).position], [2n, 3n]);
  t.equal(syncs.length, 2, 'two syncs for three appends');
  t.same(await store.readAll(), await store.readAll(), 'durable events are read at once');

  // A failed sync fails the appends waiting for it (their events may or may not be on disk), and
  // every later one: a later sync of the same file could report success without the lost pages
  // (the kernel reports a write-back error once), so nothing more is acknowledged until a restart.
  t.equal(store.failure, undefined, 'no failure before the failed sync');
  const failed = store.append('durable-4', events(1));
  await waitFor(() => pending.length > 0, 'the sync of durable-4');
  const error = Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' });
  pending.shift()?.(error);
  await t.rejects(failed, { message: /could not sync its WAL to disk \(EIO\); restart tokengate/ }, 'the append rejects, naming the cause');
  await t.rejects(store.append('durable-5', events(1)), { message: /restart tokengate/ }, 'a later append is refused at once');
  t.match(store.failure?.message, /could not sync its WAL to disk \(EIO\)/, 'the store says why (Check Gateway then answers SHUTDOWN)');
  t.equal(pending.length, 0, 'and starts no sync');
  await t.rejects(store.durable(), { message: /restart tokengate/ }, 'durable() fails too');
  t.same((await store.readStream('durable-1')).map((e) => e.position), [1n], 'events synced before the failure are still read');
  await t.rejects(store.readStream('durable-4'), { message: /restart tokengate/ }, 'an event the failed sync covered is not handed out');
});

t.test('group durability: a batch that SQLite rolls back whole (a full disk) fails whole, and the cache forgets it', async (t) => {
  const path = newPath();
  const store = openStore(t, path);
  await store.append('full-1', events(1), { expectedRevision: 'no_stream' });
  await store.append('full-2', events(1), { expectedRevision: 'no_stream' });
  t.equal((await store.readStream('full-2')).length, 1, 'full-2 is cached');
  const pages = store.db.pragma('page_count', { simple: true }) as number;
  store.db.pragma(`max_page_count = ${pages}`); // the disk is full
  const big = { id: randomUUID(), type: 'Big', data: { blob: 'x'.repeat(200_000) }, metadata: { correlationId: 'c', recordedAt: new Date().toISOString() } };
  const settled = await Promise.allSettled([
    store.append('full-1', [big], { expectedRevision: 0n }),
    store.append('full-2', events(1), { expectedRevision: 0n }),
  ]);
  t.same(settled.map((r) => r.status), ['rejected', 'rejected'], 'both appends of the batch fail');
  t.match(String((settled[0] as PromiseRejectedResult).reason), /full/i, 'with the cause');
  store.db.pragma('max_page_count = 1073741823');
  const raw = new Database(path);
  t.teardown(() => raw.close());
  t.equal((raw.prepare("SELECT COUNT(*) AS n FROM events WHERE stream = 'full-2'").get() as { n: number }).n, 1, 'nothing of the batch is in the file');
  t.equal((await store.readStream('full-2')).length, 1, 'the store reads what the file holds');
  t.equal((await store.append('full-2', events(1), { expectedRevision: 0n })).nextExpectedRevision, 1n, 'and appends at the right revision');
});

t.test('group durability follows the file SQLite opened (through a symbolic link) and is off without WAL', async (t) => {
  const { mkdirSync, symlinkSync } = await import('node:fs');
  const real = join(dir, 'real');
  mkdirSync(real, { recursive: true });
  const link = join(dir, `linked-${++files}.db`);
  symlinkSync(join(real, 'target.db'), link);
  const syncs: string[] = [];
  const store = new SqliteEventStore(link, { syncFile: (fd, done) => { syncs.push(readlinkSync(`/proc/self/fd/${fd}`)); fdatasync(fd, done); } });
  t.teardown(() => store.close());
  await store.append('linked', events(1));
  t.ok(syncs.length > 0 && syncs.every((file) => file === join(real, 'target.db-wal')), `synced the real WAL (${syncs.join(', ')})`);
  const memory = new SqliteEventStore(':memory:');
  t.teardown(() => memory.close());
  await memory.append('m', events(1));
  t.equal(memory.db.pragma('synchronous', { simple: true }), 2, 'no WAL (in memory): FULL, no group sync');
});

t.test('group durability syncs the real WAL file: appends resolve, and close() waits for the last sync', async (t) => {
  const path = newPath();
  const store = new SqliteEventStore(path);
  const all = await Promise.all(Array.from({ length: 50 }, (_, i) => store.append(`real-${i}`, events(2))));
  t.equal(all.length, 50);
  const queued = store.append('real-last', events(1));
  await store.close();
  t.equal((await queued).nextExpectedRevision, 0n, 'an append queued at close() resolves');
  const reopened = new SqliteEventStore(path);
  t.teardown(() => reopened.close());
  t.equal(await reopened.headPosition(), 101n, 'every event is in the file');
});

t.test('SQLITE_DURABILITY chooses group (default) or commit durability; anything else stops the start', async (t) => {
  const { ConfigError, loadConfig } = await import('../../config.js');
  const { openStores } = await import('../../root.js');
  t.same(loadConfig({ EVENT_STORE: 'sqlite:/tmp/x.db' }).eventStore, { kind: 'sqlite', path: '/tmp/x.db' });
  t.same(loadConfig({ EVENT_STORE: 'sqlite:/tmp/x.db', SQLITE_DURABILITY: 'commit' }).eventStore, { kind: 'sqlite', path: '/tmp/x.db', durability: 'commit' });
  t.same(loadConfig({ EVENT_STORE: 'memory:', SQLITE_DURABILITY: 'commit' }).eventStore, { kind: 'memory' }, 'ignored by other stores');
  t.throws(() => loadConfig({ SQLITE_DURABILITY: 'fast' }), ConfigError);
  for (const [durability, synchronous] of [['commit', 2], ['group', 1], [undefined, 1]] as const) {
    const opened = openStores({ kind: 'sqlite', path: newPath(), ...(durability ? { durability } : {}) });
    t.equal(opened.store.kind, 'sqlite');
    t.equal((opened.store as SqliteEventStore).db.pragma('synchronous', { simple: true }), synchronous, `${durability ?? 'default'}: synchronous ${synchronous}`);
    await opened.store.close();
    opened.keys.close();
  }
});

t.test('appends made during a sync commit together after it; close() refuses new appends and waits for the sync in flight', async (t) => {
  const path = newPath();
  const pending: Array<() => void> = [];
  const store = new SqliteEventStore(path, { syncFile: (fd, done) => { pending.push(() => fdatasync(fd, done)); } });
  store.db.pragma('wal_autocheckpoint = 0');
  const first = store.append('w-1', events(1));
  await waitFor(() => pending.length > 0, 'the sync of w-1');
  let durable = false;
  const waiting = store.durable().then(() => { durable = true; });
  const commitsBefore = walCommits(path);
  const gathered = [store.append('w-2', events(1)), store.append('w-2b', events(1))];
  await sleep(5); // a later event-loop turn, during the same sync
  const third = store.append('w-2c', events(1)); // another event-loop turn, same sync
  await sleep(20); // time for a commit to happen, which must not while the sync runs
  t.equal(walCommits(path), commitsBefore, 'nothing commits while the sync runs');
  pending.shift()?.();
  await first;
  await waiting;
  t.ok(durable, 'durable() resolves once what was committed when it was called is synced');
  await waitFor(() => walCommits(path) > commitsBefore, 'the commit of the appends gathered during the sync');
  t.equal(walCommits(path), commitsBefore + 1, 'the three appends gathered meanwhile commit in one transaction');
  pending.shift()?.();
  t.same((await Promise.all([...gathered, third])).map((r) => r.position), [2n, 3n, 4n]);

  const last = store.append('w-3', events(1));
  await waitFor(() => pending.length > 0, 'the sync of w-3');
  const closing = store.close();
  await t.rejects(store.append('w-4', events(1)), { message: /not open/ }, 'an append during close() is refused');
  pending.shift()?.();
  await closing;
  t.equal((await last).nextExpectedRevision, 0n, 'the append before close() resolved after its sync');
  const reopened = new SqliteEventStore(path);
  t.teardown(() => reopened.close());
  t.same((await reopened.readAll()).map((e) => e.stream), ['w-1', 'w-2', 'w-2b', 'w-2c', 'w-3'], 'w-4 was never written');
});

t.test('a store opened on a file syncs it once: events of earlier processes are read without waiting for a sync', async (t) => {
  const path = newPath();
  const writer = new SqliteEventStore(path);
  await writer.append('earlier', events(3));
  const second = new SqliteEventStore(path, { syncFile: () => { /* never completes */ } });
  t.teardown(async () => { await writer.close(); second.db.close(); });
  t.equal((await second.readAll()).length, 3, 'read at once');
  t.equal((await second.readStream('earlier')).length, 3);
});
