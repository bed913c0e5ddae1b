// The history page's answers (web/history.html): one stream's events as steps, each with the state
// after it, what changed, the request that caused it and what it caused later; and the search that
// finds a stream by order id, token, session id, transaction id or correlation id.
//
// The state after a step is folded with the read models' own projections (orders, tokens), so it
// is what Retrieve shows; other streams (sessions, reservations, streams this page does not know)
// show their events' data merged. Amounts are in currency units ("12.50 USD"), card numbers masked
// (every string of the answer passes lib/mask.ts), sealed values "[sealed]" (history.ts forDisplay).
//
// What a step caused: events whose metadata.causationId is its id (a reactor's: the resolution of
// an UNKNOWN payment, a scheme token's status change, a notification), in this stream or another;
// and events of other streams with a correlation id of this stream. Projections see no metadata, so
// those of other streams are found by a scan of the log after the stream's first event, at most
// RELATED_SCAN events an answer (`related.next` asks for the next part).
import { streams as streamNames } from '../../domain/events.js';
import { formatAmount, minorUnits } from '../../domain/money.js';
import { maskCardNumbers } from '../../lib/mask.js';
import type { Merchants } from '../../merchants.js';
import { transactionLookupKey, type LookupDoc } from '../../projections/lookup.js';
import { notificationKey, notificationsProjection } from '../../projections/notifications.js';
import { orderKey, ordersProjection } from '../../projections/orders.js';
import type { Projection } from '../../projections/projection.js';
import type { Maybe } from '../../projections/read-models.js';
import { tokenKey, tokensProjection } from '../../projections/tokens.js';
import type { EventStore, RecordedEvent } from '../../store/event-store.js';
import { forDisplay, recordedAt } from './history.js';

/** Events of the log read, at most, for one answer's related events (and one correlation search). */
export const RELATED_SCAN = 20_000;
/** Related events (and a token's payments) at most in one answer. */
export const RELATED_MAX = 500;
const PAGE = 5_000;

export interface EventRef { id: string; type: string; stream: string; revision: number; position: number }

export interface RequestInfo {
  method?: string;
  path?: string;
  requestId?: string;
  correlationId?: string;
  merchantId?: string;
  /** The reactor that appended it (no request). */
  reactor?: string;
}

export interface Step extends EventRef {
  recordedAt: string;
  request: RequestInfo;
  /** The event that caused it (a reactor's work), when it is one the answer knows. */
  causedBy?: EventRef;
  /** Events caused by it: in this stream, or found in others. */
  caused: EventRef[];
  changes: Array<{ path: string; before?: unknown; after?: unknown }>;
  /** The stream's state after this step. */
  state: unknown;
  data: unknown;
}

export interface RelatedEvent extends EventRef {
  recordedAt: string;
  request: RequestInfo;
  causedBy?: EventRef;
  /** Why it is shown: caused by a step, or sharing a correlation id. */
  link: 'causation' | 'correlation';
  data: unknown;
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

const ref = (e: RecordedEvent): EventRef => ({ id: e.id, type: e.type, stream: e.stream, revision: Number(e.revision), position: Number(e.position) });

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

function requestOf(e: RecordedEvent): RequestInfo {
  const m = e.metadata;
  const info: RequestInfo = {};
  for (const key of ['method', 'path', 'requestId', 'correlationId', 'merchantId', 'reactor'] as const) {
    const value = str(m[key]);
    if (value !== undefined) info[key] = value;
  }
  return info;
}

/** The category of a stream name (`<category>-<owner>:<id>`), e.g. order, token, notification. */
export const categoryOf = (stream: string) => (stream.includes('-') ? stream.slice(0, stream.indexOf('-')) : stream);

const AMOUNT_KEYS = new Set(['amount', 'orderAmount', 'totalAuthorizedAmount', 'totalCapturedAmount', 'totalRefundedAmount', 'authorized', 'captured', 'refunded']);

/** Amounts in minor units (numbers under AMOUNT_KEYS) as currency units, "12.50 USD". */
export function inCurrencyUnits(value: unknown, currency?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => inCurrencyUnits(v, currency));
  if (!value || typeof value !== 'object') return value;
  const own = str((value as { currency?: unknown }).currency) ?? currency;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => {
    const digits = own === undefined ? undefined : minorUnits(own);
    if (AMOUNT_KEYS.has(k) && typeof v === 'number' && Number.isSafeInteger(v) && digits !== undefined) return [k, `${formatAmount(v, digits)} ${own}`];
    return [k, inCurrencyUnits(v, own)];
  }));
}

/**
 * Identifiers the gateway refuses when they are card numbers, or draws itself: left as they are
 * (a session id's 24 digits would look like a card number to lib/mask.ts).
 */
const ID_KEYS = new Set(['id', 'orderId', 'transactionId', 'targetTransactionId', 'sessionId', 'token',
  // Names built of such ids (and keyed hashes); a path stored masked already (plugins/gateway.ts).
  'stream', 'title', 'path']);

/** A session id as the gateway draws it (services/session/sessions.ts), wherever it stands (a change's value). */
const SESSION_ID = /^SESSION[0-9]{24}$/;

/** Every other string of the value with card-number-like runs masked (events hold none: a second guard). */
function masked(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return ID_KEYS.has(key) || SESSION_ID.test(value) ? value : maskCardNumbers(value);
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return value;
}

const display = (value: unknown) => inCurrencyUnits(forDisplay(value));

/** Leaves of a value by path, arrays by index (transactions.0.amount). */
export function leaves(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [k, v] of entries) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out.set(prefix, value);
  }
  return out;
}

