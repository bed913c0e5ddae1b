// The read models' tables, as a store keeps them: every projection's documents (JSON text, by key)
// and its checkpoint (the last $all position applied, with the projection's version). The read
// models (projections/read-models.ts) run every catch-up and replay over this port; SQLite
// (store/sqlite/read-model-tables.ts) and PostgreSQL (store/postgres/read-model-tables.ts)
// implement it.
//
// A page of events is written in one transaction with the checkpoints, which the adapter reads
// inside it, locked against other writers: another process sharing the tables may have applied
// some of the events already, and the page's update skips what its checkpoint says is applied.

/** A projection as the tables know it. */
export interface ModelVersion {
  readonly name: string;
  /** Its stored documents were written by this version; another version drops them (reset). */
  readonly version: number;
}

export interface TableRow { key: string; doc: string }

/** A page's writes: documents put and removed, each projection's new checkpoint, a column per array. */
export interface PageWrites {
  put: { projection: string[]; key: string[]; doc: string[] };
  removed: { projection: string[]; key: string[] };
  checkpoints: { name: string[]; version: number[]; position: bigint[] };
}

/** What a page of events does to the tables, given the checkpoints as read in its transaction. */
export interface PageUpdate {
  /** The projections it writes: their checkpoints are read (and locked) first. */
  readonly models: readonly ModelVersion[];
  /** The documents `evolve` will read (projection, key), for an adapter that reads them in one query first. */
  toRead(checkpoints: ReadonlyMap<string, bigint>): Array<[string, string]>;
  /**
   * The writes, each document read through `before` (its text, undefined: none). Undefined when
   * the events do not follow every checkpoint (a gap: the events between are someone else's to
   * apply first): nothing is written.
   */
  evolve(checkpoints: ReadonlyMap<string, bigint>, before: (projection: string, key: string) => string | undefined): PageWrites | undefined;
}

/** The port, answering at once (`Now`: T) or with promises. */
interface Tables<Now extends boolean> {
  /** The checkpoint stored for a projection (0 for none). */
  checkpoint(name: string): Answer<Now, bigint>;
  /**
   * In one transaction: drop the documents of `models` and set their checkpoints to 0 at their
   * version. `changedOnly`: only those stored at another version (instances starting together
   * drop them once).
   */
  reset(models: readonly ModelVersion[], changedOnly?: boolean): Answer<Now, void>;
  get(projection: string, key: string): Answer<Now, string | undefined>;
  /** A projection's documents ordered by key (bytewise); with `prefix` (ASCII), those whose key starts with it. */
  rows(projection: string, prefix?: string): Answer<Now, TableRow[]>;
  /**
   * One page in one transaction: checkpoints, documents and the new checkpoints. Returns the
   * checkpoints after it, or undefined when the update wrote nothing (a gap). Inside a transaction
   * already open on the connection (a commit listener's), it is part of that one.
   */
  write(update: PageUpdate): Answer<Now, ReadonlyMap<string, bigint> | undefined>;
}

type Answer<Now extends boolean, T> = Now extends true ? T : Promise<T>;

/**
 * Tables of this process's own (SQLite: a file of their own, or the events' file on the store's
 * connection), answering at once: a read of the read models is one synchronous query, and a
 * write can join the events' commit. Other processes sharing the file catch up from the log.
 */
export interface LocalTables extends Tables<true> {
  readonly shared: false;
  /** Whether the connection is open (a write after close is left to the next start's catch-up). */
  readonly open: boolean;
}

/**
 * Tables on a server, shared by every instance on the log (PostgreSQL): what one instance
 * applied, every other reads. Answers are promises.
 */
export interface SharedTables extends Tables<false> {
  readonly shared: true;
  /** The checkpoints stored for these projections (0 for none), in one read, locking nothing. */
  checkpoints(names: readonly string[]): Promise<ReadonlyMap<string, bigint>>;
  close(): Promise<void>;
}

export type ReadModelTables = LocalTables | SharedTables;
