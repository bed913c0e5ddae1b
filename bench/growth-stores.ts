// The growth bench's stores (bench/growth.ts): where the grown and the empty store live, and how the
// grown one is filled straight through its tables with the fixture's events (bench/fixture.ts).
//   - SQLite: two files; bench/replay.ts writeEvents fills the grown one (prepared INSERTs).
//   - PostgreSQL: a throwaway server (scripts/postgres-server.ts, as the tests start it: fsync on)
//     with a database for each. The fill writes tokengate_events as the store's append does
//     (positions from the head, revisions from 0 in each new stream, the events' own ids), and the
//     key store's card_keys row of every fixture token's card (sealed under a key of its own, as the
//     gateway seals): one INSERT … SELECT FROM json_to_recordset of ~10,000 events per statement,
//     the next batch generated while the server writes this one. Nothing else: the gateway's first start
//     makes the read models and their checkpoints, as on SQLite.
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { MemoryKeyStore, type NewKey } from '../store/keys/key-store.js';
import { newDataKey } from '../store/keys/random.js';
import { PostgresKeyStore } from '../store/postgres/key-store.js';
import { migrate } from '../store/postgres/schema.js';
import { Sealer } from '../store/sealing.js';
import { startPostgres } from '../scripts/postgres-server.js';
import { fixtureTokens, TOKENS_PER_BATCH, type FixtureOwner, type FixtureStream } from './fixture.js';
import { round } from './lib.js';
import { writeEvents } from './replay.js';
import type { StoreName } from './stores.js';

export interface Fill { seconds: number; eventsPerSecond: number; tokens: number }

/** The grown store and the empty one, as EVENT_STORE names them. */
export interface GrowthStores {
  grown: string;
  empty: string;
  /** Adds `events` of the fixture to the grown store (the gateway stopped). */
  fill(events: number, owner: FixtureOwner, log: (line: string) => void): Promise<Fill>;
  /** The grown store's size on disk: its file, or its database. */
  bytes(): Promise<number>;
  /** The PostgreSQL server's postmaster (its backends are its children); undefined on SQLite. */
  serverPid(): number | undefined;
  version: string | undefined;
  close(): Promise<void>;
}

