// PostgreSQL adapter of the event store port (`pg` and its Pool; EVENT_STORE=postgres://). Why
// positions are seen in commit order, and what each failure does: store/postgres/README.md.
//
// Appends requested in one event-loop turn, or while the previous batch commits, are written in
// one transaction (group commit, append-commit.ts): one statement when none of them conflicts
// (the lock, the head, the checks, one INSERT of the events sent as one JSON parameter, COMMIT);
// else BEGIN and the lock, one read of the head, the streams' revisions and the ids taken, each
// append decided as if alone (append-batch.ts; its conflict fails it alone), one INSERT, COMMIT.
// The lock (a transaction-scoped advisory lock held until COMMIT) keeps positions in commit order.
import pg from 'pg';
import type {
  AppendResult, EventData, EventStore, ExpectedRevision, ReadAllOptions,
  ReadStreamOptions, RecordedEvent, SubscribeOptions, Subscription, SubscriptionHandlers,
} from '../event-store.js';
import type { BatchResult, PendingAppend } from './append-batch.js';
import { commitAtOnce, commitBatch } from './append-commit.js';
import type { StorageFault } from '../../domain/errors.js';
import { Notifier, pullSubscription } from '../subscription.js';
import { isTransient, redactUrl, translatePgError } from './errors.js';
import { guardPool, PostgresHealth } from './health.js';
import { CommitListener } from './listener.js';
import { COLUMNS, toRecorded, type Row } from './rows.js';
import { migrate } from './schema.js';

export interface PostgresStoreOptions {
  /** Connections of the pool (default 10). */
  poolSize?: number;
  /** How often subscriptions read the log without a notification (ms; default 500): the fallback of LISTEN. */
  pollIntervalMs?: number;
  /** The most appends committed in one transaction (default 500). */
  maxBatch?: number;
  /** application_name on the server (default 'tokengate'). */
  applicationName?: string;
  /** Whether the server can be reached, shared with the read models and key store on it (default: its own). */
  health?: PostgresHealth;
}

