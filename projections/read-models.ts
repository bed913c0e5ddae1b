// The read models: every projection's documents and checkpoint (the last $all position applied)
// in the tables a store keeps (the port store/read-model-tables.ts: SQLite, PostgreSQL), kept by
// one runner: a catch-up applies the log after the checkpoints, a page per transaction; a rebuild
// drops the models and replays the log. When a model is written (projection.apply) depends on
// the tables (docs/architecture.md, "Read models off the request path"):
//  - this process's own (SQLite, answering at once): 'inline' in the events' commit (the store's
//    commit listener) or by the catch-up the command handler awaits; 'deferred' held in memory and
//    written DEFER_MS later; 'onRead' brought up from the log by its reads. Reads do not wait.
//  - shared by every instance (PostgreSQL): after the reply, by the catch-up this instance's appends
//    start DEFER_MS later (others' by theirs: behind.ts); every read catches up first, to the log's
//    head when it began; 'onRead' by its reads.
// How a page is written, and what the store's commit hands over: projections/model-writes.ts.
import { allOf, then, type Maybe } from '../lib/maybe.js';
import type { EventStore, ProjectedEvent } from '../store/event-store.js';
import type { CommitListener, ProjectionFeed } from '../store/projection-feed.js';
import type { ReadModelTables, SharedTables, TableRow } from '../store/read-model-tables.js';
import { BehindWatch } from './behind.js';
import { CatchUps } from './catch-up.js';
import { KnownCheckpoints } from './checkpoints.js';
import { followLog } from './follow.js';
import { HeldEvents } from './held.js';
import { ModelWrites } from './model-writes.js';
import type { Projection } from './projection.js';
import { bringUpLocal, bringUpShared, readForProjections, replayAhead, replayLog, type ReplayTarget } from './replay.js';
import { SharedReads } from './shared-reads.js';
import { hashOf, type Answer, type ReadModelsOptions, type RebuildOptions, type RebuildResult } from './read-models-port.js';

export * from './read-models-port.js';
export type { Maybe } from '../lib/maybe.js';

/** Events per read and per transaction when replaying (small pages die young: less GC, less memory). */
const PAGE = 1_000;
/** At start-up, how many pages behind the head the read models must be to read the log ahead. */
const AHEAD_AFTER_PAGES = 10n;
// 100 ms: a busy gateway's batch holds hundreds of payments, and a document several of them touch
// (a token paid with again and again) is read and written once per batch, not once per payment;
// reads see the held events anyway (they write them first), and a crash loses only what the
// start-up catch-up redoes from the log. A batch is written at once when it reaches a page.
const DEFER_MS = 100;

// (It is a ReadModelsPort for every kind of tables: root.ts holds each as one.)
export class ReadModels<Tables extends ReadModelTables = ReadModelTables> {
  private readonly page: number;
  private readonly feed: ProjectionFeed | undefined;
  /** Written in the commit of their events, or by the catch-up before the reply (apply 'inline', the default). */
  private readonly inline: readonly Projection[];
  /** Held and written after the reply (apply 'deferred'; every model on shared tables). */
  private readonly deferred: readonly Projection[];
  /** What a catch-up keeps current: the inline and the deferred ones. */
  private readonly live: readonly Projection[];
  /** Written only when read (apply 'onRead', where the log can be read at once on the tables' connection). */
  private readonly onRead: readonly Projection[];
  private readonly liveNames: readonly string[];
  private readonly inlineNames: readonly string[];
  private readonly known: KnownCheckpoints;
  /** Committed events not yet written to the deferred projections, the first right after their checkpoints. */
  private readonly held: HeldEvents;
  /** Pages written to the tables, and what this process's own store hands them at commit. */
  private readonly writes: ModelWrites;
  private readonly catchUps = new CatchUps((reached) => this.applyLog(reached));
  /** After a rebuild that stopped early: reads leave the models there until the next catch-up. */
  private pinned = false;
  private unfollow: (() => Promise<void>) | undefined;
  private readonly replay: ReplayTarget;
  /** On shared tables: the look every second at what no process applied. */
  private readonly watch: BehindWatch | undefined;
  /** On shared tables: the documents read (a cache; projections/shared-reads.ts). */
  readonly sharedReads: SharedReads | undefined;

