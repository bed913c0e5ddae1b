// SQLite adapter of the event store port (better-sqlite3, WAL): an event is on disk before the
// append's promise resolves (store/sqlite/README.md). Appends requested in the same event-loop
// turn, or while the last commit is being synced, are written in one transaction (appends.ts);
// with 'group' durability one fdatasync of the WAL off the event loop covers them (group-sync.ts);
// reads answer from the recent events in memory where they can (../recent-events.ts). Several processes may
// share the file: every write transaction is BEGIN IMMEDIATE, and subscriptions poll for the
// other processes' events. The port's readStreamSoon and knownRevision answer from that memory;
// beyond the port, its own speed-ups for the read models on its connection
// (store/projection-feed.ts: readAllForProjections, readPagesAhead, readForProjectionsNow, durable;
// setCommitListener; their tables: sqlite/read-model-tables.ts), which the composition root wires.
import { fdatasync, fdatasyncSync } from 'node:fs';
import type Database from 'better-sqlite3';
import {
  ConditionFailedError,
  type AppendOptions, type AppendResult, type EventData, type EventStore, type ProjectedEvent, type ReadAllOptions,
  type ReadStreamOptions, type RecordedEvent, type SubscribeOptions, type SubscriptionHandlers, type Subscription,
} from '../event-store.js';
import type { StorageFault } from '../../domain/errors.js';
import { translateSqliteError } from '../storage-fault.js';
import { Notifier, pullSubscription } from '../subscription.js';
import { writeBatch, type Outcome, type PendingAppend } from './appends.js';
import { RecentEvents } from '../recent-events.js';
import { Checkpointer } from './checkpointer.js';
import type { CommitListener } from '../projection-feed.js';
import { listenerTeller } from './commit-listener.js';
import { databaseFile, openDatabase } from './database.js';
import { WriteFaults } from './faults.js';
import { GroupSync } from './group-sync.js';
import type { PagesAheadOptions, SqliteStoreOptions } from './options.js';
import { dataReader, readLogAhead } from './log-reader.js';
import { upgradeEventsFile } from './migrations.js';
import { frozen, prepareStatements, projected, SCHEMA, toRecorded } from './rows.js';