/** How long a statement may run, a transaction stay idle, the append lock be waited for (ms). */
const STATEMENT_TIMEOUT = 15_000;
const IDLE_IN_TRANSACTION_TIMEOUT = 10_000;
const LOCK_TIMEOUT = 10_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres';
  /** The server and database, without credentials (for messages). */
  readonly target: string;
  /** What this store's connections found of the server (`unreachable`). */
  readonly health: PostgresHealth;
  private readonly pool: pg.Pool;
  private readonly notifier = new Notifier();
  private readonly listener: CommitListener;
  private readonly pollIntervalMs: number;
  private readonly maxBatch: number;
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private closing = false;
  private ready: Promise<void> | undefined;
  private storageFault: StorageFault | undefined;

  /** Connects lazily: the first call reaches the server (and creates or upgrades the schema). */
  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.target = redactUrl(url);
    const config: pg.ClientConfig = {
      connectionString: url,
      application_name: options.applicationName ?? 'tokengate',
      connectionTimeoutMillis: 5_000,
      // A stopped or cut-off process must not hold the append lock, nor a statement wait forever.
      options: `-c statement_timeout=${STATEMENT_TIMEOUT} -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT} -c lock_timeout=${LOCK_TIMEOUT}`,
      keepAlive: true,
    };
    this.pool = new pg.Pool({ ...config, max: options.poolSize ?? 10, idleTimeoutMillis: 30_000 });
    this.health = options.health ?? new PostgresHealth();
    guardPool(this.pool, this.health);
    this.pollIntervalMs = options.pollIntervalMs ?? 500;
    this.maxBatch = options.maxBatch ?? 500;
    this.listener = new CommitListener({ ...config, application_name: `${config.application_name}-listen` }, () => this.notifier.notify(), this.health);
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

  /** A query on a pooled connection, its errors the port's. */
  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    if (this.closing) throw new Error('the event store is not open (closed)');
    const ticket = this.health.ticket();
    try {
      await this.whenReady();
      const result = await this.pool.query<R>(text, values);
      this.health.succeeded(ticket);
      return result;
    } catch (error) {
      this.health.failed(error);
      throw translatePgError(error, this.target);
    }
  }

  append(stream: string, events: readonly EventData[], options: { expectedRevision?: ExpectedRevision } = {}): Promise<AppendResult> {
    if (this.closing) return Promise.reject(new Error('the event store is not open (closed)'));
    let json: PendingAppend['json'];
    try {
      json = events.map((e) => ({ data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) }));
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise<AppendResult>((resolve, reject) => {
      this.queue.push({ stream, events, expected: options.expectedRevision ?? 'any', json, resolve, reject });
      this.schedule();
    });
  }

  /** Flush on the next turn, or when the batch in flight ends (appends gather meanwhile). */
  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.queue.length > 0) this.schedule();
      });
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) return;
    const ticket = this.health.ticket();
    try {
      await this.whenReady();
    } catch (error) {
      this.health.failed(error);
      for (const item of batch) item.reject(error);
      return;
    }
    let results: BatchResult[];
    try {
      results = await commit(this.pool, batch);
      this.health.succeeded(ticket);
    } catch (error) {
      this.health.failed(error);
      if (batch.length > 1 && !isTransient(error)) {
        // Something in the batch the server refused (not a conflict: those are decided before the
        // INSERT): each append alone, so only the one at fault fails.
        for (const item of batch) {
          try {
            const [result] = await commit(this.pool, [item]);
            settle(item, result);
          } catch (single) {
            item.reject(this.noteFault(single));
          }
        }
        return;
      }
      const translated = this.noteFault(error);
      for (const item of batch) item.reject(translated);
      return;
    }
    this.storageFault = undefined;
    batch.forEach((item, i) => settle(item, results[i]));
    this.notifier.notify();
  }

  /** The port's error for a failed batch; a storage fault is kept as `failure` until a commit succeeds. */
  private noteFault(error: unknown): unknown {
    const translated = translatePgError(error, this.target);
    if ((translated as StorageFault).name === 'StorageFault') {
      if (this.storageFault === undefined) process.emitWarning((translated as StorageFault).message);
      this.storageFault = translated as StorageFault;
    }
    return translated;
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { fromRevision, untilRevision, untilTime } = options;
    const { rows } = await this.query<Row>(
      `SELECT ${COLUMNS} FROM tokengate_events
        WHERE stream = $1 AND revision >= $2 AND ($3::bigint IS NULL OR revision <= $3) AND ($4::timestamptz IS NULL OR created <= $4)
        ORDER BY revision`,
      [stream, (fromRevision ?? 0n).toString(), untilRevision?.toString() ?? null, untilTime ?? null]);
    return rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    if (options.maxCount !== undefined && options.maxCount <= 0) return [];
    const { rows } = await this.query<Row>(
      `SELECT ${COLUMNS} FROM tokengate_events WHERE position > $1 ORDER BY position LIMIT $2`,
      [(options.fromPosition ?? 0n).toString(), options.maxCount ?? null]);
    return rows.map(toRecorded);
  }

  async headPosition(): Promise<bigint> {
    const { rows } = await this.query<{ head: string }>('SELECT coalesce(max(position), 0)::text AS head FROM tokengate_events', []);
    return BigInt(rows[0]?.head ?? '0');
  }

  /**
   * Catch-up, then live: woken by this process's commits, by the server's NOTIFY of any
   * process's commit (a connection of its own, reconnected when dropped), and by a poll. A read
   * that fails for a transient reason (the server restarting) is tried again until it succeeds or
   * the subscription closes: the subscription resumes from its last position, nothing lost or repeated.
   */
  subscribeAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    this.listener.start();
    let closed = false;
    let warned = false;
    const readAll = async (o: ReadAllOptions): Promise<RecordedEvent[]> => {
      for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
        try {
          const events = await this.readAll(o);
          warned = false;
          return events;
        } catch (error) {
          if (closed || this.closing || !isTransient(error)) throw error;
          if (!warned) process.emitWarning(`a subscription to the event store waits for PostgreSQL: ${(error as Error).message}`);
          warned = true;
          await sleep(pause);
          if (closed || this.closing) return [];
        }
      }
    };
    const subscription = pullSubscription(readAll, this.notifier, options, handlers, this.pollIntervalMs);
    return {
      caughtUp: subscription.caughtUp,
      close: () => { closed = true; return subscription.close(); },
    };
  }

  /**
   * Calls `listener` after each commit of this process's appends and at each notification of
   * another process's (LISTEN), without reading any event: for a follower that reads the log its
   * own way (the read models' catch-up: store/projection-feed.ts). Returns what stops it.
   */
  onAppended(listener: () => void): () => void {
    this.listener.start();
    return this.notifier.on(listener);
  }

  /**
   * While the server refuses writes (a full disk, an I/O error, read-only): the fault, until a
   * batch commits. Never set for an unreachable server (that is `unreachable`).
   */
  get failure(): Error | undefined {
    return this.storageFault;
  }

  /** While the server cannot be reached (PostgresHealth): the last connection error, as the port's StoreUnreachable. */
  get unreachable(): Error | undefined {
    const error = this.health.unreachable;
    return error === undefined ? undefined : translatePgError(error, this.target) as Error;
  }

  async close(): Promise<void> {
    if (this.queue.length > 0 && !this.flushing) this.schedule();
    while (this.flushing || this.scheduled || this.queue.length > 0) {
      await (this.flushing ?? new Promise((resolve) => setImmediate(resolve)));
    }
    this.closing = true;
    await this.listener.close();
    await this.pool.end().catch(() => undefined);
  }
}

/** The batch in one statement when nothing in it needs deciding (the usual batch); else decided append by append. */
async function commit(pool: pg.Pool, batch: readonly PendingAppend[]): Promise<BatchResult[]> {
  if (batch.every((item) => item.events.length > 0)) {
    const results = await commitAtOnce(pool, batch);
    if (results !== undefined) return results;
  }
  return commitBatch(pool, batch);
}

function settle(item: PendingAppend, result: BatchResult | undefined): void {
  if (result === undefined) item.reject(new Error('the event store lost an append of its batch'));
  else if ('error' in result) item.reject(result.error);
  else item.resolve(result);
}
