// What the read models may use of a store beyond the port, where the store offers it: the
// composition root (root.ts) passes the store itself. SQLite offers reads for the read models on
// its own connection, which the read models' tables share, and its commit listener; PostgreSQL
// tells of its appends without reading them. Without a feed the read models use the port alone
// (readAll, subscribeAll), as they do on KurrentDB and in memory.
import type { ProjectedEvent, ReadAllOptions } from './event-store.js';

/**
 * What a replay reads of each event's data, by event type: the members named (dotted paths into
 * nested objects: 'outcome.result'), or 'all'. A type not listed is read by no one: its data may
 * arrive as `{}`. A store may hand the events' data cut so (a member holding JSON null then
 * absent), or whole.
 */
export type DataShape = ReadonlyMap<string, readonly string[] | 'all'>;

/** The log in (fromPosition, untilPosition], in pages of pageSize events; of each event's data, what `data` names (default all). */
export interface PagesAheadOptions { fromPosition: bigint; untilPosition: bigint; pageSize: number; data?: DataShape | undefined }

export interface ProjectionFeed {
  /** readAll for folding read models, reading less (no ids, metadata not parsed). */
  readAllForProjections?(options?: ReadAllOptions): Promise<ProjectedEvent[]>;
  /** The same in pages up to `untilPosition`, the next pages read while one is folded (long replays); undefined where it cannot. */
  readonly readPagesAhead?: ((options: PagesAheadOptions) => AsyncIterable<ProjectedEvent[]>) | undefined;
  /**
   * The log after `fromPosition`, at most `maxCount` events, read at once on the read models' own
   * connection (what this process committed included, synced or not): the catch-up of an 'onRead'
   * projection inside a synchronous read. Undefined where it cannot.
   */
  readonly readForProjectionsNow?: ((fromPosition: bigint, maxCount: number) => ProjectedEvent[]) | undefined;
  /** Resolves when everything this process committed (events and read models) is on disk. */
  durable?(): Promise<void>;
  /**
   * Calls `listener` after each append this process committed, without reading the events;
   * returns what stops it. The read models then read the log their own way, in pages. (Tables
   * shared by every process: each process's read models apply what it committed, and look every
   * second for what no one applied: projections/behind.ts.)
   */
  onAppended?(listener: () => void): () => void;
}

/** Told of every batch of events inside the store's own commit (store/sqlite/commit-listener.ts). */
export interface CommitListener {
  /**
   * Inside the batch's transaction, after its writes, with every event it wrote in log order. It
   * runs in a savepoint of its own: if it throws, what it wrote is undone, the events still commit.
   */
  written(events: readonly ProjectedEvent[]): void;
  /** What written() wrote did not commit (the listener threw, or the whole transaction failed). */
  rolledBack(): void;
}
