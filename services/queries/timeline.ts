// The event timeline for debugging: events of the $all log filtered by stream, category,
// correlation id or merchant, paged by position, in the display form (sealed values hidden).
import type { EventStore, RecordedEvent } from '../../store/event-store.js';
import { forDisplay, recordedAt } from './history.js';

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
