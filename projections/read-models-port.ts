// The read models as the services, reactors and CLI use them (ReadModelsPort), and what the one
// runner (projections/read-models.ts) is given and gives.
import { createHash } from 'node:crypto';
import type { Maybe } from '../lib/maybe.js';
import type { ProjectionFeed } from '../store/projection-feed.js';
import type { LocalTables, ReadModelTables, TableRow } from '../store/read-model-tables.js';

/** What a read answers: at once on this process's own tables (SQLite), else perhaps a promise. */
export type Answer<Tables extends ReadModelTables, T> = Tables extends LocalTables ? T : Maybe<T>;

export interface ReadModelsOptions {
  /** Events per page (default PAGE); also the most events deferred projections hold before they are applied. */
  page?: number;
  /** How long deferred projections' events wait for more to join their batch (default DEFER_MS). */
  deferMs?: number;
  /** The store's speed-ups for the read models (store/projection-feed.ts), if it has them. */
  feed?: ProjectionFeed | undefined;
  /** Tables shared by every process, told of this process's commits only: how often to look for what no one applied (ms; projections/behind.ts). */
  lookMs?: number;
  /** Tables shared by every process: how many documents reads keep (projections/doc-cache.ts; default CACHED_DOCS). */
  cachedDocs?: number;
}

export interface RebuildOptions {
  /**
   * Replay the 'onRead' projections too (the CLI's replay), not only the ones a serving gateway
   * keeps (default; the others are replayed by their first read). A rebuild up to a position or
   * an instant replays every one, and they stay there until the next catch-up.
   */
  everyModel?: boolean;
  untilPosition?: bigint;
  untilTime?: Date;
  onProgress?: (events: number, position: bigint, head: bigint) => void;
}

export interface RebuildResult { events: number; position: bigint; seconds: number; eventsPerSecond: number }

/**
 * The read models on any store's tables: reads answer at once on SQLite's, with a promise on
 * PostgreSQL's. Callers `await` the reads, which costs the SQLite default nothing measurable.
 */
export interface ReadModelsPort {
  start(): Promise<void>;
  stop(): Promise<void>;
  /**
   * Apply every event after the checkpoints. With `position` (an append's): undefined when there
   * is nothing to wait for before an answer that depends on it.
   */
  catchUp(position?: bigint): Promise<void> | undefined;
  rebuild(options?: RebuildOptions): Promise<RebuildResult>;
  /** SHA-256 over every document of every projection, in key order: equal hashes, equal models. */
  hash(): Maybe<string>;
  checkpoint(name: string): Maybe<bigint>;
  get<Doc>(projection: string, key: string): Maybe<Doc | undefined>;
  /**
   * get, after the models caught up to the log's head as it is when asked: the document shows
   * every write answered before, by this process or any other sharing the store (a retrieve).
   */
  getCurrent<Doc>(projection: string, key: string): Promise<Doc | undefined>;
  /** Every document of a projection, ordered by key (bytewise). */
  all(projection: string): Maybe<TableRow[]>;
  /** Documents of a projection whose key starts with `prefix` (an ASCII text), ordered by key. */
  withPrefix(projection: string, prefix: string): Maybe<TableRow[]>;
  /**
   * The position of the log through which the models kept current are written (or hold the
   * events, deferred), as known in memory: no read, no catch-up (the read-model lag of /metrics).
   */
  appliedThrough?(): bigint;
}

/** The hash of `rows` (each projection's documents, in key order). */
export function hashOf(projections: ReadonlyArray<{ name: string }>, rows: readonly TableRow[][]): string {
  const digest = createHash('sha256');
  projections.forEach((p, i) => {
    for (const row of rows[i] ?? []) digest.update(`${p.name}\u0000${row.key}\u0000${row.doc}\n`);
  });
  return digest.digest('hex');
}
