// Card data at rest: card numbers are sealed with AES-256-GCM under a key of their own (one per
// token), kept in a key store apart from the events, so destroying the key forgets the number
// even in old events (crypto-shredding). Request fingerprints and account-identifier lookups
// use HMAC-SHA-256 under a secret of the key store, so no digest can be brute-forced offline.
import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { closeSync, fdatasync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { databaseFile, openDatabase } from './sqlite.js';
import { asStoreBusy } from './storage-fault.js';

/** A key-store write; SQLITE_BUSY (another process holds the file) becomes the port's StoreBusy. */
function keyWrite<T>(write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw asStoreBusy(error) ?? error;
  }
}

export interface KeyStore {
  get(keyId: string): Buffer | undefined;
  /** Make every key put so far durable (a no-op where puts are durable at once). */
  flush?(): void;
  /** Store a new key; the key is durable when this returns. */
  put(keyId: string, key: Buffer): void;
  /**
   * A new random key of its own, already durable (where the store keeps keys made in advance);
   * absent: the sealer makes one and puts it.
   */
  newKey?(): NewKey;
  destroy(keyId: string): void;
  /**
   * Unique-account repositories: the reservation id an account's keyed hash maps to, if any. The
   * mapping lives here, not in the events, so that forgetting it (release) unlinks the account from
   * its reservation stream, named by the random id, for good (services/token-writes.ts).
   */
  reservation(accountHash: string): string | undefined;
  /**
   * Map `accountHash` to `reservationId` unless it maps to one already (another request or another
   * process sharing the file may have won); returns the id it maps to, durable when this returns.
   */
  reserve(accountHash: string, reservationId: string): string;
  /** Forget the mapping if it still names `reservationId`, securely deleted like a key. */
  release(accountHash: string, reservationId: string): void;
  /** The log position through which every deleted token's keys are destroyed (undefined: never recorded). */
  shreddedThrough(): bigint | undefined;
  /** Record that position (a lower one than recorded is ignored). */
  setShreddedThrough(position: bigint): void;
  /** Why new keys are refused until a restart (a failed sync), if they are. */
  readonly failure?: Error | undefined;
  close(): void;
}

export interface NewKey { keyId: string; key: Buffer }

/**
 * Random bytes for keys and IVs, drawn from a buffer filled 4 KiB at a time from the CSPRNG (one
 * call into OpenSSL per 4 KiB instead of one per key and IV, ≈ 2 µs each). Every value is a copy
 * in memory of its own (not Node's shared pool of small buffers, which allocUnsafe hands out
 * uninitialized), and the bytes handed out are zeroed in the buffer, so it never holds a key in use.
 */
class RandomPool {
  private buffer = Buffer.alloc(0);
  private at = 0;
  take(length: number): Buffer {
    if (this.at + length > this.buffer.length) {
      this.buffer = randomBytes(Math.max(4096, length));
      this.at = 0;
    }
    const out = Buffer.alloc(length);
    this.buffer.copy(out, 0, this.at, this.at + length);
    this.buffer.fill(0, this.at, this.at + length);
    this.at += length;
    return out;
  }
}
const random = new RandomPool();

/**
 * A key id: a UUIDv7 (RFC 9562: the time in ms, then 74 random bits), so the ids of new keys
 * sort after the older ones and a batch of keys lands at the end of the key table's index (a few
 * pages written) instead of on a random page each (random v4 ids: ≈ 4 times the time per batch,
 * a page of WAL per key).
 */
