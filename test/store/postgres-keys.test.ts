// The key store in PostgreSQL (store/postgres/key-store.ts), against a real server: keys committed
// when put() returns (another connection reads them), destroy + scrub leaves the key's bytes in no
// file of the server's data directory (tables and WAL), reservations have exactly one winner when
// two instances race, the shredder's checkpoint only moves forward.
import t from 'tap';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { eventually, waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { PostgresKeyStore } from '../../store/postgres/key-store.js';
import { SyncPgClient } from '../../store/postgres/sync-client.js';
import { Sealer } from '../../store/sealing.js';
import { StoreUnreachable } from '../../domain/errors.js';

const server = postgresForFile(t);

/** Every regular file under `dir` (the server's data directory: tables, WAL, everything). */
function files(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    let stat;
    try { stat = statSync(path); } catch { continue; } // removed meanwhile (a WAL segment)
    if (stat.isDirectory()) files(path, out);
    else if (stat.isFile()) out.push(path);
  }
  return out;
}

function filesHolding(dir: string, needle: Buffer): string[] {
  return files(dir).filter((file) => {
    try { return readFileSync(file).includes(needle); } catch { return false; }
  });
}

async function superuser(url: string, sql: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { return (await client.query(sql)).rows; } finally { await client.end(); }
}

