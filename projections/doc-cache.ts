// The documents of shared tables (PostgreSQL) this instance read, kept so that reading one again
// needs no query. A read still catches up to the log's head first (projections/shared-reads.ts);
// what it may take from here is a document that no event up to that head changed since it was
// read. So the cache follows the log itself, not the tables: `through` is the position up to
// which every event's documents are accounted for, and moving it reads the events after it (this
// instance's commits and the ones of others it heard of are in the store's memory: no query,
// usually) and drops every document an event touches (each projection's keysOf), whoever applied
// the event to the tables. Every document held reflects every event up to `through`.
import { setMostRecent } from '../lib/bounded-map.js';
import type { ProjectedEvent } from '../store/event-store.js';
import type { Projection } from './projection.js';

/** How many documents are kept (least recently used out): a token's document is about 1 KB. */
export const CACHED_DOCS = 10_000;
/**
 * Further behind the head than this, the cache starts again empty rather than read the events
 * between (an instance that served no reads while others wrote: the store's memory no longer
 * holds them, and reading them from the server would cost more than reading documents again).
 */
export const MOST_EVENTS_READ = 1_000;

/** A read of the tables under way: stale once an event touched its document (or the cache was cleared) meanwhile. */
export interface DocRead {
  readonly id: string;
  stale: boolean;
}

const idOf = (projection: string, key: string) => `${projection}\u0000${key}`;

export class DocCache {
  private readonly docs = new Map<string, string>();
  private through: bigint | undefined;
  private readonly reading = new Map<string, Set<DocRead>>();
  private moving: Promise<void> | undefined;
  /** Bumped by clear(): events read before it are not applied after it. */
  private epoch = 0;

  /**
   * @param projections every projection whose documents may be cached (their keysOf say what an event touches)
   * @param readAll the log after a position, at most `maxCount` events
   */
  constructor(
    private readonly projections: readonly Projection[],
    private readonly readAll: (fromPosition: bigint, maxCount: number) => Promise<readonly ProjectedEvent[]>,
    private readonly max = CACHED_DOCS,
    private readonly page = 1_000,
  ) {}

  get size(): number {
    return this.docs.size;
  }

  /** Account for every event up to `head` (one move at a time; the others wait for it). */
  async reach(head: bigint): Promise<void> {
    while (this.through === undefined || this.through < head) {
      if (this.moving === undefined) {
        this.moving = this.move(head).finally(() => { this.moving = undefined; });
      }
      await this.moving;
    }
  }

  /** The document as of `head` or later, if held (after reach(head)). */
  get(projection: string, key: string, head: bigint): string | undefined {
    if (this.through === undefined || this.through < head) return undefined;
    const id = idOf(projection, key);
    const doc = this.docs.get(id);
    if (doc !== undefined) setMostRecent(this.docs, id, doc, this.max);
    return doc;
  }

  /**
   * Before a read of the tables, which hold every event up to `tablesAt` (at least the reader's
   * head): what it finds may be kept only if that covers `through` as it is now.
   */
  begin(projection: string, key: string, tablesAt: bigint): DocRead {
    const through = this.through;
    const read: DocRead = { id: idOf(projection, key), stale: through === undefined || through > tablesAt };
    let reads = this.reading.get(read.id);
    if (reads === undefined) this.reading.set(read.id, reads = new Set());
    reads.add(read);
    return read;
  }

  /**
   * After it: the document is kept when the tables held every event up to `through` as it was at
   * begin, and no event after that touched it since. Absent documents are not kept.
   */
  end(read: DocRead, doc: string | undefined): void {
    const reads = this.reading.get(read.id);
    reads?.delete(read);
    if (reads?.size === 0) this.reading.delete(read.id);
    if (doc === undefined || read.stale) return;
    setMostRecent(this.docs, read.id, doc, this.max);
  }

  /** Forget everything (the tables were reset or are rebuilt); reads under way keep nothing. */
  clear(): void {
    this.epoch += 1;
    this.docs.clear();
    this.through = undefined;
    for (const reads of this.reading.values()) for (const read of reads) read.stale = true;
  }

  private async move(head: bigint): Promise<void> {
    const epoch = this.epoch;
    let from = this.through;
    if (from === undefined || head - from > BigInt(MOST_EVENTS_READ)) {
      this.clear();
      this.through = head;
      return;
    }
    while (from < head) {
      const events = await this.readAll(from, this.page);
      if (epoch !== this.epoch) return;
      const last = events.at(-1);
      if (last === undefined) {
        // The log ends before the head read: not the log these documents came from.
        this.clear();
        this.through = head;
        return;
      }
      for (const event of events) this.touched(event);
      this.through = from = last.position;
    }
  }

  private touched(event: ProjectedEvent): void {
    for (const projection of this.projections) {
      if (!projection.handles.has(event.type)) continue;
      for (const key of projection.keysOf(event)) {
        const id = idOf(projection.name, key);
        this.docs.delete(id);
        const reads = this.reading.get(id);
        if (reads !== undefined) for (const read of reads) read.stale = true;
      }
    }
  }
}
