// The log read back from a position toward its start, newest first: the timeline's newest page and
// the search for a correlation id. Windows of positions, each twice as wide while it holds few
// events (KurrentDB's positions are byte offsets, not counts), each read forward with readAll.
import type { EventStore, RecordedEvent } from '../../store/event-store.js';

const PAGE = 5_000;
/** Windows at most (the widths double: far more than any log's positions). */
const MAX_WINDOWS = 200;

export interface Window {
  /** The window's events, newest first. */
  events: RecordedEvent[];
  /** The window holds the events after this position: the next one reads up to it. */
  from: bigint;
  /** The window was cut short by `max`: its older events were not read. */
  cut: boolean;
}

/** Windows of the log at or before `until`, newest first, reading at most `max` events in all. */
export async function* readBackward(store: EventStore, until: bigint, max: number): AsyncGenerator<Window> {
  let width = BigInt(PAGE);
  let read = 0;
  for (let windows = 0; until > 0n && read < max && windows < MAX_WINDOWS; windows++) {
    const from = until > width ? until - width : 0n;
    const events: RecordedEvent[] = [];
    let cut = false;
    for (let at = from; ;) {
      if (read >= max) { cut = true; break; }
      const page = (await store.readAll({ fromPosition: at, maxCount: Math.min(PAGE, max - read) })).filter((e) => e.position <= until);
      events.push(...page);
      read += page.length;
      if (page.length === 0 || page.at(-1)!.position >= until) break;
      at = page.at(-1)!.position;
    }
    yield { events: events.reverse(), from, cut };
    if (events.length < PAGE / 2) width *= 2n;
    until = from;
  }
}
