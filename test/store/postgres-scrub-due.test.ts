// The key store's scrub survives a process stopped before it (store/postgres/key-store.ts): a
// deletion marks a scrub due in its own transaction, a scrub records the mark it covered, and a
// key store that opens behind the mark rewrites the tables (VACUUM FULL: the table gets a new
// file, which is how the test sees that it ran).
import t, { type Test } from 'tap';
import pg from 'pg';
import { waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { PostgresKeyStore } from '../../store/postgres/key-store.js';
import type { SyncPgClient } from '../../store/postgres/sync-client.js';

const server = postgresForFile(t);

/** What a kill leaves: the deletions committed, the scrub's timer never fired, no close(). */
async function kill(t: Test, keys: PostgresKeyStore): Promise<void> {
  const inside = keys as unknown as { scrubTimer: NodeJS.Timeout | undefined; client: SyncPgClient };
  t.ok(inside.scrubTimer, 'a scrub was waiting when the process stopped');
  clearTimeout(inside.scrubTimer);
  inside.scrubTimer = undefined;
  await inside.client.close();
}

async function query<Row>(url: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { return (await client.query(sql)).rows as Row[]; } finally { await client.end(); }
}

/** The tables' files (VACUUM FULL gives both new ones) and the scrub marks. */
async function state(url: string) {
  const [files] = await query<{ keys: string; reservations: string }>(url,
    "SELECT pg_relation_filenode('card_keys')::text AS keys, pg_relation_filenode('account_reservations')::text AS reservations");
  const meta = await query<{ name: string; value: string }>(url, "SELECT name, value FROM key_store_meta WHERE name IN ('scrub-due', 'scrubbed-through')");
  const mark = (name: string) => meta.find((row) => row.name === name)?.value;
  return { keys: files!.keys, reservations: files!.reservations, due: mark('scrub-due'), scrubbed: mark('scrubbed-through') };
}

if (server) {
  t.test('a process killed before its scrub: the next key store to open scrubs', async (t) => {
    const url = await server.get().createDatabase('scrubdue');
    const first = new PostgresKeyStore(url);
    const key = first.newKey();
    first.destroy(key.keyId);
    await kill(t, first);
    const before = await state(url);
    t.equal(before.due, '1', 'the deletion marked a scrub due, committed with it');
    t.equal(before.scrubbed, undefined, 'no scrub recorded');

    const next = new PostgresKeyStore(url);
    t.teardown(() => next.close());
    // Asynchronously, on the scrub's usual timer: the open does not wait for it.
    const after = await waitFor(() => state(url), 'the scrub at open', { until: (s) => s.scrubbed === s.due });
    t.not(after.keys, before.keys, 'the keys table was rewritten (VACUUM FULL)');
    t.equal(after.scrubbed, '1');
    t.equal(next.get(key.keyId), undefined);
  });

  t.test('a released reservation killed before its scrub is scrubbed at the next open too', async (t) => {
    const url = await server.get().createDatabase('scrubrelease');
    const first = new PostgresKeyStore(url);
    first.reserve('hash-1', 'reservation-1');
    first.release('hash-1', 'reservation-1');
    await kill(t, first);
    const before = await state(url);
    t.equal(before.due, '1');
    const next = new PostgresKeyStore(url);
    t.teardown(() => next.close());
    const after = await waitFor(() => state(url), 'the scrub at open', { until: (s) => s.scrubbed === s.due });
    t.not(after.reservations, before.reservations, 'the reservations table was rewritten');
  });

  t.test('a scrub that ran records its mark: the next open does not scrub', async (t) => {
    const url = await server.get().createDatabase('scrubdone');
    const first = new PostgresKeyStore(url);
    first.destroy(first.newKey().keyId);
    first.destroy(first.newKey().keyId);
    first.destroy('no-such-key'); // deletes nothing: marks nothing
    t.equal(await first.scrub(), true);
    await first.close();
    const done = await state(url);
    t.equal(done.due, '2', 'one mark per deletion that deleted a row');
    t.equal(done.scrubbed, '2', 'the scrub recorded the mark it covered');

    const next = new PostgresKeyStore(url);
    t.notOk((next as unknown as { scrubTimer?: NodeJS.Timeout }).scrubTimer, 'no scrub scheduled at open');
    await next.close(); // a scheduled scrub would run here
    t.equal((await state(url)).keys, done.keys, 'the tables were not rewritten again');
  });
}
