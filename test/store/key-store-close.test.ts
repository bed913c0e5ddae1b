// The key store closes on a file it can no longer write (a full disk, a read-only file): its
// spare keys (written ahead, referenced by nothing) cannot be removed then, and are left as a
// crash leaves them; the file is closed all the same, and the keys written before still open.
// On a full disk this made SIGTERM end with a stack trace and exit 1 (test/e2e/graceful-shutdown.test.ts).
import { join } from 'node:path';
import t from 'tap';
import Database from 'better-sqlite3';
import { SqliteKeyStore } from '../../store/keys/sqlite-key-store.js';

t.test('a key store that cannot write closes anyway, keeping what it had written', async (t) => {
  const path = join(t.testdir(), 'g.db.keys');
  const keys = new SqliteKeyStore(path, true);
  const { keyId, key } = keys.newKey(); // a batch of spare keys written ahead, one handed out
  // The connection can no longer write, as when the disk is full or the file read-only.
  const db = (keys as unknown as { db: Database.Database }).db;
  db.pragma('query_only = ON');
  t.doesNotThrow(() => keys.close(), 'close does not throw');
  t.notOk(db.open, 'the file is closed');
  const reader = new Database(path, { readonly: true });
  t.teardown(() => reader.close());
  const row = reader.prepare('SELECT key FROM keys WHERE key_id = ?').get(keyId) as { key: Buffer } | undefined;
  t.same(row?.key, key, 'the key handed out is on disk');
});

t.test('another error at close is still thrown, once the file is closed', async (t) => {
  const path = join(t.testdir(), 'g.db.keys');
  const keys = new SqliteKeyStore(path, true);
  keys.newKey();
  const db = (keys as unknown as { db: Database.Database; stmt: { destroy: { run: () => void } } });
  db.stmt.destroy = { run: () => { throw new Error('a bug'); } };
  t.throws(() => keys.close(), /a bug/);
  t.notOk(db.db.open, 'the file is closed');
});
