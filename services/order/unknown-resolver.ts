// The reactor that makes UNKNOWN final (spec: "the code is updated if the outcome is learned
// later"). At start it finds, through the pending read model, every payment answered UNKNOWN
// without a PaymentOutcomeResolved, then follows the log; each is resolved UNKNOWN_RESOLUTION_DELAY_MS
// after its timeOfRecord (at once when that is past) by appending PaymentOutcomeResolved to the
// order stream with the stream's revision as the expected one. Several processes sharing a store
// may race: the loser re-reads, finds the payment resolved, and appends nothing.
import type { OrderTransactionRecorded, PaymentRecorded } from '../../domain/events.js';
import { PENDING_PAYMENT } from '../../projections/pending.js';
import { decide } from '../../domain/order/order.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { dataMayMention } from '../../store/event-text.js';
import { orderAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import { Reactor } from '../reactor.js';
import { transactionReferences } from './acquirer-ids.js';

/** A payment's key among the scheduled resolutions. */
const keyOf = (stream: string, transactionId: string) => JSON.stringify([stream, transactionId]);

export class UnknownResolver extends Reactor {
  readonly name = 'unknown-resolver';
  // OrderTransactionRecorded: a PAY, AUTHORIZE or VERIFY of the order API (versions 1-100 but the
  // deactivated ones).
  override readonly eventTypes: ReadonlySet<string> = new Set(['PaymentRecorded', 'OrderTransactionRecorded', 'PaymentOutcomeResolved']);

  /**
   * Pending work first: the UNKNOWN payments the pending read model (caught up at start) lists;
   * then every event after that model's checkpoint, live (services/reactors.ts). Reading the whole
   * log, or every order, at every start would make start-up grow with the store.
   */
  protected prepare(): Promise<bigint> {
    return this.preparePending(PENDING_PAYMENT);
  }

  protected onEvent(event: RecordedEvent): void {
    if (event.type === 'PaymentRecorded' || event.type === 'OrderTransactionRecorded') {
      // Most payments are not UNKNOWN: one whose data's text has no 'UNKNOWN' in it is not parsed (store/event-text.ts).
      if (!dataMayMention(event, 'UNKNOWN')) return;
      const transactionId = (event.data as { transactionId?: string }).transactionId ?? '';
      const payment = event.data as PaymentRecorded['data'] | OrderTransactionRecorded['data'];
      if (payment.outcome.result !== 'UNKNOWN') return;
      // Due on the merchant's clock, which a test may advance (services/test-control/sandbox.ts).
      const due = Date.parse(payment.timeOfRecord) + this.delayMs;
      // (The key made only for the payments it concerns: most are not UNKNOWN.)
      this.scheduleAt(keyOf(event.stream, transactionId), due, event.stream, () => this.resolve(event, transactionId));
    } else if (event.type === 'PaymentOutcomeResolved') {
      this.cancel(keyOf(event.stream, (event.data as { transactionId?: string }).transactionId ?? ''));
    }
  }

  private async resolve(cause: RecordedEvent, transactionId: string): Promise<void> {
    const { merchantId, orderId } = cause.data as { merchantId: string; orderId: string };
    // The authorization code the acquirer gives an approval of this transaction (acquirer-ids.ts).
    const { authorizationCode } = transactionReferences(merchantId, orderId, transactionId);
    await handleCommand(this.deps, cause.stream, orderAggregate, (order, { now }) => ({
      events: decide({ type: 'ResolveUnknownPayment', transactionId, authorizationCode, now }, order),
      answer: () => undefined,
    }), {
      meta: (e, { now }) => ({ correlationId: cause.metadata.correlationId, causationId: cause.id, merchantId: e.data.merchantId, recordedAt: now, reactor: this.name }),
      // Given up after that many conflicts, as before (the payment stays UNKNOWN until the next start).
      exhausted: () => undefined,
    });
  }
}