  constructor(
    private readonly tables: Tables,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    options: ReadModelsOptions = {},
  ) {
    this.page = options.page ?? PAGE;
    this.feed = options.feed;
    this.held = new HeldEvents(this.page, options.deferMs ?? DEFER_MS, () => this.writes.applyHeldSafely());
    // 'onRead' needs the log read at once on the tables' connection (the feed), or reads that wait (shared tables); elsewhere deferred.
    const onRead = tables.shared || this.feed?.readForProjectionsNow !== undefined;
    this.onRead = projections.filter((p) => p.apply === 'onRead' && onRead);
    this.inline = projections.filter((p) => p.apply === undefined || p.apply === 'inline');
    this.deferred = projections.filter((p) => p.apply === 'deferred' || (p.apply === 'onRead' && !onRead));
    this.live = [...this.inline, ...this.deferred];
    this.liveNames = this.live.map((p) => p.name);
    this.inlineNames = this.inline.map((p) => p.name);
    this.known = new KnownCheckpoints((name) => this.tables.checkpoint(name));
    this.writes = new ModelWrites(tables, this.known, this.held, { inline: this.inline, deferred: this.deferred, live: this.live });
    this.replay = { page: this.page, store, feed: this.feed, write: (events, only) => this.writes.write(events, only) };
    // (A look still under way when the models stop starts nothing.)
    this.watch = tables.shared ? new BehindWatch(tables, store, this.liveNames, this.known, () => { if (this.unfollow) this.run(); }, options.lookMs) : undefined;
    this.sharedReads = tables.shared ? new SharedReads(tables, store, projections, {
      catchUp: (head, projection) => this.catchUpShared(tables, head, projection),
      knownCheckpoint: (name) => this.known.lowestKnown([name]),
    }, { cachedDocs: options.cachedDocs, page: this.page }) : undefined;
  }

  /** Rebuild models whose stored version differs, catch up, and follow the store's log. */
  async start(): Promise<void> {
    await this.resetModels(this.projections, true);
    // Far behind (a first start on a large store, a new projection version): the long part of
    // the replay reads the log ahead on another thread, where the store can.
    const from = await this.minCheckpoint();
    const head = await this.store.headPosition();
    if (head - from > BigInt(this.page) * AHEAD_AFTER_PAGES) await replayAhead(this.replay, from, head, this.live);
    await this.catchUp();
    this.unfollow = followLog(this.store, this.feed, await this.minCheckpoint(), (event) => {
      // This process's own events are held or applied already (checked here: no promise per event).
      if (event === undefined || this.covered() < event.position) this.run();
    }, this.held.deferMs, this.watch);
  }

  async stop(): Promise<void> {
    await this.unfollow?.();
    this.unfollow = undefined;
    await this.catchUps.current;
    // What is held is written now (if it cannot be, the next start applies it from the log).
    this.writes.applyHeldSafely();
  }

  /** Drop a projection's documents and checkpoint, so the next catch-up replays from the start. */
  reset(projection: Projection): Maybe<void> {
    return this.resetModels([projection]);
  }

  private resetModels(projections: readonly Projection[], changedOnly = false): Maybe<void> {
    // Held events would follow the old checkpoints: the replay from the log applies them.
    this.held.drop();
    this.known.clear();
    this.sharedReads?.clear();
    return this.tables.reset(projections, changedOnly);
  }

  /**
   * Drop every read model and replay the log (projections/replay.ts): the live models, an 'onRead'
   * one by its first read unless `everyModel`. Stopped early, every model stays as it was then
   * (reads do not bring it further) until the next catch-up.
   */
  async rebuild(options: RebuildOptions = {}): Promise<RebuildResult> {
    await this.catchUps.current;
    await this.resetModels(this.projections);
    const head = await this.store.headPosition();
    const early = options.untilPosition !== undefined || options.untilTime !== undefined;
    this.pinned = early;
    return replayLog(this.replay, head, early || options.everyModel === true ? this.projections : this.live, options);
  }

  hash(): Answer<Tables, string> {
    return then(this.beforeRead(), () => then(allOf(this.projections.map((p) => this.tables.rows(p.name))), (rows) => hashOf(this.projections, rows))) as Answer<Tables, string>;
  }

  checkpoint(name: string): Answer<Tables, bigint> {
    return then(this.beforeRead(name), () => this.tables.checkpoint(name)) as Answer<Tables, bigint>;
  }

