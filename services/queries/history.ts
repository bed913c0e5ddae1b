// History for auditors and debugging: every event of a stream with who, when, which request and
// what changed; and the state of a token or order as of a revision or an instant. Built from the
// events with the same projections as the read models, so "what changed" is what users see.
// Card numbers appear only masked; sealed values are shown as "[sealed]".
import { streams } from '../../domain/events.js';
import { ordersProjection, orderKey } from '../../projections/orders.js';
import type { Projection } from '../../projections/projection.js';
import { tokensProjection, tokenKey } from '../../projections/tokens.js';
import type { EventStore, RecordedEvent } from '../../store/event-store.js';

export interface Change { path: string; before?: unknown; after?: unknown }

export interface HistoryEntry {
  position: string;
  stream: string;
  revision: string;
  type: string;
  recordedAt: string;
  merchantId?: string;
  requestId?: string;
  correlationId?: string;
  changes: Change[];
  data: unknown;
}

/** Sealed values replaced, for display and export to people. */
export function forDisplay(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(forDisplay);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k.endsWith('Sealed') ? '[sealed]' : forDisplay(v)]));
  }
  return value;
}

function flatten(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix && Array.isArray(value) && value.length > 0 && value.every((v) => v && typeof v === 'object' && !Array.isArray(v))) {
    // A list of objects (an order's transactions) by index: a new transaction shows as its own
    // fields, not as the whole list before and after.
    value.forEach((v, i) => flatten(v, `${prefix}[${i}]`, out));
  } else if (prefix) {
    out.set(prefix, Array.isArray(value) ? JSON.stringify(value) : value);
  }
  return out;
}

export function diff(before: unknown, after: unknown): Change[] {
  const a = flatten(before);
  const b = flatten(after);
  const changes: Change[] = [];
  for (const path of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    if (a.get(path) === b.get(path)) continue;
    changes.push({ path, ...(a.has(path) ? { before: a.get(path) } : {}), ...(b.has(path) ? { after: b.get(path) } : {}) });
  }
  return changes;
}

export const recordedAt = (e: RecordedEvent): string => String(e.metadata.recordedAt ?? e.created);

function entry(e: RecordedEvent, changes: Change[]): HistoryEntry {
  const m = e.metadata;
  return {
    position: String(e.position),
    stream: e.stream,
    revision: String(e.revision),
    type: e.type,
    recordedAt: recordedAt(e),
    ...(m.merchantId ? { merchantId: m.merchantId } : {}),
    ...(m.requestId ? { requestId: m.requestId } : {}),
    ...(m.correlationId ? { correlationId: m.correlationId } : {}),
    changes,
    data: forDisplay(e.data),
  };
}

/** Fold events through a projection's evolve, one history entry per event. */
export function historyOf(events: readonly RecordedEvent[], projection: Projection, key: string): { entries: HistoryEntry[]; doc: unknown } {
  let doc: unknown;
  const entries = events.map((e) => {
    const before = doc;
    if (projection.handles.has(e.type)) doc = projection.evolve(doc, e, key);
    return entry(e, diff(before, doc));
  });
  return { entries, doc };
}

export interface AsOf { revision?: bigint; time?: Date }

const within = (asOf: AsOf) => (e: RecordedEvent) =>
  (asOf.revision === undefined || e.revision <= asOf.revision) &&
  (asOf.time === undefined || recordedAt(e) <= asOf.time.toISOString());

/** Every event that concerns a token: its own stream, then the payments made with it, on either order path (by position). */
export async function tokenEvents(store: EventStore, repositoryId: string, token: string): Promise<RecordedEvent[]> {
  const own = await store.readStream(streams.token(repositoryId, token));
  if (own.length === 0) return [];
  const payments: RecordedEvent[] = [];
  for (let from = own[0]!.position - 1n; ;) {
    const page = await store.readAll({ fromPosition: from, maxCount: 5000 });
    for (const e of page) {
      const d = e.data as { token?: string; repositoryId?: string; apiOperation?: string; source?: { token: string; repositoryId: string } };
      if (e.type === 'PaymentRecorded' && d.token === token && d.repositoryId === repositoryId) payments.push(e);
      // The order API (versions 1-100 but the deactivated ones): a PAY, AUTHORIZE or VERIFY with
      // the token.
      if (e.type === 'OrderTransactionRecorded' && d.source?.token === token && d.source.repositoryId === repositoryId
        && (d.apiOperation === 'PAY' || d.apiOperation === 'AUTHORIZE' || d.apiOperation === 'VERIFY')) payments.push(e);
    }
    if (page.length < 5000) break;
    from = page.at(-1)!.position;
  }
  return [...own, ...payments].sort((a, b) => (a.position < b.position ? -1 : 1));
}

export async function tokenHistory(store: EventStore, repositoryId: string, token: string, asOf: AsOf = {}) {
  const own = streams.token(repositoryId, token);
  let events = await tokenEvents(store, repositoryId, token);
  if (asOf.revision !== undefined) {
    // As of a revision of the token's stream: everything up to that event's position.
    const last = events.filter((e) => e.stream === own && e.revision <= asOf.revision!).at(-1);
    events = last ? events.filter((e) => e.position <= last.position) : [];
  }
  if (asOf.time) events = events.filter(within({ time: asOf.time }));
  return historyOf(events, tokensProjection as Projection, tokenKey(repositoryId, token));
}

export async function orderHistory(store: EventStore, merchantId: string, orderId: string, asOf: AsOf = {}) {
  const events = (await store.readStream(streams.order(merchantId, orderId))).filter(within(asOf));
  return historyOf(events, ordersProjection as Projection, orderKey(merchantId, orderId));
}

/** Repositories holding a token id (a token id is unique within a repository, not across them). */
export async function repositoriesOfToken(store: EventStore, token: string): Promise<string[]> {
  const found = new Set<string>();
  for (let from = 0n; ;) {
    const page = await store.readAll({ fromPosition: from, maxCount: 5000 });
    for (const e of page) {
      const d = e.data as { token?: string; repositoryId?: string };
      if (e.type === 'TokenCreated' && d.token === token && d.repositoryId) found.add(d.repositoryId);
    }
    if (page.length < 5000) break;
    from = page.at(-1)!.position;
  }
  return [...found];
}
