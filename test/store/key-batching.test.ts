// Keys are written in batches, always before the events that reference them: keys put in one
// event-loop turn go in one transaction before the events commit, and the keys of new tokens are
// written in advance, SPARE_KEYS at a time, so a new token's key costs no write of its own.
import { join } from 'node:path';
import t, { type Test } from 'tap';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { Sealer } from '../../store/sealing.js';
import { SPARE_KEYS, SPARE_LOW, SqliteKeyStore } from '../../store/keys/sqlite-key-store.js';
import { SqliteEventStore } from '../../store/sqlite.js';

const event = (n: number) => ({ id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, type: 'Test', data: { n }, metadata: { correlationId: 'c', recordedAt: new Date().toISOString() } });

/** The key ids in a key file, read by another connection (what another process or a crash would see). */
function onDisk(path: string): Set<string> {
  const db = new Database(path, { readonly: true });
  try {
    return new Set((db.prepare('SELECT key_id FROM keys').all() as Array<{ key_id: string }>).map((r) => r.key_id));
  } finally {
    db.close();
  }
}
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A batched key store whose WAL syncs wait until the test calls them back (in `syncs`). */
function withHeldSyncs(t: Test) {
  const path = join(t.testdir(), 'g.db.keys');
  const syncs: Array<(error: NodeJS.ErrnoException | null) => void> = [];
  const keys = new SqliteKeyStore(path, true, { syncFile: (_fd, callback) => { syncs.push(callback); } });
  t.teardown(() => keys.close());
  return { path, syncs, keys, sealer: new Sealer(keys) };
}

t.test('keys put in one turn are readable at once and on disk before the events that follow them', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'g.db.keys');
  const keys = new SqliteKeyStore(path, true);
  let keysWhenEventsCommitted = new Set<string>();
  let refuse = false;
  const store = new SqliteEventStore(join(dir, 'g.db'), {
    beforeCommit: () => {
      if (refuse) throw new Error('disk full');
      keys.flush();
      keysWhenEventsCommitted = onDisk(path);
    },
  });
  t.teardown(async () => { await store.close(); keys.close(); });
  const sealer = new Sealer(keys);
  const before = onDisk(path).size;
  const ids = Array.from({ length: 5 }, (_, i) => `put-${i}`);
  for (const id of ids) keys.put(id, randomBytes(32));
  const sealed = ids.map((id, i) => sealer.seal(id, `41111111111111${i}`));
  t.equal(sealer.open(sealed[0]!), '411111111111110', 'readable before it is flushed');
  t.equal(onDisk(path).size, before, 'not yet written: it waits for the batch');
  await Promise.all(sealed.map((_, i) => store.append(`s-${i}`, [event(i)])));
  t.ok(ids.every((id) => keysWhenEventsCommitted.has(id)), 'all five keys were on disk when the events committed');

  refuse = true;
  await t.rejects(store.append('refused', [event(99)]), /disk full/, 'no key, no event');
  t.equal((await store.readStream('refused')).length, 0);
});

for (const batched of [true, false]) {
  t.test(`new keys are on disk when newKey returns, written SPARE_KEYS at a time (${batched ? 'batched' : 'unbatched'} key store)`, async (t) => {
    const dir = t.testdir();
    const path = join(dir, 'g.db.keys');
    const keys = new SqliteKeyStore(path, batched);
    t.teardown(() => keys.close());
    const sealer = new Sealer(keys);
    const before = onDisk(path).size;

    const first = sealer.newKey();
    const written = onDisk(path);
    t.ok(written.has(first), 'the key is on disk (another connection sees it) when newKey returns');
    t.equal(written.size, before + SPARE_KEYS, 'written with the spare keys, in one go');
    const sealed = Array.from({ length: 5 }, (_, i) => sealer.sealNew(`51234500000000${i}8`));
    const ids = sealed.map((s) => sealer.keyIdOf(s) as string);
    t.equal(new Set([first, ...ids]).size, 6, 'every key its own id');
    t.ok(ids.every((id) => written.has(id)), 'the keys sealNew uses were on disk before it was called');
    t.equal(onDisk(path).size, before + SPARE_KEYS, 'and nothing more was written for them');
    t.equal(sealer.open(sealed[3]!), '5123450000000038', 'sealed values open');
    const readerKeys = new SqliteKeyStore(path);
    t.teardown(() => readerKeys.close());
    const reader = new Sealer(readerKeys);
    t.equal(reader.open(sealed[4]!), '5123450000000048', 'also through another connection to the key file');

    // Spare keys running low: the next batch is written after this turn, before any is missing.
    let handedOut = 6;
    while (handedOut < SPARE_KEYS - 60) { sealer.newKey(); handedOut++; }
    await nextTurn();
    t.equal(onDisk(path).size, before + 2 * SPARE_KEYS, 'a second batch, written ahead of need');

    sealer.destroyKey(first);
    t.equal(sealer.open(sealer.seal(ids[0]!, 'x')), 'x');
    keys.close();
    const left = onDisk(path);
    t.notOk(left.has(first), 'a destroyed key is gone');
    t.ok(ids.every((id) => left.has(id)), 'keys handed out stay');
    t.equal(left.size, before + handedOut - 1, 'closing removes the spare keys nobody used');
  });
}

