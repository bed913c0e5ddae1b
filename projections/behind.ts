// On tables shared by every instance (PostgreSQL), each instance's read models follow its own
// commits only: the catch-up that starts after them applies the log up to its head, the others'
// events with them, so what an instance commits is applied by that instance, once, and another
// instance that only follows (no requests, or other ones) does no read model work for it: no
// catch-up, no transaction, no lock to wait for only to find the page written.
//
// What no one applies would be left behind: the events of an instance that stopped or crashed
// before its catch-up, of a process that does not follow (the CLI). So every second each instance
// looks at the checkpoints as stored (one read, no lock) and catches up when they are behind the
// head as it was at its previous look, a second ago: what is that late, its writer did not apply.
// The look also tells this instance's known checkpoints what others applied, and so does every
// catch-up before it reads the log (refresh), so that it starts from there. Reads are not
// concerned: each catches up to the head first.
import type { EventStore } from '../store/event-store.js';
import type { SharedTables } from '../store/read-model-tables.js';
import type { KnownCheckpoints } from './checkpoints.js';

/** How often the read models on shared tables look at the checkpoints (ms). */
export const LOOK_MS = 1_000;

export class BehindWatch {
  /** The log's head at the previous look (undefined before the first). */
  private headBefore: bigint | undefined;
  private looking = false;

  /**
   * @param names the projections kept current
   * @param catchUp starts a catch-up (the runner's)
   * @param everyMs how often to look (LOOK_MS; tests)
   */
  constructor(
    private readonly tables: SharedTables,
    private readonly store: Pick<EventStore, 'headPosition'>,
    private readonly names: readonly string[],
    private readonly known: KnownCheckpoints,
    private readonly catchUp: () => void,
    readonly everyMs = LOOK_MS,
  ) {}

  /** One look (one at a time); a failure is left to the next one (a read catches up on its own). */
  look(): void {
    if (this.looking || this.names.length === 0) return;
    this.looking = true;
    this.compare().catch(() => undefined).finally(() => { this.looking = false; });
  }

  /**
   * The checkpoints as stored raised into the known ones (one read, no lock): a catch-up starts
   * where the others left off, instead of reading what they applied only to skip it in its
   * transaction (an instance that follows nothing, read long after its last catch-up).
   */
  async refresh(): Promise<ReadonlyMap<string, bigint>> {
    const since = this.known.clears;
    const stored = await this.tables.checkpoints(this.names);
    this.known.raise(stored, since);
    return stored;
  }

  private async compare(): Promise<void> {
    const stored = await this.refresh();
    let lowest: bigint | undefined;
    for (const position of stored.values()) if (lowest === undefined || position < lowest) lowest = position;
    const before = this.headBefore;
    if (before !== undefined && lowest !== undefined && lowest < before) this.catchUp();
    this.headBefore = await this.store.headPosition();
  }
}
