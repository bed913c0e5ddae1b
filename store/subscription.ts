// A catch-up subscription built on readAll: it pulls everything after its last position, then
// waits for a notification (an append in this process) or a poll tick (appends by other
// processes sharing the store), and pulls again. Pulling keeps catch-up and live delivery in
// one ordered sequence: no gap, no duplicate.
import type { EventStore, RecordedEvent, SubscribeOptions, Subscription, SubscriptionHandlers } from './event-store.js';

const PAGE = 1000;

export class Notifier {
  private readonly listeners = new Set<() => void>();
  on(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
  notify(): void {
    for (const listener of this.listeners) listener();
  }
}

export function pullSubscription(
  readAll: EventStore['readAll'],
  notifier: Notifier,
  options: SubscribeOptions,
  handlers: SubscriptionHandlers,
  pollIntervalMs: number | undefined,
): Subscription {
  return new PullSubscription(readAll, notifier, options.fromPosition ?? 0n, handlers, pollIntervalMs);
}

class PullSubscription implements Subscription {
  readonly caughtUp: Promise<void>;
  private resolveCaughtUp!: () => void;
  private isCaughtUp = false;
  private closed = false;
  private wake: (() => void) | undefined;
  /** A notification arrived while pulling. */
  private pending = false;
  private readonly stopListening: () => void;
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly running: Promise<void>;

  constructor(
    private readonly readAll: EventStore['readAll'],
    notifier: Notifier,
    private position: bigint,
    private readonly handlers: SubscriptionHandlers,
    pollIntervalMs: number | undefined,
  ) {
    this.caughtUp = new Promise<void>((resolve) => { this.resolveCaughtUp = resolve; });
    const poke = () => {
      this.pending = true;
      this.wake?.();
    };
    this.stopListening = notifier.on(poke);
    this.timer = pollIntervalMs ? setInterval(poke, pollIntervalMs) : undefined;
    this.timer?.unref();
    this.running = this.loop().catch((error: unknown) => {
      this.closed = true;
      this.resolveCaughtUp();
      if (handlers.onError) handlers.onError(error);
    });
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      this.pending = false;
      let batch: RecordedEvent[];
      do {
        batch = await this.readAll({ fromPosition: this.position, maxCount: PAGE });
        for (const event of batch) {
          if (this.closed) return;
          // A handler that returns no promise is not awaited: no turn of the microtask queue per
          // event (the reactors' dispatch returns none).
          const handled = this.handlers.onEvent(event);
          if (handled !== undefined) await handled;
          this.position = event.position;
        }
      } while (batch.length === PAGE && !this.closed);
      if (!this.isCaughtUp) {
        this.isCaughtUp = true;
        this.handlers.onCaughtUp?.();
        this.resolveCaughtUp();
      }
      if (!this.pending && !this.closed) await new Promise<void>((resolve) => { this.wake = resolve; });
      this.wake = undefined;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopListening();
    if (this.timer) clearInterval(this.timer);
    this.wake?.();
    await this.running;
  }
}
