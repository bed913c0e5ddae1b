// The port's catch-up subscription on KurrentDB's subscribeToAll: from a stored position
// (exclusive), catch up, then live, one event at a time through the handler, in $all order.
//
// Caught up means "every event that existed when the subscription started was delivered". Two
// signals say so, whichever comes first: our own (the position delivered reaches the head read
// at the start, so servers older than 23.10, which send no caughtUp message, work too), and the
// server's caughtUp message once the events it sent before it have gone through the handler
// (the client emits it while those may still wait in the stream's buffer).
//
// A dropped connection (node restart, leader election) resubscribes from the last delivered
// position, with a growing delay; any other error ends the subscription through onError.
import type { AllStreamResolvedEvent, AllStreamSubscription, Filter } from '@kurrent/kurrentdb-client';
import type { Subscription, SubscriptionHandlers } from './event-store.js';
import { fromResolvedEvent, isTransient, toReadPosition, type KurrentClient } from './kurrentdb-mapping.js';

export interface SubscribeToAllParams {
  client: Pick<KurrentClient, 'subscribeToAll'>;
  filter: Filter;
  streamPrefix: string;
  fromPosition: bigint;
  headPosition: () => Promise<bigint>;
  /** Delays before resubscribing after a transient error (the last one repeats). */
  retryDelaysMs?: readonly number[];
}

const RETRY_DELAYS_MS = [100, 250, 500, 1000, 2000, 5000];

export function subscribeToAll(params: SubscribeToAllParams, handlers: SubscriptionHandlers): Subscription {
  return new KurrentSubscription(params, handlers);
}

class KurrentSubscription implements Subscription {
  readonly caughtUp: Promise<void>;
  private resolveCaughtUp!: () => void;
  private isCaughtUp = false;
  private position: bigint;
  private closed = false;
  private current: AllStreamSubscription | undefined;
  /** Ends a wait before resubscribing. */
  private wake: (() => void) | undefined;
  private readonly running: Promise<void>;

  constructor(private readonly params: SubscribeToAllParams, private readonly handlers: SubscriptionHandlers) {
    this.position = params.fromPosition;
    this.caughtUp = new Promise<void>((resolve) => { this.resolveCaughtUp = resolve; });
    this.running = this.run().catch((error: unknown) => {
      this.closed = true;
      this.resolveCaughtUp();
      handlers.onError?.(error);
    });
  }

  private markCaughtUp(): void {
    if (this.isCaughtUp || this.closed) return;
    this.isCaughtUp = true;
    this.handlers.onCaughtUp?.();
    this.resolveCaughtUp();
  }

  /** Deliver from `position` until closed (resolves) or the stream fails (rejects). */
  private async consume(head: bigint): Promise<void> {
    if (this.closed) return;
    const subscription = this.params.client.subscribeToAll({ fromPosition: toReadPosition(this.position), filter: this.params.filter });
    this.current = subscription;
    let serverCaughtUp = false;
    let idle = true; // waiting for the next event, none in hand
    subscription.on('caughtUp', () => {
      serverCaughtUp = true;
      if (idle && subscription.readableLength === 0) this.markCaughtUp();
    });
    const events: AsyncIterator<AllStreamResolvedEvent> = subscription[Symbol.asyncIterator]();
    for (;;) {
      idle = true;
      if (this.position >= head || (serverCaughtUp && subscription.readableLength === 0)) this.markCaughtUp();
      const next = await events.next();
      idle = false;
      if (this.closed) return;
      if (next.done) throw Object.assign(new Error('the KurrentDB subscription ended'), { type: 'unavailable' });
      const event = fromResolvedEvent(next.value, this.params.streamPrefix);
      if (!event || event.position <= this.position) continue;
      await this.handlers.onEvent(event);
      this.position = event.position;
    }
  }

  private async run(): Promise<void> {
    const delays = this.params.retryDelaysMs ?? RETRY_DELAYS_MS;
    let failures = 0;
    while (!this.closed) {
      const before = this.position;
      try {
        await this.consume(await this.params.headPosition());
        return;
      } catch (error) {
        if (this.closed) return;
        if (!isTransient(error)) throw error;
        if (this.position > before) failures = 0;
        const delay = delays[Math.min(failures++, delays.length - 1)] ?? 1000;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wake = () => { clearTimeout(timer); resolve(); };
        });
        this.wake = undefined;
      }
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    const subscription = this.current;
    if (subscription) {
      try { await subscription.unsubscribe(); } catch { /* never connected */ }
      subscription.destroy();
    }
    await this.running;
  }
}