function newKeyId(): string {
  const bytes = random.take(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
const newDataKey = (): NewKey => ({ keyId: newKeyId(), key: random.take(32) });

export class MemoryKeyStore implements KeyStore {
  private readonly keys = new Map<string, Buffer>();
  private readonly reservations = new Map<string, string>();
  private shredded: bigint | undefined;
  get(keyId: string) { return this.keys.get(keyId); }
  put(keyId: string, key: Buffer) { this.keys.set(keyId, key); }
  destroy(keyId: string) { this.keys.delete(keyId); }
  reservation(accountHash: string) { return this.reservations.get(accountHash); }
  reserve(accountHash: string, reservationId: string) {
    const existing = this.reservations.get(accountHash);
    if (existing !== undefined) return existing;
    this.reservations.set(accountHash, reservationId);
    return reservationId;
  }
  release(accountHash: string, reservationId: string) {
    if (this.reservations.get(accountHash) === reservationId) this.reservations.delete(accountHash);
  }
  shreddedThrough() { return this.shredded; }
  setShreddedThrough(position: bigint) { if (this.shredded === undefined || position > this.shredded) this.shredded = position; }
  close() {}
}

/** Keys made in advance by a SqliteKeyStore, written together: one transaction (one fsync) for this many keys. */
export const SPARE_KEYS = 256;
/** Below this many spare keys, the next batch is written after the current event-loop turn. */
export const SPARE_LOW = 128;

export interface SqliteKeyStoreOptions {
  /** The fdatasync of the WAL after a batch of spare keys written ahead (a test replaces it). */
  syncFile?: (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => void;
}

const SHREDDED_THROUGH = 'shredded-through';

/** Keys in their own SQLite file (for `sqlite:<path>`, the file `<path>.keys`). */
export class SqliteKeyStore implements KeyStore {
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly pending = new Map<string, Buffer>();
  private flushScheduled = false;
  /** Keys on disk that nothing references yet: `newKey()` hands them out. */
  private spare: NewKey[] = [];
  private refillScheduled = false;
  /** A batch written ahead, committed but not yet synced: not handed out before it is. */
  private syncing: NewKey[] | undefined;
  private readonly walPath: string | undefined;
  private walFd: number | undefined;
  private syncFailure: Error | undefined;
  private readonly syncFile: NonNullable<SqliteKeyStoreOptions['syncFile']>;

  /** Why new keys are refused until a restart (a failed sync); undefined while they are not. */
  get failure(): Error | undefined {
    return this.syncFailure;
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
    this.db.exec('CREATE TABLE IF NOT EXISTS keys (key_id TEXT PRIMARY KEY, key BLOB NOT NULL)');
    // Unique-account reservations (KeyStore.reservation): one b-tree (WITHOUT ROWID), so a released
    // mapping's bytes live in one place, zeroed by secure_delete like a destroyed key.
    this.db.exec('CREATE TABLE IF NOT EXISTS reservations (account_hash TEXT PRIMARY KEY, reservation_id TEXT NOT NULL) WITHOUT ROWID');
    this.scrubOnce();
    // The WAL of the file SQLite opened (symbolic links resolved), and only in WAL mode.
    const file = databaseFile(this.db);
    this.walPath = file !== '' && this.db.pragma('journal_mode', { simple: true }) === 'wal' ? `${file}-wal` : undefined;
    this.syncFile = options.syncFile ?? fdatasync;
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
  }
  reservation(accountHash: string) { return this.stmt.reservation.get(accountHash)?.reservation_id; }
  /** INSERT OR IGNORE, then read back: every process sharing the file agrees on the first id written. */
  reserve(accountHash: string, reservationId: string) {
    if (this.syncFailure) throw this.syncFailure;
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

  /**
   * A key of its own, on disk before this returns: a spare one, written in advance with others.
   * When none is left, a batch is written now (one transaction, its fsync on the event loop);
   * when few are left, the next batch is written after this turn and synced off the event loop.
   */
  newKey(): NewKey {
    if (this.syncFailure) throw this.syncFailure;
    if (this.spare.length === 0) this.refill();
    const next = this.spare.pop();
    if (!next) throw new Error('unreachable: spare keys were just written');
    if (this.spare.length < SPARE_LOW && !this.refillScheduled && !this.syncing) {
      this.refillScheduled = true;
      setImmediate(() => {
        this.refillScheduled = false;
        if (this.spare.length >= SPARE_LOW || this.syncing || !this.db.open) return;
        try { this.refillAhead(); } catch (error) { process.emitWarning(`spare keys could not be stored: ${String(error)}`); }
      });
    }
    return next;
  }

  /** A batch of spare keys (and the pending keys), durable when this returns. */
  private refill(): void {
    const made = Array.from({ length: SPARE_KEYS }, newDataKey);
    this.write(made);
    this.spare = made.concat(this.spare);
  }

  /**
   * A batch of spare keys committed without an fsync in the commit (synchronous=NORMAL), then
   * one fdatasync of the WAL on libuv's thread pool; the keys are handed out only once it is
   * done, so every key handed out is on disk, and the event loop does not wait for the disk.
   */
  private refillAhead(): void {
    if (this.walPath === undefined) { this.refill(); return; }
    const made = Array.from({ length: SPARE_KEYS }, newDataKey);
    this.db.pragma('synchronous = NORMAL');
    try {
      this.db.transaction(() => { for (const { keyId, key } of made) this.stmt.put.run(keyId, key); })();
    } finally {
      this.db.pragma('synchronous = FULL');
    }
    this.walFd ??= openSync(this.walPath, 'r');
    this.syncing = made;
    this.syncFile(this.walFd, (error) => {
      this.syncing = undefined;
      if (!this.db.open) { this.closeWal(); return; }
      // Not known to be on disk: never handed out (they stay unused in the file). Nor is any key
      // written after them: a later sync of the file may report success without the pages this
      // one lost (the kernel reports a write-back error once), so new keys stop until a restart.
      if (error) {
        this.syncFailure = new Error(`the key store could not sync its WAL to disk (${error.code ?? error.message}); restart tokengate`, { cause: error });
        process.emitWarning(this.syncFailure.message);
        return;
      }
      this.spare = made.concat(this.spare);
    });
  }

  /** The pending keys and `more` in one transaction (one fsync); throws if they cannot be stored. */
  private write(more: readonly NewKey[]): void {
    if (this.syncFailure) throw this.syncFailure;
    const entries = [...this.pending];
    keyWrite(() => this.db.transaction(() => {
      for (const [keyId, key] of entries) this.stmt.put.run(keyId, key);
      for (const { keyId, key } of more) this.stmt.put.run(keyId, key);
    })());
    for (const [keyId] of entries) this.pending.delete(keyId);
  }

  private closeWal(): void {
    if (this.walFd === undefined) return;
    closeSync(this.walFd);
    this.walFd = undefined;
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
      process.emitWarning(`the key store could not checkpoint its WAL: ${String(error)}`);
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
    this.flush();
    // Spare keys seal nothing: they are not left behind (a crash leaves at most two batches of them, unused).
    const unused = [...this.spare, ...(this.syncing ?? [])];
    this.spare = [];
    if (unused.length > 0) this.db.transaction(() => { for (const { keyId } of unused) this.stmt.destroy.run(keyId); })();
    clearTimeout(this.scrubTimer);
    this.scrubTimer = undefined;
    // The last connection to close checkpoints and deletes the WAL itself; with others still open
    // (processes sharing the file), the destroyed keys' old pages are copied over and cut off here.
    this.truncateWal();
    this.db.close();
    // A sync in progress still uses the WAL's descriptor: it is closed when that sync is done.
    if (!this.syncing) this.closeWal();
  }
}

const FINGERPRINT_KEY_ID = 'hmac:fingerprints';
const VERSION = 'v1';

function sealWith(keyId: string, key: Buffer, plaintext: string): string {
  const iv = random.take(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${keyId}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

export class Sealer {
  private readonly hmacKey: Buffer;
  constructor(private readonly keys: KeyStore) {
    let key = keys.get(FINGERPRINT_KEY_ID);
    if (!key) {
      keys.put(FINGERPRINT_KEY_ID, randomBytes(32));
      keys.flush?.();
      // Re-read: another process sharing the key store may have won the race.
      key = keys.get(FINGERPRINT_KEY_ID) as Buffer;
    }
    this.hmacKey = key;
  }

  private makeKey(): NewKey {
    const made = this.keys.newKey?.();
    if (made) return made;
    const key = newDataKey();
    this.keys.put(key.keyId, key.key);
    return key;
  }

  /** A new data key; returns its id. */
  newKey(): string {
    return this.makeKey().keyId;
  }

  /** `v1.<keyId>.<iv>.<ciphertext+tag>` (base64url parts). */
  seal(keyId: string, plaintext: string): string {
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`no key ${keyId}`);
    return sealWith(keyId, key, plaintext);
  }

  /** seal(newKey(), plaintext), without reading back the key just made. */
  sealNew(plaintext: string): string {
    const { keyId, key } = this.makeKey();
    return sealWith(keyId, key, plaintext);
  }

  /** The plaintext, or undefined when the key was destroyed (or the value is not sealed by us). */
  open(sealed: string): string | undefined {
    const [version, keyId, ivText, bodyText] = sealed.split('.');
    if (version !== VERSION || !keyId || !ivText || !bodyText) return undefined;
    const key = this.keys.get(keyId);
    if (!key) return undefined;
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(keyId));
    if (body.length < 16) return undefined;
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
  }

  keyIdOf(sealed: string): string | undefined {
    return sealed.split('.')[1];
  }

  destroyKey(keyId: string): void {
    this.keys.destroy(keyId);
  }

  /** A new random reservation id: 32 bytes, base64url (43 characters, like a fingerprint). */
  newReservationId(): string {
    return random.take(32).toString('base64url');
  }

  /** See KeyStore.reservation, reserve and release. */
  reservation(accountHash: string): string | undefined {
    return this.keys.reservation(accountHash);
  }

  reserve(accountHash: string, reservationId: string): string {
    return this.keys.reserve(accountHash, reservationId);
  }

  release(accountHash: string, reservationId: string): void {
    this.keys.release(accountHash, reservationId);
  }

  /** See KeyStore.shreddedThrough. */
  shreddedThrough(): bigint | undefined {
    return this.keys.shreddedThrough();
  }

  setShreddedThrough(position: bigint): void {
    this.keys.setShreddedThrough(position);
  }

  /** Keyed hash (HMAC-SHA-256, base64url) of a value that must not be stored in plaintext. */
  fingerprint(value: string): string {
    return createHmac('sha256', this.hmacKey).update(value).digest('base64url');
  }
}
