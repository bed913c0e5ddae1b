// The events of a webhook notification (docs/notifications.md): one stream per notification,
// streams.notification(merchantId, notificationId), caused by the order event it tells the merchant
// about (metadata.causationId). Each attempt is recorded before its HTTP request is made (appended
// with the stream's revision as the expected one, so one process alone makes attempt n), and its
// outcome after. The secret sent in X-Notification-Secret is never in an event; response bodies
// are not kept.

/** What every notification event names: the merchant (the stream's owner), the notification, the order and transaction. */
export interface NotificationRef {
  merchantId: string;
  /** X-Notification-Id: the same for every attempt of the notification. */
  notificationId: string;
  orderId: string;
  transactionId: string;
}

/** A transaction was created or changed: the merchant is to be told at `url`. */
export interface NotificationScheduled {
  type: 'NotificationScheduled';
  data: NotificationRef & {
    /** The URL the merchants file allows (the merchant's notifications.url, or the order's order.notificationUrl). */
    url: string;
    /** The order event that caused it: its type, stream, revision and log position (its id is metadata.causationId). */
    cause: { type: string; stream: string; revision: string; position: string };
    /**
     * The JSON text sent with every attempt: the transaction as Retrieve Transaction answered it
     * then, card numbers masked (a text: order ids of version 3 are JSON integers beyond a double's).
     */
    body: string;
    scheduledAt: string;
  };
}

export type AttemptTrigger = 'SCHEDULED' | 'RETRY' | 'REDELIVERY';

/** Attempt number `attempt` is about to be sent (X-Notification-Attempt). */
export interface NotificationAttempted {
  type: 'NotificationAttempted';
  data: NotificationRef & { attempt: number; url: string; trigger: AttemptTrigger; startedAt: string };
}

/** The merchant answered attempt `attempt` with a 2xx status. */
export interface NotificationDelivered {
  type: 'NotificationDelivered';
  data: NotificationRef & { attempt: number; status: number; durationMs: number; deliveredAt: string };
}

/**
 * Attempt `attempt` failed: a status other than 2xx (redirects are not followed), or an error
 * (no connection, a timeout, no answer recorded because the process making it stopped).
 * `nextAttemptAt`: when the next attempt is due (absent: none will be made on its own).
 */
export interface NotificationFailed {
  type: 'NotificationFailed';
  data: NotificationRef & { attempt: number; status?: number; error?: string; durationMs?: number; failedAt: string; nextAttemptAt?: string };
}

/** Given up after `attempts` attempts without a 2xx answer (NOTIFICATION_MAX_ATTEMPTS). */
export interface NotificationAbandoned {
  type: 'NotificationAbandoned';
  data: NotificationRef & { attempts: number; abandonedAt: string };
}

export type NotificationEvent = NotificationScheduled | NotificationAttempted | NotificationDelivered | NotificationFailed | NotificationAbandoned;
export const NOTIFICATION_EVENT_TYPES: ReadonlySet<string> = new Set<NotificationEvent['type']>([
  'NotificationScheduled', 'NotificationAttempted', 'NotificationDelivered', 'NotificationFailed', 'NotificationAbandoned',
]);
