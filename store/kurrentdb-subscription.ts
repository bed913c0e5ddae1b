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
  const delays = params.retryDelaysMs ?? RETRY_DELAYS_MS;
  let position = params.fromPosition;
  let closed = false;
  let current: AllStreamSubscription | undefined;
  let wake: (() => void) | undefined; // ends a wait before resubscribing
  let isCaughtUp = false;
  let resolveCaughtUp!: () => void;
  const caughtUp = new Promise<void>((resolve) => { resolveCaughtUp = resolve; });
  const markCaughtUp = () => {
    if (isCaughtUp || closed) return;
    isCaughtUp = true;
    handlers.onCaughtUp?.();
    resolveCaughtUp();
  };

  /** Deliver from `position` until closed (resolves) or the stream fails (rejects). */
  const consume = async (head: bigint): Promise<void> => {
    if (closed) return;
    const subscription = params.client.subscribeToAll({ fromPosition: toReadPosition(position), filter: params.filter });
    current = subscription;
    let serverCaughtUp = false;
    let idle = true; // waiting for the next event, none in hand
    subscription.on('caughtUp', () => {
      serverCaughtUp = true;
      if (idle && subscription.readableLength === 0) markCaughtUp();
    });
    const events: AsyncIterator<AllStreamResolvedEvent> = subscription[Symbol.asyncIterator]();
    for (;;) {
      idle = true;
      if (position >= head || (serverCaughtUp && subscription.readableLength === 0)) markCaughtUp();
      const next = await events.next();
      idle = false;
      if (closed) return;
      if (next.done) throw Object.assign(new Error('the KurrentDB subscription ended'), { type: 'unavailable' });
      const event = fromResolvedEvent(next.value, params.streamPrefix);
      if (!event || event.position <= position) continue;
      await handlers.onEvent(event);
      position = event.position;
    }
  };

  const run = async (): Promise<void> => {
    let failures = 0;
    while (!closed) {
      const before = position;
      try {
        await consume(await params.headPosition());
        return;
      } catch (error) {
        if (closed) return;
        if (!isTransient(error)) throw error;
        if (position > before) failures = 0;
        const delay = delays[Math.min(failures++, delays.length - 1)] ?? 1000;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          wake = () => { clearTimeout(timer); resolve(); };
        });
        wake = undefined;
      }
    }
  };

  const running = run().catch((error: unknown) => {
    closed = true;
    resolveCaughtUp();
    handlers.onError?.(error);
  });

  return {
    caughtUp,
    async close() {
      closed = true;
      wake?.();
      const subscription = current;
      if (subscription) {
        try { await subscription.unsubscribe(); } catch { /* never connected */ }
        subscription.destroy();
      }
      await running;
    },
  };
}
