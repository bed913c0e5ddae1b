// The test-control API's redelivery: a webhook notification sent once more, now, whatever its
// status (as `tokengate notifications redeliver` does, docs/notifications.md). What the test asked
// is appended first to the notification's stream (NotificationRedeliveryRequested, skipped by the
// notification's fold), then the attempt is made and recorded like any (delivery.ts: its
// NotificationAttempted with trigger REDELIVERY, then its answer), and the answer says how the
// merchant's server answered it.
import { Refusal } from '../../domain/errors.js';
import { streams, type NotificationEvent, type NotificationRedeliveryRequested } from '../../domain/events.js';
import type { NotificationState } from '../../domain/notification/notification.js';
import type { MerchantProfile } from '../../merchants.js';
import type { Aggregate, Typed } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { attemptDelivery, notificationAggregate } from '../notification/delivery.js';

type Step = NotificationEvent | NotificationRedeliveryRequested;

const notificationWithTests: Aggregate<NotificationState, Step> = {
  initialState: notificationAggregate.initialState,
  evolve: (state, event) => (event.type === 'NotificationRedeliveryRequested' ? state : notificationAggregate.evolve(state, event)),
  handles: (event: Typed): event is Step => event.type === 'NotificationRedeliveryRequested' || notificationAggregate.handles(event),
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
    store: gateway.store, readModels: gateway.readModels, merchants: gateway.merchants, policy: gateway.notificationPolicy,
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
