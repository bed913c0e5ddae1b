// The event timeline for debugging: events of the $all log filtered by stream, category,
// correlation id or merchant, paged by position (oldest first after a position, or newest first
// before one), in the display form (sealed values hidden), each with what it did in one line
// (outcome.ts).
import type { EventStore, RecordedEvent } from '../../store/event-store.js';
import { forDisplay, recordedAt } from './history.js';
import { readBackward } from './log-backward.js';
import { describe, type Outcome } from './outcome.js';

export interface TimelineFilter {
  stream?: string | undefined;
  category?: string | undefined;
  correlationId?: string | undefined;
  merchantId?: string | undefined;
}

export interface TimelineEvent {
  position: number;
  stream: string;
  revision: number;
  id: string;
  type: string;
  recordedAt: string;
  metadata: Record<string, unknown>;
  data: unknown;
  outcome: Outcome;
}

export function matches(filter: TimelineFilter, e: RecordedEvent): boolean {
  if (filter.stream && e.stream !== filter.stream) return false;
  if (filter.category && !e.stream.startsWith(`${filter.category}-`)) return false;
  if (filter.correlationId && e.metadata.correlationId !== filter.correlationId) return false;
  if (filter.merchantId) {
    const d = e.data as { merchantId?: string };
    if (e.metadata.merchantId !== filter.merchantId && d.merchantId !== filter.merchantId) return false;
  }
  return true;
}

export const toTimelineEvent = (e: RecordedEvent): TimelineEvent => ({
  position: Number(e.position),
  stream: e.stream,
  revision: Number(e.revision),
  id: e.id,
  type: e.type,
  recordedAt: recordedAt(e),
  metadata: e.metadata,
  data: forDisplay(e.data),
  outcome: describe(e.type, e.data, e.metadata.reactor),
});

const PAGE = 1000;
/** At most this many events are scanned for one page of answers (filters are not indexed). */
const MAX_SCAN = 100_000;

/**
 * Up to `limit` matching events after position `after`. `next` is the position to ask from for
 * the following page (null at the end of the log).
 */
export async function timelinePage(store: EventStore, filter: TimelineFilter, after: bigint, limit: number) {
  const events: TimelineEvent[] = [];
  let position = after;
  let scanned = 0;
  for (;;) {
    const page = await store.readAll({ fromPosition: position, maxCount: PAGE });
    for (const e of page) {
      position = e.position;
      scanned++;
      if (matches(filter, e)) {
        events.push(toTimelineEvent(e));
        if (events.length >= limit) break;
      }
    }
    if (events.length >= limit || page.length < PAGE || scanned >= MAX_SCAN) break;
  }
  const head = await store.headPosition();
  return { events, next: position < head ? Number(position) : null, head: Number(head) };
}

export interface TimelinePage { events: TimelineEvent[]; next: number | null; head: number }

/**
 * Up to `limit` matching events before position `before` (absent: the newest), newest first, in
 * about MAX_SCAN events read (whole windows of the log). `next` is the `before` of the following
 * (older) page, null at the start of the log.
 */
export async function timelinePageBackward(store: EventStore, filter: TimelineFilter, before: bigint | undefined, limit: number): Promise<TimelinePage> {
  const head = await store.headPosition();
  const until = before === undefined || before > head ? head : before - 1n;
  const events: TimelineEvent[] = [];
  let next: bigint | null = null;
  let scanned = 0;
  for await (const window of readBackward(store, until, Number.MAX_SAFE_INTEGER)) {
    for (const e of window.events) {
      if (!matches(filter, e)) continue;
      events.push(toTimelineEvent(e));
      if (events.length >= limit) break;
    }
    if (events.length >= limit) { next = BigInt(events.at(-1)!.position); break; }
    next = window.from > 0n ? window.from + 1n : null;
    scanned += window.events.length;
    if (scanned >= MAX_SCAN) break;
  }
  return { events, next: next === null ? null : Number(next), head: Number(head) };
}
