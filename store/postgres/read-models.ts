// The read models in PostgreSQL (EVENT_STORE=postgres://…): every projection's documents and its
// checkpoint (the last $all position applied) in two tables shared by every instance on the
// database, written in one transaction. They are applied after the reply, in batches: each
// notice of an append (this instance's commits, LISTEN for other instances', a poll beside them)
// starts a catch-up, which applies every event after the checkpoints, one page per transaction,
// while the appends go on. Every read catches up first, to the log's head as it was when the read
// began: a read sees every write answered before it, by this instance or another (the log is
// shared, and an append answers once committed), so the command handler does not wait for a
// catch-up before it answers (`covers`). The tables are shared, so what one instance applied is what every other
// reads. Two instances catching up at once serialize on the checkpoint rows (SELECT … FOR UPDATE,
// in name order): the second re-reads the checkpoints inside its transaction and skips what the
// first applied. Reads are asynchronous (ReadModelsPort: the callers await them).
import pg from 'pg';
import { createHash } from 'node:crypto';
import type { EventStore, RecordedEvent, Subscription } from '../event-store.js';
import type { Projection } from '../../projections/projection.js';
import { redactUrl, translatePgError } from './errors.js';
import { guardPool, PostgresHealth } from './health.js';
import { docKey, documentsToRead, evolvePage } from './read-model-page.js';
import { PAGE, type ReadModelsPort, type RebuildOptions, type RebuildResult } from '../../projections/read-models.js';

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

type Row = { key: string; doc: string };

/** The store the read models follow; PostgresEventStore tells of its appends without reading them. */
type FollowedStore = EventStore & { onAppended?(listener: () => void): () => void };
/** How often the read models look at the log without being told of an append (ms). */
const FOLLOW_POLL_MS = 1_000;

export class PostgresReadModels implements ReadModelsPort {
  private readonly pool: pg.Pool;
  /** The checkpoints this instance last wrote or read (a stale, lower value is harmless: apply re-reads them). */
  private readonly known = new Map<string, bigint>();
  private ready: Promise<void> | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  /** Catch-ups waiting for every checkpoint to reach their position (resolved as the passes go). */
  private waiters: Array<{ position: bigint; resolve: () => void; reject: (error: unknown) => void }> = [];
  private subscription: Subscription | undefined;
  /** Following a store that tells of its appends (onAppended): what stops it, and the poll beside it. */
  private unfollow: (() => void) | undefined;
  private poll: NodeJS.Timeout | undefined;
  /** A catch-up after the reply failed and said so: the next failures are not told again until one succeeds. */
  private warned = false;
  /** After a rebuild that stopped early (a replay up to a position or an instant): reads do not catch up, until a catch-up runs. */
  private pinned = false;
  private readonly page: number;
  private readonly target: string;
  private readonly health: PostgresHealth;

