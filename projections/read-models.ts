// Keeps read models in SQLite tables, each projection with a durable checkpoint (the last $all
// position applied) written in the same transaction as its documents. Command handlers call
// catchUp() after an append, so a reply always reflects its own write; a subscription to the
// store calls it too, so events appended by other processes arrive as well. They use the store
// through the port; a store's own speed-ups come as a ProjectionFeed (projections/feed.ts).
import type Database from 'better-sqlite3';
import type { EventStore, ProjectedEvent, ReadAllOptions, RecordedEvent, Subscription } from '../store/event-store.js';
import type { DataShape, InlineProjection, ProjectionFeed } from './feed.js';
import type { Projection } from './projection.js';
import { ReadModelTables } from './tables.js';

/** Events per read and per transaction when replaying (small pages die young: less GC, less memory). */
export const PAGE = 1_000;
/** At start-up, how many pages behind the head the read models must be to read the log ahead. */
const AHEAD_AFTER_PAGES = 10n;
/** How long the events of deferred projections wait for more to join their batch (ms). */
// 100 ms: a busy gateway's batch holds hundreds of payments, and a document several of them touch
// (a token paid with again and again) is read and written once per batch, not once per payment;
// reads see the held events anyway (they write them first), and a crash loses only what the
// start-up catch-up redoes from the log. A batch is written at once when it reaches a page.
export const DEFER_MS = 100;

const CAUGHT_UP: Promise<void> = Promise.resolve();

export interface ReadModelsOptions {
  /** Events per page (default PAGE); also the most events deferred projections hold before they are applied. */
  page?: number;
  /** How long deferred projections' events wait for more to join their batch (default DEFER_MS). */
  deferMs?: number;
  /** The store's speed-ups (the SQLite adapter's, on this same connection), if it has them. */
  feed?: ProjectionFeed | undefined;
}

export interface RebuildOptions {
  /**
   * Replay the 'onRead' projections too (the CLI's replay), not only the ones a serving gateway
   * keeps (default; the others are replayed by their first read). A rebuild up to a position or
   * an instant replays every one, and they stay there until the next catch-up.
   */
  everyModel?: boolean;
  untilPosition?: bigint;
  untilTime?: Date;
  onProgress?: (events: number, position: bigint, head: bigint) => void;
}

export interface RebuildResult { events: number; position: bigint; seconds: number; eventsPerSecond: number }

/** A value, or a promise of it: the SQLite read models answer at once, PostgreSQL's asynchronously. */
export type Maybe<T> = T | Promise<T>;

/**
 * The read models as the services, reactors and CLI use them: ReadModels (SQLite, synchronous
 * reads) or PostgresReadModels (store/postgres/read-models.ts). Callers `await` the reads, which
 * costs the SQLite default nothing measurable (a resolved value, a few reads per request).
 */
export interface ReadModelsPort {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Apply every event after the checkpoints (return at once when all are at `position` or past it). */
  catchUp(position?: bigint): Promise<void>;
  rebuild(options?: RebuildOptions): Promise<RebuildResult>;
  /** SHA-256 over every document of every projection, in key order: equal hashes, equal models. */
  hash(): Maybe<string>;
  checkpoint(name: string): Maybe<bigint>;
  get<Doc>(projection: string, key: string): Maybe<Doc | undefined>;
  /** Every document of a projection, ordered by key (bytewise). */
  all(projection: string): Maybe<Array<{ key: string; doc: string }>>;
  /** Documents of a projection whose key starts with `prefix` (an ASCII text), ordered by key. */
  withPrefix(projection: string, prefix: string): Maybe<Array<{ key: string; doc: string }>>;
  /**
   * The position of the log through which the models kept current are written (or hold the
   * events, deferred), as known in memory: no read, no catch-up (the read-model lag of /metrics).
   */
  appliedThrough?(): bigint;
}

