// "Different how?": a repeated request refused because its transaction is already recorded (or in
// progress) with a different request gets the gateway's explanation, which does not say what
// differs. The journal may say more than the gateway: such an entry, as read (views.ts), names the
// entry that recorded the transaction and the fields whose masked values differ between the two
// bodies. Worked out when read, never on the request's path: the journal is scanned once per
// read that needs it, for the entries that appended events naming an order's transaction.
import { DIFFERENT_REQUEST } from '../../domain/order/hold.js';
import { diff } from '../queries/history.js';
import type { Journal, JournalEntry, RequestView } from './journal.js';

/** Fields listed at most; the rest are counted (`differencesLeftOut`). */
export const MAX_DIFFERENCES = 20;

type Differs = Pick<RequestView, 'differsFrom' | 'differences' | 'differencesLeftOut'>;

const keyOf = (e: JournalEntry): string => `${e.merchant ?? ''}\n${e.order ?? ''}\n${e.transaction ?? ''}`;

/** Whether an entry is a repeat refused for a different body (its refusal's explanation says so). */
export function refusedAsDifferent(entry: JournalEntry, explanation: string | undefined): boolean {
  return entry.status === 400 && entry.order !== null && entry.transaction !== null && explanation !== undefined && explanation.includes(DIFFERENT_REQUEST);
}

/**
 * The entries that recorded a transaction (accepted, and appended events), by merchant, order and
 * transaction, newest first: made on first use, from one pass over the journal.
 */
export class Originals {
  private index: Map<string, JournalEntry[]> | undefined;

  constructor(private readonly journal: Journal) {}

  /** The newest entry that recorded `refused`'s transaction before it arrived (undefined: the journal holds none). */
  of(refused: JournalEntry): JournalEntry | undefined {
    this.index ??= this.build();
    return this.index.get(keyOf(refused))?.find((e) => e.atMs <= refused.atMs && e.id !== refused.id);
  }

  private build(): Map<string, JournalEntry[]> {
    const index = new Map<string, JournalEntry[]>();
    for (const entry of this.journal.newestFirst()) {
      if (entry.status >= 400 || entry.events === '' || entry.order === null || entry.transaction === null) continue;
      const key = keyOf(entry);
      const list = index.get(key);
      if (list) list.push(entry); else index.set(key, [entry]);
    }
    return index;
  }
}

const isFields = (value: unknown): boolean => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * A member null in one body and absent from the other is no difference: the bodies are kept as
 * sent, and the order API takes a member sent as null as not sent (plugins/request-values.ts).
 */
const differs = (change: { path: string; before?: unknown; after?: unknown }): boolean =>
  !((change.before === null || !('before' in change)) && (change.after === null || !('after' in change))) && !sameMonth(change);

/** The card's expiry month sent as a JSON integer is read as its digits (services/order/order-api.ts): 1 against "1" is no difference. */
const MONTH = 'sourceOfFunds.provided.card.expiry.month';
const sameMonth = ({ path, before, after }: { path: string; before?: unknown; after?: unknown }): boolean =>
  path === MONTH && typeof before !== typeof after && (typeof before === 'number' || typeof after === 'number') && String(before) === String(after);

/**
 * What a refused repeat's view adds: the entry that recorded its transaction, and how they differ:
 * their paths (version 3's Pay with token names its token there; the order API's path another
 * way), then their masked bodies' fields.
 */
export function differsOf(original: JournalEntry, refused: JournalEntry, refusedBody: unknown, bodyOf: (entry: JournalEntry) => unknown): Differs {
  const differsFrom = { id: original.id, at: new Date(original.atMs).toISOString(), correlationId: original.correlationId };
  const paths = original.path === refused.path ? [] : [{ path: 'path', before: original.path, after: refused.path }];
  const originalBody = bodyOf(original);
  // A body not kept (none, too large, not JSON): which entry it was, and its path.
  const bodies = isFields(originalBody) && isFields(refusedBody);
  if (!bodies && paths.length === 0) return { differsFrom };
  const all = [...paths, ...(bodies ? diff(originalBody, refusedBody).filter(differs) : [])];
  const differences = all.slice(0, MAX_DIFFERENCES);
  return { differsFrom, differences, ...(all.length > differences.length ? { differencesLeftOut: all.length - differences.length } : {}) };
}
