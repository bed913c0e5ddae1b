// One batch of appends committed (event-store.ts queues them), in one of two ways:
//  - at once: one statement, tokengate_append (schema.ts), in its own transaction: the append
//    lock, the head, the checks and one INSERT of every event, sent as one JSON parameter and
//    their data and metadata as one text beside it (each body parsed once by the server); the
//    lock is held for the server's work and the COMMIT only, never across a round trip. It writes
//    the batch when no append needs deciding (no shared stream or id, no id taken, every expected
//    revision matching, every condition holding on a stream the batch does not write): the usual
//    batch. Otherwise it writes nothing and says so;
//  - decided: BEGIN and the append lock; one query reads the head, the streams' revisions and the
//    event ids already taken; each append decided as if alone (append-batch.ts: a conflict fails
//    only its own append); one INSERT of every accepted event; COMMIT.
import type pg from 'pg';
import type { AppendResult } from '../event-store.js';
import { decideBatch, type BatchResult, type BatchState, type PendingAppend } from './append-batch.js';
import { isConnectionError } from './errors.js';
import { COLUMNS } from './rows.js';
import { APPEND_LOCK, CHANNEL, notifyPayload } from './schema.js';

const UNREADABLE_ESCAPE = /\\u(?:0000|d[89a-f])/i;
const APPEND_AT_ONCE = { name: 'tokengate-append-bodies', text: 'SELECT tokengate_append($1, $2, $3, $4) AS r' };
/** Between two bodies: a control character, which JSON text never holds unescaped. */
const BODY_SEPARATOR = '\u0001';

/**
 * The batch as tokengate_append's (schema version 5) JSON and bodies: each event's data and
 * metadata (JSON text already, made at the append) in `bodies`, its index `k` in the JSON. A
 * condition rides on its append's first event only (an unconditioned append's text has none).
 */
export function batchJson(batch: readonly PendingAppend[]): { json: string; bodies: string } {
  const parts: string[] = [];
  const bodies: string[] = [];
  batch.forEach((item, n) => {
    const expected = typeof item.expected === 'bigint' ? item.expected.toString() : item.expected;
    const head = `{"n":${n},"s":${JSON.stringify(item.stream)},"x":"${expected}","o":`;
    const condition = item.condition ? `,"c":${JSON.stringify(item.condition.stream)},"cr":"${item.condition.revision.toString()}"` : '';
    item.events.forEach((e, o) => {
      const json = item.json[o] as { data: string; metadata: string };
      parts.push(`${head}${o}${o === 0 ? condition : ''},"k":${parts.length},"i":${JSON.stringify(e.id)},"t":${JSON.stringify(e.type)}}`);
      bodies.push(json.data, json.metadata);
    });
  });
  return { json: `[${parts.join(',')}]`, bodies: bodies.join(BODY_SEPARATOR) };
}

/**
 * The batch in one statement: each append's result, or undefined when it wrote nothing (some append
 * needs deciding: commitBatch). Every append must have events.
 */
export async function commitAtOnce(pool: pg.Pool, batch: readonly PendingAppend[], created: Date, writer: string): Promise<AppendResult[] | undefined> {
  const { json, bodies } = batchJson(batch);
  // PostgreSQL's JSON functions refuse \u0000 and lone surrogates in any string they read (the
  // json type stores them as written): such a batch goes the decided way, which stores them. Both
  // are spelled with a \u escape, which nearly no batch holds: a plain search for one first (the
  // pattern's case-insensitive scan of the whole batch costs several times more).
  if (unreadable(json) || unreadable(bodies)) return undefined;
  const { rows: [row] } = await pool.query<{ r: string[] | null }>({ ...APPEND_AT_ONCE, values: [json, bodies, created, writer] });
  const answer = row?.r;
  if (answer === undefined || answer === null) return undefined;
  let position = BigInt(answer[0] as string);
  return batch.map((item, n) => {
    position += BigInt(item.events.length);
    return { nextExpectedRevision: BigInt(answer[n + 1] as string) + BigInt(item.events.length), position };
  });
}

function unreadable(text: string): boolean {
  return text.includes('\\u') && UNREADABLE_ESCAPE.test(text);
}

/** What a decided batch did: each append's result or its own error, in order; the positions it wrote, if any. */
export interface Decided { results: BatchResult[]; written: { first: bigint; last: bigint } | undefined }

/** One transaction for the batch, each append decided as if alone. */
export async function commitBatch(pool: pg.Pool, batch: readonly PendingAppend[], created: Date, writer: string): Promise<Decided> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    // The lock is held until COMMIT: the next batch (of any process) reads the head after this
    // one's events are visible, so positions become visible in increasing order.
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${APPEND_LOCK.toString()})`);
    // The conditions' streams too: their revisions are decided against like the streams written.
    const streams = [...new Set(batch.flatMap((item) => (item.condition ? [item.stream, item.condition.stream] : [item.stream])))];
    const ids = [...new Set(batch.flatMap((item) => item.events.map((e) => e.id)))];
    const { rows: [state] } = await client.query<BatchState>(
      `SELECT (SELECT coalesce(max(position), 0)::text FROM tokengate_events) AS head,
              (SELECT coalesce(json_agg(json_build_array(stream, revision::text)), '[]')
                 FROM (SELECT stream, max(revision) AS revision FROM tokengate_events WHERE stream = ANY($1) GROUP BY stream) s) AS streams,
              (SELECT coalesce(json_agg(json_build_array(id, stream, position::text)), '[]')
                 FROM tokengate_events WHERE id = ANY($2)) AS ids`,
      [streams, ids]);
    if (state === undefined) throw new Error('the event store read no head');
    const { results, rows } = decideBatch(batch, state);
    let written: Decided['written'];
    if (rows.position.length > 0) {
      written = { first: BigInt(rows.position[0] as string), last: BigInt(rows.position.at(-1) as string) };
      // The NOTIFY is delivered at COMMIT.
      await client.query(
        `WITH w AS (INSERT INTO tokengate_events (${COLUMNS})
           SELECT p, i, s, r, t, d, m, $8 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::json[], $7::json[]) AS u(p, i, s, r, t, d, m))
         SELECT pg_notify('${CHANNEL}', $9)`,
        [rows.position, rows.id, rows.stream, rows.revision, rows.type, rows.data, rows.metadata, created,
          notifyPayload(written.first, written.last, writer, [...new Set(rows.stream)])]);
    }
    await client.query('COMMIT');
    return { results, written };
  } catch (error) {
    broken = isConnectionError(error) ? error : undefined;
    if (broken === undefined) {
      await client.query('ROLLBACK').catch((rollback: unknown) => { broken = rollback; });
    }
    throw error;
  } finally {
    // A connection whose state is unknown is destroyed, never handed out again.
    client.release(broken === undefined ? undefined : true);
  }
}
