// The event store port, modelled on KurrentDB (formerly EventStoreDB): streams with 0-based
// revisions, a global log with positions, optimistic concurrency by expected revision,
// idempotent appends by event id, and a catch-up subscription to the whole log.
//
// What every adapter owes (`EventStore` below), and no more. test/store/contract.ts is the proof
// that an adapter keeps these promises: a new adapter implements the interface and passes it.
//
//  1. append(stream, events, { expectedRevision }) writes the events at the stream's next
//     revisions, all or none, once the expected revision matches: 'any'; 'no_stream' (the stream
//     has no event); 'stream_exists' (it has one); a bigint (its last revision is exactly that).
//     A mismatch is a WrongExpectedRevisionError naming the stream, the expected and the actual
//     revision ('no_stream' for none), and writes nothing. It resolves once the events are durable
//     (on disk, or acknowledged by the server): a reply may depend on them.
//  2. Appending event ids that are all already in the stream is a no-op that answers the original
//     append's result (its last position); some but not all of them: an IdempotencyConflictError.
//     A failing append does not undo others requested alongside it.
//  3. readStream gives a stream's events in revision order ([] for no stream), within
//     fromRevision..untilRevision (inclusive), and only those created at or before untilTime.
//  4. readAll gives the log after fromPosition (exclusive), in position order, at most maxCount;
//     positions strictly increase from 1, in commit order: a reader never sees a position after
//     a lower one that was not there yet. headPosition is the last position (0n: empty).
//  5. subscribeAll delivers, from a position (exclusive), every event in log order exactly once:
//     first those already there (then onCaughtUp, `caughtUp`), then each later one, appended by
//     this process or any other, until closed; a slow handler delays, never loses or repeats.
//  6. What an adapter hands out or is handed is not shared: changing it afterwards changes
//     nothing stored. `failure`, when set, says why every append is refused until a restart.
//  7. readStreamSoon gives what readStream would, at once (no promise) where the adapter can;
//     knownRevision tells a stream's last revision only when no read is needed to be sure of it.
//     Both may always take the slow way (a read; undefined): callers stay correct either way.
//  8. append(…, { condition: { stream: c, revision: r } }) writes only when stream c's last
//     revision is r (-1n: c has no event) when the events are written, atomically with them (no
//     write to c can come between the check and the append's commit). Checked after the
//     idempotency rule (a repeat answers the original result whatever the condition) and after the
//     expected revision (a WrongExpectedRevisionError wins). In a batch, an earlier append to c
//     counts. A failed condition is a ConditionFailedError, nothing written, and does not undo
//     others. An adapter that cannot check it atomically refuses every append that carries one
//     (and offers no readStreamUnconfirmed, so callers never send one); it never ignores it.
//
// How an adapter is fast is its own business (its options and methods, e.g.
// store/sqlite/README.md, wired by the composition root, root.ts): callers ask for what they need
// (promise 7), never whether a cache exists.

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

/** A stream a decision read besides the one appended to, and the revision it read (-1n: none). */
export interface AppendCondition {
  readonly stream: string;
  readonly revision: bigint;
}

export interface AppendOptions {
  expectedRevision?: ExpectedRevision;
  /** Promise 8: written only if `condition.stream`'s last revision is exactly `condition.revision`. */
  condition?: AppendCondition | undefined;
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

/** The port (the promises above, numbered). */
export interface EventStore {
  /** The adapter's name ('sqlite', 'memory', 'kurrentdb'). */
  readonly kind: string;
  /** Promises 1, 2 and 6; resolves once the events are durable. */
  append(stream: string, events: readonly EventData[], options?: AppendOptions): Promise<AppendResult>;
  /** Promise 3: events of a stream in revision order; an empty array for a stream that does not exist. */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /**
   * Promise 7: the whole stream as readStream gives it, without a promise where the adapter holds
   * it in memory (as durable as readStream's answer would be), else readStream's promise. The
   * events are not to be changed (they may be the adapter's own, frozen).
   */
  readStreamSoon(stream: string): readonly RecordedEvent[] | Promise<readonly RecordedEvent[]>;
  /**
   * Promise 7: the stream's last revision ('no_stream': it has none) when the adapter knows it
   * without asking its storage and no writer, in this process or another, can have changed it
   * since; undefined when only a read can tell. A caller may skip a read on it (e.g. take a
   * stream for new and let the append's expected revision check that).
   */
  knownRevision(stream: string): bigint | 'no_stream' | undefined;
  /**
   * Promise 8: the whole stream as this instance's memory holds it, without asking the server: it
   * may lack a write acknowledged elsewhere a moment ago. Only for a decision whose append carries
   * { condition: { stream, revision: the last revision read } } (or, appending to that stream
   * itself, the last revision read as its expected revision) and whose answers given without an
   * append are confirmed by readStream first. undefined: not held (read it). An adapter that
   * cannot check conditions does not offer it.
   */
  readStreamUnconfirmed?(stream: string): readonly RecordedEvent[] | undefined;
  /** Promise 4. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Promise 5: catch up from a position, then receive events as they are appended (by any process). */
  subscribeAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription;
  /** The position of the last event in the log (0n when empty). */
  headPosition(): Promise<bigint>;
  /** Why the store refuses every append until a restart (a failed sync or checkpoint), if it does. */
  readonly failure?: Error | undefined;
  /** While the store's server cannot be reached (its last connection error; cleared once a call succeeds again), where the adapter can tell. */
  readonly unreachable?: Error | undefined;
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

/** Promise 8: the condition's stream was not at the condition's revision; nothing was written. */
export class ConditionFailedError extends Error {
  constructor(
    readonly stream: string,
    readonly condition: AppendCondition,
    /** The condition stream's revision (-1n: no event). */
    readonly actual: bigint,
  ) {
    super(`Append to stream '${stream}' required '${condition.stream}' at revision ${String(condition.revision)} but found ${String(actual)}`);
    this.name = 'ConditionFailedError';
  }
}

/** Check an append's condition against its stream's current revision (-1n: no event). */
export function checkCondition(stream: string, condition: AppendCondition | undefined, current: bigint): void {
  if (condition !== undefined && condition.revision !== current) throw new ConditionFailedError(stream, condition, current);
}

/** Whether an expected revision matches the stream's current one (-1n: no stream). */
export const revisionMatches = (expected: ExpectedRevision, current: bigint): boolean =>
  expected === 'any' ||
  (expected === 'no_stream' && current === -1n) ||
  (expected === 'stream_exists' && current >= 0n) ||
  (typeof expected === 'bigint' && expected === current);

/** Check an expected revision against the stream's current one (-1n: no stream). */
export function checkExpectedRevision(stream: string, expected: ExpectedRevision, current: bigint): void {
  if (!revisionMatches(expected, current)) throw new WrongExpectedRevisionError(stream, expected, current < 0n ? 'no_stream' : current);
}

/** The category of a stream: the text before its first '-'. */
export const categoryOf = (stream: string): string => {
  const dash = stream.indexOf('-');
  return dash < 0 ? stream : stream.slice(0, dash);
};
