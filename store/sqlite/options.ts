// What the SQLite adapter can be asked for beyond the port: its own settings and speed-ups.
import type { CheckpointerOptions } from './checkpointer.js';
import type { SyncFile } from './group-sync.js';

export interface SqliteStoreOptions {
  /** How often subscriptions look for events appended by other processes (ms). */
  pollIntervalMs?: number;
  /**
   * How commits reach the disk. 'group' (default for files): each commit is written to the WAL
   * without waiting, and one fdatasync of the WAL, off the event loop, covers every commit made
   * before it started; an append resolves, and a read returns an event of this process, only
   * once that sync is done. 'commit': SQLite's synchronous=FULL, an fsync inside each commit, on
   * the event loop.
   */
  durability?: 'group' | 'commit';
  /** WAL checkpoints on a worker thread (checkpointer.ts); false: SQLite's automatic ones. */
  checkpoints?: CheckpointerOptions | false;
  /** The fdatasync 'group' durability calls (a test replaces it). */
  syncFile?: SyncFile;
  /** Streams kept in memory, most recently used (default 2,000; 0: none). */
  cachedStreams?: number;
  /** Events of the log's tail kept in memory for readAll (default 1,000, at times up to twice that; 0: none). */
  cachedTail?: number;
  /**
   * Called before each commit of events; if it throws, the batch is refused. The key store's
   * flush goes here, so a card's key is on disk before the event that references it.
   */
  beforeCommit?: () => void;
}

export type { PagesAheadOptions } from '../projection-feed.js';