function changes(before: unknown, after: unknown): Step['changes'] {
  const a = leaves(before);
  const b = leaves(after);
  const out: Step['changes'] = [];
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(path) === b.get(path)) continue;
    out.push({ path, ...(a.has(path) ? { before: a.get(path) } : {}), ...(b.has(path) ? { after: b.get(path) } : {}) });
  }
  return out;
}

/** Deep merge of plain objects (the state of a stream no projection folds: its events' data together). */
function merged(before: unknown, data: unknown): unknown {
  if (!before || typeof before !== 'object' || Array.isArray(before) || !data || typeof data !== 'object' || Array.isArray(data)) return data;
  const out: Record<string, unknown> = { ...(before as Record<string, unknown>) };
  for (const [k, v] of Object.entries(data)) out[k] = merged(out[k], v);
  return out;
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

export interface HistoryOptions { asOfRevision?: bigint; relatedAfter?: bigint }

/** A stream's history; undefined when the stream has no events (at that revision). */
export async function streamHistory(store: EventStore, stream: string, options: HistoryOptions = {}): Promise<StreamHistory | undefined> {
  const all = await store.readStream(stream);
  const own = options.asOfRevision === undefined ? all : all.filter((e) => e.revision <= options.asOfRevision!);
  const first = own[0];
  if (first === undefined) return undefined;
  const folder = folderFor(stream, first);
  const ids = new Set(all.map((e) => e.id));
  const correlations = new Set(all.map((e) => str(e.metadata.correlationId)).filter((c): c is string => c !== undefined));

  // The log after the stream's first event, in pages, up to RELATED_SCAN events.
  const scannedFrom = options.relatedAfter ?? first.position - 1n;
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
  const last = own.at(-1)!;
  const steps = [...own, ...included.filter((e) => options.asOfRevision === undefined || e.position <= last.position)]
    .sort((a, b) => (a.position < b.position ? -1 : 1));
  const known = new Map([...all, ...found, ...included].map((e) => [e.id, e]));
  // A cause in another stream that the event names (a notification's order event: data.cause.stream).
  for (const e of own) {
    const cause = String(e.metadata.causationId);
    const causeStream = (e.data as { cause?: { stream?: unknown } }).cause?.stream;
    if (known.has(cause) || typeof causeStream !== 'string' || causeStream === stream) continue;
    for (const c of await store.readStream(causeStream)) if (c.id === cause) known.set(c.id, c);
  }
  const causedBy = (e: RecordedEvent) => {
    const cause = known.get(String(e.metadata.causationId));
    return cause && cause.id !== e.id ? { causedBy: ref(cause) } : {};
  };
  const byCause = new Map<string, EventRef[]>();
  for (const e of [...all, ...found, ...included]) {
    const cause = String(e.metadata.causationId);
    byCause.set(cause, [...(byCause.get(cause) ?? []), ref(e)]);
  }
  const caused = (id: string) => byCause.get(id) ?? [];

  let state: unknown;
  let shown: unknown;
  const out: Step[] = steps.map((e) => {
    state = folder.evolve(state, e);
    const after = display(state);
    const step: Step = {
      ...ref(e), recordedAt: recordedAt(e), request: requestOf(e), ...causedBy(e), caused: caused(e.id),
      changes: changes(shown, after), state: after ?? null, data: display(e.data),
    };
    shown = after;
    return step;
  });
  return masked({
    stream, kind: folder.kind, title: folder.title, steps: out, state: shown ?? null,
    related: {
      events: found.map((e) => ({ ...ref(e), recordedAt: recordedAt(e), request: requestOf(e), ...causedBy(e), link: ids.has(String(e.metadata.causationId)) ? 'causation' as const : 'correlation' as const, data: display(e.data) })),
      scannedFrom: Number(scannedFrom), scannedTo: Number(position), next: more ? Number(position) : null,
    },
  }) as StreamHistory;
}

export interface SearchResult { stream: string; kind: string; matchedBy: string; events: number; lastRecordedAt: string }

/**
 * Streams an id names: an order, token or session id of any merchant (the admin sees them all), a
 * transaction id (the lookup read model), a stream name; else a correlation (or request) id,
 * searched newest first in at most RELATED_SCAN events of the log.
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
  return masked([...results.values()]) as SearchResult[];
}

/**
 * Streams with an event of this correlation (or request) id, newest first: windows of positions
 * read back from the head, each twice as wide while it holds few events (KurrentDB's positions
 * are byte offsets, not counts), until RELATED_SCAN events are read or the log's start.
 */
async function streamsOfCorrelation(store: EventStore, correlationId: string): Promise<string[]> {
  const found: string[] = [];
  let until = await store.headPosition();
  let width = BigInt(PAGE);
  let read = 0;
  for (let windows = 0; until > 0n && read < RELATED_SCAN && windows < 200; windows++) {
    const from = until > width ? until - width : 0n;
    const window: RecordedEvent[] = [];
    for (let at = from; read < RELATED_SCAN;) {
      const page = (await store.readAll({ fromPosition: at, maxCount: PAGE })).filter((e) => e.position <= until);
      window.push(...page);
      read += page.length;
      if (page.length < PAGE) break;
      at = page.at(-1)!.position;
    }
    for (const e of window.reverse()) {
      if ((e.metadata.correlationId === correlationId || e.metadata.requestId === correlationId) && !found.includes(e.stream)) found.push(e.stream);
    }
    if (window.length < PAGE / 2) width *= 2n;
    until = from;
  }
  return found;
}
