// PostgreSQL adapter of the event store port (`pg` and its Pool; EVENT_STORE=postgres://). Why
// positions are seen in commit order, and what each failure does: store/postgres/README.md.
//
// Appends requested in one event-loop turn, or while the previous batch commits, are written in
// one transaction (group commit, append-queue.ts and append-commit.ts): one statement when none of
// them conflicts (the lock, the head, the checks, one INSERT of the events sent as one JSON
// parameter, COMMIT); else BEGIN and the lock, one read of the head, the streams' revisions and the
// ids taken, each append decided as if alone (append-batch.ts; its conflict fails it alone), one
// INSERT, COMMIT. The lock (a transaction-scoped advisory lock held until COMMIT) keeps positions in
// commit order. Whole streams and the log's tail are answered from memory where LISTEN says nobody
// else wrote them (memory.ts); a whole stream only once memory has heard of every commit up to a
// head read sent after the read was asked, so it never misses a write acknowledged elsewhere.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type {
  AppendOptions, AppendResult, EventData, EventStore, ReadAllOptions,
  ReadStreamOptions, RecordedEvent, SubscribeOptions, Subscription, SubscriptionHandlers,
} from '../event-store.js';
import { Notifier } from '../subscription.js';
import { copiesOf } from './append-batch.js';
import { AppendQueue } from './append-queue.js';
import { clientConfig, type PostgresStoreOptions } from './config.js';
import { redactUrl, translatePgError } from './errors.js';
import { guardPool, PostgresHealth } from './health.js';
import { HeadReads } from './head-reads.js';
import { CommitListener } from './listener.js';
import { ServerMemory } from './memory.js';
import { COLUMNS, frozenRecorded, ROW_TYPES, toRecorded, type Row } from './rows.js';
import { migrate, readPayload } from './schema.js';
import { subscribe } from './subscriptions.js';

export type { PostgresStoreOptions } from './config.js';

const READ_STREAM = {
  name: 'tokengate-read-stream', types: ROW_TYPES,
  text: `SELECT ${COLUMNS} FROM tokengate_events
          WHERE stream = $1 AND revision >= $2 AND ($3::bigint IS NULL OR revision <= $3) AND ($4::timestamptz IS NULL OR created <= $4)
          ORDER BY revision`,
};
const READ_ALL = { name: 'tokengate-read-all', types: ROW_TYPES, text: `SELECT ${COLUMNS} FROM tokengate_events WHERE position > $1 ORDER BY position LIMIT $2` };
const READ_AFTER_TAIL = {
  name: 'tokengate-read-after-tail', types: ROW_TYPES, text: `SELECT ${COLUMNS} FROM tokengate_events WHERE position > $1 AND ($2::bigint IS NULL OR position <= $2) ORDER BY position LIMIT $3`,
};

/** How long a read waits for the notifications of commits its head read showed before it asks the server (ms). */
const NOTIFICATION_PATIENCE_MS = 50;

