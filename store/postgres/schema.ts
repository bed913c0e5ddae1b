// The event store's tables, created on the first start and upgraded in place. Every process that
// opens the database runs migrate(); a session advisory lock makes concurrent first starts take
// turns (CREATE TABLE IF NOT EXISTS alone is not safe against a concurrent CREATE of the same
// table: one of them fails on pg_type's unique index). Versions are kept per component in
// tokengate_schema, so the key store and the read models keep theirs in the same table.
import type pg from 'pg';

/** Advisory lock keys of tokengate (pg_advisory_lock(bigint)): 'tgmigrat' and 'tgappend' in ASCII. */
export const MIGRATION_LOCK = 0x74676d6967726174n;
export const APPEND_LOCK = 0x7467617070656e64n;

/** The channel that append transactions NOTIFY on commit (payload: notifyPayload). */
export const CHANNEL = 'tokengate_events';

export const COMPONENT = 'events';

/** A notification's payload names the streams written only up to this length (PostgreSQL's limit: 8000 bytes). */
export const MAX_NOTIFY_STREAMS_TEXT = 7_000;

/**
 * tokengate_append(batch json, created timestamptz, writer text): the batch is an array of events in
 * order, `{n: append index, o: index within the append, s: stream, x: expected revision ('any',
 * 'no_stream', 'stream_exists' or digits), i: id, t: type, d: data, m: metadata}`. When no two
 * appends share a stream or an id, no id is taken and every expected revision matches, it writes
 * every event (positions from the head, in batch order) and returns {head, each append's stream
 * revision before it (-1: none)}; otherwise NULL, nothing written. Commits with the statement's
 * transaction. NOTIFY's payload: notifyPayload's, as JSON. `conditioned` (version 4): the first event
 * of an append may carry `c` (a stream) and `cr` (its revision as digits, -1: none), the append's
 * condition (promise 8); it returns NULL as well when a condition fails or names a stream the
 * batch writes (the decided path knows their order). Its default gives versions 2 and 3 as released.
 */
const appendFunction = (idCheck: string, settings: string, conditioned = false, bodies = false) => `
CREATE OR REPLACE FUNCTION tokengate_append(batch json,${bodies ? ' bodies text,' : ''} created timestamptz, writer text) RETURNS bigint[]
LANGUAGE plpgsql${settings} AS $fn$
DECLARE
  result bigint[];
  first bigint;
  last bigint;
  written json;
BEGIN
  PERFORM pg_advisory_xact_lock(${APPEND_LOCK.toString()});
  WITH e AS MATERIALIZED (
    ${bodies ? BODIES_APART : `SELECT * FROM json_to_recordset(batch) AS r(n int, o int, s text, x text, i text, t text, d json, m json${conditioned ? ', c text, cr text' : ''})`}
  ), streams AS MATERIALIZED (
    SELECT u.s, (SELECT max(v.revision) FROM tokengate_events v WHERE v.stream = u.s) AS rev FROM (SELECT DISTINCT e.s FROM e) u
  ), head AS MATERIALIZED (
    SELECT coalesce(max(position), 0) AS head FROM tokengate_events
  ), ${conditioned ? CONDITIONS : ''}checked AS MATERIALIZED (
    SELECT (SELECT count(DISTINCT e.i) = count(*) AND count(DISTINCT e.s) = count(DISTINCT e.n) FROM e)
       AND ${idCheck}
       AND (SELECT bool_and(CASE e.x WHEN 'any' THEN true WHEN 'no_stream' THEN c.rev IS NULL
                                     WHEN 'stream_exists' THEN c.rev IS NOT NULL ELSE c.rev = e.x::bigint END)
              FROM e JOIN streams c ON c.s = e.s WHERE e.o = 0)${conditioned ? CONDITIONS_HOLD : ''} AS ok
  ), inserted AS (
    INSERT INTO tokengate_events (position, id, stream, revision, type, data, metadata, created)
    SELECT h.head + row_number() OVER (ORDER BY e.n, e.o), e.i, e.s, coalesce(c.rev, -1) + 1 + e.o, e.t, e.d, e.m, created
      FROM e JOIN streams c ON c.s = e.s CROSS JOIN head h CROSS JOIN checked k WHERE k.ok
    RETURNING position
  )
  SELECT CASE WHEN k.ok THEN array_prepend(h.head, ARRAY(
           SELECT coalesce(c.rev, -1) FROM e JOIN streams c ON c.s = e.s WHERE e.o = 0 ORDER BY e.n)) END,
         h.head + 1, (SELECT max(w.position) FROM inserted w), (SELECT json_agg(c.s) FROM streams c)
    INTO result, first, last, written FROM checked k CROSS JOIN head h;
  IF last IS NOT NULL THEN
    PERFORM pg_notify('${CHANNEL}', CASE WHEN length(written::text) <= ${MAX_NOTIFY_STREAMS_TEXT}
      THEN json_build_object('f', first::text, 'l', last::text, 'w', writer, 's', written)
      ELSE json_build_object('f', first::text, 'l', last::text, 'w', writer) END::text);
  END IF;
  RETURN result;
END
$fn$`;

