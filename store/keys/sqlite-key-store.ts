// Keys in their own SQLite file (for `sqlite:<path>`, the file `<path>.keys`; KEYS_FILE on
// KurrentDB): keys, unique-account reservations and the shredder's checkpoint, destroyed rows
// zeroed (secure_delete) and the WAL truncated after them. New keys come from spare-keys.ts.
import { fdatasync } from 'node:fs';
import type Database from 'better-sqlite3';
import { databaseFile, openDatabase } from '../sqlite/database.js';
import { asStorageFault, asStoreBusy, oneLine } from '../storage-fault.js';
import type { KeyStore, NewKey } from './key-store.js';
import { SpareKeys, type SyncFile } from './spare-keys.js';

export { SPARE_KEYS, SPARE_LOW } from './spare-keys.js';

/** A key-store write; SQLITE_BUSY (another process holds the file) becomes the port's StoreBusy. */
function keyWrite<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw asStoreBusy(error) ?? error;
  }
}

export interface SqliteKeyStoreOptions {
  /** The fdatasync of the WAL after a batch of spare keys written ahead (a test replaces it). */
  syncFile?: SyncFile;
}

const SHREDDED_THROUGH = 'shredded-through';

/** Keys in their own SQLite file (for `sqlite:<path>`, the file `<path>.keys`). */
export class SqliteKeyStore implements KeyStore {
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly pending = new Map<string, Buffer>();
  private flushScheduled = false;
  /** Keys on disk that nothing references yet: `newKey()` hands them out. */
  private readonly spare: SpareKeys;
  /** See KeyStore.fresh: the file had no keys table when this opened it. */
  readonly fresh: boolean;

  /** Why new keys are refused until a restart (a failed sync); undefined while they are not. */
  get failure(): Error | undefined {
    return this.spare.failure;
  }