t.test('a batch written ahead is handed out only once the WAL is synced (off the event loop)', async (t) => {
  const { path, syncs, sealer } = withHeldSyncs(t);
  const before = onDisk(path);
  const handedOut: string[] = [];
  const take = () => { const id = sealer.newKey(); handedOut.push(id); return id; };
  take();
  const afterFirst = onDisk(path);
  t.equal(afterFirst.size, before.size + SPARE_KEYS, 'the first batch is written at once (nothing spare yet)');
  while (handedOut.length < SPARE_KEYS - SPARE_LOW + 1) take();
  t.equal(onDisk(path).size, afterFirst.size, 'running low: nothing written during the turn');
  await nextTurn();
  const ahead = new Set([...onDisk(path)].filter((id) => !afterFirst.has(id)));
  t.equal(ahead.size, SPARE_KEYS, 'the next batch is committed after the turn');
  t.equal(syncs.length, 1, 'and one sync of the WAL asked for');

  while (handedOut.length < SPARE_KEYS) take();
  t.notOk(handedOut.some((id) => ahead.has(id)), 'the first batch used up, none of the unsynced batch');
  const onDemand = take();
  t.notOk(ahead.has(onDemand), 'with none spare and the batch ahead unsynced, it is not used');
  t.equal(onDisk(path).size, afterFirst.size + 2 * SPARE_KEYS, 'a batch was written (and synced) at once instead');
  t.equal(syncs.length, 1, 'no second batch ahead while one is syncing');

  syncs[0]!(null);
  const rest = Array.from({ length: SPARE_KEYS - 1 }, take);
  t.notOk(rest.some((id) => ahead.has(id)), 'the batch written on demand goes first');
  t.ok(ahead.has(take()), 'once synced, the batch ahead is handed out');
  t.equal(onDisk(path).size, afterFirst.size + 2 * SPARE_KEYS, 'no other batch written');
  t.equal(new Set(handedOut).size, handedOut.length, 'no key handed out twice');
});

t.test('a failed sync of a batch ahead stops new keys until a restart (no later sync is trusted)', async (t) => {
  const { syncs, sealer, keys } = withHeldSyncs(t);
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.message);
  process.on('warning', onWarning);
  t.teardown(() => { process.off('warning', onWarning); });
  const taken = [sealer.newKey()];
  while (taken.length < SPARE_KEYS - SPARE_LOW + 1) taken.push(sealer.newKey());
  await nextTurn();
  t.equal(syncs.length, 1, 'a batch ahead is syncing');
  syncs[0]!(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
  t.throws(() => { for (let i = 0; i < SPARE_KEYS; i++) sealer.newKey(); }, { message: /key store could not sync its WAL to disk \(EIO\); restart tokengate/ },
    'once the spare keys run out, no new key: the batch written on demand would be trusted to a sync that may lie');
  await nextTurn();
  t.match(warnings.join('\n'), /restart tokengate/, 'a warning says so');
  t.match(keys.failure?.message, /key store could not sync its WAL/, 'and the key store says why (Check Gateway then answers SHUTDOWN)');
});

t.test('two key stores on one file hand out different keys', async (t) => {
  const path = join(t.testdir(), 'g.db.keys');
  const a = new SqliteKeyStore(path, true);
  const b = new SqliteKeyStore(path, true);
  t.teardown(() => { a.close(); b.close(); });
  const sa = new Sealer(a);
  const sb = new Sealer(b);
  const fromA = new Set(Array.from({ length: 20 }, () => sa.newKey()));
  const fromB = Array.from({ length: 20 }, () => sb.newKey());
  t.equal(fromA.size, 20);
  t.notOk(fromB.some((id) => fromA.has(id)), 'no key handed out twice');
  t.equal(sa.fingerprint('x'), sb.fingerprint('x'), 'one fingerprint secret');
});
