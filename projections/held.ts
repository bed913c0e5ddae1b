// The committed events held for the deferred projections (projection.apply 'deferred'), in log
// order, until they are written in one transaction: `flush` is called DEFER_MS after the first
// is held, or at once (on the next turn) when a page is held.
import type { ProjectedEvent } from '../store/event-store.js';

export class HeldEvents {
  private events: ProjectedEvent[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly page: number, readonly deferMs: number, private readonly flush: () => void) {}

  get length(): number {
    return this.events.length;
  }

  /** The position of the last event held (undefined: none). */
  get tail(): bigint | undefined {
    return this.events.at(-1)?.position;
  }

  /**
   * Hold a commit's events when they follow what is held or, with nothing held, when `follow()`
   * says they follow the checkpoints; otherwise (events of another process not yet applied come
   * first) the next catch-up applies them from the log.
   */
  offer(events: readonly ProjectedEvent[], follow: () => boolean): void {
    const first = events[0];
    const tail = this.tail;
    if (first === undefined || (tail === undefined ? !follow() : tail !== first.position - 1n)) return;
    for (const e of events) this.events.push(e);
    if (this.events.length >= this.page) {
      clearTimeout(this.timer);
      this.timer = undefined;
      setImmediate(this.flush);
    } else if (this.timer === undefined) {
      this.timer = setTimeout(this.flush, this.deferMs);
      this.timer.unref();
    }
  }

  /** What is held, no longer held. */
  take(): ProjectedEvent[] {
    const events = this.events;
    this.drop();
    return events;
  }

  drop(): void {
    this.events = [];
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
