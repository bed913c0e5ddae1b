// The request journal as the admin API answers it (routes/admin-requests.ts): entries found by
// filters, newest first, each in its display form: its time in ISO 8601, its answer parsed (JSON,
// or an NVP answer's pairs) and masked again (a second guard: lib/mask-body.ts), and for a
// refusal the field and explanation of its error body.
import { maskedBody } from '../../lib/mask-body.js';
import type { Journal, JournalEntry, JournalEvent } from './journal.js';

export interface RequestFilter {
  merchant?: string | undefined;
  /** An HTTP status (400), or a class (4: 4xx). */
  status?: { exact: number } | { class: number } | undefined;
  operation?: string | undefined;
  /** A part of the path. */
  path?: string | undefined;
  correlationId?: string | undefined;
  order?: string | undefined;
  transaction?: string | undefined;
  token?: string | undefined;
  /** Requests that arrived at or after this instant (ms since the epoch). */
  sinceMs?: number | undefined;
}

export interface Refusal { field: string | null; explanation: string }

export interface RequestView {
  id: string;
  at: string;
  method: string;
  path: string;
  operation: string | null;
  status: number;
  durationMs: number;
  merchant: string | null;
  correlationId: string;
  order: string | null;
  transaction: string | null;
  token: string | null;
  request: unknown;
  response: unknown;
  events: JournalEvent[];
  refusal?: Refusal;
}

export function matches(filter: RequestFilter, entry: JournalEntry): boolean {
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
  return true;
}

/** Up to `limit` entries matching the filter, newest first, as the API answers them. */
export function findRequests(journal: Journal, filter: RequestFilter, limit: number): RequestView[] {
  const found: RequestView[] = [];
  for (const entry of journal.newestFirst()) {
    if (!matches(filter, entry)) continue;
    found.push(requestView(entry));
    if (found.length >= limit) break;
  }
  return found;
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
function responseOf(entry: JournalEntry): unknown {
  const { response } = entry;
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

export function requestView(entry: JournalEntry): RequestView {
  const response = responseOf(entry);
  const refusal = refusalOf(entry.status, response);
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
    request: entry.request,
    response,
    events: [...entry.events],
    ...(refusal ? { refusal } : {}),
  };
}