export async function growthStores(store: StoreName, workDir: string): Promise<GrowthStores> {
  mkdirSync(workDir, { recursive: true });
  if (store === 'sqlite') {
    const path = join(workDir, 'grown.db');
    return {
      grown: `sqlite:${path}`, empty: `sqlite:${join(workDir, 'empty.db')}`, version: undefined,
      fill: (events, owner, log) => writeEvents(path, events, log, owner),
      bytes: async () => statSync(path).size,
      serverPid: () => undefined,
      close: async () => undefined,
    };
  }
  const server = await startPostgres();
  try {
    const grown = await server.createDatabase('grown');
    const empty = await server.createDatabase('empty');
    const version = (await one<{ server_version: string }>(server.url, 'SHOW server_version')).server_version;
    return {
      grown, empty, version,
      fill: (events, owner, log) => fillPostgres(grown, events, owner, log),
      bytes: async () => Number((await one<{ bytes: string }>(grown, 'SELECT pg_database_size(current_database()) AS bytes')).bytes),
      serverPid: () => server.serverPid(),
      close: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

async function one<R extends pg.QueryResultRow>(url: string, text: string): Promise<R> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows[0] as R;
  } finally {
    await client.end();
  }
}

/** The keys the fixture's sealer makes, kept until the batch that uses them is written. */
class MadeKeys extends MemoryKeyStore {
  made: NewKey[] = [];
  newKey(): NewKey {
    const key = newDataKey();
    this.made.push(key);
    return key;
  }
}

/**
 * A batch's events and card keys in one statement (its own transaction). The events as the
 * store's append writes them (positions after the head, data and metadata as the JSON text), sent
 * as one JSON array, as the append function gets its batch: the server parses it once (text
 * arrays of JSON, escaped element by element, took it three times as long).
 */
const INSERT_BATCH = `
WITH keys AS (
  INSERT INTO card_keys (key_id, key) SELECT id, decode(k, 'hex') FROM unnest($3::text[], $4::text[]) AS t(id, k)
)
INSERT INTO tokengate_events (position, id, stream, revision, type, data, metadata, created)
SELECT e.p, e.i, e.s, e.r, e.t, e.d, e.m, $2::timestamptz
  FROM json_to_recordset($1::json) AS e(p bigint, i text, s text, r bigint, t text, d json, m json)`;

/** The next batch (TOKENS_PER_BATCH tokens, positions from `head` + 1): its events as one JSON text, and the keys that seal its cards. */
function nextBatch(tokens: Generator<FixtureStream[], void, undefined>, keys: MadeKeys, head: bigint) {
  const rows: string[] = [];
  let tokenCount = 0;
  for (let k = 0; k < TOKENS_PER_BATCH; k++) {
    const next = tokens.next();
    if (next.done) break;
    tokenCount++;
    for (const { stream, events } of next.value) {
      events.forEach((e, revision) => {
        const position = head + BigInt(rows.length + 1);
        rows.push(`{"p":${position},"i":${JSON.stringify(e.id)},"s":${JSON.stringify(stream)},"r":${revision},"t":${JSON.stringify(e.type)},` +
          `"d":${JSON.stringify(e.data)},"m":${JSON.stringify(e.metadata)}}`);
      });
    }
  }
  const made = keys.made.splice(0);
  return { events: rows.length, tokens: tokenCount, json: `[${rows.join(',')}]`, keyIds: made.map((k) => k.keyId), keys: made.map((k) => k.key.toString('hex')) };
}

/**
 * `total` fixture events after the grown database's head. The tables are made by the product's own
 * code (the event store's migrations, the key store's constructor). A key store this fill made
 * gets the head as its shredder's checkpoint, as a gateway's first start gives a key store it
 * made; one a gateway already used keeps its own. Then VACUUM (ANALYZE) and a CHECKPOINT: what
 * autovacuum and the checkpointer do to a store grown by appends, not left to the measured slices.
 */
export async function fillPostgres(url: string, total: number, owner: FixtureOwner, log: (line: string) => void): Promise<Fill> {
  const keyStore = new PostgresKeyStore(url);
  const client = new pg.Client({ connectionString: url, application_name: 'tokengate-bench-fill' });
  await client.connect();
  try {
    await migrate(client);
    // A fixture, not a measured write: no wait for each batch's WAL flush.
    await client.query('SET synchronous_commit = off');
    const head = BigInt((await client.query<{ head: string }>('SELECT coalesce(max(position), 0) AS head FROM tokengate_events')).rows[0]?.head ?? 0);
    const keys = new MadeKeys();
    const sealer = new Sealer(keys);
    const tokens = fixtureTokens(total, { ...owner, seal: (number) => sealer.sealNew(number) });
    const started = performance.now();
    let lastLog = started;
    let written = 0;
    let tokenCount = 0;
    let pending: Promise<unknown> | undefined;
    while (written < total) {
      const batch = nextBatch(tokens, keys, head + BigInt(written));
      if (batch.events === 0) break;
      await pending;
      pending = client.query(INSERT_BATCH, [batch.json, new Date().toISOString(), batch.keyIds, batch.keys]);
      written += batch.events;
      tokenCount += batch.tokens;
      if (performance.now() - lastLog > 5000) {
        lastLog = performance.now();
        log(`  written ${written.toLocaleString('en')} / ${total.toLocaleString('en')} events`);
      }
    }
    await pending;
    const seconds = (performance.now() - started) / 1000;
    if (keyStore.fresh) keyStore.setShreddedThrough(head + BigInt(written));
    const vacuumStarted = performance.now();
    await client.query('VACUUM (ANALYZE) tokengate_events, card_keys');
    await client.query('CHECKPOINT');
    log(`  ${round(written / seconds, 0).toLocaleString('en')} events/s written; VACUUM (ANALYZE) and CHECKPOINT: ${round((performance.now() - vacuumStarted) / 1000, 1)} s`);
    return { seconds: round(seconds, 2), eventsPerSecond: round(written / seconds, 0), tokens: tokenCount };
  } finally {
    await client.end();
    await keyStore.close();
  }
}
