// The read models' tables in PostgreSQL (the port: store/read-model-tables.ts): every projection's
// documents and checkpoint in two tables shared by every instance on the database, so what one
// instance applied is what every other reads. Two instances writing a page at once serialize on
// the checkpoint rows (SELECT … FOR UPDATE, in name order): the second reads the checkpoints
// inside its transaction and skips what the first applied. A page is three statements besides
// the lock: the documents it touches read in one, the writes in one or two.
import pg from 'pg';
import type { ModelVersion, PageUpdate, SharedTables, TableRow } from '../read-model-tables.js';
import { redactUrl, translatePgError } from './errors.js';
import { guardPool, PostgresHealth } from './health.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS read_model_checkpoints (
  name     text PRIMARY KEY,
  version  integer NOT NULL,
  position bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS read_models (
  projection text NOT NULL,
  key        text COLLATE "C" NOT NULL,
  doc        text NOT NULL,
  PRIMARY KEY (projection, key)
);`;

const LOCK_CHECKPOINTS = 'SELECT name, version, position FROM read_model_checkpoints WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE';

type Checkpoint = { name: string; version: number; position: string };

export class PostgresReadModelTables implements SharedTables {
  readonly shared = true;
  private readonly pool: pg.Pool;
  private ready: Promise<void> | undefined;
  /** The projections whose checkpoint row exists (the row is what a page's transaction locks). */
  private readonly rowsMade = new Set<string>();
  private readonly target: string;
  private readonly health: PostgresHealth;

  /** `health`: the event store's, when on the same server (Check Gateway hears of both). */
  constructor(url: string, options: { health?: PostgresHealth } = {}) {
    this.target = redactUrl(url);
    this.health = options.health ?? new PostgresHealth();
    this.pool = new pg.Pool({
      connectionString: url, max: 4, application_name: 'tokengate-read-models', connectionTimeoutMillis: 5_000, keepAlive: true,
      // A stopped process must not hold the checkpoint rows, nor a statement wait forever.
      options: '-c statement_timeout=15000 -c lock_timeout=10000 -c idle_in_transaction_session_timeout=10000',
    });
    // A connection the server ended, idle or in a transaction: the pool drops it (the next query opens another).
    guardPool(this.pool, this.health);
  }

  /** The tables (idempotent; instances starting at once serialize). */
  private schema(): Promise<void> {
    this.ready ??= this.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('tokengate:read-models-schema'))");
      await client.query(SCHEMA);
    }).catch((error: unknown) => { this.ready = undefined; throw error; });
    return this.ready;
  }

  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>, relaxed = false): Promise<T> {
    const ticket = this.health.ticket();
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw this.failed(error);
    }
    try {
      // Derived data, checkpointed with its documents: no wait for the WAL's flush (a server crash
      // loses at most a catch-up, redone from the events). Visible to others at commit all the same.
      await client.query(relaxed ? 'BEGIN; SET LOCAL synchronous_commit = off' : 'BEGIN');
      const result = await work(client);
      await client.query('COMMIT');
      this.health.succeeded(ticket);
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw this.failed(error);
    } finally {
      client.release();
    }
  }

  /** The port's error for a failed statement, told to the health first. */
  private failed(error: unknown): unknown {
    this.health.failed(error);
    return translatePgError(error, this.target, 'the read models');
  }

  private async query<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> {
    await this.schema();
    const ticket = this.health.ticket();
    try {
      const { rows } = await this.pool.query<R>(text, values);
      this.health.succeeded(ticket);
      return rows;
    } catch (error) {
      throw this.failed(error);
    }
  }

  /**
   * The checkpoint rows of `models`, made where missing (at their version, position 0), locked
   * until the transaction ends, in name order (two instances lock them in the same order).
   */
  private async lockCheckpoints(client: pg.PoolClient, models: readonly ModelVersion[]): Promise<Map<string, Checkpoint>> {
    if (models.some((m) => !this.rowsMade.has(m.name))) {
      await client.query(
        'INSERT INTO read_model_checkpoints (name, version, position) SELECT n, v, 0 FROM unnest($1::text[], $2::int[]) AS t(n, v) ORDER BY n ON CONFLICT (name) DO NOTHING',
        [models.map((m) => m.name), models.map((m) => m.version)]);
    }
    const { rows } = await client.query<Checkpoint>(LOCK_CHECKPOINTS, [models.map((m) => m.name)]);
    for (const row of rows) this.rowsMade.add(row.name);
    return new Map(rows.map((row) => [row.name, row]));
  }

  async checkpoint(name: string): Promise<bigint> {
    const rows = await this.query<{ position: string }>('SELECT position FROM read_model_checkpoints WHERE name = $1', [name]);
    return BigInt(rows[0]?.position ?? 0);
  }

  async checkpoints(names: readonly string[]): Promise<ReadonlyMap<string, bigint>> {
    const rows = await this.query<{ name: string; position: string }>('SELECT name, position FROM read_model_checkpoints WHERE name = ANY($1::text[])', [names]);
    const stored = new Map(rows.map((row) => [row.name, BigInt(row.position)]));
    return new Map(names.map((name) => [name, stored.get(name) ?? 0n]));
  }

  async reset(models: readonly ModelVersion[], changedOnly = false): Promise<void> {
    await this.schema();
    await this.transaction(async (client) => {
      const stored = await this.lockCheckpoints(client, models);
      for (const model of models) {
        if (changedOnly && stored.get(model.name)?.version === model.version) continue;
        await client.query('DELETE FROM read_models WHERE projection = $1', [model.name]);
        await client.query('UPDATE read_model_checkpoints SET version = $2, position = 0 WHERE name = $1', [model.name, model.version]);
      }
    });
  }

  async get(projection: string, key: string): Promise<string | undefined> {
    const rows = await this.query<{ doc: string }>('SELECT doc FROM read_models WHERE projection = $1 AND key = $2', [projection, key]);
    return rows[0]?.doc;
  }

  rows(projection: string, prefix?: string): Promise<TableRow[]> {
    if (prefix === undefined) return this.query<TableRow>('SELECT key, doc FROM read_models WHERE projection = $1 ORDER BY key', [projection]);
    return this.query<TableRow>('SELECT key, doc FROM read_models WHERE projection = $1 AND key >= $2 AND key < $3 ORDER BY key',
      [projection, prefix, `${prefix}\u{10FFFF}`]);
  }

  async write(update: PageUpdate): Promise<ReadonlyMap<string, bigint> | undefined> {
    await this.schema();
    return this.transaction(async (client) => {
      const stored = await this.lockCheckpoints(client, update.models);
      const checkpoints = new Map([...stored].map(([name, row]) => [name, BigInt(row.position)]));
      const wanted = update.toRead(checkpoints);
      const before = new Map<string, string>();
      if (wanted.length > 0) {
        const found = await client.query<{ projection: string; key: string; doc: string }>(
          'SELECT r.projection, r.key, r.doc FROM read_models r JOIN unnest($1::text[], $2::text[]) AS w(projection, key) ON r.projection = w.projection AND r.key = w.key',
          [wanted.map((w) => w[0]), wanted.map((w) => w[1])]);
        for (const row of found.rows) before.set(`${row.projection}\u0000${row.key}`, row.doc);
      }
      const writes = update.evolve(checkpoints, (projection, key) => before.get(`${projection}\u0000${key}`));
      if (writes === undefined) return undefined;
      const { put, removed } = writes;
      if (removed.key.length > 0) {
        await client.query('DELETE FROM read_models r USING unnest($1::text[], $2::text[]) AS d(projection, key) WHERE r.projection = d.projection AND r.key = d.key',
          [removed.projection, removed.key]);
      }
      if (put.key.length > 0) {
        await client.query(
          'INSERT INTO read_models (projection, key, doc) SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ON CONFLICT (projection, key) DO UPDATE SET doc = excluded.doc',
          [put.projection, put.key, put.doc]);
      }
      const after = writes.checkpoints;
      await client.query(
        'UPDATE read_model_checkpoints c SET version = u.version, position = u.position FROM unnest($1::text[], $2::int[], $3::bigint[]) AS u(name, version, position) WHERE c.name = u.name',
        [after.name, after.version, after.position.map(String)]);
      return new Map(after.name.map((name, i) => [name, after.position[i] ?? 0n]));
    }, true);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
