// The event store port, modelled on KurrentDB (formerly EventStoreDB): streams with 0-based
// revisions, a global log with positions, optimistic concurrency by expected revision,
// idempotent appends by event id, and a catch-up subscription to the whole log.

export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export interface EventMetadata {
  correlationId: string;
  causationId?: string;
  merchantId?: string;
  requestId?: string;
  recordedAt: string;
  [key: string]: unknown;
}

export interface EventData<Type extends string = string, Data = unknown> {
  /** UUID. Appending an id already in the stream is a no-op (deterministic idempotency). */
  id: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> extends EventData<Type, Data> {
  stream: string;
  /** 0-based revision within the stream. */
  revision: bigint;
  /** Position in the global log ($all), strictly increasing, starting at 1. */
  position: bigint;
  /** When the store committed the event (ISO 8601). */
  created: string;
}

/** What a projection reads of an event: no id, no metadata (a store may leave them out to replay faster). */
export type ProjectedEvent<Type extends string = string, Data = unknown> =
  Pick<RecordedEvent<Type, Data>, 'type' | 'data' | 'stream' | 'revision' | 'position' | 'created'>;

export interface AppendResult {
  /** Revision of the stream's last event after the append. */
  nextExpectedRevision: bigint;
  /** Position of the last event of this append (or of the existing one on an idempotent repeat). */
  position: bigint;
}

export interface ReadStreamOptions {
  /** First revision to read (inclusive); default 0. */
  fromRevision?: bigint;
  /** Last revision to read (inclusive). */
  untilRevision?: bigint;
  /** Read only events committed at or before this instant (time travel). */
  untilTime?: Date;
}

export interface ReadAllOptions {
  /** Read events after this position (exclusive); default: from the start. */
  fromPosition?: bigint;
  /** At most this many events. */
  maxCount?: number;
}

export interface SubscribeOptions {
  /** Deliver events after this position (exclusive); default: from the start. */
  fromPosition?: bigint;
}

export interface SubscriptionHandlers {
  onEvent(event: RecordedEvent): void | Promise<void>;
  /** Called once, when the subscription has delivered every event that existed when it started. */
  onCaughtUp?(): void;
  onError?(error: unknown): void;
}

export interface Subscription {
  /** Resolves when the subscription has caught up with the log. */
  readonly caughtUp: Promise<void>;
  close(): Promise<void>;
}

/** The log in (fromPosition, untilPosition], in pages of pageSize events. */
export interface PagesAheadOptions { fromPosition: bigint; untilPosition: bigint; pageSize: number }

export interface EventStore {
  readonly kind: string;
  append(stream: string, events: readonly EventData[], options?: { expectedRevision?: ExpectedRevision }): Promise<AppendResult>;
  /** Events of a stream in revision order; an empty array for a stream that does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * Whether readStream would answer from memory, without reading the store. A caller expecting a
   * new stream may skip the read when it would not, and let the append's expected revision
   * (`no_stream`) check the guess.
   */
  holdsStream?(stream: string): boolean;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** readAll for folding read models, where a store can read less (SQLite: no ids, metadata not parsed). */
  readAllForProjections?(options?: ReadAllOptions): Promise<ProjectedEvent[]>;
  /** readAllForProjections in pages up to `untilPosition`, where a store can read the next pages while the caller folds one (long replays). */
  readPagesAhead?(options: PagesAheadOptions): AsyncIterable<ProjectedEvent[]>;
  /** Catch up from a position, then receive events as they are appended (by any process). */
  subscribeAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription;
  /** Resolves when this process's appends up to `position` (default: all) are on disk, where a store commits before it syncs. */
  durable?(position?: bigint): Promise<void>;
  /** The position of the last event in the log (0n when empty). */
  headPosition(): Promise<bigint>;
  /** Why the store refuses every append until a restart (a failed sync or checkpoint), if it does. */
  readonly failure?: Error | undefined;
  close(): Promise<void>;
}

/** The stream's actual revision did not match the expected one. */
export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    /** The stream's revision, or 'no_stream'. */
    readonly actual: bigint | 'no_stream',
  ) {
    super(`Append to stream '${stream}' expected revision ${String(expected)} but found ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/** Some but not all of the appended event ids are already in the stream. */
export class IdempotencyConflictError extends Error {
  constructor(readonly stream: string) {
    super(`Append to stream '${stream}' repeats some event ids of an earlier append but not all`);
    this.name = 'IdempotencyConflictError';
  }
}

/** Check an expected revision against the stream's current one (-1n: no stream). */
export function checkExpectedRevision(stream: string, expected: ExpectedRevision, current: bigint): void {
  const ok =
    expected === 'any' ||
    (expected === 'no_stream' && current === -1n) ||
    (expected === 'stream_exists' && current >= 0n) ||
    (typeof expected === 'bigint' && expected === current);
  if (!ok) throw new WrongExpectedRevisionError(stream, expected, current < 0n ? 'no_stream' : current);
}

/** The category of a stream: the text before its first '-'. */
export const categoryOf = (stream: string): string => {
  const dash = stream.indexOf('-');
  return dash < 0 ? stream : stream.slice(0, dash);
};
