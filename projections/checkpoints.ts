// The checkpoints this process last wrote or read, by projection: where the next catch-up reads
// from, without a query per request. A stale, lower one is harmless: a page's update reads the
// checkpoints again in its transaction and skips what another process applied.
import type { Maybe } from '../lib/maybe.js';

export class KnownCheckpoints {
  private readonly known = new Map<string, bigint>();
  private cleared = 0;

  /** `read`: the stored checkpoint of a projection, for one not known yet. */
  constructor(private readonly read: (name: string) => Maybe<bigint>) {}

  /** The lowest of `names`' checkpoints, each read where not known (0 for none). */
  lowest(names: readonly string[]): Maybe<bigint> {
    let min: bigint | undefined;
    for (const name of names) {
      let position = this.known.get(name);
      if (position === undefined) {
        const stored = this.read(name);
        if (stored instanceof Promise) return stored.then((at) => { this.known.set(name, at); return this.lowest(names); });
        this.known.set(name, position = stored);
      }
      if (min === undefined || position < min) min = position;
    }
    return min ?? 0n;
  }

  /** The lowest of `names`' checkpoints as known, no read (0 for one not known); `below` caps it. */
  lowestKnown(names: readonly string[], below?: bigint): bigint {
    let min = below;
    for (const name of names) {
      const position = this.known.get(name) ?? 0n;
      if (min === undefined || position < min) min = position;
    }
    return min ?? 0n;
  }

  /** The checkpoints after a page was written (undefined: nothing written, a gap: all are read again). */
  wrote(after: ReadonlyMap<string, bigint> | undefined): void {
    if (after === undefined) this.clear();
    else for (const [name, position] of after) this.known.set(name, position);
  }

  /** How many times they were forgotten (a read begun before the last time is no longer news). */
  get clears(): number {
    return this.cleared;
  }

  /**
   * Checkpoints read as stored (another process may have written them) when `clears` was
   * `since`: each one raised to it, none lowered; nothing if they were forgotten since (a reset).
   */
  raise(stored: ReadonlyMap<string, bigint>, since: number): void {
    if (since !== this.cleared) return;
    for (const [name, position] of stored) if ((this.known.get(name) ?? -1n) < position) this.known.set(name, position);
  }

  /** Forget them all (a reset, a write that did not commit): they are read again. */
  clear(): void {
    this.cleared += 1;
    this.known.clear();
  }
}
