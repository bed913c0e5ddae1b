// One catch-up of the read models at a time: a pass applies pages of the log until none is left,
// and a call during it makes it pass again once it runs out. Callers wait for a position (an
// append's, or the head when they asked), not for the catch-up to run out of events: under load
// it may not. Each page settles the waiters it reached; a failure fails those waiting (the next
// catch-up tries again).

/** A pass: pages applied until none is left, `reached(position)` told after each. */
type Pass = (reached: (position: bigint) => void) => Promise<void>;

export class CatchUps {
  private running: Promise<void> | undefined;
  private again = false;
  private waiters: Array<{ position: bigint; resolve: () => void; reject: (error: unknown) => void }> = [];
  /** A catch-up nobody waited for failed and said so: the next failures are not told until one succeeds. */
  private warned = false;

  constructor(private readonly pass: Pass) {}

  /** The catch-up under way, if any (resolves when it ends; never rejects). */
  get current(): Promise<void> | undefined {
    return this.running;
  }

  /** Start a catch-up, or have the one under way pass again. */
  run(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    // (Started on the next microtask: `running` is set before the passes can end.)
    this.running = Promise.resolve().then(() => this.passes());
  }

  /** Resolves once a catch-up reached `position` (or ran out of events after this call). */
  waitFor(position: bigint): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ position, resolve, reject });
      this.run();
    });
  }

  private async passes(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.pass((position) => this.settle(position));
      } while (this.again);
      // Out of events: every waiter's position (an append answered, the head when it asked) is behind the last page read.
      this.settle(undefined);
      this.warned = false;
    } catch (error) {
      const waiting = this.waiters;
      this.waiters = [];
      // A waiter is told; a catch-up nobody waits for (after the reply, a notice) warns, once until one succeeds.
      if (waiting.length === 0 && !this.warned) process.emitWarning(`read models could not catch up: ${String(error)}`);
      this.warned ||= waiting.length === 0;
      for (const waiter of waiting) waiter.reject(error);
    } finally {
      this.running = undefined;
    }
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
}
