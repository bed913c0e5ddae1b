// The PostgreSQL store's memory (store/postgres/memory.ts): whole streams and the log's tail
// answered without a query while LISTEN says nobody else wrote them. Another instance's commit
// drops exactly the streams it wrote; a commit nobody notified (a writer that sends no NOTIFY) stops
// memory from answering as soon as a position above the known ones shows up; a cut LISTEN
// connection stops it until it is back; what this instance appends is in memory when the append
// resolves; the tail answers readAll as the server would.
import t, { type Test } from 'tap';
import pg from 'pg';
import { ConditionFailedError } from '../../store/event-store.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { events, rejection } from './contract.js';
import { waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';

const server = postgresForFile(t);

function openStore(t: Test, url: string): PostgresEventStore {
  const store = new PostgresEventStore(url, { pollIntervalMs: 50 });
  t.teardown(() => store.close());
  return store;
}

async function client(t: Test, url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  t.teardown(() => c.end());
  return c;
}

/** The store listening (memory answers only then): a stream it reads is then held. */
async function listening(store: PostgresEventStore, stream: string): Promise<void> {
  await waitFor(async () => { await store.readStream(stream); return store.cachedStream(stream) !== undefined; }, 'memory holding a stream read');
}

const revisions = (list: readonly { revision: bigint }[] | undefined) => list?.map((e) => e.revision);

if (server) {
  t.test('an append is in memory once it resolves; a stream read is held; reads from memory equal the server\'s', async (t) => {
    const url = await server.get().createDatabase('own');
    const store = openStore(t, url);
    await store.append('own-1', events(2), { expectedRevision: 'no_stream' });
    await listening(store, 'own-1');
    await store.append('own-1', events(1), { expectedRevision: 1n });
    t.same(revisions(store.cachedStream('own-1')), [0n, 1n, 2n], 'the appended event joined the stream held');
    t.equal(store.cachedRevision('own-1'), 2n);
    await store.append('own-2', events(1));
    t.same(revisions(store.cachedStream('own-2')), [0n], 'a new stream is held from its first append');
    const other = openStore(t, url);
    t.same(await store.readStream('own-1'), await other.readStream('own-1'), 'the same events as a fresh read');
    t.same(await store.readAll({ fromPosition: 1n }), await other.readAll({ fromPosition: 1n }), 'readAll from the tail: the same as the server\'s');
    t.throws(() => { (store.cachedStream('own-1') as unknown as Array<{ data: { i: number } }>)[0]!.data.i = 9; }, 'events in memory are frozen');
  });

  t.test("an append whose condition failed drops the condition's stream from memory: the next read asks the server", async (t) => {
    const url = await server.get().createDatabase('condition_forgets');
    const store = openStore(t, url);
    await store.append('cond-token', events(1));
    await listening(store, 'cond-token');
    t.same(revisions(store.readStreamUnconfirmed('cond-token')), [0n], 'memory holds the condition stream');
    const admin = await client(t, url);
    // A write memory has not heard of (no NOTIFY: as one whose notification is late).
    await admin.query(`INSERT INTO tokengate_events VALUES (2, 'late-id', 'cond-token', 1, 'Late', '{}', '{}', now())`);
    t.same(revisions(store.readStreamUnconfirmed('cond-token')), [0n], 'memory does not know it yet');
    const error = await rejection(t, store.append('cond-order', events(1), { condition: { stream: 'cond-token', revision: 0n } }), 'the conditioned append');
    t.ok(error instanceof ConditionFailedError && error.actual === 1n, `checked on the server: ${String(error)}`);
    t.equal(store.readStreamUnconfirmed('cond-token'), undefined, 'memory forgot the condition stream');
    t.same(revisions(await store.readStream('cond-token')), [0n, 1n], 'the next read has the late write');
    t.same(await store.readStream('cond-order'), [], 'nothing written');
  });

  t.test("another instance's commit drops exactly the streams it wrote", async (t) => {
    const url = await server.get().createDatabase('foreign');
    const a = openStore(t, url);
    const b = openStore(t, url);
    await a.append('kept', events(1));
    await a.append('written', events(1));
    await listening(a, 'kept');
    await listening(a, 'written');
    await b.append('written', events(1), { expectedRevision: 0n });
    await waitFor(() => a.cachedStream('written') === undefined, 'the stream another instance wrote dropped');
    t.same(revisions(a.cachedStream('kept')), [0n], 'the other stream still held');
    t.same(revisions(await a.readStream('written')), [0n, 1n], 'read again: the other instance\'s event is there');
    t.same(revisions(a.cachedStream('written')), [0n, 1n], 'and held again');
    t.same((await a.readAll()).map((e) => e.position), [1n, 2n, 3n], 'readAll has every event');
  });

  t.test('a commit nobody notified: memory stops answering once a higher position shows up, and reads find the commit', async (t) => {
    const url = await server.get().createDatabase('silent');
    const store = openStore(t, url);
    await store.append('silent-1', events(1));
    await listening(store, 'silent-1');
    const admin = await client(t, url);
    // A writer that sends no NOTIFY (an older tokengate would send one without a payload).
    await admin.query(`INSERT INTO tokengate_events VALUES (2, 'silent-id', 'silent-1', 1, 'Silent', '{}', '{}', now())`);
    t.same(revisions(store.cachedStream('silent-1')), [0n], 'not yet known: memory still holds it (a read takes a head read first: memory.ts)');
    t.equal(await store.headPosition(), 2n, 'a read shows a higher position');
    t.equal(store.cachedStream('silent-1'), undefined, 'memory no longer answers');
    t.same(revisions(await store.readStream('silent-1')), [0n, 1n], 'the read finds the commit');
    t.same((await store.readAll({ fromPosition: 1n })).map((e) => e.id), ['silent-id'], 'readAll too');
    await admin.query(`NOTIFY tokengate_events`);
    await waitFor(async () => { await store.readStream('silent-1'); return store.cachedStream('silent-1') !== undefined; }, 'memory answering again, a while after');
    t.same(revisions(store.cachedStream('silent-1')), [0n, 1n], 'with what the server holds');
  });

  t.test('LISTEN cut: memory answers nothing until it listens again', async (t) => {
    const url = await server.get().createDatabase('deaf');
    const store = openStore(t, url);
    await store.append('deaf-1', events(1));
    await listening(store, 'deaf-1');
    const admin = await client(t, url);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tokengate-listen' AND datname = current_database()");
    await waitFor(() => store.cachedStream('deaf-1') === undefined, 'memory silent once the connection is gone');
    await listening(store, 'deaf-1');
    t.same(revisions(store.cachedStream('deaf-1')), [0n], 'back once it listens again');
  });

  t.test("another instance's events are read from the server once, then answered from the tail; this instance's own never", async (t) => {
    const url = await server.get().createDatabase('tail');
    const a = openStore(t, url);
    const b = openStore(t, url);
    const fresh = openStore(t, url);
    await a.append('tail-a', events(2), { expectedRevision: 'no_stream' });
    await listening(a, 'tail-a');
    t.equal((await a.readAll({ fromPosition: 0n })).length, 2, 'the tail begins with a read (LISTEN starting forgot what memory held)');
    await b.append('tail-b', events(3), { expectedRevision: 'no_stream' });
    // After b's commit: a's own is held until a read fills the gap before it.
    await a.append('tail-a', events(1), { expectedRevision: 1n });
    await b.append('tail-b', events(1), { expectedRevision: 2n });
    // a hears of b's last commit through a read of the head (or its notification, later): before
    // either, its tail may answer without it, the staleness the store documents.
    t.equal(await a.headPosition(), 7n, "b's last commit known to a");
    const first = await a.readAll({ fromPosition: 0n });
    t.same(first, await fresh.readAll({ fromPosition: 0n }), 'the same events as the server holds, in log order');
    t.same(first.map((e) => e.position), [1n, 2n, 3n, 4n, 5n, 6n, 7n], 'positions 1..7, none missing, none twice');
    const own = a.cachedStream('tail-a');
    t.equal(first[5], own?.[2], "a's own event after b's is the one it appended (not read back)");
    t.same(await a.readAll({ fromPosition: 2n, maxCount: 3 }), await fresh.readAll({ fromPosition: 2n, maxCount: 3 }), 'a page inside the log as the server answers it');
    await waitFor(async () => (await a.readAll({ fromPosition: 0n }))[2] === (await a.readAll({ fromPosition: 0n }))[2], "b's events answered from memory once heard of");
    const again = await a.readAll({ fromPosition: 3n });
    t.ok(again.length === 4 && again.every((e, i) => e === first[i + 3]), "b's events are the ones read the first time: not read from the server again");
    await b.append('tail-b', events(1), { expectedRevision: 3n });
    // (Known at once through a read of the head, as a read model's catch-up asks it; else once notified.)
    t.equal(await a.headPosition(), 8n);
    const later = await a.readAll({ fromPosition: 7n });
    t.same(later, await fresh.readAll({ fromPosition: 7n }), "b's next commit read after the tail");
  });
}
