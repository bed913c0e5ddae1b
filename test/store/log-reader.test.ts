// The log read ahead on a worker thread (store/log-reader.ts, SqliteEventStore.readPagesAhead):
// every event in (from, until] once, in order, in pages; the worker's connection is closed when
// the caller finishes, stops early or the read fails.
import { randomUUID } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { readLogAhead } from '../../store/sqlite/log-reader.js';
import { SqliteEventStore } from '../../store/sqlite.js';

const dir = t.testdir();
let files = 0;
const newPath = () => join(dir, `log-${++files}.db`);

/** Threads of this process (a worker thread is one; libuv's pool is started by the appends before). */
const threads = () => readdirSync('/proc/self/task').length;

async function storeWith(path: string, count: number): Promise<SqliteEventStore> {
  const store = new SqliteEventStore(path);
  for (let i = 0; i < count; i++) {
    await store.append(`order-M-${i % 7}`, [{ id: randomUUID(), type: 'PaymentRecorded', data: { n: i, text: `é ${i}` }, metadata: { correlationId: 'c', recordedAt: '2026-03-01T10:00:00.000Z' } }]);
  }
  return store;
}

t.test('every event in (from, until] once, in position order, in pages; parsed like readAll', async (t) => {
  const path = newPath();
  const store = await storeWith(path, 53);
  t.teardown(() => store.close());
  // What a replay reads (readAll holds ids and metadata besides).
  const all = (await store.readAll({})).map(({ type, data, stream, revision, position, created }) => ({ type, data, stream, revision, position, created }));

  const pages: number[] = [];
  const seen = [];
  for await (const page of store.readPagesAhead!({ fromPosition: 5n, untilPosition: 50n, pageSize: 10 })) {
    pages.push(page.length);
    seen.push(...page);
  }
  t.same(pages, [10, 10, 10, 10, 5], 'pages of the page size, the last one short');
  t.same(seen, all.filter((e) => e.position > 5n && e.position <= 50n), 'the same events as readAllForProjections, parsed');

  let none = 0;
  for await (const page of store.readPagesAhead!({ fromPosition: 53n, untilPosition: 53n, pageSize: 10 })) none += page.length;
  t.equal(none, 0, 'an empty range gives nothing');
});

t.test('the raw reader pages at most `ahead` pages before the caller, and stops at `until`', async (t) => {
  const path = newPath();
  const store = await storeWith(path, 30);
  t.teardown(() => store.close());
  const positions: number[] = [];
  for await (const rows of readLogAhead(path, { from: 0n, until: 30n, page: 4, ahead: 1 })) {
    t.ok(rows.length <= 4, 'no page longer than the page size');
    positions.push(...rows.map((r) => r[0]));
  }
  t.same(positions, Array.from({ length: 30 }, (_, i) => i + 1), 'positions 1..30 in order');
});

t.test('the worker thread ends with its connection after the last page, after an early stop, and after a failure', async (t) => {
  const path = newPath();
  const store = await storeWith(path, 40);
  t.teardown(() => store.close());
  const before = threads();

  let during = 0;
  for await (const page of store.readPagesAhead!({ fromPosition: 0n, untilPosition: 40n, pageSize: 5 })) {
    t.equal(page.length, 5, 'a full page (none empty, even when the last one is exactly full)');
    during = Math.max(during, threads());
  }
  t.equal(during, before + 1, 'one thread more while reading');
  t.equal(threads(), before, 'after the last page: the thread is gone');

  let pages = 0;
  for await (const _page of store.readPagesAhead!({ fromPosition: 0n, untilPosition: 40n, pageSize: 5 })) {
    pages += 1;
    break;
  }
  t.equal(pages, 1);
  t.equal(threads(), before, 'after an early stop: gone too');

  const other = newPath();
  const db = new Database(other);
  db.exec('CREATE TABLE unrelated (x)');
  db.close();
  await t.rejects(async () => {
    for await (const _rows of readLogAhead(other, { from: 0n, until: 10n, page: 5 })) t.fail('no page from a file without events');
  }, /reading the log failed: no such table: events/, 'a failed read is an error of the iteration');
  t.equal(threads(), before, 'and after a failure');
});
