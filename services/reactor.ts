// What the gateway's reactors share (unknown-resolver.ts, scheme-tokens.ts, session-expiry.ts,
// token-shredding.ts): each schedules, at start, the pending work it finds, then is handed the log's
// events after its own start position by the one consumer of the log that hosts them all
// (services/reactors.ts); it keeps one timer per piece of pending work, retries work that failed
// (the store busy or closing, a full disk) with a growing delay, telling each failure in one log
// line, and on stop cancels its timers and waits for the work under way.
import { maskCardNumbers } from '../lib/mask.js';
import { pendingProjection, type PendingDoc } from '../projections/pending.js';
import type { ReadModelsPort } from '../projections/read-models.js';
import type { EventStore, RecordedEvent } from '../store/event-store.js';
import { oneLine } from '../store/storage-fault.js';
import type { HandlerDeps } from './command-handler.js';
import type { Sandbox } from './test-control/sandbox.js';

/** Where reactors tell their failures: pino's shape (the app's logger, or a child of it). */
export interface ReactorLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/** Without a logger (the CLI, scripts): one process warning per failure, on stderr. */
export const warningLog: ReactorLog = {
  warn: (_fields, message) => process.emitWarning(message, 'ReactorWarning'),
};

/** Failed work is tried again after its reactor's retry delay, doubled at each failure up to this. */
export const MAX_RETRY_MS = 60_000;
/** The first retry waits at least this long (a reactor whose delay is 0 does not spin). */
const MIN_RETRY_MS = 10;
/** setTimeout's longest delay (2^31 - 1 ms, about 24.8 days): node fires a longer one after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The delay before the retry that follows failure number `attempt` (1, 2, ...). */
export function retryDelay(baseMs: number, attempt: number): number {
  const base = Math.max(MIN_RETRY_MS, baseMs);
  return Math.min(MAX_RETRY_MS, base * 2 ** Math.min(attempt - 1, 30));
}

export abstract class Reactor {
  /** Its name in log lines and event metadata ('unknown-resolver', ...). */
  abstract readonly name: string;
  /** The event types it handles (undefined: every event); the host hands it no other. */
  readonly eventTypes: ReadonlySet<string> | undefined = undefined;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** Work due at an instant of a stream's merchant's clock (scheduleAt): armed again when that clock moves. */
  private readonly dueAt = new Map<string, { atMs: number; stream: string; work: () => Promise<void> }>();
  private stopFollowingClocks: (() => void) | undefined;
  private readonly running = new Set<Promise<void>>();
  protected stopped = false;
  /** The position through which its start-up scan saw the log: later events only are handed to it. */
  private from: bigint | undefined;
  private log: ReactorLog = warningLog;
  /** The merchants' clocks (the test-control API's), handed by the host at start. */
  private sandbox: Sandbox | undefined;
  private markCaughtUp!: () => void;
  /** Resolves once every event that existed at start has been handed to it (its work scheduled), or once stopped. */
  readonly caughtUp: Promise<void> = new Promise<void>((resolve) => { this.markCaughtUp = resolve; });

  /**
   * @param delayMs the reactor's own delay; also where the retries of failed work start
   * (services/reactor.ts retryDelay), unless `retryMs` says otherwise.
   */
  constructor(protected readonly store: EventStore, protected readonly readModels: ReadModelsPort, readonly delayMs: number, private readonly retryMs = delayMs) {}

  /** What the command handler writes with (services/command-handler.ts): the store, the read models caught up after. */
  protected get deps(): HandlerDeps {
    return { store: this.store, readModels: this.readModels, ...(this.sandbox ? { sandbox: this.sandbox } : {}) };
  }

  /**
   * Schedule the pending work found in the read models (or its own checkpoint); resolve to the
   * position through which that covers the log: the events after it are handed to `onEvent`.
   */
  protected abstract prepare(): Promise<bigint>;

  /** One event of the log after the start position (of a type in `eventTypes`). */
  protected abstract onEvent(event: RecordedEvent): void;

  /** Once every event that existed at start has been handed to it. */
  protected onCaughtUp(): void { /* nothing by default */ }

  /**
   * A prepare() from the pending read model: the events, up to its checkpoint, of every stream its
   * documents under `prefix` name are handed to onEvent; the checkpoint is the start position.
   */
  protected async preparePending(prefix: string): Promise<bigint> {
    const from = await this.readModels.checkpoint(pendingProjection.name);
    const streams = new Set((await this.readModels.withPrefix(pendingProjection.name, prefix)).map(({ doc }) => (JSON.parse(doc) as PendingDoc).stream));
    for (const stream of streams) {
      for (const event of await this.store.readStream(stream)) {
        if (event.position <= from) this.onEvent(event);
      }
    }
    return from;
  }