if (server) {
  t.test('a key is committed when put returns; destroy and the scrub leave its bytes in no file of the server', async (t) => {
    const url = await server.get().createDatabase('keys');
    // What docs/stores.md asks of an operator: segments removed, not recycled.
    await superuser(url, 'ALTER SYSTEM SET wal_recycle = off');
    await superuser(url, 'SELECT pg_reload_conf()');
    const dataDir = String((await superuser(url, 'SHOW data_directory'))[0]!.data_directory);
    const keys = new PostgresKeyStore(url);
    const other = new PostgresKeyStore(url);
    t.teardown(async () => { await keys.close(); await other.close(); });

    const sealer = new Sealer(keys);
    const sealed = sealer.sealNew('5123450000000008');
    const keyId = sealer.keyIdOf(sealed)!;
    const key = keys.get(keyId)!;
    t.equal(key.length, 32);
    // Another instance (its own connection) opens it at once.
    t.equal(new Sealer(other).open(sealed), '5123450000000008');
    const kept = keys.newKey(); // a key that stays: the scrub must not lose it

    // The bytes are in the files once the server has written them (the test can see them).
    await superuser(url, 'CHECKPOINT');
    t.ok(filesHolding(dataDir, key).length > 0, 'before destroy the key is in the data directory');

    // A transaction open elsewhere whose snapshot predates the destroy (it could still read the
    // row): the rewrite must keep the row (the scrub says so), and drops it once that one ends.
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
    await reader.query('SELECT 1 FROM pg_class LIMIT 1');
    sealer.destroyKey(keyId);
    t.equal(sealer.open(sealed), undefined, 'destroyed: this instance cannot open it');
    t.equal(new Sealer(other).open(sealed), undefined, 'nor the other');
    t.equal(await keys.scrub(), false, 'not done while an older snapshot may read the key');
    await reader.query('COMMIT');
    await reader.end();
    t.equal(await keys.scrub(), true, 'done once it ended');
    t.same(filesHolding(dataDir, key), [], 'after the scrub no file holds the key (tables, indexes, WAL)');
    t.ok(keys.get(keys.newKey().keyId), 'keys still work after the scrub');
    t.same(other.get(kept.keyId), kept.key, 'a key not destroyed is kept');
  });

  t.test('reservations: two instances racing for one account hash, exactly one id wins everywhere', async (t) => {
    const url = await server.get().createDatabase('reservations');
    const a = new PostgresKeyStore(url);
    const b = new PostgresKeyStore(url);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    const watch = new pg.Client({ connectionString: url });
    await watch.connect();
    t.teardown(async () => { await a.close(); await b.close(); await other.end(); await watch.end(); });
    for (let round = 0; round < 5; round++) {
      const hash = `hash-${round}`;
      // Another instance's reservation of the same hash, in flight (inserted, not yet committed)
      // when this instance's own arrives: the server runs it to its COMMIT on its own.
      const racing = other.query(`BEGIN; INSERT INTO account_reservations (account_hash, reservation_id) VALUES ('${hash}', 'other-${round}') ON CONFLICT DO NOTHING; SELECT pg_sleep(0.2); COMMIT`);
      await waitFor(async () => (await watch.query("SELECT 1 FROM pg_stat_activity WHERE wait_event = 'PgSleep' AND datname = current_database()")).rows.length > 0, 'the other reservation in flight', { intervalMs: 5 });
      const mine = (round % 2 === 0 ? a : b).reserve(hash, `mine-${round}`);
      await racing;
      t.equal(mine, `other-${round}`, `round ${round}: the first writer wins; this one waited for it and reads its id`);
      t.equal(a.reservation(hash), mine);
      t.equal(b.reservation(hash), mine);
      t.equal(b.reserve(hash, `late-${round}`), mine, 'a later reserve returns the winner too');
    }
    // Both instances at once, many accounts: one id per hash, whoever asked.
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) =>
      Promise.resolve().then(() => (i % 2 === 0 ? a : b).reserve(`many-${i >> 1}`, `id-${i}`))));
    for (let i = 0; i < 40; i += 2) t.equal(results[i], results[i + 1]);
    const { rows } = await watch.query("SELECT count(*)::int AS n FROM account_reservations WHERE account_hash LIKE 'many-%'");
    t.equal(rows[0].n, 20, 'one row per account');
    a.release('hash-0', 'not-the-id');
    t.ok(b.reservation('hash-0'), 'released only when it names the id');
    a.release('hash-0', a.reservation('hash-0')!);
    t.equal(b.reservation('hash-0'), undefined);
    t.equal(b.reserve('hash-0', 'new'), 'new', 'reserved anew after release');
  });

  t.test('the shredder checkpoint only moves forward, across instances', async (t) => {
    const url = await server.get().createDatabase('shredded');
    const a = new PostgresKeyStore(url);
    const b = new PostgresKeyStore(url);
    t.teardown(async () => { await a.close(); await b.close(); });
    t.equal(a.shreddedThrough(), undefined);
    a.setShreddedThrough(10n);
    // (Posted: a's next statement runs after it, so it is committed before b writes.)
    t.equal(a.shreddedThrough(), 10n);
    b.setShreddedThrough(7n);
    t.equal(b.shreddedThrough(), 10n);
    b.setShreddedThrough(12_345_678_901n);
    // Posted, not waited for: the writer's next statement runs after it; the others see it then.
    t.equal(b.shreddedThrough(), 12_345_678_901n);
    t.equal(a.shreddedThrough(), 12_345_678_901n);
    // A key store closed just after posting one waits for it.
    const c = new PostgresKeyStore(url);
    c.setShreddedThrough(12_345_678_902n);
    await c.close();
    t.equal(a.shreddedThrough(), 12_345_678_902n, 'written before the close');
  });

  t.test('an unreachable server is the port\'s StoreUnreachable (503), named without the password; a dropped connection is opened again', async (t) => {
    const url = await server.get().createDatabase('gone');
    const dead = new URL(url);
    dead.port = String(server.get().port === 1 ? 2 : 1);
    let error: unknown;
    try { new PostgresKeyStore(dead.toString()); } catch (e) { error = e; }
    t.ok(error instanceof StoreUnreachable, `StoreUnreachable: ${String(error)}`);
    t.notOk(String((error as Error).message).includes(server.get().password), 'no password in the message');

    const keys = new PostgresKeyStore(url);
    t.teardown(() => keys.close());
    keys.put('k1', Buffer.alloc(32, 7));
    await superuser(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tokengate-keys' AND datname = current_database()");
    let got: Buffer | undefined;
    for (let i = 0; i < 3 && got === undefined; i++) {
      try { got = keys.get('k1'); } catch (e) { t.ok(e instanceof StoreUnreachable, 'at most a 503 while the connection is replaced'); }
    }
    t.same(got, Buffer.alloc(32, 7), 'read again on a new connection');
  });

  t.test('the key store\'s worker stopped by an error it did not catch: this process goes on, the next statement starts another', async (t) => {
    const url = await server.get().createDatabase('worker');
    const client = new SyncPgClient(url);
    t.teardown(() => client.close());
    t.same(client.run({ text: 'SELECT 1 AS one' })[0]!.rows, [{ one: 1 }]);
    // A message the worker cannot read: its handler throws outside its try, an uncaught error in the worker.
    const inside = client as unknown as { port: { postMessage(message: unknown): void }; stopped: Error | undefined };
    inside.port.postMessage(null);
    await eventually(() => inside.stopped !== undefined);
    t.type(inside.stopped, Error, 'the worker stopped (and this process is still here)');
    t.same(client.run({ text: 'SELECT 2 AS two' })[0]!.rows, [{ two: 2 }], 'the next statement runs on a new worker');
  });
}
