// WAL checkpoints run on a worker thread (store/checkpointer.ts), not inside commits on the event
// loop: the store's connection never checkpoints by itself, the worker copies committed pages
// into the database file, a failed checkpoint stops the store's appends, and close() leaves no WAL.
import { copyFileSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { SqliteEventStore } from '../../store/sqlite.js';
import { waitFor } from '../helpers/poll.js';
import { newEvent } from './contract.js';

const dir = t.testdir();
let files = 0;
const newPath = () => join(dir, `checkpoints-${++files}.db`);

/** Appends `count` events, one stream each, in batches of 50 (several commits). */
async function appendMany(store: SqliteEventStore, count: number, prefix = 's'): Promise<void> {
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) =>
      store.append(`${prefix}-${i + j}`, [newEvent('ThingHappened', { n: i + j, padding: 'x'.repeat(500) })], { expectedRevision: 'no_stream' })));
  }
}

/**
 * Events found in the database file alone (its WAL not copied): what checkpoints moved there. The
 * file is copied while the store is open: a copy taken while the worker writes pages may be torn
 * (SQLITE_CORRUPT when read), and is taken again (a few times at most).
 */
function eventsInMainFile(path: string): number {
  const copy = `${path}.main-only`;
  for (let attempt = 1; ; attempt++) {
    copyFileSync(path, copy);
    const db = new Database(copy, { readonly: true });
    try {
      const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get();
      return table === undefined ? 0 : (db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_CORRUPT' || attempt >= 5) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    } finally {
      db.close();
    }
  }
}

t.test("the store's connection does not checkpoint in its commits; a small store starts no worker", async (t) => {
  const store = new SqliteEventStore(newPath());
  t.teardown(() => store.close());
  t.equal(store.db.pragma('wal_autocheckpoint', { simple: true }), 0, 'automatic checkpoints are off on the connection');
  await appendMany(store, 20);
  t.equal(store.checkpointer?.started, false, 'the WAL is far below 4 MiB: no worker thread');
  t.equal(store.checkpointer?.completed, 0);
});

t.test('past startBytes, the worker copies committed pages into the database file', async (t) => {
  const path = newPath();
  const store = new SqliteEventStore(path, { checkpoints: { startBytes: 64 * 1024, intervalMs: 0 } });
  t.teardown(() => store.close());
  await appendMany(store, 400);
  t.equal(store.checkpointer?.started, true, 'the WAL grew past 64 KiB: the worker runs');
  await waitFor(() => (store.checkpointer?.completed ?? 0) > 0, 'a checkpoint');
  // Commits after the last checkpoint are copied by the next one (one more commit asks for it).
  await appendMany(store, 1, 'last');
  // A checkpoint that was running when the appends ended reports itself full for the WAL it saw,
  // without the last commits: the one the last commit asked for copies them, a moment later.
  const full = () => store.checkpointer?.last !== undefined && store.checkpointer.last.checkpointed === store.checkpointer.last.log && store.checkpointer.last.log > 0;
  await waitFor(() => full() && eventsInMainFile(path) >= 400, 'a full checkpoint of every event', { intervalMs: 50 });
  t.ok(eventsInMainFile(path) >= 400, 'the database file holds the events without its WAL');
  t.equal((await store.readAll()).length, 401, 'and the store reads every event');
});

t.test('without checkpoints, nothing reaches the database file until close', async (t) => {
  const path = newPath();
  const store = new SqliteEventStore(path, { checkpoints: false });
  t.teardown(() => store.close());
  t.not(store.db.pragma('wal_autocheckpoint', { simple: true }), 0, "SQLite's automatic checkpoints stay on");
  t.equal(store.checkpointer, undefined);
  await appendMany(store, 50);
  t.equal(eventsInMainFile(path), 0, 'below 1,000 pages SQLite has not checkpointed: the events are only in the WAL');
});

t.test('a failed checkpoint stops the appends until a restart, and what was acknowledged stays', async (t) => {
  const path = newPath();
  // A statement that compiles and fails when it runs, like an fsync that reports EIO.
  const store = new SqliteEventStore(path, { checkpoints: { startBytes: 0, intervalMs: 0, statement: "SELECT json('not json')" } });
  await store.append('before', [newEvent()], { expectedRevision: 'no_stream' });
  await waitFor(async () => {
    try {
      await store.append(`probe-${Math.random()}`, [newEvent()], { expectedRevision: 'no_stream' });
      return false;
    } catch (error) {
      return /could not checkpoint its WAL/.test(String(error)) && /restart tokengate/.test(String(error));
    }
  }, 'appends refused');
  await t.rejects(store.append('after', [newEvent()], { expectedRevision: 'no_stream' }), /could not checkpoint its WAL/);
  t.match(store.failure?.message, /could not checkpoint its WAL/, 'the store says why (Check Gateway then answers SHUTDOWN)');
  await store.close();
  const reopened = new SqliteEventStore(path, { checkpoints: false });
  t.teardown(() => reopened.close());
  const streams = (await reopened.readAll()).map((e) => e.stream);
  t.ok(streams.includes('before'), 'the acknowledged event is there after the restart');
  t.notOk(streams.includes('after'), 'the refused one is not');
});

t.test('close() ends the worker after its checkpoint and leaves no WAL behind', async (t) => {
  const path = newPath();
  const store = new SqliteEventStore(path, { checkpoints: { startBytes: 0, intervalMs: 0 } });
  await appendMany(store, 100);
  t.equal(store.checkpointer?.started, true);
  await store.close();
  t.equal(store.checkpointer?.started, false, 'the worker thread ended');
  t.notOk(existsSync(`${path}-wal`), "the store's connection was the file's last: SQLite checkpointed and removed the WAL");
  t.ok(statSync(path).size > 100 * 500, 'the events are in the database file');
  const reopened = new SqliteEventStore(path);
  t.teardown(() => reopened.close());
  t.equal((await reopened.readAll()).length, 100);
});
