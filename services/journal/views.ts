// The request journal as the admin API answers it (routes/admin-requests.ts): entries found by
// filters, newest first, each in its display form: its time in ISO 8601, its request's body and
// its answer parsed (JSON, or an NVP answer's pairs) and masked again (a second guard:
// lib/mask-body.ts), and for a refusal the field and explanation of its error body.
import { maskedBody } from '../../lib/mask-body.js';
import { differsOf, Originals, refusedAsDifferent } from './differences.js';
import { eventsOf, type Journal, type JournalEntry, type Refusal, type RequestFilter, type RequestView, type StreamConcern } from './journal.js';

export type { RequestFilter, RequestView } from './journal.js';

export function matches(filter: RequestFilter, entry: JournalEntry): boolean {
  if (filter.id !== undefined && entry.id !== filter.id) return false;
  if (filter.merchant !== undefined && entry.merchant !== filter.merchant) return false;
  if (filter.status !== undefined) {
    if ('exact' in filter.status ? entry.status !== filter.status.exact : Math.floor(entry.status / 100) !== filter.status.class) return false;
  }
  if (filter.operation !== undefined && entry.operation !== filter.operation) return false;
  if (filter.path !== undefined && !entry.path.includes(filter.path)) return false;
  if (filter.correlationId !== undefined && entry.correlationId !== filter.correlationId) return false;
  if (filter.order !== undefined && entry.order !== filter.order) return false;
  if (filter.transaction !== undefined && entry.transaction !== filter.transaction) return false;
  if (filter.token !== undefined && entry.token !== filter.token) return false;
  if (filter.sinceMs !== undefined && entry.atMs < filter.sinceMs) return false;
  if (filter.stream !== undefined && !concerns(filter.stream, entry)) return false;
  return true;
}

function concerns(stream: StreamConcern, entry: JournalEntry): boolean {
  if (entry.events !== '' && eventsOf(entry.events).some((e) => e.stream === stream.name)) return true;
  if (entry.merchant === null || !stream.merchants.includes(entry.merchant)) return false;
  return (stream.order !== undefined && entry.order === stream.order) || (stream.token !== undefined && entry.token === stream.token);
}

/**
 * What a stream's name says of the requests concerning it (domain/streams.ts: `<category>-<owner>:<id>`,
 * the owner escaped): an order's merchant and id; a token's id and the merchants of its repository
 * (`merchantsOf`). Any other stream: the requests that appended to it.
 */
export function streamConcern(name: string, merchantsOf: (repositoryId: string) => readonly string[]): StreamConcern {
  const dash = name.indexOf('-');
  const colon = name.indexOf(':', dash + 1);
  if (dash < 0 || colon < 0) return { name, merchants: [] };
  const owner = name.slice(dash + 1, colon).replace(/%25|%3A/g, (c) => (c === '%25' ? '%' : ':'));
  const id = name.slice(colon + 1);
  switch (name.slice(0, dash)) {
    case 'order': return { name, merchants: [owner], order: id };
    case 'token': return { name, merchants: merchantsOf(owner), token: id };
    default: return { name, merchants: [] };
  }
}

/** Up to `limit` entries matching the filter, newest first, as the API answers them. */
export function findRequests(journal: Journal, filter: RequestFilter, limit: number): RequestView[] {
  const found: RequestView[] = [];
  const originals = new Originals(journal);
  for (const entry of journal.newestFirst()) {
    if (!matches(filter, entry)) continue;
    found.push(requestView(entry, journal, originals));
    if (found.length >= limit) break;
  }
  return found;
}

const newestFirst = (a: RequestView, b: RequestView) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0);

/**
 * findRequests over every worker's journal with WORKERS > 1 (journal.peers: journal-cluster.ts),
 * newest first by arrival; this process's alone otherwise.
 */
export async function findEverywhere(journal: Journal, filter: RequestFilter, limit: number): Promise<RequestView[]> {
  const own = findRequests(journal, filter, limit);
  if (!journal.peers) return own;
  const theirs = await journal.peers(filter, limit);
  return [...own, ...theirs].sort(newestFirst).slice(0, limit);
}

/** An NVP answer's pairs, as sent (flat, dotted names). */
function pairs(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(text)) out[name] = value;
  return out;
}

/** An answer's text as a value: parsed (JSON, or NVP's pairs) and masked; a text that is neither, masked. */
export function maskedAnswer(text: string, nvp: boolean): unknown {
  if (text === '') return null;
  if (nvp) return maskedBody(pairs(text));
  try {
    return maskedBody(JSON.parse(text));
  } catch {
    return maskedBody(text);
  }
}

/** The answer as the API shows it (a text kept as sent is parsed and masked now). */
function responseOf(entry: JournalEntry, journal: Journal): unknown {
  const response = journal.answerOf(entry);
  if (response === null) return null;
  return typeof response === 'string' || Buffer.isBuffer(response) ? maskedAnswer(String(response), entry.nvp) : response;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The error body's field and explanation (JSON's `error`, or NVP's `error.*` pairs). */
function refusalOf(status: number, response: unknown): Refusal | undefined {
  if (status < 400 || response === null || typeof response !== 'object') return undefined;
  const body = response as Record<string, unknown>;
  const error = body.error !== null && typeof body.error === 'object' ? body.error as Record<string, unknown> : undefined;
  const explanation = error ? text(error.explanation) : text(body['error.explanation']);
  if (explanation === undefined) return undefined;
  return { field: (error ? text(error.field) : text(body['error.field'])) ?? null, explanation };
}

/** The body as the API shows it: its masked text parsed (and masked again). */
function bodyOf(entry: JournalEntry, journal: Journal): unknown {
  const text = journal.bodyOf(entry);
  return text === null ? null : maskedBody(JSON.parse(text));
}

/**
 * An entry as the API answers it; a repeat refused for a different body names the entry that
 * recorded its transaction and what differs (differences.ts), when the journal still holds it.
 */
export function requestView(entry: JournalEntry, journal: Journal, originals = new Originals(journal)): RequestView {
  const response = responseOf(entry, journal);
  const refusal = refusalOf(entry.status, response);
  const request = bodyOf(entry, journal);
  const original = refusedAsDifferent(entry, refusal?.explanation) ? originals.of(entry) : undefined;
  return {
    id: entry.id,
    at: new Date(entry.atMs).toISOString(),
    method: entry.method,
    path: entry.path,
    operation: entry.operation,
    status: entry.status,
    durationMs: Math.round(entry.durationMs * 100) / 100,
    merchant: entry.merchant,
    correlationId: entry.correlationId,
    order: entry.order,
    transaction: entry.transaction,
    token: entry.token,
    request,
    response,
    events: eventsOf(entry.events),
    ...(refusal ? { refusal } : {}),
    ...(original ? differsOf(original, entry, request, (e) => bodyOf(e, journal)) : {}),
  };
}