  /**
   * Keys in their own SQLite file (for `sqlite:<path>`, the file `<path>.keys`). With `batched`,
   * keys put in one event-loop turn are written in one transaction (one fsync), by `flush()`,
   * which the event store calls before committing the events that reference them; without it,
   * each key is on disk when `put` returns. Either way `newKey()` hands out keys written in
   * advance, SPARE_KEYS per transaction, so a new token's key costs no write of its own.
   */
  constructor(path: string, private readonly batched = false, options: SqliteKeyStoreOptions = {}) {
    this.db = openDatabase(path);
    // A destroyed key must not survive in the file: SQLite otherwise leaves a deleted row's bytes
    // in the page's free space or on a free page, where anyone holding a copy of the file could
    // read it and open the sealed number in the events. With secure_delete, deleted content is
    // overwritten with zeros (a setting of the connection, so of every connection that deletes).
    this.db.pragma('secure_delete = ON');
    this.fresh = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'keys'").get() === undefined;
    this.db.exec('CREATE TABLE IF NOT EXISTS keys (key_id TEXT PRIMARY KEY, key BLOB NOT NULL)');
    // Unique-account reservations (KeyStore.reservation): one b-tree (WITHOUT ROWID), so a released
    // mapping's bytes live in one place, zeroed by secure_delete like a destroyed key.
    this.db.exec('CREATE TABLE IF NOT EXISTS reservations (account_hash TEXT PRIMARY KEY, reservation_id TEXT NOT NULL) WITHOUT ROWID');
    this.scrubOnce();
    // The WAL of the file SQLite opened (symbolic links resolved), and only in WAL mode.
    const file = databaseFile(this.db);
    const walPath = file !== '' && this.db.pragma('journal_mode', { simple: true }) === 'wal' ? `${file}-wal` : undefined;
    this.stmt = {
      get: this.db.prepare<[string], { key: Buffer }>('SELECT key FROM keys WHERE key_id = ?'),
      put: this.db.prepare('INSERT OR IGNORE INTO keys (key_id, key) VALUES (?, ?)'),
      destroy: this.db.prepare('DELETE FROM keys WHERE key_id = ?'),
      reservation: this.db.prepare<[string], { reservation_id: string }>('SELECT reservation_id FROM reservations WHERE account_hash = ?'),
      reserve: this.db.prepare('INSERT OR IGNORE INTO reservations (account_hash, reservation_id) VALUES (?, ?)'),
      release: this.db.prepare('DELETE FROM reservations WHERE account_hash = ? AND reservation_id = ?'),
      meta: this.db.prepare<[string], { value: string }>('SELECT value FROM key_store_meta WHERE name = ?'),
      setMeta: this.db.prepare('INSERT OR REPLACE INTO key_store_meta (name, value) VALUES (?, ?)'),
    };
    this.spare = new SpareKeys(this.db, walPath, options.syncFile ?? fdatasync, (keys) => this.write(keys), ({ keyId, key }) => this.stmt.put.run(keyId, key));
  }
  reservation(accountHash: string) { return this.stmt.reservation.get(accountHash)?.reservation_id; }
  /** INSERT OR IGNORE, then read back: every process sharing the file agrees on the first id written. */
  reserve(accountHash: string, reservationId: string) {
    if (this.failure) throw this.failure;
    keyWrite(() => this.stmt.reserve.run(accountHash, reservationId));
    const id = this.reservation(accountHash);
    if (id === undefined) throw new Error('unreachable: a reservation was just written');
    return id;
  }
  /** Deleted (zeroed: secure_delete), then the WAL checkpointed and truncated, as for a destroyed key. */
  release(accountHash: string, reservationId: string) {
    if (keyWrite(() => this.stmt.release.run(accountHash, reservationId)).changes > 0) this.scheduleScrub(0);
  }
  shreddedThrough() {
    const value = this.stmt.meta.get(SHREDDED_THROUGH)?.value;
    return value === undefined ? undefined : BigInt(value);
  }
  setShreddedThrough(position: bigint) {
    // Read and written in one IMMEDIATE transaction: another process's higher position is kept.
    keyWrite(() => this.db.transaction(() => {
      const value = this.stmt.meta.get(SHREDDED_THROUGH)?.value;
      if (value === undefined || BigInt(value) < position) this.stmt.setMeta.run(SHREDDED_THROUGH, String(position));
    }).immediate());
  }
  get(keyId: string) { return this.pending.get(keyId) ?? this.stmt.get.get(keyId)?.key; }
  put(keyId: string, key: Buffer) {
    if (!this.batched) { keyWrite(() => this.stmt.put.run(keyId, key)); return; }
    this.pending.set(keyId, key);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        try { this.flush(); } catch (error) { process.emitWarning(`keys could not be stored: ${String(error)}`); }
      });
    }
  }
  /** Write every pending key in one transaction; throws if they cannot be stored. */
  flush() {
    this.flushScheduled = false;
    if (this.pending.size === 0 || !this.db.open) return;
    this.write([]);
  }

  /** A key of its own, on disk before this returns: a spare one (spare-keys.ts). */
  newKey(): NewKey {
    return this.spare.take();
  }

  /** The pending keys and `more` in one transaction (one fsync); throws if they cannot be stored. */
  private write(more: readonly NewKey[]): void {
    if (this.failure) throw this.failure;
    const entries = [...this.pending];
    keyWrite(() => this.db.transaction(() => {
      for (const [keyId, key] of entries) this.stmt.put.run(keyId, key);
      for (const { keyId, key } of more) this.stmt.put.run(keyId, key);
    })());
    for (const [keyId] of entries) this.pending.delete(keyId);
  }

  /**
   * Forget a key for good: its row is deleted (zeroed in its page: secure_delete), then the WAL is
   * checkpointed and truncated, since in WAL mode the page images that still hold the key stay in
   * the -wal file (and the old page in the database file) until a checkpoint copies the zeroed page
   * over them. The checkpoint runs once for all the keys destroyed in one event-loop turn (a token
   * deleted destroys several; a session used destroys its security code's key), and again at close.
   */
  destroy(keyId: string) {
    this.pending.delete(keyId);
    keyWrite(() => this.stmt.destroy.run(keyId));
    this.scheduleScrub(0);
  }

  /**
   * The scrub of destroy, now (a Delete Token answers after it): the WAL checkpointed into the
   * database file (synced: synchronous=FULL) and truncated, so that a copy of the files taken as
   * soon as the answer arrives holds the destroyed keys nowhere. False when another connection's
   * read kept part of the WAL: the scrub scheduled by destroy finishes it.
   */
  forget(): boolean {
    if (!this.db.open || !this.truncateWal()) return false;
    clearTimeout(this.scrubTimer);
    this.scrubTimer = undefined;
    this.scrubAttempts = 0;
    return true;
  }

  private scrubTimer: NodeJS.Timeout | undefined;
  private scrubAttempts = 0;

  private scheduleScrub(delayMs: number): void {
    if (this.scrubTimer) return;
    this.scrubTimer = setTimeout(() => {
      this.scrubTimer = undefined;
      if (!this.db.open) return;
      if (this.truncateWal()) { this.scrubAttempts = 0; return; }
      // Another connection (another process sharing the file) still reads an older snapshot:
      // tried again a little later; close() tries once more.
      if (++this.scrubAttempts < 50) this.scheduleScrub(100);
      else { this.scrubAttempts = 0; process.emitWarning('the key store could not truncate its WAL after destroying a key (another connection keeps reading)'); }
    }, delayMs);
    this.scrubTimer.unref();
  }

  /**
   * Copy every page of the WAL into the database file and truncate the WAL to zero bytes; true when
   * done (false: another connection's read kept part of it, or the store is not in WAL mode).
   */
  private truncateWal(): boolean {
    try {
      const [row] = this.db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number; log: number; checkpointed: number }>;
      return row !== undefined && row.busy === 0;
    } catch (error) {
      const fault = asStorageFault(error, 'the key store');
      process.emitWarning(fault ? `${fault.message}: its WAL is checkpointed later (at the latest at the next start)` : `the key store could not checkpoint its WAL: ${oneLine(error)}`);
      return false;
    }
  }

  /**
   * A key file written before secure_delete (or by a version without it) may hold destroyed keys
   * in free space: it is rewritten once (VACUUM) and marked, then its WAL truncated. Another process
   * holding the file busy only postpones it to a later start.
   */
  private scrubOnce(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS key_store_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)');
    const done = this.db.prepare<[string], { value: string }>('SELECT value FROM key_store_meta WHERE name = ?').get('secure_delete');
    if (done) return;
    try {
      this.db.exec('VACUUM');
      this.db.prepare('INSERT OR IGNORE INTO key_store_meta (name, value) VALUES (?, ?)').run('secure_delete', new Date().toISOString());
      this.truncateWal();
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
    }
  }

  close() {
    if (!this.db.open) return;
    let failure: Error | undefined;
    let cannotWrite = false;
    try {
      this.flush();
      // Spare keys seal nothing: they are not left behind (a crash leaves at most two batches of them, unused).
      const unused = this.spare.takeUnused();
      if (unused.length > 0) this.db.transaction(() => { for (const { keyId } of unused) this.stmt.destroy.run(keyId); })();
    } catch (error) {
      // A file that cannot be written (a full disk): the pending keys (no committed event refers
      // to one: the events' commit writes their keys first) and the spare keys stay as a crash
      // leaves them, and the file is closed all the same. Another error is thrown once it is.
      if (asStorageFault(error, 'the key store') === undefined) failure = error instanceof Error ? error : new Error(String(error));
      else cannotWrite = true;
    }
    clearTimeout(this.scrubTimer);
    this.scrubTimer = undefined;
    // The last connection to close checkpoints and deletes the WAL itself; with others still open
    // (processes sharing the file), the destroyed keys' old pages are copied over and cut off here
    // (not on a file that cannot be written: the next start's checkpoint does it).
    if (!cannotWrite) this.truncateWal();
    this.db.close();
    // A sync in progress still uses the WAL's descriptor: it is closed when that sync is done.
    this.spare.close();
    if (failure !== undefined) throw failure;
  }
}

