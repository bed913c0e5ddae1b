// An append batch's decisions (store/postgres/event-store.ts commits them): given what the
// batch's transaction read under the append lock (the log's head, the current revision of each of
// its streams, which of its event ids exist and where), each append is decided in order, exactly
// as if alone, seeing the appends before it in the batch. Pure: no connection, no clock.
import { frozenJsonCopy } from '../../lib/json.js';
import {
  checkCondition, checkExpectedRevision, IdempotencyConflictError,
  type AppendCondition, type AppendResult, type EventData, type EventMetadata, type ExpectedRevision,
} from '../event-store.js';

export interface PendingAppend {
  stream: string;
  /** Copies made at the call, data and metadata frozen: the caller may change its objects afterwards. */
  events: readonly EventData[];
  expected: ExpectedRevision;
  /** Promise 8: another stream's revision, checked under the append lock. */
  condition?: AppendCondition | undefined;
  /** JSON text of data and metadata. */
  json: Array<{ data: string; metadata: string }>;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/**
 * An append's events as the batch holds them: copies made now (the caller may change its objects
 * afterwards; memory shares these with every reader), and their JSON text. Throws what a copy throws.
 */
export function copiesOf(events: readonly EventData[]): Pick<PendingAppend, 'events' | 'json'> {
  const own: EventData[] = [];
  const json: PendingAppend['json'] = [];
  for (const e of events) {
    const data = frozenJsonCopy(e.data);
    const metadata = frozenJsonCopy(e.metadata) as EventMetadata;
    own.push({ id: e.id, type: e.type, data, metadata });
    json.push({ data: JSON.stringify(data), metadata: JSON.stringify(metadata) });
  }
  return { events: own, json };
}

/** What the transaction read under the lock, as the server gave it (bigints as text). */
export interface BatchState {
  head: string;
  streams: Array<[string, string]>;
  ids: Array<[string, string, string]>;
}

/** The rows of one INSERT … SELECT FROM unnest(…), a column per array. */
export interface BatchRows {
  position: string[]; id: string[]; stream: string[]; revision: string[]; type: string[]; data: string[]; metadata: string[];
}

export type BatchResult = AppendResult | { error: unknown };

/**
 * Each append's result or its own error (an idempotent repeat answers the original position;
 * some ids taken, by this stream or another: IdempotencyConflictError; a revision that does not
 * match: WrongExpectedRevisionError; then a condition that does not hold, earlier appends of the
 * batch counting: ConditionFailedError), and the rows to insert for those accepted. `state.streams`
 * holds the conditions' streams too.
 */
export function decideBatch(batch: readonly PendingAppend[], state: BatchState): { results: BatchResult[]; rows: BatchRows } {
  let head = BigInt(state.head);
  const revisions = new Map(state.streams.map(([stream, revision]) => [stream, BigInt(revision)]));
  const taken = new Map(state.ids.map(([id, stream, position]) => [id, { stream, position: BigInt(position) }]));
  const rows: BatchRows = { position: [], id: [], stream: [], revision: [], type: [], data: [], metadata: [] };
  const results = batch.map((item): BatchResult => {
    try {
      const current = revisions.get(item.stream) ?? -1n;
      const repeated = item.events.map((e) => taken.get(e.id));
      if (repeated.length > 0 && repeated.every((r) => r !== undefined && r.stream === item.stream)) {
        return { nextExpectedRevision: current, position: (repeated.at(-1) as { position: bigint }).position };
      }
      if (repeated.some((r) => r !== undefined) || new Set(item.events.map((e) => e.id)).size !== item.events.length) {
        throw new IdempotencyConflictError(item.stream);
      }
      checkExpectedRevision(item.stream, item.expected, current);
      if (item.condition) checkCondition(item.stream, item.condition, revisions.get(item.condition.stream) ?? -1n);
      if (item.events.length === 0) return { nextExpectedRevision: current, position: head };
      let revision = current;
      item.events.forEach((e, i) => {
        revision += 1n;
        head += 1n;
        rows.position.push(head.toString());
        rows.id.push(e.id);
        rows.stream.push(item.stream);
        rows.revision.push(revision.toString());
        rows.type.push(e.type);
        rows.data.push((item.json[i] as { data: string }).data);
        rows.metadata.push((item.json[i] as { metadata: string }).metadata);
        taken.set(e.id, { stream: item.stream, position: head });
      });
      revisions.set(item.stream, revision);
      return { nextExpectedRevision: revision, position: head };
    } catch (error) {
      return { error };
    }
  });
  return { results, rows };
}