  /** `health`: the event store's, when on the same server (Check Gateway hears of both). */
  constructor(url: string, private readonly store: FollowedStore, private readonly projections: readonly Projection[], options: { page?: number; health?: PostgresHealth } = {}) {
    this.page = options.page ?? PAGE;
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

  /** The tables and a checkpoint row per projection (idempotent; instances starting at once serialize). */
  private schema(): Promise<void> {
    this.ready ??= this.transaction(async (client) => {
      await client.query("SELECT pg_advisory_xact_lock(hashtext('tokengate:read-models-schema'))");
      await client.query(SCHEMA);
      await client.query(
        'INSERT INTO read_model_checkpoints (name, version, position) SELECT n, v, 0 FROM unnest($1::text[], $2::int[]) AS t(n, v) ON CONFLICT (name) DO NOTHING',
        [this.projections.map((p) => p.name), this.projections.map((p) => p.version)]);
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

  /** Rebuild models whose stored version differs, catch up, and follow the store's log. */
  async start(): Promise<void> {
    await this.schema();
    await this.transaction(async (client) => {
      const { rows } = await client.query<{ name: string; version: number }>(
        'SELECT name, version FROM read_model_checkpoints WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE', [this.projections.map((p) => p.name)]);
      for (const p of this.projections) {
        if (rows.find((r) => r.name === p.name)?.version !== p.version) await this.resetWith(client, p);
      }
    });
    await this.catchUp();
    // This instance's appends and other instances' (LISTEN) are applied after the reply, in pages,
    // by a catch-up that reads them once. Told of them without reading them where the store can
    // (PostgreSQL), a poll beside it for a notification lost while LISTEN reconnects; else (a test's
    // memory store) through a subscription.
    if (this.store.onAppended) {
      this.unfollow = this.store.onAppended(() => this.run());
      this.poll = setInterval(() => this.run(), FOLLOW_POLL_MS);
      this.poll.unref();
    } else {
      this.subscription = this.store.subscribeAll({ fromPosition: await this.minCheckpoint() }, { onEvent: () => this.run() });
    }
  }

  async stop(): Promise<void> {
    this.unfollowLog();
    await this.subscription?.close();
    this.subscription = undefined;
    await this.running;
  }

  /** Closes the pool (after stop(); following the log stops here too, if stop() was not called). */
  async close(): Promise<void> {
    this.unfollowLog();
    await this.running;
    await this.pool.end();
  }

  /** No more notices of appends, no more polls (a subscription is closed by stop()). */
  private unfollowLog(): void {
    this.unfollow?.();
    this.unfollow = undefined;
    clearInterval(this.poll);
    this.poll = undefined;
  }

  private async resetWith(client: pg.PoolClient, p: Projection): Promise<void> {
    await client.query('DELETE FROM read_models WHERE projection = $1', [p.name]);
    await client.query(
      'INSERT INTO read_model_checkpoints (name, version, position) VALUES ($1, $2, 0) ON CONFLICT (name) DO UPDATE SET version = excluded.version, position = 0',
      [p.name, p.version]);
    this.known.set(p.name, 0n);
  }

  async rebuild(options: RebuildOptions = {}): Promise<RebuildResult> {
    await this.schema();
    await this.running;
    // Stopped early, the models show that moment to every read until the next catch-up.
    this.pinned = options.untilPosition !== undefined || options.untilTime !== undefined;
    await this.transaction(async (client) => {
      await client.query('SELECT name FROM read_model_checkpoints WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE', [this.projections.map((p) => p.name)]);
      for (const p of this.projections) await this.resetWith(client, p);
    });
    const head = await this.store.headPosition();
    const untilTime = options.untilTime?.toISOString();
    const started = performance.now();
    let position = 0n;
    let events = 0;
    for (;;) {
      const page = await this.store.readAll({ fromPosition: position, maxCount: this.page });
      const stop = page.findIndex((e) =>
        (options.untilPosition !== undefined && e.position > options.untilPosition) ||
        (untilTime !== undefined && String(e.metadata?.recordedAt ?? e.created) > untilTime));
      const slice = stop < 0 ? page : page.slice(0, stop);
      await this.apply(slice);
      events += slice.length;
      position = slice.at(-1)?.position ?? position;
      options.onProgress?.(events, position, head);
      if (stop >= 0 || page.length < this.page) break;
    }
    const seconds = (performance.now() - started) / 1000;
    return { events, position, seconds, eventsPerSecond: seconds > 0 ? events / seconds : events };
  }

  async hash(): Promise<string> {
    await this.beforeRead();
    const digest = createHash('sha256');
    for (const p of this.projections) {
      for (const row of await this.rows(p.name)) digest.update(`${p.name}\u0000${row.key}\u0000${row.doc}\n`);
    }
    return digest.digest('hex');
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

  /** Every read catches up first (see the top of this file), but a rebuild stopped early stays as it is. */
  private beforeRead(): Promise<void> {
    return this.pinned ? Promise.resolve() : this.catchUp();
  }

  /**
   * Whether a read of the models made now sees the events up to `position`: always, since every
   * read catches up first (the command handler asks, and need not wait for a catch-up).
   */
  covers(_position: bigint): boolean {
    return true;
  }

  async checkpoint(name: string): Promise<bigint> {
    await this.beforeRead();
    return this.storedCheckpoint(name);
  }

  private async storedCheckpoint(name: string): Promise<bigint> {
    const rows = await this.query<{ position: string }>('SELECT position FROM read_model_checkpoints WHERE name = $1', [name]);
    const position = BigInt(rows[0]?.position ?? 0);
    this.known.set(name, position);
    return position;
  }

  async get<Doc>(projection: string, key: string): Promise<Doc | undefined> {
    await this.beforeRead();
    const rows = await this.query<{ doc: string }>('SELECT doc FROM read_models WHERE projection = $1 AND key = $2', [projection, key]);
    return rows[0] ? (JSON.parse(rows[0].doc) as Doc) : undefined;
  }

  async all(projection: string): Promise<Row[]> {
    await this.beforeRead();
    return this.rows(projection);
  }

  private rows(projection: string): Promise<Row[]> {
    return this.query<Row>('SELECT key, doc FROM read_models WHERE projection = $1 ORDER BY key', [projection]);
  }

  async withPrefix(projection: string, prefix: string): Promise<Row[]> {
    await this.beforeRead();
    return this.query<Row>('SELECT key, doc FROM read_models WHERE projection = $1 AND key >= $2 AND key < $3 ORDER BY key',
      [projection, prefix, `${prefix}\u{10FFFF}`]);
  }

  /** The lowest checkpoint this instance wrote or read last (0 for one it has not read yet). */
  appliedThrough(): bigint {
    return this.projections.reduce<bigint | undefined>((min, p) => { const at = this.known.get(p.name) ?? 0n; return min === undefined || at < min ? at : min; }, undefined) ?? 0n;
  }

  /** The lowest checkpoint this instance knows (read once; then what it wrote or read last). */
  private async minCheckpoint(): Promise<bigint> {
    let min: bigint | undefined;
    for (const p of this.projections) {
      const position = this.known.get(p.name) ?? await this.storedCheckpoint(p.name);
      if (min === undefined || position < min) min = position;
    }
    return min ?? 0n;
  }

  /**
   * Without `position`: resolves once every checkpoint has reached the log's head as it is now,
   * the catch-up applying what is missing (a caller waits for that head, not for the catch-up to
   * run out of events: under load it may not). With `position` (an append's): at once, since every
   * read catches up first (`covers`); the catch-up after the reply applies it.
   */
  async catchUp(position?: bigint): Promise<void> {
    if (position !== undefined) return;
    const head = await this.store.headPosition();
    if (this.known.size === this.projections.length && await this.minCheckpoint() >= head) return;
    await new Promise<void>((resolve, reject) => {
      this.waiters.push({ position: head, resolve, reject });
      this.run();
    });
  }

  /**
   * A catch-up: pages of the log applied until none is left; one at a time (a call during it makes
   * it read again once it runs out). Each page applied settles the waiters it reached; a failure
   * fails those waiting (the next catch-up tries again).
   */
  private run(): void {
    this.pinned = false;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      try {
        await this.schema();
        do {
          this.again = false;
          let batch: RecordedEvent[];
          do {
            batch = await this.store.readAll({ fromPosition: await this.minCheckpoint(), maxCount: this.page });
            await this.apply(batch);
            this.settle(await this.minCheckpoint());
          } while (batch.length === this.page);
        } while (this.again);
        // Run out of events: every waiter's position (an append answered, or the head when it
        // asked) is behind the last page read.
        this.settle(undefined);
        this.warned = false;
      } catch (error) {
        const waiting = this.waiters;
        this.waiters = [];
        // A reader is told; a catch-up after the reply (nobody waiting) warns, once until one succeeds.
        if (waiting.length === 0 && !this.warned) process.emitWarning(`read models could not catch up: ${String(error)}`);
        this.warned ||= waiting.length === 0;
        for (const waiter of waiting) waiter.reject(error);
      } finally {
        this.running = undefined;
      }
    })();
  }

  /** Resolve the waiters whose position `reached` covers (undefined: all of them). */
  private settle(reached: bigint | undefined): void {
    if (this.waiters.length === 0) return;
    const waiting = this.waiters;
    this.waiters = [];
    for (const waiter of waiting) {
      if (reached === undefined || waiter.position <= reached) waiter.resolve();
      else this.waiters.push(waiter);
    }
  }

  /**
   * One transaction: the checkpoint rows locked and re-read (another instance may have applied
   * some of these events already), the documents the events touch read, evolved, written back.
   */
  private async apply(events: readonly RecordedEvent[]): Promise<void> {
    if (events.length === 0) return;
    const names = this.projections.map((p) => p.name);
    try {
      await this.transaction(async (client) => {
        const { rows } = await client.query<{ name: string; position: string }>(
          'SELECT name, position FROM read_model_checkpoints WHERE name = ANY($1::text[]) ORDER BY name FOR UPDATE', [names]);
        const stored = new Map(rows.map((r) => [r.name, BigInt(r.position)]));
        const wanted = documentsToRead(this.projections, events, stored);
        const before = new Map<string, string>();
        if (wanted.length > 0) {
          const found = await client.query<{ projection: string; key: string; doc: string }>(
            'SELECT r.projection, r.key, r.doc FROM read_models r JOIN unnest($1::text[], $2::text[]) AS w(projection, key) ON r.projection = w.projection AND r.key = w.key',
            [wanted.map((w) => w[0]), wanted.map((w) => w[1])]);
          for (const row of found.rows) before.set(docKey(row.projection, row.key), row.doc);
        }
        const { put, removed, checkpoints } = evolvePage(this.projections, events, stored, before);
        if (removed.key.length > 0) {
          await client.query('DELETE FROM read_models r USING unnest($1::text[], $2::text[]) AS d(projection, key) WHERE r.projection = d.projection AND r.key = d.key',
            [removed.projection, removed.key]);
        }
        if (put.key.length > 0) {
          await client.query(
            'INSERT INTO read_models (projection, key, doc) SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ON CONFLICT (projection, key) DO UPDATE SET doc = excluded.doc',
            [put.projection, put.key, put.doc]);
        }
        await client.query(
          'UPDATE read_model_checkpoints c SET version = u.version, position = u.position FROM unnest($1::text[], $2::int[], $3::bigint[]) AS u(name, version, position) WHERE c.name = u.name',
          [checkpoints.name, checkpoints.version, checkpoints.position]);
        return stored;
      }, true).then((stored) => { for (const [name, position] of stored) this.known.set(name, position); });
    } catch (error) {
      // Not committed: what this instance believed of the checkpoints is read again.
      this.known.clear();
      throw error;
    }
  }
}
