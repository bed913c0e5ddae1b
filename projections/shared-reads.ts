// A document read from tables shared by every instance (PostgreSQL), as every read of them is:
// the log's head read first, the models caught up to it (this instance's catch-up, which also
// applies what others committed and did not apply yet), then the document, which sees every write
// answered before the read began, on any instance. The document comes from this instance's cache
// (projections/doc-cache.ts) when no event up to that head touched it since it was read, else
// from the tables (and is kept).
import type { Maybe } from '../lib/maybe.js';
import type { EventStore } from '../store/event-store.js';
import type { SharedTables } from '../store/read-model-tables.js';
import { DocCache } from './doc-cache.js';
import type { Projection } from './projection.js';

export interface SharedReadsRunner {
  /** The models `projection` reads caught up to `head` (the live ones, and it if 'onRead'). */
  catchUp(head: bigint, projection: string): Maybe<void>;
  /** Where the runner knows the projection's checkpoint to be, at least (0 when it does not). */
  knownCheckpoint(projection: string): bigint;
}

export class SharedReads {
  private readonly cache: DocCache;

  constructor(
    private readonly tables: SharedTables,
    private readonly store: EventStore,
    projections: readonly Projection[],
    private readonly runner: SharedReadsRunner,
    options: { cachedDocs?: number | undefined; page: number },
  ) {
    this.cache = new DocCache(projections, (fromPosition, maxCount) => store.readAll({ fromPosition, maxCount }), options.cachedDocs, options.page);
  }

  /** How many documents the cache holds (tests, diagnostics). */
  get cachedDocs(): number {
    return this.cache.size;
  }

  async get(projection: string, key: string): Promise<string | undefined> {
    const head = await this.store.headPosition();
    await this.runner.catchUp(head, projection);
    await this.cache.reach(head);
    const held = this.cache.get(projection, key, head);
    if (held !== undefined) return held;
    const known = this.runner.knownCheckpoint(projection);
    const read = this.cache.begin(projection, key, known > head ? known : head);
    let doc: string | undefined;
    try {
      doc = await this.tables.get(projection, key);
    } finally {
      this.cache.end(read, doc);
    }
    return doc;
  }

  /** The tables were reset (or are being rebuilt): nothing held is kept. */
  clear(): void {
    this.cache.clear();
  }
}
