// One batch of appends in one PostgreSQL transaction (event-store.ts queues them): BEGIN and the
// append lock; one query reads the head, the streams' revisions and the event ids already taken;
// each append decided as if alone (append-batch.ts); one INSERT of every accepted event; COMMIT.
import type pg from 'pg';
import { decideBatch, type BatchResult, type BatchState, type PendingAppend } from './append-batch.js';
import { isConnectionError } from './errors.js';
import { COLUMNS } from './rows.js';
import { APPEND_LOCK, CHANNEL } from './schema.js';

/** One transaction for the batch: each append's result or its own error, in order. */
export async function commitBatch(pool: pg.Pool, batch: readonly PendingAppend[]): Promise<BatchResult[]> {
  const client = await pool.connect();
  let broken: unknown;
  try {
    // The lock is held until COMMIT: the next batch (of any process) reads the head after this
    // one's events are visible, so positions become visible in increasing order.
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${APPEND_LOCK.toString()})`);
    const streams = [...new Set(batch.map((item) => item.stream))];
    const ids = [...new Set(batch.flatMap((item) => item.events.map((e) => e.id)))];
    const { rows: [state] } = await client.query<BatchState>(
      `SELECT (SELECT coalesce(max(position), 0)::text FROM tokengate_events) AS head,
              (SELECT coalesce(json_agg(json_build_array(stream, revision::text)), '[]')
                 FROM (SELECT stream, max(revision) AS revision FROM tokengate_events WHERE stream = ANY($1) GROUP BY stream) s) AS streams,
              (SELECT coalesce(json_agg(json_build_array(id, stream, position::text)), '[]')
                 FROM tokengate_events WHERE id = ANY($2)) AS ids,
              pg_notify('${CHANNEL}', '')`,
      [streams, ids]);
    if (state === undefined) throw new Error('the event store read no head');
    const created = new Date();
    const { results, rows } = decideBatch(batch, state);
    if (rows.position.length > 0) {
      await client.query(
        `INSERT INTO tokengate_events (${COLUMNS})
         SELECT p, i, s, r, t, d, m, $8 FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::json[], $7::json[]) AS u(p, i, s, r, t, d, m)`,
        [rows.position, rows.id, rows.stream, rows.revision, rows.type, rows.data, rows.metadata, created]);
    }
    await client.query('COMMIT');
    return results;
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