export class ReadModels implements ReadModelsPort {
  private readonly tables: ReadModelTables;
  private running: Promise<void> | undefined;
  private again = false;
  private subscription: Subscription | undefined;
  private readonly page: number;
  private readonly feed: ProjectionFeed | undefined;
  private readonly deferMs: number;
  /** The projections written in the commit of their events (projection.apply, default 'inline'). */
  private readonly inline: readonly Projection[];
  /** The projections written in batches after the reply (apply: 'deferred'). */
  private readonly deferred: readonly Projection[];
  /** The projections a catch-up keeps current: the inline and the deferred ones. */
  private readonly live: readonly Projection[];
  /** The projections written only when read (apply: 'onRead'), each then brought up from the log. */
  private readonly onRead: readonly Projection[];
  /** After a rebuild that stopped early: reads leave the 'onRead' models there until the next catch-up. */
  private pinned = false;
  /**
   * Committed events not yet applied to the deferred projections: in log order, the first right
   * after every deferred checkpoint (checked when the first is held). Empty: nothing held.
   */
  private held: ProjectedEvent[] = [];
  private heldTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly store: EventStore,
    private readonly projections: readonly Projection[],
    options: ReadModelsOptions = {},
  ) {
    this.page = options.page ?? PAGE;
    this.feed = options.feed;
    this.deferMs = options.deferMs ?? DEFER_MS;
    // 'onRead' needs the log read synchronously on this connection (the feed); elsewhere deferred.
    const onRead = this.feed?.readForProjectionsNow !== undefined;
    this.onRead = projections.filter((p) => p.apply === 'onRead' && onRead);
    this.inline = projections.filter((p) => p.apply === undefined || p.apply === 'inline');
    this.deferred = projections.filter((p) => p.apply === 'deferred' || (p.apply === 'onRead' && !onRead));
    this.live = [...this.inline, ...this.deferred];
    this.tables = new ReadModelTables(db, projections, this.live);
  }

  /** Rebuild models whose stored version differs, catch up, and follow the store's log. */
  async start(): Promise<void> {
    for (const p of this.projections) {
      const stored = this.tables.stored(p.name);
      if (stored && stored.version !== p.version) this.reset(p);
    }
    // Far behind (a first start on a large store, a new projection version): the long part of
    // the replay reads the log ahead on another thread, where the store can.
    const from = this.tables.minCheckpoint();
    const head = await this.store.headPosition();
    if (head - from > BigInt(this.page) * AHEAD_AFTER_PAGES) await this.replayAhead(from, head);
    await this.catchUp();
    this.subscription = this.store.subscribeAll({ fromPosition: this.tables.minCheckpoint() }, {
      onEvent: (event) => {
        // This process's own events are held or applied already (checked here: no promise per
        // event). Another process's: a failed catch-up is retried by the next event or request.
        if (this.covered() >= event.position) return;
        this.catchUp(event.position).catch((error: unknown) => process.emitWarning(`read models could not catch up: ${String(error)}`));
      },
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.close();
    this.subscription = undefined;
    await this.running;
    // What is held is written now (if it cannot be, the next start applies it from the log).
    this.applyHeldSafely();
  }

  /** Drop a projection's documents and checkpoint, so the next catch-up replays from the start. */
  reset(projection: Projection): void {
    // Held events would follow the old checkpoint: the replay from the log applies them.
    this.dropHeld();
    this.tables.reset(projection);
  }

  /**
   * Drop every read model and replay the log from the start. With `untilPosition` or `untilTime`
   * (compared with each event's metadata.recordedAt) replay stops before the first event past
   * it, leaving the models as they were then (until the next catch-up). `onProgress` is called
   * after every page.
   */
  async rebuild(options: RebuildOptions = {}): Promise<RebuildResult> {
    // Every model is dropped; the replay writes the live ones, an 'onRead' one is replayed by its
    // first read unless asked for (or a rebuild stops early: every one then shows that moment).
    await this.running;
    this.dropHeld();
    for (const p of this.projections) this.reset(p);
    const head = await this.store.headPosition();
    const untilTime = options.untilTime?.toISOString();
    const early = options.untilPosition !== undefined || untilTime !== undefined;
    const replayed = early || options.everyModel === true ? this.projections : undefined;
    this.pinned = early && this.onRead.length > 0;
    const started = performance.now();
    let position = 0n;
    let events = 0;
    if (untilTime === undefined) {
      const until = options.untilPosition !== undefined && options.untilPosition < head ? options.untilPosition : head;
      await this.replayAhead(0n, until, (page) => {
        events += page.length;
        position = page.at(-1)?.position ?? position;
        options.onProgress?.(events, position, head);
      }, replayed);
    }
    // Then page by page: everything (time travel reads metadata; a store that cannot read ahead),
    // or what was appended since the replay began (nothing past untilPosition).
    for (;;) {
      // Only time travel reads the metadata (recordedAt); a full rebuild reads what projections need.
      const page: ReadonlyArray<ProjectedEvent & { metadata?: RecordedEvent['metadata'] }> = untilTime === undefined
        ? await this.readForProjections({ fromPosition: position, maxCount: this.page })
        : await this.store.readAll({ fromPosition: position, maxCount: this.page });
      const stop = page.findIndex((e) =>
        (options.untilPosition !== undefined && e.position > options.untilPosition) ||
        (untilTime !== undefined && String(e.metadata?.recordedAt ?? e.created) > untilTime));
      const slice = stop < 0 ? page : page.slice(0, stop);
      this.apply(slice, replayed);
      events += slice.length;
      position = slice.at(-1)?.position ?? position;
      options.onProgress?.(events, position, head);
      if (stop >= 0 || page.length < this.page) break;
    }
    const seconds = (performance.now() - started) / 1000;
    return { events, position, seconds, eventsPerSecond: seconds > 0 ? events / seconds : events };
  }

  // Every read first writes what deferred projections hold: a read sees this process's writes.
  // An 'onRead' projection is brought up from the log first (bringUp).

  /** SHA-256 over every document of every projection, in key order: equal hashes, equal models. */
  hash(): string {
    this.applyHeld();
    for (const p of this.onRead) this.bringUp(p);
    return this.tables.hash();
  }

  checkpoint(name: string): bigint {
    this.beforeRead(name);
    return this.tables.checkpoint(name);
  }

  get<Doc>(projection: string, key: string): Doc | undefined {
    this.beforeRead(projection);
    return this.tables.get<Doc>(projection, key);
  }

  /** Every document of a projection, ordered by key (for hashing and export). */
  all(projection: string): Array<{ key: string; doc: string }> {
    this.beforeRead(projection);
    return this.tables.all(projection);
  }

  /** Documents of a projection whose key starts with `prefix` (an ASCII text), ordered by key. */
  withPrefix(projection: string, prefix: string): Array<{ key: string; doc: string }> {
    this.beforeRead(projection);
    return this.tables.withPrefix(projection, prefix);
  }

  private beforeRead(projection: string): void {
    this.applyHeld();
    for (const p of this.onRead) if (p.name === projection) this.bringUp(p);
  }

  /**
   * Apply the log after an 'onRead' projection's checkpoint, up to what this connection last
   * committed, a page per transaction (on this process's connection, so every event this process
   * answered for is in it). Synchronous: the first read after a long run replays that run.
   */
  private bringUp(projection: Projection): void {
    const feed = this.feed;
    if (!feed?.readForProjectionsNow || !this.db.open || this.pinned) return;
    for (;;) {
      const page = feed.readForProjectionsNow(this.tables.checkpoint(projection.name), this.page);
      this.apply(page, [projection]);
      if (page.length < this.page) return;
    }
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
   * With `position` (an append's), return at once when every model is already past it, or holds
   * the events up to it (the SQLite store applies inline projections inside the events' own commit
   * and hands the deferred ones the events there; its appends resolve once they are on disk).
   */
  catchUp(position?: bigint): Promise<void> {
    // (Not async: the common case, after every append, returns one settled promise, no new one.)
    if (position !== undefined && this.covers(position)) return CAUGHT_UP;
    return this.catchUpNow();
  }

  /** Whether every model is written (or, deferred, holds its events) through `position`: catchUp has nothing to do. */
  covers(position: bigint): boolean {
    return this.covered() >= position;
  }

  private async catchUpNow(): Promise<void> {
    await this.run();
    await this.feed?.durable();
  }

  /** The position through which every model is written or, for deferred ones, held. */
  private covered(): bigint {
    const tail = this.held.at(-1)?.position;
    if (tail === undefined) return this.tables.minCheckpoint();
    let min = tail;
    for (const p of this.inline) {
      const position = this.tables.known.get(p.name) ?? this.tables.checkpoint(p.name);
      if (position < min) min = position;
    }
    return min;
  }

  /** One catch-up run; concurrent calls share it. */
  private run(): Promise<void> {
    this.pinned = false;
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          this.applyHeld();
          let batch: ProjectedEvent[];
          do {
            batch = await this.readForProjections({ fromPosition: this.tables.minCheckpoint(), maxCount: this.page });
            this.apply(batch);
          } while (batch.length === this.page);
        } while (this.again);
      } finally {
        this.running = undefined;
      }
    })();
    return this.running;
  }

  /**
   * Apply the log in (from, until], read ahead by the store while a page is applied, if it can;
   * of each event's data, only what the projections applied read (their `reads`).
   */
  private async replayAhead(from: bigint, until: bigint, onPage?: (page: readonly ProjectedEvent[]) => void, only?: readonly Projection[]): Promise<void> {
    const readPagesAhead = this.feed?.readPagesAhead;
    if (!readPagesAhead) return;
    const data = dataShape(only ?? this.live);
    for await (const page of readPagesAhead({ fromPosition: from, untilPosition: until, pageSize: this.page, data })) {
      this.apply(page, only);
      onPage?.(page);
    }
  }

  private readForProjections(options: ReadAllOptions): Promise<ProjectedEvent[]> {
    return this.feed ? this.feed.readAllForProjections(options) : this.store.readAll(options);
  }

  /**
   * Apply events inside the store's own commit (the SQLite adapter's commit listener, same connection):
   * the documents and checkpoints commit with the events, in one fsync, and the catch-up after
   * the append finds nothing left to read. Only when every checkpoint is right before these
   * events; otherwise (events of another process not yet applied) the next catch-up applies them.
   */
  applyWithinCommit(events: readonly ProjectedEvent[]): void {
    const first = events[0];
    if (first === undefined) return;
    this.hold(events);
    if (this.inline.length === 0) return;
    const stored = new Map<string, bigint>();
    for (const p of this.inline) {
      const position = this.tables.checkpoint(p.name);
      if (position !== first.position - 1n) return;
      stored.set(p.name, position);
    }
    this.tables.applyRows(events, stored, this.inline);
  }

  /**
   * Hold a commit's events for the deferred projections, and have them written a few ms later (at
   * once when a page is held). Only when they follow what is held, or, with nothing held, every
   * deferred checkpoint (read in the commit's transaction); otherwise (events of another process
   * not yet applied) the next catch-up applies them from the log.
   */
  private hold(events: readonly ProjectedEvent[]): void {
    const first = events[0];
    if (this.deferred.length === 0 || first === undefined) return;
    const tail = this.held.at(-1)?.position;
    if (tail === undefined) {
      for (const p of this.deferred) if (this.tables.checkpoint(p.name) !== first.position - 1n) return;
    } else if (tail !== first.position - 1n) {
      return;
    }
    for (const e of events) this.held.push(e);
    if (this.held.length >= this.page) {
      clearTimeout(this.heldTimer);
      this.heldTimer = undefined;
      setImmediate(() => this.applyHeldSafely());
    } else if (this.heldTimer === undefined) {
      this.heldTimer = setTimeout(() => this.applyHeldSafely(), this.deferMs);
      this.heldTimer.unref();
    }
  }

  /**
   * Write what the deferred projections hold: one transaction, documents and checkpoints. The
   * checkpoints are read again inside it (another process sharing the file may have applied some
   * of these events: applyRows skips them); one below the held events (a reset) drops them.
   */
  private applyHeld(): void {
    const events = this.held;
    const first = events[0];
    if (first === undefined) return;
    this.dropHeld();
    if (!this.db.open) return;
    const write = () => this.db.transaction(() => {
      for (const p of this.deferred) if (this.tables.checkpoint(p.name) < first.position - 1n) return;
      this.tables.applyRows(events, undefined, this.deferred);
    }).immediate();
    try {
      if (this.feed) this.feed.relaxedSync(write);
      else write();
    } catch (error) {
      // The checkpoints this process believes may be ahead; the events are in the log.
      this.tables.known.clear();
      throw error;
    }
  }

  /** applyHeld from a timer: a failure is a warning; the next catch-up applies the events from the log. */
  private applyHeldSafely(): void {
    try {
      this.applyHeld();
    } catch (error) {
      process.emitWarning(`read models could not apply the deferred projections: ${String(error)}`);
    }
  }

  private dropHeld(): void {
    this.held = [];
    clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
  }

  /** What a store on this same connection calls at each commit (see applyWithinCommit). */
  commitListener(): InlineProjection {
    return {
      written: (events) => this.applyWithinCommit(events),
      // The store's transaction did not commit: the checkpoints this process believes may be
      // ahead, and what is held may not be in the log (what is, the next catch-up applies).
      rolledBack: () => {
        this.dropHeld();
        this.tables.known.clear();
      },
    };
  }

  /** One transaction: documents and checkpoints together, re-reading checkpoints inside it
   *  because another process sharing the file may have applied some of these events already. */
  private apply(events: readonly ProjectedEvent[], only?: readonly Projection[]): void {
    if (events.length === 0) return;
    // Read models are derived and checkpointed in the same transaction: they need not wait for
    // an fsync of their own (a power cut loses at most a catch-up, redone from the events). On
    // the store's connection the store says how; a file of their own is opened so (root.ts).
    if (this.feed) this.feed.relaxedSync(() => this.applyInTransaction(events, only));
    else this.applyInTransaction(events, only);
  }

  private applyInTransaction(events: readonly ProjectedEvent[], only?: readonly Projection[]): void {
    try {
      this.db.transaction(() => this.tables.applyRows(events, undefined, only)).immediate();
    } catch (error) {
      // applyRows set the checkpoints it believed; the transaction did not commit them.
      this.tables.known.clear();
      throw error;
    }
  }
}

/**
 * What `projections` read of each event type's data: the union of their `reads`, 'all' where one
 * of them reads the type whole (declares nothing for it); a type none of them handles, nothing.
 */
export function dataShape(projections: readonly Projection[]): DataShape {
  const shape = new Map<string, readonly string[] | 'all'>();
  for (const p of projections) {
    for (const type of p.handles) {
      const reads = p.reads?.[type];
      const before = shape.get(type);
      if (reads === undefined || before === 'all') shape.set(type, 'all');
      else shape.set(type, before === undefined ? reads : [...new Set([...before, ...reads])]);
    }
  }
  return shape;
}
