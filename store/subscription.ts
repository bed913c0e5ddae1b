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
  let position = options.fromPosition ?? 0n;
  let closed = false;
  let wake: (() => void) | undefined;
  let pending = false; // a notification arrived while pulling
  let resolveCaughtUp!: () => void;
  const caughtUp = new Promise<void>((resolve) => { resolveCaughtUp = resolve; });
  let isCaughtUp = false;

  const stopListening = notifier.on(() => {
    pending = true;
    wake?.();
  });
  const timer = pollIntervalMs ? setInterval(() => { pending = true; wake?.(); }, pollIntervalMs) : undefined;
  timer?.unref();

  const loop = async (): Promise<void> => {
    while (!closed) {
      pending = false;
      let batch: RecordedEvent[];
      do {
        batch = await readAll({ fromPosition: position, maxCount: PAGE });
        for (const event of batch) {
          if (closed) return;
          // A handler that returns no promise is not awaited: no turn of the microtask queue per
          // event (the reactors' dispatch returns none).
          const handled = handlers.onEvent(event);
          if (handled !== undefined) await handled;
          position = event.position;
        }
      } while (batch.length === PAGE && !closed);
      if (!isCaughtUp) {
        isCaughtUp = true;
        handlers.onCaughtUp?.();
        resolveCaughtUp();
      }
      if (!pending && !closed) await new Promise<void>((resolve) => { wake = resolve; });
      wake = undefined;
    }
  };
  const running = loop().catch((error: unknown) => {
    closed = true;
    resolveCaughtUp();
    if (handlers.onError) handlers.onError(error);
  });

  return {
    caughtUp,
    async close() {
      closed = true;
      stopListening();
      if (timer) clearInterval(timer);
      wake?.();
      await running;
    },
  };
}
