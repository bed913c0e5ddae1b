// Which positions of the log the PostgreSQL store's memory (memory.ts) has accounted for: its own
// commits and the notifications of the others'. Memory answers only for what it has accounted for;
// a read waits here for the commits its head read showed (their notifications usually on the way).

/** A gap in the accounted positions that no notification fills within this long is given up on (memory.ts forgets everything). */
const GAP_PATIENCE_MS = 1_000;

export class AccountedPositions {
  /** Every position up to this one is accounted for: written by this instance or notified by another. */
  private to = 0n;
  /** Accounted ranges above `to` + 1 (first → last), waiting for the ones between. */
  private readonly ahead = new Map<bigint, bigint>();
  /** The highest position known to exist. */
  private highest = 0n;
  /** Since when (ms) `to` has been behind `highest`. */
  private gapSince: number | undefined;
  /** Reads waiting for every position up to theirs to be accounted for. */
  private waiting: Array<{ head: bigint; done: (accounted: boolean) => void }> = [];

  /** The highest position known to exist. */
  get seen(): bigint {
    return this.highest;
  }

  /** From now on everything known to exist counts as accounted for (memory forgot all it held). */
  restart(): void {
    this.to = this.highest;
    this.ahead.clear();
    this.gapSince = undefined;
    this.release(true);
  }

  /** Memory no longer hears of commits: waiting reads ask the server. */
  deaf(): void {
    this.release(false);
  }

  /** A position known to exist (a read's, the head's, a commit's). */
  note(position: bigint): void {
    if (position > this.highest) this.highest = position;
    if (this.to < this.highest) this.gapSince ??= Date.now();
  }

  /** Whether every position known to exist is accounted for; 'stuck' when a gap outlived its patience. */
  complete(): boolean | 'stuck' {
    if (this.to >= this.highest) return true;
    return this.gapSince !== undefined && Date.now() - this.gapSince > GAP_PATIENCE_MS ? 'stuck' : false;
  }

  /**
   * Whether every position up to `head` is accounted for: at once, else once the notifications of
   * the commits up to it come; false if they do not within `patienceMs`.
   */
  through(head: bigint, patienceMs: number): boolean | Promise<boolean> {
    if (this.to >= head) return true;
    return new Promise<boolean>((resolve) => {
      const done = (accounted: boolean) => {
        clearTimeout(timer);
        this.waiting = this.waiting.filter((w) => w !== waiter);
        resolve(accounted);
      };
      const waiter = { head, done };
      const timer = setTimeout(() => done(false), patienceMs);
      this.waiting.push(waiter);
    });
  }

  /** Positions first..last accounted for (a commit of this instance's, or one notified). */
  account(first: bigint, last: bigint): void {
    this.note(last);
    if (first > this.to + 1n) {
      if ((this.ahead.get(first) ?? -1n) < last) this.ahead.set(first, last);
      return;
    }
    const before = this.to;
    if (last > this.to) this.to = last;
    for (let moved = true; moved && this.ahead.size > 0;) {
      moved = false;
      for (const [from, to] of this.ahead) {
        if (from > this.to + 1n) continue;
        this.ahead.delete(from);
        if (to > this.to) this.to = to;
        moved = true;
      }
    }
    // Patience counts from the last progress: notifications that keep coming are no stuck gap.
    if (this.to >= this.highest) this.gapSince = undefined;
    else if (this.to > before) this.gapSince = Date.now();
    if (this.to > before) for (const w of this.waiting) if (w.head <= this.to) w.done(true);
  }

  private release(accounted: boolean): void {
    for (const w of this.waiting) w.done(accounted);
  }
}
