// The token shredder's start on a store whose key store is new (made by this start: the bench's
// filled stores, a store whose keys were lost): it holds no key of any token deleted before, so
// the shredder's checkpoint is the log's head and the reactors read nothing before it; a key store
// made before, without a checkpoint (an older version's), still has the whole log read once.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { SqliteEventStore } from '../../store/sqlite.js';
import { SqliteKeyStore } from '../../store/keys/sqlite-key-store.js';
import type { ReadAllOptions } from '../../store/event-store.js';

const fileStore = (dir: string) => ({ eventStore: { kind: 'sqlite' as const, path: join(dir, 'gateway.db') } });

/** A log of `count` events written straight through the store. */
async function filled(dir: string, count: number): Promise<void> {
  const store = new SqliteEventStore(join(dir, 'gateway.db'));
  const meta = () => ({ correlationId: randomUUID(), recordedAt: new Date().toISOString() });
  await Promise.all(Array.from({ length: count }, (_, i) => store.append(`thing-${i}`, [{ id: randomUUID(), type: 'ThingHappened', data: { i }, metadata: meta() }])));
  await store.close();
}

/** The positions every readAll of the SQLite store starts from, while `run` runs (the reactors' subscription reads the log so). */
async function readAllsFrom<T>(run: () => Promise<T>): Promise<{ value: T; froms: bigint[] }> {
  const froms: bigint[] = [];
  const original = SqliteEventStore.prototype.readAll;
  SqliteEventStore.prototype.readAll = function (this: SqliteEventStore, options?: ReadAllOptions) {
    froms.push(options?.fromPosition ?? 0n);
    return original.call(this, options);
  };
  try {
    return { value: await run(), froms };
  } finally {
    SqliteEventStore.prototype.readAll = original;
  }
}

t.test('a key store made by this start: the shredder\'s checkpoint is the head, nothing before it read', async (t) => {
  const dir = t.testdir();
  await filled(dir, 500);
  const { value: app, froms } = await readAllsFrom(async () => {
    const built = await buildTestApp(t, fileStore(dir));
    await built.gateway.tokenShredder.settled();
    return built;
  });
  t.equal(app.gateway.sealer.shreddedThrough(), 500n, 'the checkpoint is the head at the start');
  t.ok(froms.length > 0, 'the reactors follow the log');
  t.same(froms.filter((from) => from < 500n), [], `the log before the head is not read (reads from ${froms.join(', ')})`);
});

t.test('a key store made before, without a checkpoint: the whole log is read once, then the checkpoint is the head', async (t) => {
  const dir = t.testdir();
  await filled(dir, 50);
  // A key store of an older version: its tables there, no checkpoint.
  new SqliteKeyStore(join(dir, 'gateway.db.keys')).close();
  const { value: app, froms } = await readAllsFrom(async () => {
    const built = await buildTestApp(t, fileStore(dir));
    await built.gateway.tokenShredder.settled();
    return built;
  });
  t.ok(froms.includes(0n), 'read from the start');
  t.equal(app.gateway.sealer.shreddedThrough(), 50n, 'then checkpointed at the head');
});
