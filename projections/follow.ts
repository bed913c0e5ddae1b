// How the read models hear of appends after start (each notice may start a catch-up): told by the
// store without reading the events where it can (PostgreSQL: this process's commits; the notices of
// a moment gathered into one), with a poll beside it (on tables shared by every process, a look at
// what no process applied: behind.ts); else through a subscription to the log, which also brings
// the events other processes append.
import type { EventStore, RecordedEvent } from '../store/event-store.js';
import type { ProjectionFeed } from '../store/projection-feed.js';
import type { BehindWatch } from './behind.js';

/** How often the read models look at the log without being told of an append (ms). */
const FOLLOW_POLL_MS = 1_000;

/**
 * Follow the log from `fromPosition`; returns what stops it. Told by the store, the notices of
 * `deferMs` are one: a busy gateway's catch-up then writes a page of many batches, a document
 * several of them touch (a token paid with again and again) once (reads catch up first anyway).
 */
export function followLog(
  store: EventStore, feed: ProjectionFeed | undefined, fromPosition: bigint, onAppended: (event?: RecordedEvent) => void, deferMs = 0,
  watch?: Pick<BehindWatch, 'look' | 'everyMs'>,
): () => Promise<void> {
  if (feed?.onAppended) {
    let timer: NodeJS.Timeout | undefined;
    const notice = () => {
      if (deferMs <= 0) return onAppended();
      if (timer !== undefined) return;
      timer = setTimeout(() => { timer = undefined; onAppended(); }, deferMs);
      timer.unref();
    };
    const unfollow = feed.onAppended(notice);
    // Shared tables: a look at what no one applied (behind.ts); else a catch-up, in case.
    const poll = watch ? setInterval(() => watch.look(), watch.everyMs) : setInterval(() => onAppended(), FOLLOW_POLL_MS);
    poll.unref();
    return async () => {
      unfollow();
      clearInterval(poll);
      clearTimeout(timer);
    };
  }
  const subscription = store.subscribeAll({ fromPosition }, { onEvent: (event) => onAppended(event) });
  return () => subscription.close();
}
