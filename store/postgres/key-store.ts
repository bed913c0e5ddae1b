// The key store in PostgreSQL (EVENT_STORE=postgres://…): card-data keys, unique-account
// reservations and the shredder's checkpoint in tables of their own, shared by every instance on
// the database, so no instance needs a local file. The KeyStore port stays synchronous: its
// statements run through SyncPgClient (sync-client.ts: a worker thread's connection, waited for
// with Atomics.wait, as better-sqlite3 waits for SQLite), so a key is committed before put()
// returns, and so before any event that references it is appended. Why not an asynchronous port:
// the sealer is called deep inside synchronous code (the token and session services' deciders, the
// response views); making all of it asynchronous would touch every path that opens a number, and
// give the SQLite default an await per call for the sake of another store.
//
// Forgetting (crypto-shredding): a DELETE leaves the row's bytes in the table's file (a dead tuple,
// until a vacuum, which does not promise to overwrite them) and in the write-ahead log. So
// after keys are destroyed (or reservations released), scrub() rewrites the two tables (VACUUM
// FULL: a new file with the live rows only, the old one truncated at commit), then switches to a
// new WAL segment and runs a CHECKPOINT, after which the segments that held the keys are no longer
// needed and are removed (wal_recycle = off) or recycled (overwritten later). What that leaves is
// in docs/stores.md ("Keys, read models and reactors on PostgreSQL"). The scrub runs a moment after
// the deletions: a process stopped in between would leave it undone, so every deletion also moves
// a durable mark (SCRUB_DUE, in the deletion's transaction), a scrub records the mark it covered
// (SCRUBBED_THROUGH), and a key store that opens behind the mark scrubs.
import pg from 'pg';
import { StoreBusy } from '../../domain/errors.js';
import type { KeyStore, NewKey } from '../keys/key-store.js';
import { newDataKey } from '../keys/random.js';
import { redactUrl, translatePgError } from './errors.js';
import { PostgresHealth } from './health.js';
import { SyncPgClient, type Statement } from './sync-client.js';

const SCHEMA: Statement[] = [
  { text: 'BEGIN' },
  // Two instances starting at once: CREATE TABLE IF NOT EXISTS can still collide in the catalog.
  { text: "SELECT pg_advisory_xact_lock(hashtext('tokengate:key-store-schema'))" },
  // Whether this open makes the tables (KeyStore.fresh), asked under the lock.
  { text: "SELECT to_regclass('card_keys') IS NULL AS fresh" },
  { text: 'CREATE TABLE IF NOT EXISTS card_keys (key_id text PRIMARY KEY, key bytea NOT NULL)' },
  { text: 'CREATE TABLE IF NOT EXISTS account_reservations (account_hash text PRIMARY KEY, reservation_id text NOT NULL)' },
  { text: 'CREATE TABLE IF NOT EXISTS key_store_meta (name text PRIMARY KEY, value text NOT NULL)' },
  { text: 'COMMIT' },
];

const SHREDDED_THROUGH = 'shredded-through';
const SCRUB_DUE = 'scrub-due';
const SCRUBBED_THROUGH = 'scrubbed-through';
/** Whether a scrub is owed (a deletion marked after the last scrub recorded), read at open. */
const SCRUB_OWED: Statement = {
  text: `SELECT coalesce((SELECT value::numeric FROM key_store_meta WHERE name = '${SCRUB_DUE}'), 0)
              > coalesce((SELECT value::numeric FROM key_store_meta WHERE name = '${SCRUBBED_THROUGH}'), 0) AS owed`,
};
/** A position in key_store_meta that only moves forward, whichever instance writes it. */
const RAISE_META = `INSERT INTO key_store_meta (name, value) VALUES ($1, $2) ON CONFLICT (name)
  DO UPDATE SET value = excluded.value WHERE key_store_meta.value::numeric < excluded.value::numeric`;

/**
 * `deletion` (a DELETE) and, when it deleted any row, SCRUB_DUE moved on: one statement, so one
 * transaction and one round trip. Its row count is 1 when rows were deleted, else 0.
 */