  /** Called by the host: scan the pending work; resolves to the position to follow the log from. */
  async start(log: ReactorLog = warningLog, sandbox?: Sandbox): Promise<bigint> {
    this.log = log;
    this.sandbox = sandbox;
    this.stopFollowingClocks = sandbox?.onClockAdvanced((merchantId) => this.clockAdvanced(merchantId));
    this.from = await this.prepare();
    return this.from;
  }

  /** Called by the host for each event of the log: handed on unless seen at start, or stopped. */
  deliver(event: RecordedEvent): void {
    if (this.stopped || this.from === undefined || event.position <= this.from) return;
    if (this.eventTypes && !this.eventTypes.has(event.type)) return;
    this.onEvent(event);
  }

  /** Called by the host once its subscription has delivered the log as it was at start. */
  caughtUpWithLog(): void {
    if (this.stopped) return;
    this.markCaughtUp();
    this.onCaughtUp();
  }

  /** Cancels its timers and waits for its work under way; the host hands it no more events. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopFollowingClocks?.();
    this.markCaughtUp();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.dueAt.clear();
    await Promise.allSettled([...this.running]);
  }

  protected cancel(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.dueAt.delete(key);
  }

  /** The time now (epoch ms) on the clock of the merchant `stream` belongs to (services/test-control/sandbox.ts). */
  protected nowMs(stream: string): number {
    return this.sandbox?.nowMsOfStream(stream) ?? Date.now();
  }

  /**
   * `schedule` at the instant `atMs` of the clock of `stream`'s merchant: when a test advances
   * that clock, the work is armed again for its new distance (at once when now past).
   */
  protected scheduleAt(key: string, atMs: number, stream: string, work: () => Promise<void>, replace = false): void {
    if (this.stopped || (this.timers.has(key) && !replace)) return;
    this.dueAt.set(key, { atMs, stream, work });
    this.arm(key, atMs - this.nowMs(stream), work, true, 0);
  }

  private clockAdvanced(merchantId: string): void {
    const sandbox = this.sandbox;
    for (const [key, { atMs, stream, work }] of [...this.dueAt]) {
      if (sandbox?.merchantOf(stream) === merchantId && this.timers.has(key)) this.arm(key, atMs - this.nowMs(stream), work, true, 0);
    }
  }

  /**
   * Run `work` after `delayMs` (at once when negative). A key already scheduled keeps its timer
   * unless `replace`. Work that fails is logged and tried again later (see `retryDelay`).
   */
  protected schedule(key: string, delayMs: number, work: () => Promise<void>, replace = false): void {
    if (this.stopped || (this.timers.has(key) && !replace)) return;
    this.dueAt.delete(key);
    this.arm(key, delayMs, work, true, 0);
  }

  private arm(key: string, delayMs: number, work: () => Promise<void>, replace: boolean, failures: number): void {
    if (this.stopped || (this.timers.has(key) && !replace)) return;
    clearTimeout(this.timers.get(key));
    // A longer delay than a timer holds (a payment link's expiry weeks away) would fire at once:
    // wait the longest a timer holds, then arm again for the rest.
    if (delayMs > MAX_TIMER_MS) {
      this.timers.set(key, setTimeout(() => this.arm(key, delayMs - MAX_TIMER_MS, work, true, failures), MAX_TIMER_MS));
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.dueAt.delete(key);
      const run = work().catch((error: unknown) => {
        // Stopping: the next start finds the work pending.
        if (this.stopped) return;
        const attempt = failures + 1;
        const nextDelayMs = retryDelay(this.retryMs, attempt);
        const message = maskCardNumbers(oneLine(error));
        this.log.warn({ reactor: this.name, key, attempt, nextDelayMs, error: message },
          `reactor ${this.name}: work on ${key} failed (attempt ${attempt}), retried in ${nextDelayMs} ms: ${message}`);
        // A key scheduled again meanwhile (a newer event) keeps that timer.
        this.arm(key, nextDelayMs, work, false, attempt);
      });
      this.running.add(run);
      void run.finally(() => this.running.delete(run));
    }, Math.max(0, delayMs));
    this.timers.set(key, timer);
  }
}
