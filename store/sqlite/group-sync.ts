// Group durability (store/sqlite/README.md): commits go to the WAL without waiting for the disk;
// one fdatasync of the WAL at a time, on libuv's thread pool, covers every commit made before it
// started, and whoever waits for a position is told once a sync past it is done. A failed sync
// poisons the store: nothing it should have covered can be vouched for any more.
import { closeSync, fstatSync, openSync, statSync } from 'node:fs';
import { lastingFault } from '../storage-fault.js';

export type SyncFile = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

export class GroupSync {
  /** The last position this process committed, and the last one known to be on disk. */
  committed = 0n;
  durablePosition = 0n;
  syncing = false;
  /**
   * A failed fdatasync (or checkpoint): what it should have covered may never reach the disk, and
   * a later sync of the same file may report success without it (the kernel reports a write-back
   * error once). From then on every append and durable() fails: the process must restart
   * (SQLite's recovery then keeps exactly what is on disk).
   */
  failure: Error | undefined;
  private closing = false;
  private walFd: number | undefined;
  private waiters: Array<{ position: bigint; resolve: () => void; reject: (error: unknown) => void }> = [];

  /**
   * `enabled`: group durability (a file in WAL mode); otherwise every commit is durable when it
   * returns (synchronous=FULL) and only `failure` is kept. `idle`: called after each sync (the
   * appends that gathered meanwhile may commit).
   */
  constructor(
    readonly enabled: boolean,
    private readonly walPath: string,
    private readonly syncFile: SyncFile,
    private readonly idle: () => void,
  ) {}

  /** What earlier processes committed may not have been synced (one may have stopped between a
   *  commit and its sync): one sync now, and everything in the file up to `head` is on disk. */
  syncAtOpen(head: bigint, syncNow: (fd: number) => void): void {
    if (!this.enabled) return;
    try {
      this.walFd = openSync(this.walPath, 'r');
      syncNow(this.walFd);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // no WAL yet: nothing unsynced
    }
    this.committed = this.durablePosition = head;
  }

  /** A commit of this process reached `position` (in the WAL, maybe not on disk). */
  committedTo(position: bigint): void {
    if (position > this.committed) this.committed = position;
  }

  /** Resolves when this process's commits up to `position` (default: all of them) are on disk. */
  async durable(position?: bigint): Promise<void> {
    if (!this.enabled) return;
    if (position !== undefined) return this.syncedTo(position);
    // Everything committed so far, including what commits while this waits; the last check is
    // synchronous, so a caller reading right after finds nothing newer unsynced.
    while (this.committed > this.durablePosition) await this.syncedTo(this.committed);
    if (this.failure) throw this.failure;
  }

  /** Whether this process's commits up to `position` are on disk now. */
  isDurable(position: bigint): boolean {
    return !this.enabled || position <= this.durablePosition;
  }

  /** Reads hand out this process's events only once they are on disk. */
  async whenDurable<T extends { position: bigint }>(events: T[]): Promise<T[]> {
    const last = events.at(-1)?.position;
    if (last !== undefined && last > this.durablePosition && this.enabled) await this.syncedTo(last);
    return events;
  }

  syncedTo(position: bigint): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (position <= this.durablePosition) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ position, resolve, reject });
      this.syncSoon();
    });
  }

  /** One fdatasync at a time; commits made while it runs wait for the next one (group commit). */
  private syncSoon(): void {
    if (this.syncing || this.waiters.length === 0) return;
    if (this.walFd === undefined) {
      try {
        this.walFd = openSync(this.walPath, 'r');
      } catch (error) {
        this.fail(error as NodeJS.ErrnoException);
        return;
      }
    }
    this.syncing = true;
    // Everything committed to the file before the sync starts is covered, by any connection:
    // the WAL is one file (a read may wait for another process's events this way).
    let target = this.committed;
    for (const waiter of this.waiters) if (waiter.position > target) target = waiter.position;
    this.syncFile(this.walFd, (error) => {
      this.syncing = false;
      if (error) {
        this.fail(error);
      } else {
        if (target > this.durablePosition) this.durablePosition = target;
        this.settle(target);
      }
      if (this.closing && this.waiters.length === 0) this.closeWal();
      else this.syncSoon();
      if (!this.syncing) this.idle();
    });
  }

  private fail(error: NodeJS.ErrnoException): void {
    this.poison(`could not sync its WAL to disk (${error.code ?? error.message})`, error);
  }

  /** What is on disk can no longer be vouched for: refuse every waiter and every later append. */
  poison(what: string, cause: Error): void {
    this.failure ??= lastingFault(`the event store ${what}; restart tokengate`, (cause as NodeJS.ErrnoException).code ?? 'EIO', cause);
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) waiter.reject(this.failure);
  }

  private settle(upTo: bigint): void {
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (waiter.position > upTo) this.waiters.push(waiter);
      else waiter.resolve();
    }
  }

  /** The WAL file's size (0 when there is none yet). */
  walBytes(): number {
    try {
      return this.walFd === undefined ? statSync(this.walPath).size : fstatSync(this.walFd).size;
    } catch {
      return 0;
    }
  }

  /** No more syncs are asked for: the WAL's descriptor closes now, or when the sync in flight ends. */
  close(): void {
    this.closing = true;
    this.closeWal();
  }

  /** Mark closing before the last durable() (the sync that ends it closes the descriptor). */
  closingSoon(): void {
    this.closing = true;
  }

  private closeWal(): void {
    if (this.walFd === undefined || this.syncing) return;
    closeSync(this.walFd);
    this.walFd = undefined;
  }
}
