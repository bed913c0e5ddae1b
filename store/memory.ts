// In-memory adapter of the event store port, for tests and throwaway sandboxes (EVENT_STORE=memory:).
import {
  checkCondition, checkExpectedRevision, IdempotencyConflictError,
  type AppendOptions, type AppendResult, type EventData, type EventStore, type ReadAllOptions,
  type ReadStreamOptions, type RecordedEvent, type SubscribeOptions, type SubscriptionHandlers, type Subscription,
} from './event-store.js';
import { Notifier, pullSubscription } from './subscription.js';
import { isoNow } from '../lib/clock.js';

export class MemoryEventStore implements EventStore {
  readonly kind = 'memory';
  private readonly log: RecordedEvent[] = [];
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly byId = new Map<string, RecordedEvent>();
  private readonly notifier = new Notifier();

  async append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    const existing = this.streams.get(stream) ?? [];
    const repeated = events.map((e) => this.byId.get(e.id));
    if (repeated.length > 0 && repeated.every((e) => e !== undefined && e.stream === stream)) {
      const last = repeated[repeated.length - 1] as RecordedEvent;
      return { nextExpectedRevision: BigInt(existing.length - 1), position: last.position };
    }
    if (repeated.some((e) => e !== undefined)) throw new IdempotencyConflictError(stream);
    checkExpectedRevision(stream, options.expectedRevision ?? 'any', BigInt(existing.length - 1));
    const condition = options.condition;
    if (condition) checkCondition(stream, condition, BigInt((this.streams.get(condition.stream)?.length ?? 0) - 1));
    if (events.length === 0) {
      return { nextExpectedRevision: BigInt(existing.length - 1), position: BigInt(this.log.length) };
    }
    const created = isoNow();
    for (const e of events) {
      const recorded: RecordedEvent = {
        id: e.id, type: e.type, data: structuredClone(e.data), metadata: structuredClone(e.metadata),
        stream, revision: BigInt(existing.length), position: BigInt(this.log.length + 1), created,
      };
      existing.push(recorded);
      this.log.push(recorded);
      this.byId.set(e.id, recorded);
    }
    this.streams.set(stream, existing);
    queueMicrotask(() => this.notifier.notify());
    return { nextExpectedRevision: BigInt(existing.length - 1), position: BigInt(this.log.length) };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromRevision ?? 0n;
    const until = options.untilRevision;
    const untilTime = options.untilTime?.toISOString();
    // Copies: a caller changing what it read must not rewrite history.
    return structuredClone((this.streams.get(stream) ?? []).filter((e) =>
      e.revision >= from && (until === undefined || e.revision <= until) && (untilTime === undefined || e.created <= untilTime)));
  }

  readStreamSoon(stream: string): Promise<readonly RecordedEvent[]> {
    return this.readStream(stream);
  }

  /** Every stream is in memory, and no other process writes it. */
  knownRevision(stream: string): bigint | 'no_stream' {
    const events = this.streams.get(stream);
    return events === undefined ? 'no_stream' : BigInt(events.length - 1);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const from = Number(options.fromPosition ?? 0n);
    const to = options.maxCount === undefined ? undefined : from + options.maxCount;
    return structuredClone(this.log.slice(from, to));
  }

  subscribeAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    return pullSubscription((o) => this.readAll(o), this.notifier, options, handlers, undefined);
  }

  async headPosition(): Promise<bigint> {
    return BigInt(this.log.length);
  }

  async close(): Promise<void> {}
}
