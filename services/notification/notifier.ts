// The reactor of webhook notifications (docs/notifications.md). For each order event that creates
// or changes a transaction (PaymentRecorded, OrderTransactionRecorded, PaymentOutcomeResolved) of a
// merchant with notifications, it appends NotificationScheduled to a stream of its own (one per
// notification, named after the order event's id, so every instance schedules the same one and
// the first append wins); then it makes each attempt when due (delivery.ts), retries with a
// doubling delay, and gives up after NOTIFICATION_MAX_ATTEMPTS. At start it finds the pending
// notifications in its read model (projections/notifications.ts) and reads the log again from the
// latest order event a notification was scheduled for; an attempt begun by a process that stopped
// before its answer is recorded as failed once overdue, and the next one follows.
import { streams, type NotificationEvent } from '../../domain/events.js';
import { NOTIFICATION_EVENT_TYPES } from '../../domain/notification/events.js';
import { decideSchedule, interruptedAfterMs, type NotificationState, type RetryPolicy } from '../../domain/notification/notification.js';
import { maskCardNumbers } from '../../lib/mask.js';
import type { Merchants } from '../../merchants.js';
import { notificationsProjection, PENDING_PREFIX, THROUGH_KEY, type PendingNotificationDoc, type ThroughDoc } from '../../projections/notifications.js';
import type { ReadModelsPort } from '../../projections/read-models.js';
import type { EventMetadata, EventStore, RecordedEvent } from '../../store/event-store.js';
import { dataMayMention } from '../../store/event-text.js';
import { oneLine } from '../../store/storage-fault.js';
import { fold } from '../aggregates.js';
import { handleCommand, type Attempt } from '../command-handler.js';
import { Reactor, retryDelay, type ReactorLog } from '../reactor.js';
import { notificationContent, NOTIFYING_EVENT_TYPES } from './body.js';
import type { Sandbox } from '../test-control/sandbox.js';
import { attemptDelivery, notificationAggregate, recordInterrupted, type DeliveryDeps } from './delivery.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Notifier extends Reactor {
  readonly name = 'notifier';
  override readonly eventTypes: ReadonlySet<string> = new Set([...NOTIFYING_EVENT_TYPES, ...NOTIFICATION_EVENT_TYPES]);
  /** Notifications are scheduled one at a time, in log order (the read model's THROUGH_KEY relies on it). */
  private chain: Promise<void> = Promise.resolve();
  private readonly stopping = new AbortController();
  private warn: ReactorLog['warn'] = (_fields, message) => process.emitWarning(message, 'ReactorWarning');
  /** The merchants with notifications: an order event whose data's text names none of them is not parsed. */
  private readonly notifying: readonly string[];

  constructor(store: EventStore, readModels: ReadModelsPort, private readonly merchants: Merchants, private readonly policy: RetryPolicy) {
    // Failed work (the store busy or closing) is tried again from 1 s on.
    super(store, readModels, policy.retryDelayMs, 1_000);
    this.notifying = merchants.list.filter((m) => m.notifications !== undefined).map((m) => m.id);
  }

  private get delivery(): DeliveryDeps {
    return { ...this.deps, merchants: this.merchants, policy: this.policy, actor: { reactor: this.name }, stopping: this.stopping.signal };
  }

  override async start(log?: ReactorLog, sandbox?: Sandbox): Promise<bigint> {
    if (log) this.warn = (fields, message) => log.warn(fields, message);
    return super.start(log, sandbox);
  }

  protected async prepare(): Promise<bigint> {
    const name = notificationsProjection.name;
    const from = await this.readModels.checkpoint(name);
    for (const { doc } of await this.readModels.withPrefix(name, PENDING_PREFIX)) {
      const { stream } = JSON.parse(doc) as PendingNotificationDoc;
      this.follow(stream, fold(notificationAggregate, await this.store.readStream(stream)));
    }
    // Order events after the latest one a notification was scheduled for are read again (their
    // notifications may not have been scheduled before the stop); scheduling twice appends once.
    const through = await this.readModels.get<ThroughDoc>(name, THROUGH_KEY);
    const anyMerchant = this.merchants.list.some((m) => m.notifications !== undefined);
    return anyMerchant && through !== undefined && BigInt(through.causePosition) < from ? BigInt(through.causePosition) : from;
  }

  protected onEvent(event: RecordedEvent): void {
    if (NOTIFYING_EVENT_TYPES.has(event.type)) {
      // (Merchant ids are letters, digits, '_' and '-': store/event-text.ts.)
      if (!this.notifying.some((id) => dataMayMention(event, id))) return;
      const merchantId = (event.data as { merchantId?: string }).merchantId;
      if (merchantId === undefined || this.merchants.get(merchantId)?.notifications === undefined) return;
      this.chain = this.chain.then(() => this.scheduleUntilDone(event));
      return;
    }
    const e = event as RecordedEvent & NotificationEvent;
    switch (e.type) {
      case 'NotificationScheduled':
        this.scheduleAt(event.stream, Date.parse(e.data.scheduledAt), event.stream, () => this.attempt(event.stream), true);
        break;
      case 'NotificationAttempted':
        // Normally answered long before: then the check finds nothing to do.
        this.scheduleAt(event.stream, Date.parse(e.data.startedAt) + interruptedAfterMs(this.policy), event.stream, () => this.interrupted(event.stream), true);
        break;
      case 'NotificationFailed':
        if (e.data.nextAttemptAt !== undefined) this.scheduleAt(event.stream, Date.parse(e.data.nextAttemptAt), event.stream, () => this.attempt(event.stream), true);
        else this.cancel(event.stream);
        break;
      case 'NotificationDelivered':
      case 'NotificationAbandoned':
        this.cancel(event.stream);
        break;
    }
  }

  override async stop(): Promise<void> {
    // Attempts under way end now, recorded as failed with their next attempt (made after a restart).
    this.stopping.abort();
    await super.stop();
    await this.chain;
  }

  /** What a notification's state asks for next: the check of an open attempt, or the next attempt. */
  private follow(stream: string, state: NotificationState): void {
    if (!state.exists) return;
    if (state.open) {
      this.scheduleAt(stream, Date.parse(state.open.startedAt) + interruptedAfterMs(this.policy), stream, () => this.interrupted(stream), true);
    } else if (state.status === 'PENDING' && state.nextAttemptAt !== undefined) {
      this.scheduleAt(stream, Date.parse(state.nextAttemptAt), stream, () => this.attempt(stream), true);
    }
  }

  private async attempt(stream: string): Promise<void> {
    const made = await attemptDelivery(this.delivery, stream, 'SCHEDULED');
    // Not made: the timer may have fired before the attempt's time by the wall clock (the event
    // loop's clock lags it under load, or the wall clock was set back). Without a new timer the
    // notification waited for the next start: scheduled again from its stream.
    if (made === undefined && !this.stopped) this.follow(stream, fold(notificationAggregate, await this.store.readStream(stream)));
  }

  private async interrupted(stream: string): Promise<void> {
    await recordInterrupted(this.delivery, stream);
  }

  /** Schedule the notification of `cause`, trying again while the store refuses (in order: the next waits). */
  private async scheduleUntilDone(cause: RecordedEvent): Promise<void> {
    for (let failures = 1; !this.stopped; failures++) {
      try {
        await this.scheduleNotification(cause);
        return;
      } catch (error) {
        if (this.stopped) return;
        const delay = retryDelay(1_000, failures);
        const message = maskCardNumbers(oneLine(error));
        this.warn({ reactor: this.name, position: String(cause.position), attempt: failures, nextDelayMs: delay, error: message },
          `reactor ${this.name}: scheduling the notification of the event at position ${cause.position} failed (attempt ${failures}), retried in ${delay} ms: ${message}`);
        await sleep(delay);
      }
    }
  }

  /**
   * Append NotificationScheduled to the notification's stream, named after the order event: it is
   * expected new (guessNew: no read first), and when another instance, or this one before a
   * restart, scheduled it already, the conflict is the command handler's: it reads the stream and
   * the decision is then to append nothing.
   */
  private async scheduleNotification(cause: RecordedEvent): Promise<void> {
    const merchantId = (cause.data as { merchantId: string }).merchantId;
    const merchant = this.merchants.get(merchantId);
    if (!merchant?.notifications) return;
    const history = await this.store.readStream(cause.stream, { untilRevision: cause.revision });
    const content = notificationContent(merchant, cause, history);
    if (!content) return;
    const notificationId = cause.id;
    const causeRef = { type: cause.type, stream: cause.stream, revision: String(cause.revision), position: String(cause.position) };
    const meta = (_event: NotificationEvent, { now }: Attempt): EventMetadata =>
      ({ correlationId: cause.metadata.correlationId, causationId: cause.id, merchantId, recordedAt: now, reactor: this.name });
    await handleCommand(this.deps, streams.notification(merchantId, notificationId), notificationAggregate, (state, { now }) => ({
      events: decideSchedule(state, {
        merchantId, notificationId, orderId: content.orderId, transactionId: content.transactionId, url: content.url,
        cause: causeRef, body: content.body, scheduledAt: now,
      }),
      answer: () => undefined,
    }), { meta, guessNew: () => true });
  }
}