export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite';
  readonly db: Database.Database;
  private readonly notifier = new Notifier();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private readonly pollIntervalMs: number;
  private readonly stmt;
  private readonly recent: RecentEvents;
  private readonly sync: GroupSync;
  /** The database file SQLite opened ('' in memory). */
  private readonly file: string;
  private readonly beforeCommit: (() => void) | undefined;
  private commitListener: CommitListener | undefined;
  private readonly faults = new WriteFaults();
  private closing = false;
  /** Runs the WAL's checkpoints off the event loop (a file in WAL mode). */
  readonly checkpointer: Checkpointer | undefined;

  /** One transaction for a batch of appends (made once: better-sqlite3 builds a few functions for each). */
  private readonly commitBatch: Database.Transaction<(batch: readonly PendingAppend[]) => Outcome[]>;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.db = openDatabase(path);
    this.db.exec(SCHEMA);
    upgradeEventsFile(this.db);
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.beforeCommit = options.beforeCommit;
    this.stmt = prepareStatements(this.db);
    const tellListener = listenerTeller(this.db);
    this.commitBatch = this.db.transaction((batch: readonly PendingAppend[]) => {
      const outcomes = writeBatch(this.db, this.stmt, this.recent, batch);
      const events: RecordedEvent[] = [];
      for (const outcome of outcomes) if (outcome.ok) events.push(...outcome.value.recorded);
      tellListener(this.commitListener, events, (error) => this.noteFault(error, 'the event store (its read models)'));
      if (!this.db.inTransaction) throw new Error('the batch transaction was rolled back by SQLite');
      return outcomes;
    });
    this.recent = new RecentEvents(options.cachedStreams ?? 2_000, options.cachedTail ?? 1_000, () => this.stmt.dataVersion.get() as number);
    // The WAL of the file SQLite opened (symbolic links resolved; not relative to a later chdir).
    const file = databaseFile(this.db);
    const wal = this.db.pragma('journal_mode', { simple: true }) === 'wal';
    this.file = file;
    this.readPagesAhead = file === '' ? undefined : (options) => this.pagesAhead(options);
    this.sync = new GroupSync(file !== '' && wal && (options.durability ?? 'group') === 'group', `${file}-wal`, options.syncFile ?? fdatasync, () => {
      if (this.queue.length > 0 && !this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
    if (file !== '' && wal && options.checkpoints !== false) {
      this.db.pragma('wal_autocheckpoint = 0');
      this.checkpointer = new Checkpointer(file, () => this.sync.walBytes(), (error) => this.sync.poison(`could not checkpoint its WAL (${error.message})`, error), options.checkpoints);
    }
    // The WAL is synced by this store after the commit (group-sync.ts), not inside it.
    if (this.sync.enabled) this.db.pragma('synchronous = NORMAL');
    this.sync.syncAtOpen(BigInt(this.stmt.head.get()?.position ?? 0), fdatasyncSync);
  }

  append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    if (!this.db.open || this.closing) return Promise.reject(new Error('the event store is not open (closed)'));
    if (this.sync.failure) return Promise.reject(this.sync.failure);
    if (this.faults.lasting) return Promise.reject(this.faults.lasting);
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ stream, events, expected: options.expectedRevision ?? 'any', condition: options.condition, resolve, reject });
      // While a sync runs, appends gather: the batch commits when it ends (group commit), so a
      // busy store makes few large commits rather than one small commit per event-loop turn.
      if (!this.flushScheduled && !this.sync.syncing) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** The inline projection hook (commit-listener.ts); undefined: none. */
  setCommitListener(listener: CommitListener | undefined): void {
    this.commitListener = listener;
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
    let outcomes: Outcome[];
    try {
      outcomes = this.commitBatch.immediate(batch);
    } catch (error) {
      this.commitListener?.rolledBack();
      // Nothing of the batch is known to be in the file: forget what is cached.
      this.recent.clear();
      const fault = this.noteFault(error);
      for (const item of batch) item.reject(fault ?? translateSqliteError(error, 'the event store'));
      return;
    }
    this.faults.committed();
    for (const outcome of outcomes) if (!outcome.ok) this.noteFault(outcome.error);
    for (const outcome of outcomes) {
      // Another process wrote the condition's stream: the retry's read goes to the file.
      if (!outcome.ok && outcome.error instanceof ConditionFailedError) this.recent.forget(outcome.error.condition.stream);
      if (!outcome.ok) continue;
      this.recent.remember(outcome.value.recorded);
      this.sync.committedTo(outcome.value.recorded.at(-1)?.position ?? outcome.value.result.position);
    }
    this.checkpointer?.committed();
    // An append answers once its events are on disk (an idempotent repeat: once the events it
    // found are); a refused append wrote nothing and answers at once.
    // (One reaction on the sync for the whole batch, not one per append.)
    const written: Array<[PendingAppend, AppendResult]> = [];
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) written.push([item, outcome.value.result]);
      else item.reject(translateSqliteError(outcome?.error, 'the event store'));
    });
    void this.sync.durable(this.sync.committed).then(() => {
      for (const [item, result] of written) item.resolve(result);
      this.notifier.notify();
    }, (error: unknown) => {
      for (const [item] of written) item.reject(error);
      this.notifier.notify();
    });
  }

  /**
   * Resolves when this process's commits up to `position` (default: all of them) are on disk.
   * With 'commit' durability they are as soon as the commit returns.
   */
  durable(position?: bigint): Promise<void> {
    return this.sync.durable(position);
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    this.recent.check();
    let events = this.recent.stream(stream);
    if (events === undefined) {
      events = this.stmt.readStream.all(stream, 0, Number.MAX_SAFE_INTEGER, '\uffff').map((row) => frozen(toRecorded(row)));
      this.recent.read(stream, events);
    }
    const { fromRevision, untilRevision, untilTime } = options;
    if (fromRevision === undefined && untilRevision === undefined && untilTime === undefined) return this.sync.whenDurable(events.slice());
    const until = untilTime?.toISOString();
    return this.sync.whenDurable(events.filter((e) =>
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
    return this.sync.failure ?? this.faults.lasting ?? this.faults.fullDisk;
  }

  private noteFault(error: unknown, what = 'the event store'): StorageFault | undefined {
    return this.faults.note(error, what, this.sync.failure !== undefined);
  }

  /** Promise 7: from the recent events in memory when they hold the stream and it is on disk. */
  readStreamSoon(stream: string): readonly RecordedEvent[] | Promise<readonly RecordedEvent[]> {
    return this.cachedStream(stream) ?? this.readStream(stream);
  }

  /** Promise 8: the stream the recent events hold (undefined: not held); the append's condition checks it. */
  readStreamUnconfirmed(stream: string): readonly RecordedEvent[] | undefined {
    return this.cachedStream(stream);
  }

  /** Promise 7: the revision of a stream the recent events hold (a stream not held may exist on disk). */
  knownRevision(stream: string): bigint | undefined {
    return this.cachedRevision(stream);
  }

  /**
   * The stream's revision when readStream would answer it from memory, without a query (valid
   * while no other connection wrote), else undefined. A caller expecting a new stream may skip the
   * read when it would not, and let the append's expected revision (`no_stream`) check the guess.
   */
  cachedRevision(stream: string): bigint | undefined {
    const events = this.recent.cached(stream);
    return events === undefined ? undefined : BigInt(events.length - 1);
  }

  /**
   * A stream as readStream would give it, without a promise, when memory holds it whole and on
   * disk (valid while no other connection wrote); else undefined. The events are the cache's own
   * (frozen; the array is not to be changed).
   */
  cachedStream(stream: string): readonly RecordedEvent[] | undefined {
    const events = this.recent.cached(stream);
    const last = events?.at(-1);
    return last !== undefined && this.sync.isDurable(last.position) ? events : undefined;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromPosition ?? 0n;
    const max = options.maxCount ?? -1;
    return this.sync.whenDurable(this.recent.fromTail(from, max) ?? this.stmt.readAll.all(Number(from), max).map(toRecorded));
  }

  /** readAll without event ids and metadata: a replay of the read models parses only the data. */
  async readAllForProjections(options: ReadAllOptions = {}): Promise<ProjectedEvent[]> {
    return this.sync.whenDurable(this.readForProjectionsNow(options.fromPosition ?? 0n, options.maxCount ?? -1));
  }

  /**
   * readAllForProjections at once, not waiting for the sync: what this connection committed (the
   * read models on this connection, which commit after it: a crash losing these events loses
   * what was derived from them too).
   */
  readForProjectionsNow(fromPosition: bigint, maxCount: number): ProjectedEvent[] {
    return this.recent.fromTail(fromPosition, maxCount) ?? projected(this.stmt.readProjected.all(Number(fromPosition), maxCount));
  }

  /**
   * The log after `fromPosition` up to `untilPosition`, in pages of `pageSize` events, read ahead
   * on a worker thread (log-reader.ts) while the caller folds the page before; for long replays.
   * Of each event's data, what `options.data` names (cut by SQLite on the worker). Every event of
   * this process in that range is on disk before the first page. Only for a file (another
   * connection cannot open an in-memory database): undefined otherwise.
   */
  readonly readPagesAhead: ((options: PagesAheadOptions) => AsyncGenerator<ProjectedEvent[], void, undefined>) | undefined;

  private async *pagesAhead(options: PagesAheadOptions): AsyncGenerator<ProjectedEvent[], void, undefined> {
    if (this.sync.enabled && this.sync.committed > this.sync.durablePosition) await this.sync.syncedTo(this.sync.committed);
    const data = dataReader(options.data);
    for await (const rows of readLogAhead(this.file, { from: options.fromPosition, until: options.untilPosition, page: options.pageSize, dataColumn: data.column })) {
      yield projected(rows, data.parse);
    }
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
    this.sync.closingSoon();
    await this.sync.durable().catch(() => undefined);
    // Its connection closes first: the store's is then the file's last, which checkpoints the WAL.
    await this.checkpointer?.close();
    this.sync.close(); // or when the sync in flight ends
    if (this.db.open) this.db.close();
    this.recent.clear();
  }
}
