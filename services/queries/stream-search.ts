// The history page's search (routes/admin.ts): the streams an id names, whatever kind of id it is.
import { streams as streamNames } from '../../domain/events.js';
import type { Merchants } from '../../merchants.js';
import { transactionLookupKey, type LookupDoc } from '../../projections/lookup.js';
import type { Maybe } from '../../projections/read-models.js';
import type { EventStore } from '../../store/event-store.js';
import { recordedAt } from './history.js';
import { categoryOf, masked } from './stream-display.js';
import { readBackward } from './log-backward.js';
import { RELATED_SCAN } from './stream-history.js';

export interface SearchResult { stream: string; kind: string; matchedBy: string; events: number; lastRecordedAt: string }

/**
 * Streams an id names: an order, token or session id of any merchant (the admin sees them all), a
 * transaction id (the lookup read model), a stream name; else a correlation (or request) id,
 * searched newest first in at most RELATED_SCAN events of the log. The notifications come after
 * the rest, which they are about.
 */
export async function searchStreams(store: EventStore, merchants: Merchants, lookup: (key: string) => Maybe<LookupDoc | undefined>, query: string): Promise<SearchResult[]> {
  const results = new Map<string, SearchResult>();
  const add = async (stream: string, matchedBy: string) => {
    if (results.has(stream)) return;
    const events = await store.readStream(stream);
    if (events.length === 0) return;
    results.set(stream, { stream, kind: categoryOf(stream), matchedBy, events: events.length, lastRecordedAt: recordedAt(events.at(-1)!) });
  };
  if (/^[a-z]+-[^:]*:./.test(query) || /^merchant-/.test(query)) await add(query, 'stream');
  const repositories = new Set(merchants.list.map((m) => m.repository.id));
  for (const m of merchants.list) {
    await add(streamNames.order(m.id, query), 'order id');
    await add(streamNames.session(m.id, query), 'session id');
  }
  for (const repositoryId of repositories) await add(streamNames.token(repositoryId, query), 'token');
  for (const stream of (await lookup(transactionLookupKey(query)))?.streams ?? []) await add(stream, 'transaction id');
  // A scan of the log: only when the id named nothing else (an order id is no correlation id).
  if (results.size === 0) for (const stream of await streamsOfCorrelation(store, query)) await add(stream, 'correlation id');
  // What the search is about first (orders, tokens, sessions), the notifications they sent after; newest first within each (a stable sort).
  const ordered = [...results.values()].sort((a, b) => Number(a.kind === 'notification') - Number(b.kind === 'notification'));
  return masked(ordered) as SearchResult[];
}

/** Streams with an event of this correlation (or request) id, newest first, in at most RELATED_SCAN events read back from the head. */
async function streamsOfCorrelation(store: EventStore, correlationId: string): Promise<string[]> {
  const found: string[] = [];
  for await (const window of readBackward(store, await store.headPosition(), RELATED_SCAN)) {
    for (const e of window.events) {
      if ((e.metadata.correlationId === correlationId || e.metadata.requestId === correlationId) && !found.includes(e.stream)) found.push(e.stream);
    }
  }
  return found;
}
