// The PostgreSQL store's subscriptions to the log (PostgresEventStore.subscribeAll): a pull
// subscription (store/subscription.ts) woken by this process's commits, by LISTEN's notification of
// another process's commit, and by a poll; its reads go through the store's memory (memory.ts).
//
// Once live (caught up), a subscription reads the server at most once per `gatherMs`: a read the
// memory cannot answer (another process committed since the last one) made sooner than that after
// the previous one is put off until then, and the commits of that moment are read together. One
// read costs this process and the server about as much whether it brings one commit or many (the
// round trip, the statement, the wake-ups), and a busy instance commits every few milliseconds, so
// another instance following it would pay that per batch. The first read after a quiet moment is
// made at once: a lone commit of another instance (a sandbox's reset, a test's request) arrives as
// soon as before. Nothing is lost or reordered by putting a read off: the subscription reads from its
// last position when it wakes, as it would have.
import type { ReadAllOptions, RecordedEvent, SubscribeOptions, Subscription, SubscriptionHandlers } from '../event-store.js';
import { Notifier, pullSubscription } from '../subscription.js';
import { isTransient } from './errors.js';

/** What a subscription reads with (the store's). */
export interface SubscriptionSource {
  /** The port's readAll (memory, else the server). */
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** The events after `from` (at most `max`; -1: all) when memory answers them as the server would, else undefined. */
  fromMemory(from: bigint, max: number): RecordedEvent[] | undefined;
  /** Told of every commit, this process's and others'. */
  readonly notifier: Notifier;
  readonly pollIntervalMs: number;
  /** How long a live subscription waits after a read of the server before the next (0: no wait). */
  readonly gatherMs: number;
  /** Whether the store is closing (a transient failure is then not retried). */
  closing(): boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * The store's readAll, a transient failure (the server restarting) tried again until it succeeds
 * or `stopped()`: the subscription resumes from its last position, nothing lost or repeated.
 */
function retrying(source: SubscriptionSource, stopped: () => boolean): (o: ReadAllOptions) => Promise<RecordedEvent[]> {
  let warned = false;
  return async (o) => {
    for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
      try {
        const events = await source.readAll(o);
        warned = false;
        return events;
      } catch (error) {
        if (stopped() || !isTransient(error)) throw error;
        if (!warned) process.emitWarning(`a subscription to the event store waits for PostgreSQL: ${(error as Error).message}`);
        warned = true;
        await sleep(pause);
        if (stopped()) return [];
      }
    }
  };
}

/** Catch-up, then live; reads put off as the header says, transient failures retried. */
export function subscribe(source: SubscriptionSource, options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
  let closed = false;
  let live = false;
  let lastRead = Number.NEGATIVE_INFINITY;
  let later: NodeJS.Timeout | undefined;
  // The subscription's own wake-ups: the store's, and the end of a put-off read's wait (while a
  // read is put off, the store's are not passed on: nothing can be delivered before that read).
  const wake = new Notifier();
  const unlisten = source.notifier.on(() => { if (later === undefined) wake.notify(); });
  const readServer = retrying(source, () => closed || source.closing());
  const readAll = (o: ReadAllOptions): Promise<RecordedEvent[]> => {
    const held = source.fromMemory(o.fromPosition ?? 0n, o.maxCount ?? -1);
    if (held !== undefined) return Promise.resolve(held);
    const wait = lastRead + source.gatherMs - performance.now();
    if (live && wait > 0) {
      // Nothing yet: the subscription waits for its next wake-up, which this sets.
      if (later === undefined) {
        later = setTimeout(() => { later = undefined; wake.notify(); }, Math.ceil(wait));
        later.unref();
      }
      return Promise.resolve([]);
    }
    const started = performance.now();
    return readServer(o).then((events) => {
      // A read that brought something (live): the next waits. One that found nothing (a poll, LISTEN
      // back) or a catch-up's does not: the first commit after it is read at once.
      if (live && events.length > 0) lastRead = started;
      return events;
    });
  };
  const subscription = pullSubscription(readAll, wake, options, {
    onEvent: (event) => handlers.onEvent(event),
    onCaughtUp: () => {
      live = true;
      handlers.onCaughtUp?.();
    },
    onError: (error) => handlers.onError?.(error),
  }, source.pollIntervalMs);
  return {
    caughtUp: subscription.caughtUp,
    close: () => {
      closed = true;
      unlisten();
      clearTimeout(later);
      return subscription.close();
    },
  };
}
