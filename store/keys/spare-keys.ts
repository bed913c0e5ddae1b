// Keys made in advance, so a new token's key costs no write of its own: SPARE_KEYS per
// transaction. When none is left, a batch is written at once (its fsync on the event loop); when
// few are left, the next batch is committed without an fsync in the commit (synchronous=NORMAL)
// and one fdatasync of the WAL runs on libuv's thread pool: its keys are handed out only once it is
// done, so every key handed out is on disk, and the event loop does not wait for the disk. A
// failed sync stops new keys until a restart (a later sync may report success without the lost pages).
import { closeSync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import type { NewKey } from './key-store.js';
import { newDataKey } from './random.js';
import { relaxedSync } from '../sqlite/database.js';

/** Keys made in advance by a SqliteKeyStore, written together: one transaction (one fsync) for this many keys. */
export const SPARE_KEYS = 256;
/** Below this many spare keys, the next batch is written after the current event-loop turn. */
export const SPARE_LOW = 128;

export type SyncFile = (fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => void;

export class SpareKeys {
  /** Keys on disk that nothing references yet. */
  private spare: NewKey[] = [];
  private refillScheduled = false;
  /** A batch written ahead, committed but not yet synced: not handed out before it is. */
  private syncing: NewKey[] | undefined;
  private walFd: number | undefined;
  /** Why new keys are refused until a restart (a failed sync); undefined while they are not. */
  failure: Error | undefined;

  /**
   * `write`: the store's durable write of keys (with its pending ones), one transaction;
   * `insert`: one key's row, inside a transaction; `walPath`: the WAL in WAL mode, else undefined.
   */
  constructor(
    private readonly db: Database.Database,
    private readonly walPath: string | undefined,
    private readonly syncFile: SyncFile,
    private readonly write: (keys: readonly NewKey[]) => void,
    private readonly insert: (key: NewKey) => void,
  ) {}

  /** A key of its own, on disk before this returns. */
  take(): NewKey {
    if (this.failure) throw this.failure;
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

  /** A batch of spare keys (and the store's pending keys), durable when this returns. */
  private refill(): void {
    const made = Array.from({ length: SPARE_KEYS }, newDataKey);
    this.write(made);
    this.spare = made.concat(this.spare);
  }

  private refillAhead(): void {
    if (this.walPath === undefined) { this.refill(); return; }
    const made = Array.from({ length: SPARE_KEYS }, newDataKey);
    relaxedSync(this.db, () => this.db.transaction(() => { for (const key of made) this.insert(key); })());
    this.walFd ??= openSync(this.walPath, 'r');
    this.syncing = made;
    this.syncFile(this.walFd, (error) => {
      this.syncing = undefined;
      if (!this.db.open) { this.closeWal(); return; }
      // Not known to be on disk: never handed out (they stay unused in the file). Nor is any key
      // written after them: a later sync of the file may report success without the pages this
      // one lost (the kernel reports a write-back error once), so new keys stop until a restart.
      if (error) {
        this.failure = new Error(`the key store could not sync its WAL to disk (${error.code ?? error.message}); restart tokengate`, { cause: error });
        process.emitWarning(this.failure.message);
        return;
      }
      this.spare = made.concat(this.spare);
    });
  }

  /** Spare keys seal nothing: the ones not handed out, to destroy at close. */
  takeUnused(): NewKey[] {
    const unused = [...this.spare, ...(this.syncing ?? [])];
    this.spare = [];
    return unused;
  }

  /** After the database closed: the WAL's descriptor, unless a sync still uses it (closed when it ends). */
  close(): void {
    if (!this.syncing) this.closeWal();
  }

  private closeWal(): void {
    if (this.walFd === undefined) return;
    closeSync(this.walFd);
    this.walFd = undefined;
  }
}