function markedDeletion(deletion: string, values: unknown[]): Statement {
  return {
    text: `WITH gone AS (${deletion} RETURNING 1)
           INSERT INTO key_store_meta (name, value) SELECT '${SCRUB_DUE}', '1' WHERE EXISTS (SELECT FROM gone)
           ON CONFLICT (name) DO UPDATE SET value = (key_store_meta.value::numeric + 1)::text`,
    values,
  };
}

/** Keys written ahead in one statement (one commit), handed out by newKey(). */
export const PG_SPARE_KEYS = 64;
/** A scrub runs this long after the first destroy it covers (destroys of one request, or of many, share it). */
const SCRUB_DELAY_MS = 200;

export class PostgresKeyStore implements KeyStore {
  private readonly client: SyncPgClient;
  private spare: NewKey[] = [];
  private scrubTimer: NodeJS.Timeout | undefined;
  private scrubbing: Promise<boolean> | undefined;
  private scrubRetries = 0;
  private scrubAgain = false;
  private warned = new Set<string>();
  private closed = false;

  private readonly health: PostgresHealth;
  /** See KeyStore.fresh: this open made the tables. */
  readonly fresh: boolean;

  /** `health`: the event store's, when on the same server (Check Gateway hears of both). */
  constructor(private readonly url: string, options: { health?: PostgresHealth } = {}) {
    this.health = options.health ?? new PostgresHealth();
    this.client = new SyncPgClient(url);
    try {
      const results = this.run<{ fresh?: boolean; owed?: boolean }>(...SCHEMA, SCRUB_OWED);
      this.fresh = results[2]?.rows[0]?.fresh === true;
      // A process stopped before the scrub of its deletions: finished here, on the usual timer.
      if (results[SCHEMA.length]?.rows[0]?.owed === true) this.scheduleScrub();
    } catch (error) {
      void this.client.close();
      throw error;
    }
  }

  private run<Row>(...statements: Statement[]) {
    const ticket = this.health.ticket();
    try {
      const results = this.client.run<Row>(...statements);
      this.health.succeeded(ticket);
      return results;
    } catch (error) {
      this.health.failed(error);
      // The server unreachable: 503 (StoreUnreachable); a lock or statement timeout: StoreBusy; a
      // full disk: a StorageFault (the gateway SHUTDOWN while it lasts, guarded.ts).
      throw translatePgError(error, redactUrl(this.url), 'the key store');
    }
  }

  get(keyId: string): Buffer | undefined {
    return this.run<{ key: Buffer }>({ text: 'SELECT key FROM card_keys WHERE key_id = $1', values: [keyId] })[0]!.rows[0]?.key;
  }

  /** Committed when this returns. */
  put(keyId: string, key: Buffer): void {
    this.run({ text: 'INSERT INTO card_keys (key_id, key) VALUES ($1, $2) ON CONFLICT (key_id) DO NOTHING', values: [keyId, key] });
  }

  /** A key committed in advance, PG_SPARE_KEYS per statement: a new token's key costs no round trip of its own. */
  newKey(): NewKey {
    if (this.spare.length === 0) {
      const keys = Array.from({ length: PG_SPARE_KEYS }, () => newDataKey());
      this.run({
        text: "INSERT INTO card_keys (key_id, key) SELECT id, decode(k, 'hex') FROM unnest($1::text[], $2::text[]) AS t(id, k)",
        values: [keys.map((k) => k.keyId), keys.map((k) => k.key.toString('hex'))],
      });
      this.spare = keys.reverse();
    }
    return this.spare.pop()!;
  }

  destroy(keyId: string): void {
    this.spare = this.spare.filter((k) => k.keyId !== keyId);
    const [result] = this.run(markedDeletion('DELETE FROM card_keys WHERE key_id = $1', [keyId]));
    if ((result!.rowCount ?? 0) > 0) this.scheduleScrub();
  }

