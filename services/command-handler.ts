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
  ConditionFailedError, WrongExpectedRevisionError, type AppendCondition, type EventData, type EventMetadata, type EventStore, type RecordedEvent,
} from '../store/event-store.js';
import { fold, readOwnStream, revisionAfter, type Aggregate, type Typed } from './aggregates.js';
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
   * The stream is expected not to exist (when true for it): decide first on the initial state
   * without reading, and let the append's `no_stream` check the guess (a stream is guessed once;
   * the next attempt reads it). A guess only ever leads to an append: a decision without events
   * on a guessed state is made again on the stream as read.
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
  // The names guessed new so far: a named stream is one name (no Set made for it on every pay).
  let guessedNamed = false;
  let guessed: Set<string> | undefined;
  let known = options.known;
  let conflicts = 0;
  let conditionFailed: string | undefined;
  while (conflicts < attempts) {
    const name = typeof stream === 'string' ? stream : stream();
    const wasGuessed = typeof stream === 'string' ? guessedNamed : guessed?.has(name) === true;
    const guess = known === undefined && !wasGuessed && options.guessNew?.(name) === true;
    if (guess) {
      if (typeof stream === 'string') guessedNamed = true;
      else (guessed ??= new Set()).add(name);
    }
    const history = known ?? (guess ? [] : options.ownStream ? await readOwnStream(deps.store, name) : await deps.store.readStream(name));
    known = undefined;
    const state = fold(aggregate, history);
    const attempt: Attempt = { now: options.now ?? nowOfStream(deps.sandbox, name), history, stream: name, conditionFailed };
    conditionFailed = undefined;
    // (Most decisions are made at once: no turn of the microtask queue for them.)
    const decided = decide(state, attempt);
    const decision = decided instanceof Promise ? await decided : decided;
    if (decision === CONFLICT) {
      conflicts += 1;
      continue;
    }
    if (guess && decision.events.length === 0) {
      // Decided on a guessed empty stream with nothing to append: read it and decide again. A
      // named stream is guessed once; a drawn one is new at every attempt, so each counts.
      if (typeof stream !== 'string') conflicts += 1;
      continue;
    }
    const position = decision.events.length === 0 ? undefined : await appendDecided(deps.store, name, eventData(decision.events, options.meta, attempt), history, decision.condition);
    if (typeof position === 'object') {
      conflicts += 1;
      conditionFailed = position.conditionFailed;
      continue;
    }
    if ('again' in decision) {
      await sleep(decision.again);
      continue;
    }
    // (Most appends are covered already: no turn of the microtask queue for them.)
    const caughtUp = position === undefined ? undefined : deps.readModels?.catchUp(position);
    if (caughtUp) await caughtUp;
    return decision.answer(decision.events.reduce(aggregate.evolve, state), position);
  }
  if (options.exhausted) return options.exhausted();
  throw new Busy(options.busy ?? `stream '${typeof stream === 'string' ? stream : 'new'}' is being changed by too many requests at once`);
}

/** An append refused as a conflict (nothing written): the stream changed, or the condition on `conditionFailed` failed. */
interface Refused { readonly conditionFailed: string | undefined }
const STREAM_CHANGED: Refused = { conditionFailed: undefined };

/** Append a decision's events after `history` (and its condition); the position, or why it was refused. */
async function appendDecided(store: EventStore, name: string, events: EventData[], history: readonly RecordedEvent[], condition: DecisionCondition | undefined): Promise<bigint | Refused> {
  try {
    if (condition === undefined) return (await store.append(name, events, { expectedRevision: revisionAfter(history) })).position;
    const { position } = await store.append(name, events, { expectedRevision: revisionAfter(history), condition: { stream: condition.stream, revision: condition.revision } });
    condition.held?.();
    return position;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return STREAM_CHANGED;
    if (error instanceof ConditionFailedError) return { conditionFailed: error.condition.stream };
    throw error;
  }
}

function eventData<Event extends Typed>(events: readonly Event[], meta: HandleOptions<Event, unknown>['meta'], attempt: Attempt): EventData[] {
  if (typeof meta !== 'function') return toEventData(events, meta, attempt.now);
  return events.map((e) => ({ id: uuidV7(), type: e.type, data: e.data, metadata: meta(e, attempt) }));
}
