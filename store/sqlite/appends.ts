// Appends: a batch of them in one transaction, each in a savepoint of its own, so one append's
// conflict does not undo another's. The fast path inserts at the revision the cache (or an empty
// stream) implies and lets the UNIQUE constraints refuse what is taken; the careful path looks the
// stream and the event ids up first.
import type Database from 'better-sqlite3';
import {
  checkCondition, checkExpectedRevision, IdempotencyConflictError, revisionMatches,
  type AppendCondition, type AppendResult, type EventData, type ExpectedRevision, type RecordedEvent,
} from '../event-store.js';
import { isoNow } from '../../lib/clock.js';
import { frozenJsonCopy } from '../../lib/json.js';
import type { RecentEvents } from '../recent-events.js';
import { isUniqueViolation, type Statements } from './rows.js';

export interface PendingAppend {
  stream: string;
  events: readonly EventData[];
  expected: ExpectedRevision;
  /** Promise 8: checked inside the write transaction, whose write lock no other process holds. */
  condition?: AppendCondition | undefined;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** What one append wrote (empty on an idempotent repeat). */
export interface Written { result: AppendResult; recorded: RecordedEvent[] }

export type Outcome = { ok: true; value: Written } | { ok: false; error: unknown };

/**
 * Write `batch` inside the caller's transaction: one outcome per append, in order. Throws when
 * SQLite rolled the whole transaction back (a full disk, an I/O error): then nothing of the batch
 * may go on outside it.
 */
export function writeBatch(db: Database.Database, stmt: Statements, cache: RecentEvents, batch: readonly PendingAppend[]): Outcome[] {
  // A savepoint per append of several events, or on the careful path (made when first needed).
  let savepoint: ((item: PendingAppend, created: string, heads: Map<string, bigint>, fast: boolean) => Written) | undefined;
  const appendOne = (item: PendingAppend, created: string, heads: Map<string, bigint>, fast: boolean): Written =>
    (savepoint ??= db.transaction((i: PendingAppend, c: string, h: Map<string, bigint>, f: boolean) => writeOne(stmt, cache, i, c, h, f)))(item, created, heads, fast);
  cache.check(true);
  const created = isoNow();
  // Revisions written by earlier appends of this batch (the cache learns them at commit).
  const heads = new Map<string, bigint>();
  const outcomes: Outcome[] = [];
  for (const item of batch) {
    let written: Written;
    try {
      try {
        // One event is one INSERT, which SQLite undoes alone when it fails: no savepoint needed
        // (two statements saved per append; most appends are one event).
        written = item.events.length === 1 ? writeOne(stmt, cache, item, created, heads, true) : appendOne(item, created, heads, true);
      } catch (error) {
        // An event id or revision already taken: idempotent repeat, conflict, or a cache that did
        // not know the stream; the careful path tells which.
        if (!isUniqueViolation(error)) throw error;
        written = appendOne(item, created, heads, false);
      }
    } catch (error) {
      if (!db.inTransaction) throw error;
      outcomes.push({ ok: false, error });
      continue;
    }
    if (written.recorded.length > 0) heads.set(item.stream, written.result.nextExpectedRevision);
    outcomes.push({ ok: true, value: written });
  }
  return outcomes;
}

/**
 * A stream's revision inside the write transaction, where known without a read: written by an
 * earlier append of the batch, else cached (exact: the transaction looked at data_version).
 */
function heldRevision(cache: RecentEvents, heads: Map<string, bigint>, stream: string): bigint | undefined {
  const head = heads.get(stream);
  if (head !== undefined) return head;
  const cached = cache.stream(stream);
  return cached ? BigInt(cached.length) - 1n : undefined;
}

const readRevision = (stmt: Statements, stream: string): bigint => BigInt(stmt.currentRevision.get(stream)?.revision ?? -1);

function writeOne(stmt: Statements, cache: RecentEvents, item: PendingAppend, created: string, heads: Map<string, bigint>, fast: boolean): Written {
  const { stream, events, expected, condition } = item;
  const conditionNow = condition && (heldRevision(cache, heads, condition.stream) ?? readRevision(stmt, condition.stream));
  let current = heldRevision(cache, heads, stream) ?? (expected === 'no_stream' ? -1n : undefined);
  // The fast path only appends: anything else (a repeat, a conflict) takes the careful one.
  if (!fast || current === undefined || events.length === 0 || !revisionMatches(expected, current) || conditionNow !== condition?.revision) {
    current = readRevision(stmt, stream);
    const repeated = events.map((e) => stmt.byEventId.get(e.id));
    if (repeated.length > 0 && repeated.every((r) => r !== undefined && r.stream === stream)) {
      const last = repeated[repeated.length - 1];
      return { result: { nextExpectedRevision: current, position: BigInt(last?.position ?? 0) }, recorded: [] };
    }
    if (repeated.some((r) => r !== undefined)) throw new IdempotencyConflictError(stream);
  }
  checkExpectedRevision(stream, expected, current);
  if (conditionNow !== undefined) checkCondition(stream, condition, conditionNow);
  let revision = current;
  let position = 0n;
  const recorded: RecordedEvent[] = [];
  for (const e of events) {
    revision += 1n;
    const data = JSON.stringify(e.data);
    const metadata = JSON.stringify(e.metadata);
    const info = stmt.insert.run(e.id, stream, Number(revision), e.type, data, metadata, created);
    position = BigInt(info.lastInsertRowid);
    // Exactly what a read of the row would give (a copy: the caller's objects stay theirs), frozen
    // because every later reader of the cache shares it; copied without parsing the text again.
    recorded.push(Object.freeze({ id: e.id, type: e.type, data: frozenJsonCopy(e.data), metadata: frozenJsonCopy(e.metadata) as RecordedEvent['metadata'], stream, revision, position, created }));
  }
  if (events.length === 0) position = BigInt(stmt.head.get()?.position ?? 0);
  return { result: { nextExpectedRevision: revision, position }, recorded };
}