  async getCurrent<Doc>(projection: string, key: string): Promise<Doc | undefined> {
    // Shared tables' reads catch up to the head on their own (one read of it, not two); a
    // catch-up leaves a rebuild stopped early.
    if (this.tables.shared) this.pinned = false;
    else await this.catchUp();
    return this.get<Doc>(projection, key) as Maybe<Doc | undefined>;
  }

  get<Doc>(projection: string, key: string): Answer<Tables, Doc | undefined> {
    const text = this.sharedReads && !this.pinned ? this.sharedReads.get(projection, key) : then(this.beforeRead(projection), () => this.tables.get(projection, key));
    return then(text, (doc) => doc === undefined ? undefined : JSON.parse(doc) as Doc) as Answer<Tables, Doc | undefined>;
  }

  all(projection: string): Answer<Tables, TableRow[]> {
    return then(this.beforeRead(projection), () => this.tables.rows(projection)) as Answer<Tables, TableRow[]>;
  }

  withPrefix(projection: string, prefix: string): Answer<Tables, TableRow[]> {
    return then(this.beforeRead(projection), () => this.tables.rows(projection, prefix)) as Answer<Tables, TableRow[]>;
  }

  /**
   * Before a read: shared tables catch up to the log's head; this process's own write what is
   * held and bring an 'onRead' model up from the log. A rebuild stopped early stays as it is.
   */
  private beforeRead(projection?: string): Maybe<void> {
    const tables = this.tables;
    if (tables.shared) return this.pinned ? undefined : this.store.headPosition().then((head) => this.catchUpShared(tables, head, projection));
    this.writes.applyHeld();
    if (this.pinned || !tables.open) return;
    for (const p of this.onRead) if (projection === undefined || p.name === projection) bringUpLocal(this.replay, tables, p, (page) => this.writes.writeNow(tables, page, [p]));
  }

  /** What a store on the tables' connection calls at each commit, inside it (SQLite). */
  commitListener(): CommitListener {
    return this.writes.commitListener();
  }

  appliedThrough(): bigint {
    return this.covered();
  }

  /** How many events deferred projections hold, not yet written (tests, diagnostics). */
  get heldEvents(): number {
    return this.held.length;
  }

  /**
   * Apply every event after the checkpoints, and wait until what the models show is on disk.
   * With `position` (an append's): undefined, nothing to wait for, when the reads see it already:
   * every model written through it or, deferred, holding it (this process's own tables, whose
   * store's commit hands them its events), or shared tables, whose reads catch up first.
   */
  catchUp(position?: bigint): Promise<void> | undefined {
    if (position !== undefined && (this.tables.shared || this.covered() >= position)) return undefined;
    return this.catchUpTo(position);
  }

  private async catchUpTo(position: bigint | undefined): Promise<void> {
    this.pinned = false;
    // Waits for that position (or the head as it is now), not for the catch-up to run out of
    // events: under load it may not.
    const target = position ?? await this.store.headPosition();
    if (this.held.length > 0 || await this.minCheckpoint() < target) {
      await this.catchUps.waitFor(target);
    }
    await this.feed?.durable?.();
  }

  /** Shared tables, before a read: the live models caught up to `head` (read once), and the 'onRead' one read. */
  private catchUpShared(tables: SharedTables, head: bigint, projection?: string): Promise<void> {
    return this.catchUpTo(head).then(() => bringUpShared(this.replay, tables, this.onRead, head, projection));
  }

  /** The position through which every live model is written or, deferred, holds the events (known in memory). */
  private covered(): bigint {
    const tail = this.held.tail;
    return tail === undefined ? this.known.lowestKnown(this.liveNames) : this.known.lowestKnown(this.inlineNames, tail);
  }

  private minCheckpoint(): Maybe<bigint> {
    return this.known.lowest(this.liveNames);
  }

  /** Start a catch-up (or have the one under way read again): a rebuild stopped early is left. */
  private run(): void {
    this.pinned = false;
    this.catchUps.run();
  }

  /** One pass of a catch-up: what is held, then the log after the checkpoints (shared: as stored), a page at a time. */
  private async applyLog(reached: (position: bigint) => void): Promise<void> {
    this.writes.applyHeld();
    await this.watch?.refresh();
    let batch: readonly ProjectedEvent[];
    do {
      batch = await readForProjections(this.replay, { fromPosition: await this.minCheckpoint(), maxCount: this.page });
      await this.writes.write(batch);
      reached(await this.minCheckpoint());
    } while (batch.length === this.page && this.live.length > 0);
  }
}
