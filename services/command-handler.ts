// The one command handler (after Emmett's handleCommand): every write of the gateway, by a request
// or a reactor, is this loop over one stream:
//
//   read the stream -> fold it (the aggregate's one evolve) -> decide -> append the decided events
//   with the read revision as the expected one -> bring the read models up to date -> answer.
//
// Another writer between the read and the append (WrongExpectedRevisionError) makes the handler
// read again and decide again on the new state: an identical repeat then finds its own work done.
// A decision made on another stream read without a promise (EventStore.readStreamUnconfirmed)
// carries that stream's revision as the append's condition (promise 8): a failed one
// (ConditionFailedError) is a conflict too, and the next attempt is told which stream it named.
// After `attempts` such conflicts it gives up: Busy (503 SERVER_BUSY, the client repeats), or what
// `exhausted` returns. A decision with no events appends nothing and answers at once.
//
// The stream itself is read from the store's memory without a promise where the store offers it
// (EventStore.readStreamUnconfirmed, promise 8): it may lack a write acknowledged a moment ago on
// another instance. The append's expected revision (the last revision read) is the condition
// promise 8 asks for: it is written only if the stream was still as read, so a decision that
// appends, and its answer, are those of a careful read. What no append checks is made again on the
// stream read the careful way (readStream), as a decision on a guessed-new stream is: a decision
// without events (a replay, a refusal answered, a payment in progress to wait for) or a decide
// that throws (a refusal). Once a stream is read the careful way (that, or after a conflict: the
// memory may be behind, and reading it again could fail the same way) the command keeps reading
// it so. `careful`: never read unconfirmed (a decide with effects beyond its own append).
//
// To add an operation: write a decider (domain/, pure), then
//
//   return handleCommand(gateway, streams.token(repositoryId, token), tokenAggregate,
//     (state, { now }) => {
//       if (state.status !== 'VALID') throw new InvalidRequest('...');
//       return { events: decideToken(state, { type: 'DoSomething', merchantId, now }), answer: (after) => view(after) };
//     },
//     { meta });
import { uuidV7 } from '../lib/uuid.js';
import {
  ConditionFailedError, WrongExpectedRevisionError, type AppendCondition, type AppendResult, type EventData, type EventMetadata, type EventStore, type RecordedEvent,
} from '../store/event-store.js';
import { fold, readOwnStream, readOwnStreamUnconfirmed, revisionAfter, type Aggregate, type Typed } from './aggregates.js';
import { toEventData, type RequestMeta } from './context.js';
import { Busy } from '../domain/errors.js';
import { nowOfStream, type Sandbox } from './test-control/sandbox.js';

export interface HandlerDeps {
  readonly store: EventStore;
  /**
   * Given: caught up to the append before the answer (read-your-writes); absent: not caught up
   * here. catchUp answers undefined when the answer has nothing to wait for.
   */
  readonly readModels?: { catchUp(position?: bigint): Promise<void> | undefined };
  /** Whose clocks give a command its time (the test-control API's); absent: the real time. */
  readonly sandbox?: Sandbox | undefined;
}

/**
 * What decide is told besides the state: the attempt's time, the events read, the stream's name;
 * `conditionFailed`: the stream whose condition refused the previous attempt's append.
 */
export interface Attempt { now: string; history: readonly RecordedEvent[]; stream: string; conditionFailed?: string | undefined }

/** Another stream the decision was made on, at the revision read; `held`: called once an append carrying it is written. */
export type DecisionCondition = AppendCondition & { held?(): void };

export type Decision<State, Event, Result> =
  /** Append `events` (none: nothing), catch up, then answer with the state after them and the append's position. */
  | { events: readonly Event[]; answer: (after: State, position: bigint | undefined) => Result | Promise<Result>; condition?: DecisionCondition | undefined }
  /** Append `events` (if any), wait `again` ms, then read and decide again (not a conflict: a payment in progress). */
  | { events: readonly Event[]; again: number; condition?: DecisionCondition | undefined };

/** decide's answer when something it depends on was changed by another writer: read and decide again, as after a conflict. */
export const CONFLICT = Symbol('conflict');

