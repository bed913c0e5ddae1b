// Keys of new tokens are written in batches, always before the events that reference them.
import { join } from 'node:path';
import t from 'tap';
import Database from 'better-sqlite3';
import { SqliteKeyStore, Sealer } from '../../store/sealing.js';
import { SqliteEventStore } from '../../store/sqlite.js';

const event = (n: number) => ({ id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, type: 'Test', data: { n }, metadata: { correlationId: 'c', recordedAt: new Date().toISOString() } });

t.test('a batched key is readable at once and on disk before the events that follow it', async (t) => {
  const dir = t.testdir();
  const keys = new SqliteKeyStore(join(dir, 'g.db.keys'), true);
  const store = new SqliteEventStore(join(dir, 'g.db'));
  t.teardown(async () => { await store.close(); keys.close(); });
  const onDisk = () => new Database(join(dir, 'g.db.keys'), { readonly: true }).prepare('SELECT count(*) AS n FROM keys').get() as { n: number };
  const sealer = new Sealer(keys);
  const before = onDisk().n;
  let keysWhenEventsCommitted = -1;
  store.beforeCommit = () => { keys.flush(); keysWhenEventsCommitted = onDisk().n; };
  const sealed = Array.from({ length: 5 }, (_, i) => sealer.seal(sealer.newKey(), `41111111111111${i}`));
  t.equal(sealer.open(sealed[0]!), '411111111111110', 'readable before it is flushed');
  t.equal(onDisk().n, before, 'not yet written: it waits for the batch');
  await Promise.all(sealed.map((_, i) => store.append(`s-${i}`, [event(i)])));
  t.equal(keysWhenEventsCommitted, before + 5, 'all five keys were on disk when the events committed');

  store.beforeCommit = () => { throw new Error('disk full'); };
  await t.rejects(store.append('refused', [event(99)]), /disk full/, 'no key, no event');
  t.equal((await store.readStream('refused')).length, 0);
});