/**
 * Version 4's conditions: one probe per conditioned append, by the (stream, revision) unique index
 * read backwards (a subquery per row, which the planner cannot turn into a scan of the table).
 */
const CONDITIONS = `conds AS MATERIALIZED (
    SELECT e.c, e.cr::bigint AS want,
           coalesce((SELECT v.revision FROM tokengate_events v WHERE v.stream = e.c ORDER BY v.revision DESC LIMIT 1), -1) AS rev
      FROM e WHERE e.o = 0 AND e.c IS NOT NULL
  ), `;
/** Every condition holds, and none names a stream of the batch (the batch joined with itself only). */
const CONDITIONS_HOLD = `
       AND NOT EXISTS (SELECT 1 FROM conds k WHERE k.rev <> k.want)
       AND NOT EXISTS (SELECT 1 FROM conds k JOIN (SELECT DISTINCT e.s FROM e) w ON w.s = k.c)`;

/**
 * Version 5: each event's data and metadata are not in the batch's JSON but in `bodies`, their texts
 * in event order (data, metadata, data, …) joined by U+0001, which no JSON text holds unescaped;
 * the event's `k` is its index in the batch. A body is then parsed once (the json column's check)
 * rather than three times (the parameter's check, json_to_recordset's parse, the column's check).
 * The bodies are numbered by one unnest and joined (an array's element by index walks the array
 * from its start: a batch's cost would grow with the square of its events); a body missing is
 * NULL, which the table refuses (the statement fails), never an event left out.
 */
const BODIES_APART = `WITH b AS MATERIALIZED (SELECT u.body, u.at FROM unnest(string_to_array(bodies, E'\\x01')) WITH ORDINALITY AS u(body, at))
      SELECT r.n, r.o, r.s, r.x, r.i, r.t, bd.body::json AS d, bm.body::json AS m, r.c, r.cr
      FROM json_to_recordset(batch) AS r(n int, k int, o int, s text, x text, i text, t text, c text, cr text)
      LEFT JOIN b bd ON bd.at = 2 * r.k + 1
      LEFT JOIN b bm ON bm.at = 2 * r.k + 2`;

/** Version 2's function, as released. */
const APPEND_FUNCTION = appendFunction('NOT EXISTS (SELECT 1 FROM tokengate_events v WHERE v.id IN (SELECT e.i FROM e))', '');

/**
 * Version 3: the same checks, each a lookup by one of the table's indexes whatever the planner
 * guesses. Version 2's id check let the planner hash the batch and scan the whole table (a
 * json_to_recordset is guessed at 100 rows, and a session's cached plan outlives the table's
 * growth); that scan ran under the append lock, so every writer waited for it, and its cost grew
 * with the log. Now each id of the batch is probed on its own (a subquery per row, which the
 * planner cannot turn into a join), and sequential scans are off inside the function (the lookups
 * by stream and the head read the indexes too).
 */
const INDEXED_ID_CHECK = 'NOT EXISTS (SELECT 1 FROM e WHERE (SELECT v.position FROM tokengate_events v WHERE v.id = e.i LIMIT 1) IS NOT NULL)';
const APPEND_FUNCTION_INDEXED = appendFunction(INDEXED_ID_CHECK, '\nSET enable_seqscan = off');

