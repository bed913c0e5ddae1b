// Read model of webhook notifications (docs/notifications.md): one document per notification
// (its status, attempts, last answer, next attempt); one under PENDING_PREFIX per notification
// that still needs the reactor (an attempt due or under way), which its start-up scan reads
// instead of every notification ever sent; and one, THROUGH_KEY, with the log position of the
// latest order event a notification was scheduled for, from which the reactor reads the log again
// at start (an order event recorded just before a stop may not have had its notification
// scheduled yet). Merchant ids never hold '~': these keys never meet a notification's.
import type { NotificationEvent } from '../domain/notification/events.js';
import type { ProjectedEvent } from '../store/event-store.js';
import type { Projection } from './projection.js';

export interface NotificationDoc {
  stream: string;
  merchantId: string;
  notificationId: string;
  orderId: string;
  transactionId: string;
  /** The order event that caused it (PaymentRecorded, OrderTransactionRecorded, PaymentOutcomeResolved). */
  causeType: string;
  url: string;
  status: 'PENDING' | 'DELIVERED' | 'ABANDONED';
  /** Attempts begun. */
  attempts: number;
  /** The last answer: a status, or an error. */
  lastStatus?: number;
  lastError?: string;
  nextAttemptAt?: string;
  scheduledAt: string;
  updatedAt: string;
}

export interface ThroughDoc { causePosition: string }

export const THROUGH_KEY = '~through';
export const PENDING_PREFIX = '~pending/';
export interface PendingNotificationDoc { stream: string }
export const notificationKey = (merchantId: string, notificationId: string) => `${merchantId}/${notificationId}`;

type Doc = NotificationDoc | ThroughDoc | PendingNotificationDoc;

export const notificationsProjection: Projection<Doc> = {
  name: 'notifications',
  version: 1,
  // Read by the notifier, after a catch-up: written after the reply, in batches.
  apply: 'deferred',
  handles: new Set<NotificationEvent['type']>(['NotificationScheduled', 'NotificationAttempted', 'NotificationDelivered', 'NotificationFailed', 'NotificationAbandoned']),
  keysOf(event) {
    const d = event.data as { merchantId: string; notificationId: string };
    const key = notificationKey(d.merchantId, d.notificationId);
    return event.type === 'NotificationScheduled' ? [key, PENDING_PREFIX + key, THROUGH_KEY] : [key, PENDING_PREFIX + key];
  },
  evolve(doc, event, key) {
    const e = event as ProjectedEvent & NotificationEvent;
    if (key === THROUGH_KEY) {
      if (e.type !== 'NotificationScheduled') return doc;
      const previous = doc === undefined ? -1n : BigInt((doc as ThroughDoc).causePosition);
      const position = BigInt(e.data.cause.position);
      return { causePosition: String(position > previous ? position : previous) };
    }
    if (key.startsWith(PENDING_PREFIX)) {
      // Pending while an attempt is due or under way: not once delivered, given up, or failed with no next attempt.
      const pending = e.type === 'NotificationScheduled' || e.type === 'NotificationAttempted' || (e.type === 'NotificationFailed' && e.data.nextAttemptAt !== undefined);
      return pending ? { stream: event.stream } : undefined;
    }
    if (e.type === 'NotificationScheduled') {
      const d = e.data;
      return {
        stream: event.stream, merchantId: d.merchantId, notificationId: d.notificationId, orderId: d.orderId, transactionId: d.transactionId,
        causeType: d.cause.type, url: d.url, status: 'PENDING', attempts: 0, nextAttemptAt: d.scheduledAt, scheduledAt: d.scheduledAt, updatedAt: d.scheduledAt,
      };
    }
    if (doc === undefined) return doc;
    const { nextAttemptAt: _next, ...n } = doc as NotificationDoc;
    switch (e.type) {
      case 'NotificationAttempted':
        return { ...n, attempts: Math.max(n.attempts, e.data.attempt), updatedAt: e.data.startedAt };
      case 'NotificationDelivered': {
        const { lastError: _error, ...rest } = n;
        return { ...rest, status: 'DELIVERED', lastStatus: e.data.status, updatedAt: e.data.deliveredAt };
      }
      case 'NotificationFailed': {
        const { lastError: _error, lastStatus: _status, ...rest } = n;
        return {
          ...rest,
          ...(e.data.status !== undefined ? { lastStatus: e.data.status } : {}),
          ...(e.data.error !== undefined ? { lastError: e.data.error } : {}),
          ...(e.data.nextAttemptAt !== undefined ? { nextAttemptAt: e.data.nextAttemptAt } : {}),
          updatedAt: e.data.failedAt,
        };
      }
      case 'NotificationAbandoned':
        return { ...n, status: n.status === 'DELIVERED' ? 'DELIVERED' : 'ABANDONED', updatedAt: e.data.abandonedAt };
    }
  },
};