const HEAD = { name: 'tokengate-head', text: 'SELECT coalesce(max(position), 0)::text AS head FROM tokengate_events' };

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres';
  /** The server and database, without credentials (for messages). */
  readonly target: string;
  /** What this store's connections found of the server (`unreachable`). */
  readonly health: PostgresHealth;
  private readonly pool: pg.Pool;
  /** Told of every commit: this instance's, and the others' as LISTEN hears of them. */
  private readonly notifier = new Notifier();
  /** Told of this instance's commits only (the read models' following: onAppended). */
  private readonly ownCommits = new Notifier();
  private readonly listener: CommitListener;
  private readonly pollIntervalMs: number;
  private readonly gatherMs: number;
  private readonly memory: ServerMemory;
  /** This instance's id in its commits' notifications (its own are not news to it). */
  private readonly writer = randomBytes(6).toString('hex');
  private readonly appends: AppendQueue;
  private readonly heads = new HeadReads(() => this.readHead());
  private closing = false;
  private ready: Promise<void> | undefined;

  /** Connects lazily: the first call reaches the server (and creates or upgrades the schema). */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.target = redactUrl(url);
    const config = clientConfig(url, options.applicationName);
    this.pool = new pg.Pool({ ...config, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
    this.health = options.health ?? new PostgresHealth();
    guardPool(this.pool, this.health);
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.gatherMs = options.gatherMs ?? 50;
    this.memory = new ServerMemory(options.cachedStreams ?? 2_000, options.cachedTail ?? 1_000);
    this.appends = new AppendQueue({
      pool: this.pool, health: this.health, memory: this.memory, notifier: { notify: () => { this.notifier.notify(); this.ownCommits.notify(); } }, writer: this.writer,
      maxBatch: options.maxBatch ?? 500, target: this.target, ready: () => this.whenReady(),
    });
    this.listener = new CommitListener({ ...config, application_name: `${config.application_name}-listen` }, {
      ready: () => this.whenReady(),
      listening: (head) => { this.memory.listeningFrom(head); this.notifier.notify(); },
      notified: (payload) => this.notified(payload),
      lost: () => this.memory.deaf(),
    }, this.health);
  }

  /** The schema, created or upgraded once per store (again after a failed attempt). */
  private whenReady(): Promise<void> {
    this.ready ??= (async () => {
      const client = await this.pool.connect();
      try {
        await migrate(client);
        client.release();
      } catch (error) {
        client.release(true);
        throw error;
      }
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw translatePgError(error, this.target);
    });
    return this.ready;
  }

  /**
   * Another instance's commit forgets what it wrote, and wakes the subscriptions; this instance's
   * own is no news (its positions accounted for all the same: a batch whose answer was lost).
   */
  private notified(payload: string | undefined): void {
    const commit = readPayload(payload);
    if (commit?.writer === this.writer) return this.memory.heardOwn(commit.first, commit.last);
    if (commit === undefined) this.memory.forgetAll();
    else this.memory.notified(commit);
    this.notifier.notify();
  }

  /** A query on a pooled connection, its errors the port's. */
  private async query<R extends pg.QueryResultRow>(statement: { name: string; text: string; types?: typeof ROW_TYPES }, values: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.closing) throw new Error('the event store is not open (closed)');
    const ticket = this.health.ticket();
    try {
      await this.whenReady();
      const result = await this.pool.query<R>({ ...statement, values });
      this.health.succeeded(ticket);
      return result;
    } catch (error) {
      this.health.failed(error);
      throw translatePgError(error, this.target);
    }
  }

  append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    if (this.closing) return Promise.reject(new Error('the event store is not open (closed)'));
    let copies: ReturnType<typeof copiesOf>;
    try {
      copies = copiesOf(events);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.appends.push({ stream, ...copies, expected: options.expectedRevision ?? 'any', condition: options.condition, resolve, reject });
    });
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { fromRevision, untilRevision, untilTime } = options;
    const whole = fromRevision === undefined && untilRevision === undefined && untilTime === undefined;
    this.listener.start();
    const held = whole && this.memory.stream(stream) !== undefined ? await this.heldAfterHead(stream) : undefined;
    if (held !== undefined) return held.slice();
    const ticket = whole ? this.memory.beginRead(stream) : undefined;
    let events: RecordedEvent[] | undefined;
    try {
      const { rows } = await this.query<Row>(READ_STREAM,
        [stream, (fromRevision ?? 0n).toString(), untilRevision?.toString() ?? null, untilTime ?? null]);
      events = whole ? rows.map(frozenRecorded) : rows.map(toRecorded);
      return whole ? events.slice() : events;
    } finally {
      if (ticket !== undefined) this.memory.read(ticket, events);
    }
  }

  /** The stream from memory once it accounts for every commit up to a head read sent after this call (memory.ts). */
  private async heldAfterHead(stream: string): Promise<readonly RecordedEvent[] | undefined> {
    const head = await this.headPosition();
    return await this.memory.accountedFor(head, NOTIFICATION_PATIENCE_MS) ? this.memory.stream(stream) : undefined;
  }

  /** What memory holds of the stream (not a read: a commit acknowledged elsewhere may not be heard of yet). */
  cachedStream(stream: string): readonly RecordedEvent[] | undefined {
    this.listener.start();
    return this.memory.stream(stream);
  }

  /** Promise 8: memory's stream, no head read (cachedStream); the append's condition checks it on the server. */
  readStreamUnconfirmed(stream: string): readonly RecordedEvent[] | undefined {
    return this.cachedStream(stream);
  }

  /** The stream's revision in memory (as cachedStream), else undefined. */
  cachedRevision(stream: string): bigint | undefined {
    return this.cachedStream(stream)?.at(-1)?.revision;
  }

  /** Promise 7: always readStream's promise (only a head read tells that memory is not behind another instance). */
  readStreamSoon(stream: string): Promise<readonly RecordedEvent[]> {
    return this.readStream(stream);
  }

  /** Promise 7: never known without a read (another instance may have written the stream a moment ago). */
  knownRevision(): undefined {
    return undefined;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const from = options.fromPosition ?? 0n;
    // From memory, or once the tail holds what others committed after it (read once, then shared).
    const held = this.memory.fromTail(from, options.maxCount ?? -1) ?? await this.memory.fillGaps(from, options.maxCount ?? -1,
      async (after, until, limit) => (await this.query<Row>(READ_AFTER_TAIL, [after.toString(), until?.toString() ?? null, limit])).rows.map(frozenRecorded));
    if (held !== undefined) return held;
    const { rows } = await this.query<Row>(READ_ALL, [from.toString(), options.maxCount ?? null]);
    const events = rows.map(frozenRecorded);
    this.memory.readFromServer(from, events);
    return events;
  }

  /** The head, read after this call (the reads of a moment shared: head-reads.ts). */
  headPosition(): Promise<bigint> {
    return this.heads.next();
  }

  private async readHead(): Promise<bigint> {
    const { rows } = await this.query<{ head: string }>(HEAD, []);
    const head = BigInt(rows[0]?.head ?? '0');
    this.memory.note(head);
    return head;
  }

  /**
   * Catch-up, then live (subscriptions.ts): woken by this process's commits, by the server's NOTIFY
   * of any process's commit (a connection of its own, reconnected when dropped), and by a poll; a
   * live one reads what others committed at most every `gatherMs`; transient failures are retried.
   */
  subscribeAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    this.listener.start();
    return subscribe({
      readAll: (o) => this.readAll(o),
      fromMemory: (from, max) => this.memory.fromTail(from, max),
      notifier: this.notifier, pollIntervalMs: this.pollIntervalMs, gatherMs: this.gatherMs,
      closing: () => this.closing,
    }, options, handlers);
  }

  /**
   * Calls `listener` after each commit of this process's appends (not another process's: that
   * process's read models apply those), without reading any event: for a follower that reads the
   * log its own way (the read models' catch-up: store/projection-feed.ts). Returns what stops it.
   */
  onAppended(listener: () => void): () => void {
    this.listener.start();
    return this.ownCommits.on(listener);
  }

  /**
   * While the server refuses writes (a full disk, an I/O error, read-only): the fault, until a
   * batch commits. Never set for an unreachable server (that is `unreachable`).
   */
  get failure(): Error | undefined {
    return this.appends.failure;
  }

  /** While the server cannot be reached (PostgresHealth): the last connection error, as the port's StoreUnreachable. */
  get unreachable(): Error | undefined {
    const error = this.health.unreachable;
    return error === undefined ? undefined : translatePgError(error, this.target) as Error;
  }

  async close(): Promise<void> {
    await this.appends.drain();
    this.closing = true;
    await this.listener.close();
    await this.pool.end().catch(() => undefined);
  }
}
