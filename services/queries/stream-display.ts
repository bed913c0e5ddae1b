// How the history page shows an event and a state (services/queries/stream-history.ts): the
// request behind an event, amounts in currency units ("12.50 USD"), sealed values "[sealed]"
// (history.ts forDisplay), every string but an identifier with its card-number-like runs masked
// (lib/mask.ts), and the changes between two states leaf by leaf.
import { formatAmount, minorUnits } from '../../domain/money.js';
import { maskCardNumbers } from '../../lib/mask.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { forDisplay } from './history.js';

export interface EventRef { id: string; type: string; stream: string; revision: number; position: number }

/** A change of one leaf between two states (absent: the leaf is not there). */
export interface Change { path: string; before?: unknown; after?: unknown }

export interface RequestInfo {
  method?: string;
  path?: string;
  requestId?: string;
  correlationId?: string;
  merchantId?: string;
  /** The reactor that appended it (no request). */
  reactor?: string;
}

export const ref = (e: RecordedEvent): EventRef => ({ id: e.id, type: e.type, stream: e.stream, revision: Number(e.revision), position: Number(e.position) });

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function requestOf(e: RecordedEvent): RequestInfo {
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
function inCurrencyUnits(value: unknown, currency?: string): unknown {
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
export function masked(value: unknown, key = ''): unknown {
  if (typeof value === 'string') return ID_KEYS.has(key) || SESSION_ID.test(value) ? value : maskCardNumbers(value);
  if (Array.isArray(value)) return value.map((v) => masked(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, masked(v, k)]));
  return value;
}

export const display = (value: unknown) => inCurrencyUnits(forDisplay(value));

/** Leaves of a value by path, arrays by index (transactions.0.amount). */
function leaves(value: unknown, prefix = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value && typeof value === 'object') {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [k, v] of entries) leaves(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out.set(prefix, value);
  }
  return out;
}

export function changes(before: unknown, after: unknown): Change[] {
  const a = leaves(before);
  const b = leaves(after);
  const out: Change[] = [];
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    if (a.get(path) === b.get(path)) continue;
    out.push({ path, ...(a.has(path) ? { before: a.get(path) } : {}), ...(b.has(path) ? { after: b.get(path) } : {}) });
  }
  return out;
}

/** Deep merge of plain objects (the state of a stream no projection folds: its events' data together). */
export function merged(before: unknown, data: unknown): unknown {
  if (!before || typeof before !== 'object' || Array.isArray(before) || !data || typeof data !== 'object' || Array.isArray(data)) return data;
  const out: Record<string, unknown> = { ...(before as Record<string, unknown>) };
  for (const [k, v] of Object.entries(data)) out[k] = merged(out[k], v);
  return out;
}
