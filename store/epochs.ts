// A view of an event store in which some owners' streams begin again at a position. A merchant
// reset through the test-control API (services/test-control/) starts a new epoch: from then on
// every read of its streams through this view ignores the events recorded before the reset,
// which stay in the log (readAll, subscribeAll and the read models see everything; the history of
// what was done is never rewritten). Why a new epoch rather than a wipe: the log stays
// append-only on every adapter (KurrentDB and PostgreSQL included, with no delete to implement or
// trust), a replay of the log reproduces the reset, and the timeline still shows what a test did
// before it. A stream keeps its revisions: a command that read the visible part expects the real
// last revision; one that expects the stream new, where every event of it is before the epoch,
// expects the last of those. Everything else of the adapter (a SQLite store's `db`...) is reached
// through the view, which is what the composition root hands the gateway (root.ts).
import { streamOwner } from '../domain/streams.js';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from './event-store.js';

/** The positions at which owners' epochs begin: a merchant's streams, or a repository's. */
export class Epochs {
  private readonly merchants = new Map<string, bigint>();
  private readonly repositories = new Map<string, bigint>();

  /** From `position` on (exclusive), only later events of the owner's streams are read. */
  begin(field: 'merchantId' | 'repositoryId', owner: string, position: bigint): void {
    const map = field === 'merchantId' ? this.merchants : this.repositories;
    if ((map.get(owner) ?? 0n) < position) map.set(owner, position);
  }

  /** The position through which the stream's events are ignored (undefined: none are). */
  of(stream: string): bigint | undefined {
    if (this.merchants.size === 0 && this.repositories.size === 0) return undefined;
    // The sandbox's own stream records the resets: never reset itself.
    if (stream.startsWith('sandbox-')) return undefined;
    const named = streamOwner(stream);
    if (named === undefined) return undefined;
    return (named.field === 'merchantId' ? this.merchants : this.repositories).get(named.owner);
  }
}

/** The events of a stream after position `from` (a stream's positions grow with its revisions). */
function after<T extends { position: bigint }>(events: readonly T[], from: bigint): T[] {
  let first = events.length;
  while (first > 0 && (events[first - 1] as T).position > from) first -= 1;
  return events.slice(first);
}

/** The expected revision an append through the view asks of the whole stream. */
async function expectedOf(store: Pick<EventStore, 'readStream'>, stream: string, expected: ExpectedRevision, from: bigint): Promise<ExpectedRevision> {
  if (expected !== 'no_stream' && expected !== 'stream_exists') return expected;
  const all = await store.readStream(stream);
  const last = all.at(-1);
  if (last === undefined) return expected;
  const visible = last.position > from;
  if (expected === 'stream_exists') {
    if (!visible) throw new WrongExpectedRevisionError(stream, expected, 'no_stream');
    return expected;
  }
  if (visible) throw new WrongExpectedRevisionError(stream, expected, last.revision);
  return last.revision;
}

/** The members the view answers itself; every other is the adapter's. */
type Viewed = 'readStream' | 'append' | 'readStreamSoon' | 'knownRevision' | 'readStreamUnconfirmed';
const VIEWED: ReadonlySet<string | symbol> = new Set(['readStream', 'append', 'readStreamSoon', 'knownRevision', 'readStreamUnconfirmed']);

/**
 * `store` seen through `epochs`: readStream and append as above (a test may replace them on the
 * view, as on a store), every other member the store's own.
 */
export function withEpochs<S extends EventStore>(store: S, epochs: Epochs): S {
  const inner: Pick<EventStore, Viewed> = {
    readStream: store.readStream.bind(store), append: store.append.bind(store),
    readStreamSoon: store.readStreamSoon.bind(store), knownRevision: store.knownRevision.bind(store),
    readStreamUnconfirmed: store.readStreamUnconfirmed?.bind(store),
  };
  const unconfirmed = inner.readStreamUnconfirmed;
  const own: Pick<EventStore, Viewed> = {
    // A stream of a new epoch always takes the slow way (promise 7 allows it): its visible part is
    // cut from a read, and its revision is not "known" (a repeat of an answer from before the reset
    // is decided again).
    readStreamSoon(stream) {
      return epochs.of(stream) === undefined ? inner.readStreamSoon(stream) : own.readStream(stream);
    },
    knownRevision(stream) {
      return epochs.of(stream) === undefined ? inner.knownRevision(stream) : undefined;
    },
    // Offered only by a store that offers it (promise 8); a stream of a new epoch is read the slow
    // way, since its revision as the view shows it is not the one an append's condition checks.
    readStreamUnconfirmed: unconfirmed && ((stream) => (epochs.of(stream) === undefined ? unconfirmed(stream) : undefined)),
    async readStream(stream, options) {
      const events = await inner.readStream(stream, options);
      const from = epochs.of(stream);
      return from === undefined ? events : after(events, from);
    },
    // Not async: an append to a stream of no new epoch (nearly every one) is the store's own
    // promise, without one of this view's around it (and its turns of the microtask queue).
    append(stream, events, options) {
      try {
        const from = epochs.of(stream);
        const expected = options?.expectedRevision;
        if (from === undefined || expected === undefined) return inner.append(stream, events, options);
        return expectedOf(inner, stream, expected, from).then((revision) => inner.append(stream, events, { ...options, expectedRevision: revision }));
      } catch (error) {
        return Promise.reject(error as Error);
      }
    },
  };
  return viewOf(store, own);
}

/** `store` with the members `own` answers in place of its own (replaceable on the view, as on a store). */
function viewOf<S extends EventStore>(store: S, own: Pick<EventStore, Viewed>): S {
  const bound = new WeakMap<object, unknown>();
  return new Proxy(store, {
    set(target, key, value) {
      if (VIEWED.has(key)) own[key as Viewed] = value as never;
      else Reflect.set(target, key, value, target);
      return true;
    },
    defineProperty(target, key, descriptor) {
      if ((key === 'readStream' || key === 'append') && descriptor.value !== undefined) {
        own[key] = descriptor.value as never;
        return true;
      }
      return Reflect.defineProperty(target, key, descriptor);
    },
    get(target, key) {
      if (VIEWED.has(key)) return own[key as Viewed];
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      // The adapter's methods run on the adapter itself (its fields, its private state).
      const method = value as (...args: unknown[]) => unknown;
      let made = bound.get(method);
      if (made === undefined) bound.set(method, (made = method.bind(target)));
      return made;
    },
  });
}
