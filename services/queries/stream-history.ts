// The history page's answers (web/history.html): one stream's events as steps, each with the state
// after it, what changed, the request that caused it and what it caused later; and the search that
// finds a stream by order id, token, session id, transaction id or correlation id.
//
// The state after a step is folded with the read models' own projections (orders, tokens), so it
// is what Retrieve shows; other streams (sessions, reservations, streams this page does not know)
// show their events' data merged. Amounts are in currency units, card numbers masked, sealed values
// "[sealed]" (stream-display.ts). The search for a stream: stream-search.ts.
//
// What a step caused: events whose metadata.causationId is its id (a reactor's: the resolution of
// an UNKNOWN payment, a scheme token's status change, a notification), in this stream or another;
// and events of other streams with a correlation id of this stream. Projections see no metadata, so
// those of other streams are found by a scan of the log after the stream's first event, at most
// RELATED_SCAN events an answer (`related.next` asks for the next part).
import { streams as streamNames } from '../../domain/events.js';
import { notificationKey, notificationsProjection } from '../../projections/notifications.js';
import { orderKey, ordersProjection } from '../../projections/orders.js';
import type { Projection } from '../../projections/projection.js';
import { tokenKey, tokensProjection } from '../../projections/tokens.js';
import type { EventStore, RecordedEvent } from '../../store/event-store.js';
import { recordedAt } from './history.js';
import { describe, type Outcome } from './outcome.js';
import {
  categoryOf, changes, display, masked, merged, ref, requestOf, str, type Change, type EventRef, type RequestInfo,
} from './stream-display.js';

/** Events of the log read, at most, for one answer's related events (and one correlation search). */
export const RELATED_SCAN = 20_000;
/** Related events (and a token's payments) at most in one answer. */
const RELATED_MAX = 500;
const PAGE = 5_000;

export interface Step extends EventRef {
  recordedAt: string;
  request: RequestInfo;
  /** The event that caused it (a reactor's work), when it is one the answer knows. */
  causedBy?: EventRef;
  /** Events caused by it: in this stream, or found in others. */
  caused: EventRef[];
  changes: Change[];
  /** The stream's state after this step. */
  state: unknown;
  data: unknown;
  /** What it did, in one line, and the rule that decided it (outcome.ts). */
  outcome: Outcome;
}

export interface RelatedEvent extends EventRef {
  recordedAt: string;
  request: RequestInfo;
  causedBy?: EventRef;
  /** Why it is shown: caused by a step, or sharing a correlation id. */
  link: 'causation' | 'correlation';
  data: unknown;
  outcome: Outcome;
}

export interface StreamHistory {
  stream: string;
  kind: string;
  title: string;
  steps: Step[];
  /** The state after the last step shown (asOfRevision: that step). */
  state: unknown;
  related: { events: RelatedEvent[]; scannedFrom: number; scannedTo: number; next: number | null };
}

interface Folder { kind: string; title: string; evolve(state: unknown, e: RecordedEvent): unknown; includes?(e: RecordedEvent): boolean }

/** How a stream's state is folded, from its category and first event. */
function folderFor(stream: string, first: RecordedEvent): Folder {
  const d = first.data as { merchantId?: string; orderId?: string; repositoryId?: string; token?: string; sessionId?: string };
  const category = categoryOf(stream);
  const byProjection = (projection: Projection, key: string) => (state: unknown, e: RecordedEvent) =>
    (projection.handles.has(e.type) ? projection.evolve(state, e, key) : state);
  if (category === 'order' && d.merchantId && d.orderId) {
    return { kind: 'order', title: `Order ${d.orderId} of merchant ${d.merchantId}`, evolve: byProjection(ordersProjection as Projection, orderKey(d.merchantId, d.orderId)) };
  }
  if (category === 'token' && d.repositoryId && d.token) {
    const { repositoryId, token } = d;
    return {
      kind: 'token', title: `Token ${token} (repository ${repositoryId})`,
      evolve: byProjection(tokensProjection as Projection, tokenKey(repositoryId, token)),
      // Payments made with the token (either order path) change its usage: steps of its history.
      includes: (e) => {
        const p = e.data as { token?: string; repositoryId?: string; source?: { token?: string; repositoryId?: string } };
        return (e.type === 'PaymentRecorded' && p.token === token && p.repositoryId === repositoryId)
          || (e.type === 'OrderTransactionRecorded' && p.source?.token === token && p.source.repositoryId === repositoryId);
      },
    };
  }
  if (category === 'notification' && d.merchantId && (d as { notificationId?: string }).notificationId) {
    const n = d as { merchantId: string; notificationId: string; orderId?: string };
    return {
      kind: 'notification', title: `Notification ${n.notificationId} of order ${n.orderId ?? ''} (merchant ${n.merchantId})`,
      evolve: byProjection(notificationsProjection as Projection, notificationKey(n.merchantId, n.notificationId)),
    };
  }
  const titles: Record<string, string> = { session: `Session ${d.sessionId ?? ''} of merchant ${d.merchantId ?? ''}` };
  return { kind: category, title: titles[category] ?? `Stream ${stream}`, evolve: (state, e) => merged(state, e.data) };
}

interface HistoryOptions { asOfRevision?: bigint; relatedAfter?: bigint }

/** What the scan of the log found: other streams' related events, the stream's own steps elsewhere, how far it read. */
interface Scan { found: RecordedEvent[]; included: RecordedEvent[]; scannedFrom: bigint; position: bigint; more: boolean }

