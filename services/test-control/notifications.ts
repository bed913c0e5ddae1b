// The test-control API's webhook notifications (docs/notifications.md):
//   - redeliver: a notification sent once more, now, whatever its status (as `tokengate
//     notifications redeliver` does). What the test asked is appended first to the notification's
//     stream (NotificationRedeliveryRequested, skipped by the notification's fold), then the attempt
//     is made and recorded like any (delivery.ts: its NotificationAttempted with trigger
//     REDELIVERY, then its answer), and the answer says how the merchant's server answered it.
//   - fire: a new notification of a transaction as it stands now, under a fresh id, to the URL its
//     order's notifications go to: NotificationRequestedByTest and NotificationScheduled in one
//     append to a new stream; the notifier (of whichever process) sends it and retries it as any.
import { Refusal } from '../../domain/errors.js';
import { streams, type NotificationEvent, type NotificationRedeliveryRequested, type NotificationRequestedByTest } from '../../domain/events.js';
import { decideSchedule } from '../../domain/notification/notification.js';
import { uuidV7 } from '../../lib/uuid.js';
import type { NotificationState } from '../../domain/notification/notification.js';
import type { MerchantProfile } from '../../merchants.js';
import type { Aggregate, Typed } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { attemptDelivery, notificationAggregate } from '../notification/delivery.js';
import { notificationContent, NOTIFYING_EVENT_TYPES } from '../notification/body.js';
import { readOwnStream } from '../aggregates.js';

type Step = NotificationEvent | NotificationRedeliveryRequested | NotificationRequestedByTest;

const notificationWithTests: Aggregate<NotificationState, Step> = {
  initialState: notificationAggregate.initialState,
  evolve: (state, event) => (notificationAggregate.handles(event) ? notificationAggregate.evolve(state, event) : state),
  handles: (event: Typed): event is Step =>
    event.type === 'NotificationRedeliveryRequested' || event.type === 'NotificationRequestedByTest' || notificationAggregate.handles(event),
};

const underWay = (notificationId: string, attempt?: number) =>
  new Refusal(409, `${attempt === undefined ? 'An attempt' : `Attempt ${attempt}`} of notification '${notificationId}' is under way: ask again once it is answered`, 'notificationId');

export async function redeliverNotification(gateway: Gateway, merchant: MerchantProfile, notificationId: string, meta: RequestMeta) {
  const stream = streams.notification(merchant.id, notificationId);
  await handleCommand(gateway, stream, notificationWithTests, (state, { now }) => {
    if (!state.exists) throw new Refusal(404, `No notification '${notificationId}' of merchant ${merchant.id}`, 'notificationId');
    if (state.open) throw underWay(notificationId, state.open.attempt);
    const { orderId, transactionId } = state.ref;
    const requested: NotificationRedeliveryRequested = {
      type: 'NotificationRedeliveryRequested', data: { merchantId: merchant.id, notificationId, orderId, transactionId, requestedAt: now },
    };
    return { events: [requested], answer: () => undefined };
  }, { meta: { ...meta, merchantId: merchant.id }, ownStream: true });
  const made = await attemptDelivery({
    store: gateway.store, sandbox: gateway.sandbox, readModels: gateway.readModels, merchants: gateway.merchants, policy: gateway.notificationPolicy,
    actor: { command: 'test-control redeliver' },
  }, stream, 'REDELIVERY');
  // Another process began an attempt between the request's record and this one.
  if (made === undefined) throw underWay(notificationId);
  const { attempt, answer, state } = made;
  const delivered = 'status' in answer && answer.status >= 200 && answer.status < 300;
  return {
    merchantId: merchant.id, notificationId, attempt, delivered,
    ...('status' in answer ? { status: answer.status } : { error: answer.error }),
    notificationStatus: state.exists ? state.status : undefined,
  };
}

/** The latest event of the order that created or changed the transaction, and the order stream. */
async function latestOf(gateway: Gateway, merchant: MerchantProfile, orderId: string, transactionId: string) {
  const history = await readOwnStream(gateway.store, streams.order(merchant.id, orderId));
  if (history.length === 0) throw new Refusal(404, `No order '${orderId}' of merchant ${merchant.id}`, 'orderId');
  const cause = [...history].reverse().find((e) => NOTIFYING_EVENT_TYPES.has(e.type) && (e.data as { transactionId?: string }).transactionId === transactionId);
  if (cause === undefined) throw new Refusal(404, `No transaction '${transactionId}' on order ${orderId}`, 'transactionId');
  return { cause, history };
}

/** Fire a new notification of the transaction as it stands now; the notifier sends it. */
export async function fireNotification(gateway: Gateway, merchant: MerchantProfile, orderId: string, transactionId: string, meta: RequestMeta) {
  if (!merchant.notifications) throw new Refusal(409, `Merchant ${merchant.id} has no notifications in the merchants file`, 'merchantId');
  const { cause, history } = await latestOf(gateway, merchant, orderId, transactionId);
  const content = notificationContent(merchant, cause, history);
  if (content === undefined) throw new Refusal(409, `No URL the merchants file allows applies to order ${orderId}'s notifications`, 'orderId');
  const notificationId = uuidV7();
  const causeRef = { type: cause.type, stream: cause.stream, revision: String(cause.revision), position: String(cause.position) };
  return handleCommand(gateway, streams.notification(merchant.id, notificationId), notificationWithTests, (state, { now }) => {
    const requested: NotificationRequestedByTest = { type: 'NotificationRequestedByTest', data: { merchantId: merchant.id, notificationId, orderId, transactionId, requestedAt: now } };
    const scheduled = decideSchedule(state, { merchantId: merchant.id, notificationId, orderId, transactionId, url: content.url, cause: causeRef, body: content.body, scheduledAt: now });
    return { events: [requested, ...scheduled], answer: () => ({ merchantId: merchant.id, notificationId, orderId, transactionId, url: content.url, scheduledAt: now }) };
  }, { meta: { ...meta, merchantId: merchant.id }, ownStream: true });
}