export interface HandleOptions<Event, Result> {
  /** The request's metadata (toEventData), or each event's metadata (reactors: causation, reactor name). */
  meta: RequestMeta | ((event: Event, attempt: Attempt) => EventMetadata);
  /** Read with readOwnStream: every event must name the stream's owner. */
  ownStream?: boolean;
  /**
   * Always read the stream the careful way, never readStreamUnconfirmed: decide does something
   * beyond its own append (another stream written, a key destroyed) that must not rest on a stale read.
   */
  careful?: boolean;
  /**
   * The stream is expected not to exist (when true for it): decide first on the initial state
   * without reading, and let the append's `no_stream` check the guess (a stream is guessed once;
   * the next attempt reads it). A guess only ever leads to an append: a decision without events,
   * or a refusal of a named stream, on a guessed state is made again on the stream as read.
   */
  guessNew?: (stream: string) => boolean;
  /** The command's time, when the caller fixed it (a request's steps share it); default: at each attempt, the clock of the stream's merchant (services/test-control/sandbox.ts). */
  now?: string;
  /** The stream as the caller already read it: the first decision is made on it. */
  known?: readonly RecordedEvent[];
  /** Conflicts allowed before giving up (default 10). */
  attempts?: number;
  /** Busy's message when the attempts run out (not shown to clients). */
  busy?: string;
  /** What to answer instead of throwing Busy when the attempts run out. */
  exhausted?: () => Result;
}

const DEFAULT_ATTEMPTS = 10;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Handle one command on one stream (see the top of this file). `stream` may be a function, called
 * at every attempt: a stream named by an id drawn anew each time (a new session, a new token).
 */
export async function handleCommand<State, Event extends Typed, Result>(
  deps: HandlerDeps,
  stream: string | (() => string),
  aggregate: Aggregate<State, Event>,
  decide: (state: State, attempt: Attempt) => Decision<State, Event, Result> | typeof CONFLICT | Promise<Decision<State, Event, Result> | typeof CONFLICT>,
  options: HandleOptions<Event, Result>,
): Promise<Result> {
  const attempts = options.attempts ?? DEFAULT_ATTEMPTS;
  const guessing = guesser(typeof stream === 'string', options.guessNew);
  let known = options.known;
  let careful = options.careful === true;
  let conflicts = 0;
  let conditionFailed: string | undefined;
  while (conflicts < attempts) {
    const name = typeof stream === 'string' ? stream : stream();
    const guess = known === undefined && guessing(name);
    const unconfirmed = known === undefined && !guess && !careful ? readUnconfirmed(deps.store, name, options.ownStream) : undefined;
    const history = known ?? unconfirmed ?? (guess ? [] : options.ownStream ? await readOwnStream(deps.store, name) : await deps.store.readStream(name));
    known = undefined;
    const state = fold(aggregate, history);
    const attempt: Attempt = { now: options.now ?? nowOfStream(deps.sandbox, name), history, stream: name, conditionFailed };
    conditionFailed = undefined;
    // (Most decisions are made at once: no turn of the microtask queue for them.)
    const decided = decideOnce(decide, state, attempt, unconfirmed !== undefined || (guess && typeof stream === 'string'));
    const decision = decided instanceof Promise ? await decided : decided;
    if (decision === CONFLICT) {
      conflicts += 1;
      careful = true;
      continue;
    }
    if (decision === REFUSED_UNCONFIRMED || ((guess || unconfirmed !== undefined) && decision.events.length === 0)) {
      // Nothing to append (or refused) on a guessed or unconfirmed stream: read it, decide again as
      // this attempt knew (a failed condition). A named stream is guessed once; a drawn one, each time.
      if (guess && typeof stream !== 'string') conflicts += 1;
      careful ||= unconfirmed !== undefined;
      conditionFailed = attempt.conditionFailed;
      continue;
    }
    const position = decision.events.length === 0 ? undefined : await appendDecided(deps.store, name, eventData(decision.events, options.meta, attempt), history, decision.condition);
    if (typeof position === 'object') {
      conflicts += 1;
      careful = true;
      conditionFailed = position.conditionFailed;
      continue;
    }
    if ('again' in decision) {
      // (Read as before: what it appended was checked, and memory holds this instance's commits.)
      await sleep(decision.again);
      continue;
    }
    // Written at the revision after `history` (the expected one): `history` was then the whole
    // stream, read unconfirmed or not, so the state after the events is the stream's at the append.
    // (Most appends are covered already: no turn of the microtask queue for them.)
    const caughtUp = position === undefined ? undefined : deps.readModels?.catchUp(position);
    if (caughtUp) await caughtUp;
    return decision.answer(decision.events.reduce(aggregate.evolve, state), position);
  }
  if (options.exhausted) return options.exhausted();
  throw new Busy(options.busy ?? `stream '${typeof stream === 'string' ? stream : 'new'}' is being changed by too many requests at once`);
}

