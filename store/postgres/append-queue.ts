// The PostgreSQL store's appends (event-store.ts hands them here): those requested in one
// event-loop turn, or while the previous batch commits, are committed together (append-commit.ts:
// one statement when none of them conflicts, else decided append by append, one transaction
// either way); each resolves after the COMMIT that covers it, its events in this instance's memory
// (memory.ts) first. A batch the server refuses as a whole (not a conflict) is tried again one
// append at a time, so only the one at fault fails.
import type pg from 'pg';
import type { StorageFault } from '../../domain/errors.js';
import { ConditionFailedError, type AppendResult, type RecordedEvent } from '../event-store.js';
import type { Notifier } from '../subscription.js';
import type { BatchResult, PendingAppend } from './append-batch.js';
import { commitAtOnce, commitBatch } from './append-commit.js';
import { isTransient, translatePgError } from './errors.js';
import type { PostgresHealth } from './health.js';
import type { ServerMemory } from './memory.js';

export interface AppendQueueOptions {
  pool: pg.Pool;
  health: PostgresHealth;
  memory: ServerMemory;
  /** Woken after each commit (this instance's subscriptions and read models). */
  notifier: Pick<Notifier, 'notify'>;
  /** This instance's id in its notifications. */
  writer: string;
  maxBatch: number;
  /** The server, named without credentials. */
  target: string;
  /** The schema, created or upgraded. */
  ready: () => Promise<void>;
}

export class AppendQueue {
  private queue: PendingAppend[] = [];
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private storageFault: StorageFault | undefined;

  constructor(private readonly o: AppendQueueOptions) {}

  push(item: PendingAppend): void {
    this.queue.push(item);
    this.schedule();
  }

  /** While the server refuses writes: the fault, until a batch commits. */
  get failure(): StorageFault | undefined {
    return this.storageFault;
  }

  /** Resolves once every append queued so far is settled. */
  async drain(): Promise<void> {
    if (this.queue.length > 0 && !this.flushing) this.schedule();
    while (this.flushing || this.scheduled || this.queue.length > 0) {
      await (this.flushing ?? new Promise((resolve) => setImmediate(resolve)));
    }
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
    const { health, memory, notifier } = this.o;
    const batch = this.queue.splice(0, this.o.maxBatch);
    if (batch.length === 0) return;
    const ticket = health.ticket();
    try {
      await this.o.ready();
    } catch (error) {
      health.failed(error);
      for (const item of batch) item.reject(error);
      return;
    }
    let results: BatchResult[];
    try {
      results = await this.commit(batch);
      health.succeeded(ticket);
    } catch (error) {
      health.failed(error);
      // Whether it committed is not known: memory forgets everything it held.
      memory.forgetAll();
      if (batch.length > 1 && !isTransient(error)) {
        for (const item of batch) {
          try {
            settle(item, (await this.commit([item]))[0]);
          } catch (single) {
            memory.forgetAll();
            item.reject(this.noteFault(single));
          }
        }
        notifier.notify();
        return;
      }
      const translated = this.noteFault(error);
      for (const item of batch) item.reject(translated);
      return;
    }
    this.storageFault = undefined;
    batch.forEach((item, i) => settle(item, results[i]));
    notifier.notify();
  }

  /**
   * The batch in one statement when nothing in it needs deciding (the usual batch), its events then
   * kept in memory; else decided append by append, its streams then forgotten.
   */
  private async commit(batch: readonly PendingAppend[]): Promise<BatchResult[]> {
    const { pool, memory, writer } = this.o;
    const created = new Date();
    if (batch.every((item) => item.events.length > 0)) {
      const results = await commitAtOnce(pool, batch, created, writer);
      if (results !== undefined) {
        memory.committed(recordedOf(batch, results, created.toISOString()));
        return results;
      }
    }
    const decided = await commitBatch(pool, batch, created, writer);
    memory.committedUnkept(batch.map((item) => item.stream), decided.written);
    // Another instance wrote a condition's stream: the retry's read goes to the server at once
    // rather than waiting for a notification that memory has not heard yet.
    for (const result of decided.results) {
      if ('error' in result && result.error instanceof ConditionFailedError) memory.forget(result.error.condition.stream);
    }
    return decided.results;
  }

  /** The port's error for a failed batch; a storage fault is kept as `failure` until a commit succeeds. */
  private noteFault(error: unknown): unknown {
    const translated = translatePgError(error, this.o.target);
    if ((translated as StorageFault).name === 'StorageFault') {
      if (this.storageFault === undefined) process.emitWarning((translated as StorageFault).message);
      this.storageFault = translated as StorageFault;
    }
    return translated;
  }
}

/** Each append's events as read back would give them (their data frozen copies made at the append: memory shares them with every reader). */
function recordedOf(batch: readonly PendingAppend[], results: readonly AppendResult[], created: string): RecordedEvent[][] {
  return batch.map((item, n) => {
    const result = results[n] as AppendResult;
    const count = BigInt(item.events.length);
    return item.events.map((e, k) => {
      const offset = BigInt(k) + 1n - count;
      return Object.freeze({
        id: e.id, type: e.type, data: e.data, metadata: e.metadata, stream: item.stream,
        revision: result.nextExpectedRevision + offset, position: result.position + offset, created,
      });
    });
  });
}

function settle(item: PendingAppend, result: BatchResult | undefined): void {
  if (result === undefined) item.reject(new Error('the event store lost an append of its batch'));
  else if ('error' in result) item.reject(result.error);
  else item.resolve(result);
}
