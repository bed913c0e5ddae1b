// SQLite adapter of the event store port (better-sqlite3, WAL, synchronous=FULL): an event is on
// disk before the append's promise resolves. Appends requested in the same event-loop turn are
// written in one transaction (one fsync), each with its own savepoint, so one append's conflict
// does not undo another's. Several processes may share the file: every write transaction is
// BEGIN IMMEDIATE, and subscriptions poll for events appended by the other processes.
import Database from 'better-sqlite3';
import {
  checkExpectedRevision, IdempotencyConflictError,
  type AppendResult, type EventData, type EventStore, type ExpectedRevision, type ReadAllOptions,
  type ReadStreamOptions, type RecordedEvent, type SubscribeOptions, type SubscriptionHandlers, type Subscription,
} from './event-store.js';
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

export interface SqliteStoreOptions {
  /** How often subscriptions look for events appended by other processes (ms). */
  pollIntervalMs?: number;
}

/** Open a SQLite database with the pragmas every file of tokengate uses. */
export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  if (path !== ':memory:') db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  return db;
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

export class SqliteEventStore implements EventStore {
  readonly kind = 'sqlite';
  readonly db: Database.Database;
  private readonly notifier = new Notifier();
  private queue: PendingAppend[] = [];
  private flushScheduled = false;
  private readonly pollIntervalMs: number;
  private readonly stmt;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.db = openDatabase(path);
    this.db.exec(SCHEMA);
    this.pollIntervalMs = options.pollIntervalMs ?? 100;
    this.stmt = {
      currentRevision: this.db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream = ?'),
      byEventId: this.db.prepare<[string], { stream: string; revision: number; position: number }>('SELECT stream, revision, position FROM events WHERE event_id = ?'),
      insert: this.db.prepare('INSERT INTO events (event_id, stream, revision, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      readStream: this.db.prepare<[string, number, number, string], Row>(
        'SELECT * FROM events WHERE stream = ? AND revision >= ? AND revision <= ? AND created <= ? ORDER BY revision'),
      readAll: this.db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
      head: this.db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
    };
  }

  append(stream: string, events: readonly EventData[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    if (!this.db.open) return Promise.reject(new Error('the event store is not open (closed)'));
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ stream, events, expected: options.expectedRevision ?? 'any', resolve, reject });
      if (!this.flushScheduled) {
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

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.flushScheduled = false;
    try {
      this.beforeCommit?.();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    const outcomes: Array<{ ok: true; value: AppendResult } | { ok: false; error: unknown }> = [];
    try {
      const appendOne = this.db.transaction((item: PendingAppend, created: string) => this.write(item, created));
      this.db.transaction(() => {
        const created = new Date().toISOString();
        for (const item of batch) {
          try {
            outcomes.push({ ok: true, value: appendOne(item, created) });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      }).immediate();
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i];
      if (outcome?.ok) item.resolve(outcome.value);
      else item.reject(outcome?.error);
    });
    this.notifier.notify();
  }

  private write(item: PendingAppend, created: string): AppendResult {
    const { stream, events } = item;
    const current = BigInt(this.stmt.currentRevision.get(stream)?.revision ?? -1);
    const repeated = events.map((e) => this.stmt.byEventId.get(e.id));
    if (repeated.length > 0 && repeated.every((r) => r !== undefined && r.stream === stream)) {
      const last = repeated[repeated.length - 1];
      return { nextExpectedRevision: current, position: BigInt(last?.position ?? 0) };
    }
    if (repeated.some((r) => r !== undefined)) throw new IdempotencyConflictError(stream);
    checkExpectedRevision(stream, item.expected, current);
    let revision = current;
    let position = 0n;
    for (const e of events) {
      revision += 1n;
      const info = this.stmt.insert.run(e.id, stream, Number(revision), e.type, JSON.stringify(e.data), JSON.stringify(e.metadata), created);
      position = BigInt(info.lastInsertRowid);
    }
    if (events.length === 0) position = BigInt(this.stmt.head.get()?.position ?? 0);
    return { nextExpectedRevision: revision, position };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = Number(options.fromRevision ?? 0n);
    const until = options.untilRevision === undefined ? Number.MAX_SAFE_INTEGER : Number(options.untilRevision);
    const untilTime = options.untilTime?.toISOString() ?? '\uffff';
    return this.stmt.readStream.all(stream, from, until, untilTime).map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.stmt.readAll.all(Number(options.fromPosition ?? 0n), options.maxCount ?? -1).map(toRecorded);
  }

  subscribeAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    return pullSubscription((o) => this.readAll(o), this.notifier, options, handlers, this.pollIntervalMs);
  }

  async headPosition(): Promise<bigint> {
    return BigInt(this.stmt.head.get()?.position ?? 0);
  }

  async close(): Promise<void> {
    if (this.queue.length > 0) this.flush();
    if (this.db.open) this.db.close();
  }
}