/** The log after the stream's first event, in pages, up to RELATED_SCAN events. */
async function scanRelated(store: EventStore, stream: string, folder: Folder, own: RecordedEvent[], all: RecordedEvent[], options: HistoryOptions): Promise<Scan> {
  const ids = new Set(all.map((e) => e.id));
  const correlations = new Set(all.map((e) => str(e.metadata.correlationId)).filter((c): c is string => c !== undefined));
  const scannedFrom = options.relatedAfter ?? own[0]!.position - 1n;
  let position = scannedFrom;
  let read = 0;
  let more = true;
  const found: RecordedEvent[] = [];
  const included: RecordedEvent[] = [];
  // The notifications an order's events caused are named by those events' ids (domain/streams.ts):
  // read directly, whatever the scan reaches (in the first answer; the next ones go on scanning).
  if (folder.kind === 'order' && options.relatedAfter === undefined) {
    for (const e of own) {
      const merchantId = (e.data as { merchantId?: string }).merchantId;
      if (merchantId) found.push(...await store.readStream(streamNames.notification(merchantId, e.id)));
    }
  }
  const direct = new Set(found.map((e) => e.id));
  scan: while (read < RELATED_SCAN) {
    const page = await store.readAll({ fromPosition: position, maxCount: Math.min(PAGE, RELATED_SCAN - read) });
    for (const e of page) {
      read += 1;
      position = e.position;
      if (e.stream === stream || direct.has(e.id)) continue;
      if (folder.includes?.(e)) included.push(e);
      else if (ids.has(String(e.metadata.causationId)) || correlations.has(String(e.metadata.correlationId))) found.push(e);
      // A correlation id every request of a client shares would match without end: a page at a time.
      if (found.length + included.length >= RELATED_MAX) break scan;
    }
    if (page.length < PAGE && read < RELATED_SCAN) { more = false; break; }
  }
  found.sort((a, b) => (a.position < b.position ? -1 : 1));
  return { found, included, scannedFrom, position, more };
}

/** Who caused an event and what it caused, among the events known to the answer. */
interface Causes { causedBy(e: RecordedEvent): { causedBy?: EventRef }; caused(id: string): EventRef[] }

async function causesAmong(store: EventStore, stream: string, own: RecordedEvent[], events: RecordedEvent[]): Promise<Causes> {
  const known = new Map(events.map((e) => [e.id, e]));
  // A cause in another stream that the event names (a notification's order event: data.cause.stream).
  for (const e of own) {
    const cause = String(e.metadata.causationId);
    const causeStream = (e.data as { cause?: { stream?: unknown } }).cause?.stream;
    if (known.has(cause) || typeof causeStream !== 'string' || causeStream === stream) continue;
    for (const c of await store.readStream(causeStream)) if (c.id === cause) known.set(c.id, c);
  }
  const byCause = new Map<string, EventRef[]>();
  for (const e of events) {
    const cause = String(e.metadata.causationId);
    byCause.set(cause, [...(byCause.get(cause) ?? []), ref(e)]);
  }
  return {
    causedBy: (e) => {
      const cause = known.get(String(e.metadata.causationId));
      return cause && cause.id !== e.id ? { causedBy: ref(cause) } : {};
    },
    caused: (id) => byCause.get(id) ?? [],
  };
}

/** The steps, each with the state folded after it and its changes from the one before. */
function foldSteps(folder: Folder, steps: RecordedEvent[], causes: Causes): { steps: Step[]; state: unknown } {
  let state: unknown;
  let shown: unknown;
  const out: Step[] = steps.map((e) => {
    state = folder.evolve(state, e);
    const after = display(state);
    const step: Step = {
      ...ref(e), recordedAt: recordedAt(e), request: requestOf(e), ...causes.causedBy(e), caused: causes.caused(e.id),
      changes: changes(shown, after), state: after ?? null, data: display(e.data), outcome: describe(e.type, e.data, e.metadata.reactor),
    };
    shown = after;
    return step;
  });
  return { steps: out, state: shown ?? null };
}

/** A stream's history; undefined when the stream has no events (at that revision). */
export async function streamHistory(store: EventStore, stream: string, options: HistoryOptions = {}): Promise<StreamHistory | undefined> {
  const all = await store.readStream(stream);
  const own = options.asOfRevision === undefined ? all : all.filter((e) => e.revision <= options.asOfRevision!);
  const first = own[0];
  if (first === undefined) return undefined;
  const folder = folderFor(stream, first);
  const ids = new Set(all.map((e) => e.id));
  const { found, included, scannedFrom, position, more } = await scanRelated(store, stream, folder, own, all, options);
  const last = own.at(-1)!;
  const steps = [...own, ...included.filter((e) => options.asOfRevision === undefined || e.position <= last.position)]
    .sort((a, b) => (a.position < b.position ? -1 : 1));
  const causes = await causesAmong(store, stream, own, [...all, ...found, ...included]);
  const folded = foldSteps(folder, steps, causes);
  return masked({
    stream, kind: folder.kind, title: folder.title, steps: folded.steps, state: folded.state,
    related: {
      events: found.map((e) => ({ ...ref(e), recordedAt: recordedAt(e), request: requestOf(e), ...causes.causedBy(e), link: ids.has(String(e.metadata.causationId)) ? 'causation' as const : 'correlation' as const, data: display(e.data), outcome: describe(e.type, e.data, e.metadata.reactor) })),
      scannedFrom: Number(scannedFrom), scannedTo: Number(position), next: more ? Number(position) : null,
    },
  }) as StreamHistory;
}