  /** One statement for all of them (get() per key would wait for one round trip each). */
  held(keyIds: readonly string[]): Set<string> {
    const rows = this.run<{ key_id: string }>({ text: 'SELECT key_id FROM card_keys WHERE key_id = ANY($1::text[])', values: [[...keyIds]] })[0]!.rows;
    return new Set(rows.map((row) => row.key_id));
  }

  reservation(accountHash: string): string | undefined {
    return this.run<{ reservation_id: string }>({ text: 'SELECT reservation_id FROM account_reservations WHERE account_hash = $1', values: [accountHash] })[0]!.rows[0]?.reservation_id;
  }

  /**
   * The first id written wins, whichever instance writes it: INSERT … ON CONFLICT DO NOTHING waits
   * for a concurrent insert of the same hash to commit, then inserts nothing; the winner's id is
   * read back (a new statement: it sees that commit). Released in between: tried again.
   */
  reserve(accountHash: string, reservationId: string): string {
    for (let attempt = 0; attempt < 5; attempt++) {
      const [inserted, existing] = this.run<{ reservation_id: string }>(
        { text: 'INSERT INTO account_reservations (account_hash, reservation_id) VALUES ($1, $2) ON CONFLICT (account_hash) DO NOTHING RETURNING reservation_id', values: [accountHash, reservationId] },
        { text: 'SELECT reservation_id FROM account_reservations WHERE account_hash = $1', values: [accountHash] },
      );
      const id = inserted!.rows[0]?.reservation_id ?? existing!.rows[0]?.reservation_id;
      if (id !== undefined) return id;
    }
    throw new StoreBusy('the account reservation kept changing under this request', 'RESERVATION_BUSY');
  }

  release(accountHash: string, reservationId: string): void {
    const [result] = this.run(markedDeletion('DELETE FROM account_reservations WHERE account_hash = $1 AND reservation_id = $2', [accountHash, reservationId]));
    if ((result!.rowCount ?? 0) > 0) this.scheduleScrub();
  }

  shreddedThrough(): bigint | undefined {
    const value = this.run<{ value: string }>({ text: 'SELECT value FROM key_store_meta WHERE name = $1', values: [SHREDDED_THROUGH] })[0]!.rows[0]?.value;
    return value === undefined ? undefined : BigInt(value);
  }

  /**
   * One statement: another instance's higher position is kept. Posted, not waited for: every
   * instance follows the whole log and records it every few thousand events (its own and the
   * others'), and the event loop need not stop for a write whose loss only makes the next start
   * read a little more of the log. This key store's next statement runs after it (reads it).
   */
  setShreddedThrough(position: bigint): void {
    this.client.post({ text: RAISE_META, values: [SHREDDED_THROUGH, String(position)] });
  }

  private scheduleScrub(delayMs = SCRUB_DELAY_MS): void {
    if (this.closed) return;
    if (this.scrubbing) { this.scrubAgain = true; return; }
    if (this.scrubTimer) return;
    this.scrubTimer = setTimeout(() => {
      this.scrubTimer = undefined;
      this.scrub().catch((error: unknown) => this.warnOnce('scrub', `the key store could not scrub destroyed keys: ${String((error as Error).message ?? error)}`));
    }, delayMs);
    this.scrubTimer.unref();
  }