/** Whether an attempt decides `name` on a guessed empty stream (guessNew), each name once (a named stream is one name: no Set made for it). */
function guesser(named: boolean, guessNew: ((stream: string) => boolean) | undefined): (name: string) => boolean {
  if (guessNew === undefined) return () => false;
  let guessedNamed = false;
  let guessed: Set<string> | undefined;
  return (name) => {
    if ((named ? guessedNamed : guessed?.has(name) === true) || !guessNew(name)) return false;
    if (named) guessedNamed = true;
    else (guessed ??= new Set()).add(name);
    return true;
  };
}

/**
 * A decide that threw (a refusal) on a stream read unconfirmed, or on a named stream guessed new:
 * made again on a read. A guess is no ground for a refusal (the order may exist: another
 * instance's, or one of a reset merchant's new epoch, which no memory vouches for); a drawn
 * stream is new, and its refusal stands.
 */
const REFUSED_UNCONFIRMED = Symbol('refused unconfirmed');

/** decide's decision; REFUSED_UNCONFIRMED for its refusal when `readAgain` (no promise when decide gives none). */
function decideOnce<State, D>(decide: (state: State, attempt: Attempt) => D | Promise<D>, state: State, attempt: Attempt, readAgain: boolean): D | typeof REFUSED_UNCONFIRMED | Promise<D | typeof REFUSED_UNCONFIRMED> {
  if (!readAgain) return decide(state, attempt);
  try {
    const decided = decide(state, attempt);
    return decided instanceof Promise ? decided.catch(() => REFUSED_UNCONFIRMED) : decided;
  } catch {
    return REFUSED_UNCONFIRMED;
  }
}

/** The stream as the store's memory holds it (checked for its owner when `own`); undefined: read it the careful way. */
function readUnconfirmed(store: EventStore, name: string, own: boolean | undefined): readonly RecordedEvent[] | undefined {
  return own ? readOwnStreamUnconfirmed(store, name) : store.readStreamUnconfirmed?.(name);
}

/** An append refused as a conflict (nothing written): the stream changed, or the condition on `conditionFailed` failed. */
interface Refused { readonly conditionFailed: string | undefined }
const STREAM_CHANGED: Refused = { conditionFailed: undefined };

/** Why an append was refused, from its error (thrown on when it is no refusal). */
function refusal(error: unknown): Refused {
  if (error instanceof WrongExpectedRevisionError) return STREAM_CHANGED;
  if (error instanceof ConditionFailedError) return { conditionFailed: error.condition.stream };
  throw error;
}

const positionOf = (result: AppendResult): bigint => result.position;

/**
 * Append a decision's events after `history` (and its condition); the position, or why it was
 * refused. (Not async: the store's promise and one more, not an async function's around them.)
 */
function appendDecided(store: EventStore, name: string, events: EventData[], history: readonly RecordedEvent[], condition: DecisionCondition | undefined): Promise<bigint | Refused> {
  try {
    const expectedRevision = revisionAfter(history);
    if (condition === undefined) return store.append(name, events, { expectedRevision }).then(positionOf, refusal);
    return store.append(name, events, { expectedRevision, condition: { stream: condition.stream, revision: condition.revision } }).then((result) => {
      condition.held?.();
      return result.position;
    }, refusal);
  } catch (error) {
    return Promise.reject(error as Error).then(positionOf, refusal);
  }
}

function eventData<Event extends Typed>(events: readonly Event[], meta: HandleOptions<Event, unknown>['meta'], attempt: Attempt): EventData[] {
  if (typeof meta !== 'function') return toEventData(events, meta, attempt.now);
  return events.map((e) => ({ id: uuidV7(), type: e.type, data: e.data, metadata: meta(e, attempt) }));
}
