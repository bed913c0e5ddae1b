// SQLite adapter of the event store port (better-sqlite3, WAL): an event is on disk before the
// append's promise resolves. Appends requested in the same event-loop turn, or while the last
// commit is being synced, are written in one transaction, each with its own savepoint, so one
// append's conflict does not undo another's. With 'group' durability (the default) the
// transaction commits to the WAL without waiting for the disk; one fdatasync of the WAL, on
// libuv's thread pool, then covers every commit made before it, and only then do the appends
// resolve, so the event loop serves other requests while the disk syncs. Reads return an event
// of this process only once it is on disk too. Several processes may share the file: every
// write transaction is BEGIN IMMEDIATE, and subscriptions poll for the other processes' events.
//
// What this process wrote or read recently is kept in memory (a stream cache, most recently used
// first, and the tail of the log): a pay reads its token and order streams, and the read models
// read the events just appended, without a query. Both are valid only while no other connection
// has written to the file: SQLite's `PRAGMA data_version` changes when one has; reads look at it
// once per event-loop iteration, write transactions always (and both caches are dropped when it
// changed).
import { closeSync, fdatasync, fdatasyncSync, fstatSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import {
  checkExpectedRevision, IdempotencyConflictError,
  type AppendResult, type EventData, type EventStore, type ExpectedRevision, type PagesAheadOptions, type ProjectedEvent, type ReadAllOptions,
  type ReadStreamOptions, type RecordedEvent, type SubscribeOptions, type SubscriptionHandlers, type Subscription,
} from './event-store.js';
import { frozenJsonCopy } from '../lib/json.js';
import { readLogAhead } from './log-reader.js';
import { upgradeEventsFile } from './sqlite-migrations.js';
import { Checkpointer, type CheckpointerOptions } from './checkpointer.js';
import { asStorageFault, lastingFault, translateSqliteError, type StorageFault } from './storage-fault.js';
import { Notifier, pullSubscription } from './subscription.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position   INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id   TEXT    NOT NULL UNIQUE,
  stream     TEXT    NOT NULL,
  revision   INTEGER NOT NULL,
  type       TEXT    NOT NULL,
  data       TEXT    NOT NULL,
  metadata   TEXT    NOT NULL,
  created    TEXT    NOT NULL,
  UNIQUE (stream, revision)
);`;

interface Row {
  position: number; event_id: string; stream: string; revision: number;
  type: string; data: string; metadata: string; created: string;
}

interface PendingAppend {
  stream: string;
  events: readonly EventData[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** What one append wrote (empty on an idempotent repeat). */
interface Written { result: AppendResult; recorded: RecordedEvent[] }

/** Told of every batch this store commits (the read models, applied in the same transaction). */
export interface CommitListener {
  /**
   * Inside the batch's transaction, after its writes, with every event it wrote in log order. It
   * runs in a savepoint of its own: if it throws, what it wrote is undone, the events still commit.
   */
  written(events: readonly RecordedEvent[]): void;
  /** What written() wrote did not commit (the listener throw, or the whole transaction failed). */
  rolledBack(): void;
}

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
  /**
   * WAL checkpoints on a worker thread (store/checkpointer.ts) instead of inside commits on the
   * event loop; false: SQLite's automatic checkpoints (for a file in WAL mode).
   */
  checkpoints?: CheckpointerOptions | false;
  /** The fdatasync 'group' durability calls (a test replaces it). */
  syncFile?: (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;
  /** Streams kept in memory, most recently used (default 2,000; 0: none). */
  cachedStreams?: number;
  /** Events of the log's tail kept in memory for readAll (default 1,000, at times up to twice that; 0: none). */
  cachedTail?: number;
}

/** Open a SQLite database with the pragmas every file of tokengate uses. */
export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  if (path !== ':memory:') enableWal(db);
  db.pragma('synchronous = FULL');
  return db;
}

/** The file SQLite opened for the main database (symbolic links resolved); '' in memory. */
export function databaseFile(db: Database.Database): string {
  return (db.pragma('database_list') as Array<{ name: string; file: string }>).find((d) => d.name === 'main')?.file ?? '';
}

/**
 * Switch a file to WAL. Two processes that open the same new file at the same moment (two
 * gateways started together) may both hold a shared lock and both need the exclusive one: SQLite
 * then answers one of them SQLITE_BUSY at once, without its busy timeout (waiting would deadlock).
 * That one waits a few milliseconds and tries again; by then the file is in WAL mode.
 */
export function enableWal(db: Pick<Database.Database, 'pragma'>): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 100) throw error;
      Atomics.wait(pause, 0, 0, 5 + Math.random() * 20);
    }
  }
}

const toRecorded = (row: Row): RecordedEvent => ({
  id: row.event_id,
  type: row.type,
  data: JSON.parse(row.data) as unknown,
  metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
  stream: row.stream,
  revision: BigInt(row.revision),
  position: BigInt(row.position),
  created: row.created,
});

/** Events in the caches are shared by every reader: nobody may change them (a change throws). */
function frozen<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const member of Object.values(value)) frozen(member);
    Object.freeze(value);
  }
  return value;
}

const matches = (expected: ExpectedRevision, current: bigint): boolean =>
  expected === 'any' ||
  (expected === 'no_stream' && current === -1n) ||
  (expected === 'stream_exists' && current >= 0n) ||
  (typeof expected === 'bigint' && expected === current);

const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';

/** Rows of `readProjected` (or the log reader) as the events a projection folds: the data parsed. */
function projected(rows: ReadonlyArray<readonly [number, string, number, string, string, string]>): ProjectedEvent[] {
  const events = new Array<ProjectedEvent>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const [position, stream, revision, type, data, created] = rows[i]!;
    events[i] = { type, data: JSON.parse(data) as unknown, stream, revision: BigInt(revision), position: BigInt(position), created };
  }
  return events;
}

export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite';
  readonly db: Database.Database;
  private readonly notifier = new Notifier();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private readonly pollIntervalMs: number;
  private readonly stmt;
  /** Whole streams, in least recently used order (a Map iterates in insertion order). */
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly maxStreams: number;
  /** The log's last events, contiguous, the last one at the head of the log. */
  private tail: RecordedEvent[] = [];
  private readonly maxTail: number;
  private dataVersion = -1;
  private checkedThisTurn = false;
  /** Group durability: the WAL's file descriptor, and how far this process's commits are on disk. */
  private readonly group: boolean;
  private readonly walPath: string;
  /** The database file SQLite opened ('' in memory). */
  private readonly file: string;
  private readonly syncFile: NonNullable<SqliteStoreOptions['syncFile']>;
  private walFd: number | undefined;
  private committed = 0n;
  private durablePosition = 0n;
  private syncing = false;
  private syncWaiters: Array<{ position: bigint; resolve: () => void; reject: (error: unknown) => void }> = [];
  /**
   * A failed fdatasync: what it should have covered may never reach the disk, and a later sync of
   * the same file may report success without it (the kernel reports a write-back error once).
   * From then on every append and durable() fails: the process must restart (SQLite's recovery
   * then keeps exactly what is on disk).
   */
  private syncFailure: Error | undefined;
  /**
   * A write SQLite refused for the file's sake (SQLITE_IOERR*, SQLITE_READONLY*, SQLITE_CORRUPT*,
   * SQLITE_CANTOPEN, ...): every later append is refused at once, until a restart. A full disk
   * (SQLITE_FULL) is `fullDisk` instead: appends are still tried, and the first batch that commits
   * ends it.
   */
  private writeFailure: StorageFault | undefined;
  private fullDisk: StorageFault | undefined;
  private closing = false;
  /** Runs the WAL's checkpoints off the event loop (a file in WAL mode). */
  readonly checkpointer: Checkpointer | undefined;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.db = openDatabase(path);
    this.db.exec(SCHEMA);
    upgradeEventsFile(this.db);
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.maxStreams = options.cachedStreams ?? 2_000;
    this.maxTail = options.cachedTail ?? 1_000;
    // The WAL of the file SQLite opened (symbolic links resolved; not relative to a later chdir).
    const file = databaseFile(this.db);
    const wal = this.db.pragma('journal_mode', { simple: true }) === 'wal';
    this.group = file !== '' && wal && (options.durability ?? 'group') === 'group';
    this.walPath = `${file}-wal`;
    this.file = file;
    this.readPagesAhead = file === '' ? undefined : (options) => this.pagesAhead(options);
    this.syncFile = options.syncFile ?? fdatasync;
    if (file !== '' && wal && options.checkpoints !== false) {
      this.db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new Checkpointer(file, () => this.walBytes(), (error) => this.poison(`could not checkpoint its WAL (${error.message})`, error), options.checkpoints);
    }
    // The WAL is synced by this store after the commit (see durable()), not inside it.
    if (this.group) this.db.pragma('synchronous = NORMAL');
    this.stmt = {
      currentRevision: this.db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream = ?'),
      byEventId: this.db.prepare<[string], { stream: string; revision: number; position: number }>('SELECT stream, revision, position FROM events WHERE event_id = ?'),
      insert: this.db.prepare('INSERT INTO events (event_id, stream, revision, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      readStream: this.db.prepare<[string, number, number, string], Row>(
        'SELECT * FROM events WHERE stream = ? AND revision >= ? AND revision <= ? AND created <= ? ORDER BY revision'),
      readAll: this.db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      readProjected: this.db.prepare<[number, number], [number, string, number, string, string, string]>(
        'SELECT position, stream, revision, type, data, created FROM events WHERE position > ? ORDER BY position LIMIT ?').raw(true),
      head: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
      dataVersion: this.db.prepare<[], number>('PRAGMA data_version').pluck(),
    };
    if (this.group) {
      // What earlier processes committed may not have been synced (one may have stopped between
      // a commit and its sync): one sync now, and everything in the file is on disk.
      try {
        this.walFd = openSync(this.walPath, 'r');
        fdatasyncSync(this.walFd);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error; // no WAL yet: nothing unsynced
      }
      this.committed = this.durablePosition = BigInt(this.stmt.head.get()?.position ?? 0);
    }
  }

  append(stream: string, events: readonly EventData[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    if (!this.db.open || this.closing) return Promise.reject(new Error('the event store is not open (closed)'));
    if (this.syncFailure) return Promise.reject(this.syncFailure);
    if (this.writeFailure) return Promise.reject(this.writeFailure);
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ stream, events, expected: options.expectedRevision ?? 'any', resolve, reject });
      // While a sync runs, appends gather: the batch commits when it ends (group commit), so a
      // busy store makes few large commits rather than one small commit per event-loop turn.
      if (!this.flushScheduled && !this.syncing) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Called before each commit of events; if it throws, the batch is refused. The key store's
   * flush goes here, so a card's key is on disk before the event that references it.
   */
  beforeCommit: (() => void) | undefined;

  /** See CommitListener. */
  commitListener: CommitListener | undefined;

  /**
   * Drop what is cached when another connection has written to the file since the last look.
   * Our own commits do not change our connection's data_version.
   */
  private checkCache(force = false): void {
    // The look is a statement (a read transaction, locks: µs): reads look once per event-loop
    // iteration, so a read may miss another connection's commit made during the same iteration;
    // a write transaction always looks, since it decides on the cached revisions.
    if (this.checkedThisTurn && !force) return;
    if (!this.checkedThisTurn) {
      this.checkedThisTurn = true;
      setImmediate(() => { this.checkedThisTurn = false; });
    }
    const version = this.stmt.dataVersion.get() as number;
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.streams.clear();
    this.tail = [];
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.flushScheduled = false;
    try {
      this.beforeCommit?.();
    } catch (error) {
      const translated = translateSqliteError(error, 'the key store');
      for (const item of batch) item.reject(translated);
      return;
    }
    const outcomes: Array<{ ok: true; value: Written } | { ok: false; error: unknown }> = [];
    try {
      const appendOne = this.db.transaction((item: PendingAppend, created: string, heads: Map<string, bigint>, fast: boolean) =>
        this.write(item, created, heads, fast));
      this.db.transaction(() => {
        this.checkCache(true);
        const created = new Date().toISOString();
        // Revisions written by earlier appends of this batch (the cache learns them at commit).
        const heads = new Map<string, bigint>();
        for (const item of batch) {
          let written: Written;
          try {
            try {
              written = appendOne(item, created, heads, true);
            } catch (error) {
              // An event id or revision already taken: idempotent repeat, conflict, or a cache
              // that did not know the stream; the careful path tells which.
              if (!isUniqueViolation(error)) throw error;
              written = appendOne(item, created, heads, false);
            }
          } catch (error) {
            // SQLite may have rolled the whole transaction back (a full disk, an I/O error):
            // then nothing of the batch may go on outside it.
            if (!this.db.inTransaction) throw error;
            outcomes.push({ ok: false, error });
            continue;
          }
          if (written.recorded.length > 0) heads.set(item.stream, written.result.nextExpectedRevision);
          outcomes.push({ ok: true, value: written });
        }
        this.tellListener(outcomes);
        if (!this.db.inTransaction) throw new Error('the batch transaction was rolled back by SQLite');
      }).immediate();
    } catch (error) {
      this.commitListener?.rolledBack();
      // Nothing of the batch is known to be in the file: forget what is cached.
      this.streams.clear();
      this.tail = [];
      const fault = this.noteFault(error);
      for (const item of batch) item.reject(fault ?? translateSqliteError(error, 'the event store'));
      return;
    }
    // A batch committed: the disk has room again.
    this.fullDisk = undefined;
    for (const outcome of outcomes) if (!outcome.ok) this.noteFault(outcome.error);
    let last = this.committed;
    for (const outcome of outcomes) {
      if (!outcome.ok) continue;
      this.remember(outcome.value.recorded);
      const position = outcome.value.recorded.at(-1)?.position ?? outcome.value.result.position;
      if (position > last) last = position;
    }
    this.committed = last;
    this.checkpointer?.committed();
    // An append answers once its events are on disk (an idempotent repeat: once the events it
    // found are); a refused append wrote nothing and answers at once.
    const durable = this.durable(last);
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) durable.then(() => item.resolve(outcome.value.result), item.reject);
      else item.reject(translateSqliteError(outcome?.error, 'the event store'));
    });
    void durable.then(() => this.notifier.notify(), () => this.notifier.notify());
  }

  /**
   * Resolves when this process's commits up to `position` (default: all of them) are on disk.
   * With 'commit' durability they are as soon as the commit returns.
   */
  async durable(position?: bigint): Promise<void> {
    if (!this.group) return;
    if (position !== undefined) return this.syncedTo(position);
    // Everything committed so far, including what commits while this waits; the last check is
    // synchronous, so a caller reading right after finds nothing newer unsynced.
    while (this.committed > this.durablePosition) await this.syncedTo(this.committed);
    if (this.syncFailure) throw this.syncFailure;
  }

  private syncedTo(position: bigint): Promise<void> {
    if (this.syncFailure) return Promise.reject(this.syncFailure);
    if (position <= this.durablePosition) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.syncWaiters.push({ position, resolve, reject });
      this.syncSoon();
    });
  }

  /** One fdatasync at a time; commits made while it runs wait for the next one (group commit). */
  private syncSoon(): void {
    if (this.syncing || this.syncWaiters.length === 0) return;
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
    for (const waiter of this.syncWaiters) if (waiter.position > target) target = waiter.position;
    const fd = this.walFd;
    this.syncFile(fd, (error) => {
      this.syncing = false;
      if (error) {
        this.fail(error);
      } else {
        if (target > this.durablePosition) this.durablePosition = target;
        this.settleWaiters(target, undefined);
      }
      if (this.closing && this.syncWaiters.length === 0) this.closeWal();
      else this.syncSoon();
      if (!this.syncing && this.queue.length > 0 && !this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** No sync can be trusted any more: every waiter, and every later append, fails. */
  private fail(error: NodeJS.ErrnoException): void {
    this.poison(`could not sync its WAL to disk (${error.code ?? error.message})`, error);
  }

  /** What is on disk can no longer be vouched for: refuse every waiter and every later append. */
  private poison(what: string, cause: Error): void {
    this.syncFailure ??= lastingFault(`the event store ${what}; restart tokengate`, (cause as NodeJS.ErrnoException).code ?? 'EIO', cause);
    const waiting = this.syncWaiters;
    this.syncWaiters = [];
    for (const waiter of waiting) waiter.reject(this.syncFailure);
  }

  /** The WAL file's size (0 when there is none yet). */
  private walBytes(): number {
    try {
      return this.walFd === undefined ? statSync(this.walPath).size : fstatSync(this.walFd).size;
    } catch {
      return 0;
    }
  }

  private closeWal(): void {
    if (this.walFd === undefined || this.syncing) return;
    closeSync(this.walFd);
    this.walFd = undefined;
  }

  private settleWaiters(upTo: bigint, error: unknown): void {
    const waiting = this.syncWaiters;
    this.syncWaiters = [];
    for (const waiter of waiting) {
      if (waiter.position > upTo) this.syncWaiters.push(waiter);
      else if (error === undefined) waiter.resolve();
      else waiter.reject(error);
    }
  }

  /** Reads hand out this process's events only once they are on disk. */
  private async whenDurable<T extends { position: bigint }>(events: T[]): Promise<T[]> {
    const last = events.at(-1)?.position;
    if (last !== undefined && last > this.durablePosition && this.group) await this.syncedTo(last);
    return events;
  }

  private tellListener(outcomes: ReadonlyArray<{ ok: true; value: Written } | { ok: false; error: unknown }>): void {
    const listener = this.commitListener;
    if (listener === undefined) return;
    const events: RecordedEvent[] = [];
    for (const outcome of outcomes) if (outcome.ok) events.push(...outcome.value.recorded);
    if (events.length === 0) return;
    try {
      this.db.transaction(() => listener.written(events))();
    } catch (error) {
      if (!this.db.inTransaction) throw error;
      listener.rolledBack();
      // The read models could not write (a full disk, an I/O error): the store is in trouble too.
      this.noteFault(error, 'the event store (its read models)');
      process.emitWarning(`a commit listener failed (its writes were undone, the events are committed): ${String(error)}`);
    }
  }

  /**
   * The fast path inserts at the revision the cache (or an empty stream) implies and lets the
   * UNIQUE constraints refuse what is taken; the careful path looks the stream and the event ids
   * up first.
   */
  private write(item: PendingAppend, created: string, heads: Map<string, bigint>, fast: boolean): Written {
    const { stream, events, expected } = item;
    let current: bigint | undefined = heads.get(stream);
    if (current === undefined) {
      const cached = this.streams.get(stream);
      if (cached) current = BigInt(cached.length) - 1n;
      else if (expected === 'no_stream') current = -1n;
    }
    // The fast path only appends: anything else (a repeat, a conflict) takes the careful one.
    if (!fast || current === undefined || events.length === 0 || !matches(expected, current)) {
      current = BigInt(this.stmt.currentRevision.get(stream)?.revision ?? -1);
      const repeated = events.map((e) => this.stmt.byEventId.get(e.id));
      if (repeated.length > 0 && repeated.every((r) => r !== undefined && r.stream === stream)) {
        const last = repeated[repeated.length - 1];
        return { result: { nextExpectedRevision: current, position: BigInt(last?.position ?? 0) }, recorded: [] };
      }
      if (repeated.some((r) => r !== undefined)) throw new IdempotencyConflictError(stream);
    }
    checkExpectedRevision(stream, expected, current);
    let revision = current;
    let position = 0n;
    const recorded: RecordedEvent[] = [];
    for (const e of events) {
      revision += 1n;
      const data = JSON.stringify(e.data);
      const metadata = JSON.stringify(e.metadata);
      const info = this.stmt.insert.run(e.id, stream, Number(revision), e.type, data, metadata, created);
      position = BigInt(info.lastInsertRowid);
      // Exactly what a read of the row would give (a copy: the caller's objects stay theirs), frozen
      // because every later reader of the cache shares it; copied without parsing the text again.
      recorded.push(Object.freeze({ id: e.id, type: e.type, data: frozenJsonCopy(e.data), metadata: frozenJsonCopy(e.metadata) as RecordedEvent['metadata'], stream, revision, position, created }));
    }
    if (events.length === 0) position = BigInt(this.stmt.head.get()?.position ?? 0);
    return { result: { nextExpectedRevision: revision, position }, recorded };
  }

  /** After a commit: the written events join their cached stream and the log's tail. */
  private remember(recorded: readonly RecordedEvent[]): void {
    const first = recorded[0];
    if (first === undefined) return;
    if (this.maxStreams > 0) {
      const cached = this.streams.get(first.stream);
      if (cached && BigInt(cached.length) === first.revision) {
        cached.push(...recorded);
        this.touch(first.stream, cached);
      } else if (first.revision === 0n) {
        this.touch(first.stream, [...recorded]);
      } else if (cached) {
        this.streams.delete(first.stream);
      }
    }
    if (this.maxTail > 0) {
      const last = this.tail.at(-1);
      if (last !== undefined && last.position + 1n !== first.position) this.tail = [];
      this.tail.push(...recorded);
      if (this.tail.length > this.maxTail * 2) this.tail = this.tail.slice(-this.maxTail);
    }
  }

  private touch(stream: string, events: RecordedEvent[]): void {
    this.streams.delete(stream);
    this.streams.set(stream, events);
    if (this.streams.size > this.maxStreams) {
      const oldest = this.streams.keys().next().value;
      if (oldest !== undefined) this.streams.delete(oldest);
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.checkCache();
    let events = this.streams.get(stream);
    if (events === undefined) {
      events = this.stmt.readStream.all(stream, 0, Number.MAX_SAFE_INTEGER, '\uffff').map((row) => frozen(toRecorded(row)));
      if (this.maxStreams > 0 && events.length > 0) this.touch(stream, events);
    }
    const { fromRevision, untilRevision, untilTime } = options;
    if (fromRevision === undefined && untilRevision === undefined && untilTime === undefined) return this.whenDurable(events.slice());
    const until = untilTime?.toISOString();
    return this.whenDurable(events.filter((e) =>
      (fromRevision === undefined || e.revision >= fromRevision) &&
      (untilRevision === undefined || e.revision <= untilRevision) &&
      (until === undefined || e.created <= until)));
  }

  /**
   * Why appends are refused until a restart (a failed fdatasync or checkpoint, a write SQLite
   * refused: an I/O error, a read-only or corrupt file), or fail until the disk has room again (a
   * full disk); undefined while they are not.
   */
  get failure(): Error | undefined {
    return this.syncFailure ?? this.writeFailure ?? this.fullDisk;
  }

  /** A storage fault among a write's errors sets `failure` (logged once); other errors return undefined. */
  private noteFault(error: unknown, what = 'the event store'): StorageFault | undefined {
    const fault = asStorageFault(error, what);
    if (fault === undefined) return undefined;
    if (fault.heals) {
      if (this.fullDisk === undefined) process.emitWarning(fault.message);
      this.fullDisk = fault;
    } else if (this.writeFailure === undefined && this.syncFailure === undefined) {
      this.writeFailure = fault;
      process.emitWarning(fault.message);
    }
    return fault;
  }

  /** Whether the stream is in the cache of whole streams (valid while no other connection wrote). */
  holdsStream(stream: string): boolean {
    this.checkCache();
    return this.streams.has(stream);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromPosition ?? 0n;
    const max = options.maxCount ?? -1;
    return this.whenDurable(this.fromTail(from, max) ?? this.stmt.readAll.all(Number(from), max).map(toRecorded));
  }

  /** Without event ids and metadata: a replay of the read models parses only the data. */
  async readAllForProjections(options: ReadAllOptions = {}): Promise<ProjectedEvent[]> {
    const from = options.fromPosition ?? 0n;
    const max = options.maxCount ?? -1;
    const cached = this.fromTail(from, max);
    if (cached) return this.whenDurable(cached);
    return this.whenDurable(projected(this.stmt.readProjected.all(Number(from), max)));
  }

  /**
   * The log after `fromPosition` up to `untilPosition`, in pages of `pageSize` events, read ahead
   * on a worker thread (store/log-reader.ts) while the caller folds the page before; for long
   * replays. Every event of this process in that range is on disk before the first page. Only for
   * a file (another connection cannot open an in-memory database): undefined otherwise.
   */
  readonly readPagesAhead: ((options: PagesAheadOptions) => AsyncGenerator<ProjectedEvent[], void, undefined>) | undefined;

  private async *pagesAhead(options: PagesAheadOptions): AsyncGenerator<ProjectedEvent[], void, undefined> {
    if (this.group && this.committed > this.durablePosition) await this.syncedTo(this.committed);
    for await (const rows of readLogAhead(this.file, { from: options.fromPosition, until: options.untilPosition, page: options.pageSize })) {
      yield projected(rows);
    }
  }

  /** The events after `from` when the cached tail of the log holds them (and the head). */
  private fromTail(from: bigint, max: number): RecordedEvent[] | undefined {
    this.checkCache();
    const first = this.tail[0];
    const last = this.tail.at(-1);
    if (first === undefined || last === undefined || from < first.position - 1n || from > last.position) return undefined;
    const start = Number(from - first.position + 1n);
    return this.tail.slice(start, max < 0 ? undefined : start + max);
  }

  subscribeAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    return pullSubscription((o) => this.readAll(o), this.notifier, options, handlers, this.pollIntervalMs);
  }

  async headPosition(): Promise<bigint> {
    return BigInt(this.stmt.head.get()?.position ?? 0);
  }

  async close(): Promise<void> {
    if (this.queue.length > 0) this.flush();
    this.closing = true;
    await this.durable().catch(() => undefined);
    // Its connection closes first: the store's is then the file's last, which checkpoints the WAL.
    await this.checkpointer?.close();
    this.closeWal(); // or when the sync in flight ends
    if (this.db.open) this.db.close();
    this.streams.clear();
    this.tail = [];
  }
}
