// How the read models' runner (projections/read-models.ts) writes pages of events to the tables:
// one transaction per page (documents and checkpoints together), on shared tables (PostgreSQL)
// with a promise, on this process's own (SQLite) at once, where the store's commit also hands its
// events over (commitListener) to be written inline or held for the deferred models. A write that
// did not commit, or a transaction rolled back, makes the checkpoints this process believes read
// again.
import type { Maybe } from '../lib/maybe.js';
import type { ProjectedEvent } from '../store/event-store.js';
import type { CommitListener } from '../store/projection-feed.js';
import type { LocalTables, ReadModelTables } from '../store/read-model-tables.js';
import type { KnownCheckpoints } from './checkpoints.js';
import type { HeldEvents } from './held.js';
import { pageUpdate } from './page.js';
import type { Projection } from './projection.js';

export interface ModelSets {
  /** Written in the commit of their events, or by the catch-up before the reply. */
  readonly inline: readonly Projection[];
  /** Held and written after the reply. */
  readonly deferred: readonly Projection[];
  /** What a catch-up keeps current: the inline and the deferred ones. */
  readonly live: readonly Projection[];
}

export class ModelWrites {
  constructor(
    private readonly tables: ReadModelTables,
    private readonly known: KnownCheckpoints,
    private readonly held: HeldEvents,
    private readonly models: ModelSets,
  ) {}

  /** One page in one transaction of the tables (documents and checkpoints together). */
  write(events: readonly ProjectedEvent[], only: readonly Projection[] = this.models.live): Maybe<void> {
    const tables = this.tables;
    if (!tables.shared) return this.writeNow(tables, events, only);
    if (events.length === 0 || only.length === 0) return;
    return tables.write(pageUpdate(only, events)).then((after) => this.known.wrote(after), (error: unknown) => {
      // Not committed: what this process believed of the checkpoints is read again.
      this.known.clear();
      throw error;
    });
  }

  writeNow(tables: LocalTables, events: readonly ProjectedEvent[], only: readonly Projection[]): void {
    if (events.length === 0 || only.length === 0) return;
    try {
      this.known.wrote(tables.write(pageUpdate(only, events)));
    } catch (error) {
      this.known.clear();
      throw error;
    }
  }

  /** What a store on the tables' connection calls at each commit, inside it (SQLite). */
  commitListener(): CommitListener {
    const { inline, deferred } = this.models;
    return {
      written: (events) => {
        const tables = this.tables;
        const first = events[0];
        if (tables.shared || first === undefined) return;
        // Held when they follow every deferred checkpoint (read in the commit's transaction).
        if (deferred.length > 0) this.held.offer(events, () => deferred.every((p) => tables.checkpoint(p.name) === first.position - 1n));
        // Only when every checkpoint is right before these events (else another process's events
        // come first: the next catch-up applies them, then these).
        if (inline.length > 0) this.writeNow(tables, events, inline);
      },
      // The store's transaction did not commit: the checkpoints this process believes may be
      // ahead, and what is held may not be in the log (what is, the next catch-up applies).
      rolledBack: () => {
        this.held.drop();
        this.known.clear();
      },
    };
  }

  /**
   * Write what the deferred projections hold: one transaction, which reads the checkpoints again
   * (another process sharing the file may have applied some of these events: they are skipped;
   * one below the held events, a reset, drops them).
   */
  applyHeld(): void {
    const tables = this.tables;
    const events = this.held.take();
    if (events.length === 0 || tables.shared || !tables.open) return;
    this.writeNow(tables, events, this.models.deferred);
  }

  /** applyHeld from a timer: a failure is a warning; the next catch-up applies the events from the log. */
  applyHeldSafely(): void {
    try {
      this.applyHeld();
    } catch (error) {
      process.emitWarning(`read models could not apply the deferred projections: ${String(error)}`);
    }
  }
}