  /**
   * Remove what destroyed keys and released reservations leave in the server's files: the tables
   * rewritten (VACUUM FULL), then a new WAL segment and a CHECKPOINT, so the segments that held
   * them are removed. On its own connection, asynchronously: the process serves meanwhile (a key
   * statement waits for the rewrite's lock, milliseconds for a table of thousands of keys).
   * Resolves to true when the rewrite left no destroyed row behind. False when a transaction
   * still open somewhere (any instance, any client of the database) could see them: VACUUM FULL
   * then copies them into the new file, so the scrub runs again a second later (for up to a
   * minute), as the SQLite key store retries its WAL truncation while a reader holds it.
   * The switch and the CHECKPOINT need a superuser, or the pg_checkpoint role and pg_switch_wal's
   * grant: without them, one warning, and the WAL keeps the keys until the server retires it.
   */
  scrub(): Promise<boolean> {
    clearTimeout(this.scrubTimer);
    this.scrubTimer = undefined;
    if (this.scrubbing) { this.scrubAgain = true; return this.scrubbing; }
    this.scrubbing = (async () => {
      const client = new pg.Client({ connectionString: this.url, application_name: 'tokengate-keys-scrub', connectionTimeoutMillis: 5_000 });
      client.on('error', () => undefined);
      // VACUUM VERBOSE tells how many dead rows it had to keep (its DETAIL, in English with lc_messages C).
      let kept = 0;
      client.on('notice', (notice) => {
        const match = /(\d+) dead row versions cannot be removed yet/.exec(notice.detail ?? notice.message ?? '');
        if (match) kept += Number(match[1]);
      });
      await client.connect();
      try {
        await client.query("SET lc_messages = 'C'").catch(() => undefined); // a superuser's setting: else the server's language
        let covered: string | undefined;
        do {
          this.scrubAgain = false;
          kept = 0;
          // Read before the rewrite: every deletion marked up to here is committed, so rewritten away.
          covered = (await client.query<{ value: string }>('SELECT value FROM key_store_meta WHERE name = $1', [SCRUB_DUE])).rows[0]?.value;
          await client.query('VACUUM (FULL, VERBOSE) card_keys, account_reservations');
          try {
            await client.query('SELECT pg_switch_wal()');
            await client.query('CHECKPOINT');
          } catch (error) {
            this.warnOnce('wal', `the key store cannot switch the WAL and checkpoint (${String((error as Error).message)}): destroyed keys stay in the WAL until the server retires it`);
          }
        } while (this.scrubAgain);
        if (kept === 0 && covered !== undefined) await client.query(RAISE_META, [SCRUBBED_THROUGH, covered]);
        const recycle = (await client.query<{ wal_recycle: string }>('SHOW wal_recycle')).rows[0]?.wal_recycle;
        if (recycle === 'on') this.warnOnce('recycle', 'the key store\'s server recycles WAL segments (wal_recycle = on): a destroyed key stays in a recycled segment until it is overwritten; set wal_recycle = off (docs/stores.md)');
      } finally {
        await client.end().catch(() => undefined);
        this.scrubbing = undefined;
      }
      if (kept === 0) { this.scrubRetries = 0; return true; }
      if (++this.scrubRetries <= 60) this.scheduleScrub(1000);
      else { this.scrubRetries = 0; this.warnOnce('kept', 'the key store could not scrub destroyed keys for a minute: a transaction kept open on the database still sees them'); }
      return false;
    })();
    return this.scrubbing;
  }

  private warnOnce(what: string, message: string): void {
    if (this.warned.has(what)) return;
    this.warned.add(what);
    process.emitWarning(message);
  }

  /** Unused spare keys deleted; a scrub that was due runs before the connection closes. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const due = this.scrubTimer !== undefined || this.scrubbing !== undefined;
    clearTimeout(this.scrubTimer);
    this.scrubTimer = undefined;
    // Spare keys seal nothing: they are not left behind (a crash leaves at most one batch, unused).
    const unused = this.spare.map((k) => k.keyId);
    this.spare = [];
    try {
      if (unused.length > 0) this.client.run({ text: 'DELETE FROM card_keys WHERE key_id = ANY($1::text[])', values: [unused] });
      if (due) {
        const done = await this.scrub().catch((error: unknown) => { this.warnOnce('scrub', `the key store could not scrub destroyed keys: ${String((error as Error).message ?? error)}`); return true; });
        if (!done) this.warnOnce('kept', 'the key store closed before it could scrub destroyed keys (a transaction kept open on the database still sees them): they go with the next scrub: at the next key destroyed, or the next open of a key store on this database');
      }
    } finally {
      await this.client.close();
    }
  }
}
