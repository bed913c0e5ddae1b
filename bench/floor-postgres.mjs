// The durable floor's append on PostgreSQL (bench/floor.mjs with FLOOR_PG_URL): the least a
// durable pay or create must do there, in two ways, for `npm run bench -- --store postgres`:
//
//   naive   one transaction per append: an INSERT ... ON CONFLICT DO NOTHING in autocommit, one
//           round trip and one COMMIT (its WAL flush) each, on a pool of 10 connections (as
//           tokengate's): concurrent appends commit side by side, PostgreSQL sharing their flushes.
//   group   the appends of one event-loop turn (or made while a batch commits) in one statement, one
//           transaction, one COMMIT: a multi-row INSERT from the batch sent as one JSON parameter
//           (json_to_recordset), one batch in flight at a time, as tokengate's group commit.
//
// Either way an append answers after its COMMIT returned (synchronous_commit on: the WAL flushed).
// A row in a table of tokengate's shape (the floor's: position, event_id UNIQUE, stream, revision,
// UNIQUE (stream, revision), data and metadata json); positions from a sequence, not in commit
// order (tokengate's lock does that): less than tokengate must do, which is what a floor is.
// A key taken (a repeated payment) writes nothing and reads the recorded event.
import { createRequire } from 'node:module';

const pg = createRequire(import.meta.url)('pg');

const SCHEMA = `CREATE TABLE IF NOT EXISTS events (
  position   bigserial   PRIMARY KEY,
  event_id   text        NOT NULL UNIQUE,
  stream     text        NOT NULL,
  revision   bigint      NOT NULL,
  type       text        NOT NULL,
  data       json        NOT NULL,
  metadata   json        NOT NULL,
  created    timestamptz NOT NULL,
  UNIQUE (stream, revision)
)`;

const INSERT_ONE = {
  name: 'floor-insert-one',
  text: `INSERT INTO events (event_id, stream, revision, type, data, metadata, created) VALUES ($1, $2, 0, $3, $4, $5, $6)
         ON CONFLICT (stream, revision) DO NOTHING RETURNING position`,
};
const INSERT_BATCH = {
  name: 'floor-insert-batch',
  text: `INSERT INTO events (event_id, stream, revision, type, data, metadata, created)
         SELECT r.i, r.s, 0, r.t, r.d, r.m, r.c FROM json_to_recordset($1) AS r(i text, s text, t text, d json, m json, c timestamptz)
         ON CONFLICT (stream, revision) DO NOTHING RETURNING stream, position`,
};
const LOOKUP = { name: 'floor-lookup', text: 'SELECT stream, position, data::text AS data FROM events WHERE stream = ANY($1) AND revision = 0' };

/** { append(stream, type, data, metadata, created) → { position, data: null | the recorded data }, durableTo, close, failed }. */
export async function postgresAppender(url, mode) {
  if (mode !== 'naive' && mode !== 'group') throw new Error(`floor: FLOOR_PG_MODE is naive or group, not ${mode}`);
  const pool = new pg.Pool({ connectionString: url, max: 10, application_name: `floor-${mode}` });
  pool.on('error', () => undefined);
  await pool.query(SCHEMA);
  let eventIds = 0;
  const id = () => `${process.pid}-${++eventIds}`;

  /** Rows not written (their key taken): the recorded events, by stream. */
  async function recorded(streams) {
    const { rows } = await pool.query({ ...LOOKUP, values: [streams] });
    return new Map(rows.map((r) => [r.stream, { position: Number(r.position), data: r.data }]));
  }

  async function appendNaive(stream, type, data, metadata, created) {
    const { rows } = await pool.query({ ...INSERT_ONE, values: [id(), stream, type, data, metadata, created] });
    if (rows.length === 1) return { position: Number(rows[0].position), data: null };
    return (await recorded([stream])).get(stream);
  }

  let queue = [];
  let flushing = false;
  function appendGrouped(stream, type, data, metadata, created) {
    return new Promise((resolve, reject) => {
      queue.push({ stream, type, data, metadata, created, resolve, reject });
      if (queue.length === 1 && !flushing) setImmediate(flush);
    });
  }

  async function flush() {
    const batch = queue;
    queue = [];
    if (batch.length === 0) return;
    flushing = true;
    try {
      // data and metadata are JSON text already: spliced in as they are, nothing escaped twice.
      const json = `[${batch.map((e) => `{"i":"${id()}","s":${JSON.stringify(e.stream)},"t":${JSON.stringify(e.type)},"d":${e.data},"m":${e.metadata},"c":"${e.created}"}`).join(',')}]`;
      const { rows } = await pool.query({ ...INSERT_BATCH, values: [json] });
      const written = new Map(rows.map((r) => [r.stream, Number(r.position)]));
      const taken = batch.filter((e) => !written.has(e.stream));
      const found = taken.length > 0 ? await recorded(taken.map((e) => e.stream)) : new Map();
      for (const e of batch) {
        const position = written.get(e.stream);
        // Two identical appends in one batch: the first wrote the row, the second reads it.
        if (position !== undefined) { written.delete(e.stream); e.resolve({ position, data: null }); }
        else e.resolve(found.get(e.stream) ?? (await recorded([e.stream])).get(e.stream));
      }
    } catch (error) {
      for (const e of batch) e.reject(error);
    } finally {
      flushing = false;
      if (queue.length > 0) setImmediate(flush);
    }
  }

  return {
    append: mode === 'naive' ? appendNaive : appendGrouped,
    durableTo: () => Promise.resolve(),
    failed: () => false,
    async close() {
      const deadline = performance.now() + 10_000;
      while (queue.length > 0 || flushing) {
        if (performance.now() > deadline) throw new Error('floor: appends still waiting after 10 s');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      await pool.end();
    },
  };
}