/** Version 4: version 3's, and each append's condition (promise 8) checked under the lock. */
const APPEND_FUNCTION_CONDITIONED = appendFunction(INDEXED_ID_CHECK, '\nSET enable_seqscan = off', true);

/** Version 5: version 4's with the bodies apart (BODIES_APART), a function of its own beside it (an older instance keeps calling version 4's). */
const APPEND_FUNCTION_BODIES = appendFunction(INDEXED_ID_CHECK, '\nSET enable_seqscan = off', true, true);

/**
 * What an append transaction's NOTIFY says (JSON): its first and last positions (as text), its
 * writer (an instance's own id), and the streams it wrote (left out when too long to send).
 */
export function notifyPayload(first: bigint, last: bigint, writer: string, streams: readonly string[]): string {
  const named = JSON.stringify(streams);
  return JSON.stringify({ f: first.toString(), l: last.toString(), w: writer, ...(named.length <= MAX_NOTIFY_STREAMS_TEXT ? { s: streams } : {}) });
}

/** A notification's payload read back; undefined when it is not one of these (an older writer's: empty). */
export function readPayload(payload: string | undefined): { first: bigint; last: bigint; writer: string; streams: string[] | undefined } | undefined {
  try {
    const p = JSON.parse(payload ?? '') as { f?: unknown; l?: unknown; w?: unknown; s?: unknown };
    if (typeof p.f !== 'string' || typeof p.l !== 'string' || typeof p.w !== 'string') return undefined;
    const streams = Array.isArray(p.s) && p.s.every((s) => typeof s === 'string') ? p.s as string[] : undefined;
    return { first: BigInt(p.f), last: BigInt(p.l), writer: p.w, streams };
  } catch {
    return undefined;
  }
}

/** Each entry upgrades the schema from its index to the next version; never edit a released one. */
export const MIGRATIONS: readonly string[] = [
  // 1: the log. position is the global order ($all), assigned under APPEND_LOCK (see README.md);
  // id is unique across streams (a repeated id in another stream is a conflict).
  `CREATE TABLE IF NOT EXISTS tokengate_events (
     position  bigint      PRIMARY KEY,
     id        text        NOT NULL UNIQUE,
     stream    text        NOT NULL,
     revision  bigint      NOT NULL,
     type      text        NOT NULL,
     data      json        NOT NULL,
     metadata  json        NOT NULL,
     created   timestamptz NOT NULL,
     UNIQUE (stream, revision)
   )`,
  // 2: a batch of appends that conflict with nothing in one statement (append-commit.ts): the lock,
  // then (a new snapshot, taken once the lock is held) the head, the checks and one INSERT; NULL and
  // nothing written when any append would need deciding one by one. Events as one JSON parameter.
  APPEND_FUNCTION,
  // 3: the same function, its checks never reading the whole table (APPEND_FUNCTION_INDEXED).
  APPEND_FUNCTION_INDEXED,
  // 4: the same function, checking the appends' conditions (APPEND_FUNCTION_CONDITIONED).
  APPEND_FUNCTION_CONDITIONED,
  // 5: the same checks, the events' data and metadata in a text of their own (APPEND_FUNCTION_BODIES).
  APPEND_FUNCTION_BODIES,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Creates the version table and runs the missing migrations of `component`, under the migration lock. */
export async function migrate(client: pg.ClientBase, component = COMPONENT, migrations: readonly string[] = MIGRATIONS): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS tokengate_schema (component text PRIMARY KEY, version integer NOT NULL)');
    const found = await client.query<{ version: number }>('SELECT version FROM tokengate_schema WHERE component = $1', [component]);
    const version = found.rows[0]?.version ?? 0;
    if (version > migrations.length) {
      throw new Error(`the database's ${component} schema is version ${version}, newer than this tokengate knows (${migrations.length}): upgrade tokengate`);
    }
    for (let v = version; v < migrations.length; v++) {
      await client.query('BEGIN');
      try {
        await client.query(migrations[v] as string);
        await client.query(
          `INSERT INTO tokengate_schema (component, version) VALUES ($1, $2)
           ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`, [component, v + 1]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]).catch(() => undefined);
  }
}
