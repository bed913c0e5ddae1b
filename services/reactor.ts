// What the gateway's reactors share (unknown-resolver.ts, scheme-tokens.ts, session-expiry.ts, token-shredding.ts):
// they follow the store's log, keep one timer per piece of pending work, retry work the store
// refused after another delay, and on stop cancel the timers and wait for work under way.
import type { ReadModels } from '../projections/read-models.js';
import type { EventStore, RecordedEvent, Subscription } from '../store/event-store.js';
import type { HandlerDeps } from './command-handler.js';

export abstract class Reactor {
  private subscription: Subscription | undefined;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  protected stopped = false;

  constructor(protected readonly store: EventStore, protected readonly readModels: ReadModels, readonly delayMs: number) {}

  /** What the command handler writes with (services/command-handler.ts): the store, the read models caught up after. */
  protected get deps(): HandlerDeps {
    return { store: this.store, readModels: this.readModels };
  }

  /** Schedule the pending work found in the read models, then `follow` the log. */
  abstract start(): Promise<void>;

  /** Every event after `from`, live (events by other processes too). */
  protected follow(from: bigint, onEvent: (event: RecordedEvent) => void): void {
    this.subscription = this.store.subscribeAll({ fromPosition: from }, {
      onEvent,
      onError: () => { /* the store closed under the subscription: nothing left to do here */ },
    });
  }

  /** Resolves once every event that existed at start has been seen (its work scheduled). */
  get caughtUp(): Promise<void> {
    return this.subscription?.caughtUp ?? Promise.resolve();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.close();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  protected cancel(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
  }

  /**
   * Run `work` after `delayMs` (at once when negative). A key already scheduled keeps its timer
   * unless `replace`. Work the store refuses (busy, closing) is tried again `this.delayMs` later.
   */
  protected schedule(key: string, delayMs: number, work: () => Promise<void>, replace = false): void {
    if (this.stopped || (this.timers.has(key) && !replace)) return;
    this.cancel(key);
    const timer = setTimeout(() => {
      this.timers.delete(key);
      const run = work().catch(() => this.schedule(key, this.delayMs, work));
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
    }, Math.max(0, delayMs));
    this.timers.set(key, timer);
  }
}
