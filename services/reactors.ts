// The one consumer of the log that hosts every reactor of the gateway's (services/reactor.ts):
// each reactor first schedules the pending work it finds (its start-up scan) and says through
// which position that covers the log; then one subscription, from the lowest of those positions,
// hands each event to the reactors that handle it (never one a reactor's scan already covered).
// The host starts them, tells when they have caught up with the log, and stops them together.
import { maskCardNumbers } from '../lib/mask.js';
import type { EventStore, RecordedEvent, Subscription } from '../store/event-store.js';
import { oneLine } from '../store/storage-fault.js';
import { warningLog, type Reactor, type ReactorLog } from './reactor.js';
import type { Sandbox } from './test-control/sandbox.js';

export class ReactorHost {
  private subscription: Subscription | undefined;
  private stopping = false;
  private readonly observers = new Set<(event: RecordedEvent) => void>();

  /**
   * @param log where the reactors tell failed work (default: process warnings)
   * @param sandbox the merchants' clocks the reactors' timers and commands go by (the real time without)
   */
  constructor(private readonly store: EventStore, readonly reactors: readonly Reactor[], private readonly log: ReactorLog = warningLog, private readonly sandbox?: Sandbox) {}

  /** Each reactor's start-up scan, in turn; then the one subscription to the log, live. */
  async start(): Promise<void> {
    let from: bigint | undefined;
    try {
      for (const reactor of this.reactors) {
        const position = await reactor.start(this.log, this.sandbox);
        if (from === undefined || position < from) from = position;
      }
    } catch (error) {
      // A scan the store refused: the timers of those scanned before are cancelled.
      await this.stop();
      throw error;
    }
    if (this.stopping) return;
    this.subscription = this.store.subscribeAll({ fromPosition: from ?? 0n }, {
      onEvent: (event) => this.dispatch(event),
      onCaughtUp: () => { for (const reactor of this.reactors) reactor.caughtUpWithLog(); },
      onError: (error) => {
        // The store closed under the subscription (stopping): nothing left to do here.
        if (!this.stopping) this.log.warn({ error: maskCardNumbers(oneLine(error)) }, `reactors: the log's subscription ended: ${maskCardNumbers(oneLine(error))}`);
        for (const reactor of this.reactors) reactor.caughtUpWithLog();
      },
    });
  }

  /** Resolves once every event that existed at start has been handed to the reactors (their work scheduled). */
  get caughtUp(): Promise<void> {
    return Promise.all(this.reactors.map((reactor) => reactor.caughtUp)).then(() => undefined);
  }

  /** The subscription closed, then every reactor stopped (last started, first stopped). */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.subscription?.close();
    for (const reactor of [...this.reactors].reverse()) await reactor.stop();
  }

  /**
   * `listener` is also handed each event the subscription delivers (the metrics count them there,
   * without a subscription of their own); returns what stops that.
   */
  observe(listener: (event: RecordedEvent) => void): () => void {
    this.observers.add(listener);
    return () => this.observers.delete(listener);
  }

  private dispatch(event: RecordedEvent): void {
    for (const observer of this.observers) observer(event);
    for (const reactor of this.reactors) {
      try {
        reactor.deliver(event);
      } catch (error) {
        // One reactor's fault does not stop the others from seeing the log.
        const message = maskCardNumbers(oneLine(error));
        this.log.warn({ reactor: reactor.name, position: String(event.position), error: message },
          `reactor ${reactor.name}: event at position ${event.position} not handled: ${message}`);
      }
    }
  }
}
