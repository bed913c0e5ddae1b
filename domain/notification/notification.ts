// A notification's state (its stream folded) and its decisions, pure: when an attempt is due, what
// an attempt's answer records, when to give up. The reactor (services/notification/notifier.ts)
// and the CLI's redeliver make the HTTP requests; every fact is one of domain/notification/events.ts.
import type { AttemptTrigger, NotificationEvent, NotificationRef, NotificationScheduled } from './events.js';

export type NotificationStatus = 'PENDING' | 'DELIVERED' | 'ABANDONED';

export type NotificationState =
  | { exists: false }
  | {
    exists: true;
    ref: NotificationRef;
    url: string;
    body: string;
    status: NotificationStatus;
    /** The number of the last attempt begun (0: none yet). */
    attempts: number;
    /** The attempt begun whose answer is not recorded yet. */
    open?: { attempt: number; startedAt: string; trigger: AttemptTrigger };
    /** When the next attempt is due on its own (absent: none is). */
    nextAttemptAt?: string;
    /** When the last attempt was made or the notification scheduled. */
    updatedAt: string;
  };

export const initialNotificationState = (): NotificationState => ({ exists: false });

export function evolveNotification(state: NotificationState, event: NotificationEvent): NotificationState {
  if (event.type === 'NotificationScheduled') {
    const { url, body, scheduledAt, cause: _cause, ...ref } = event.data;
    return { exists: true, ref, url, body, status: 'PENDING', attempts: 0, nextAttemptAt: scheduledAt, updatedAt: scheduledAt };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'NotificationAttempted': {
      const { open: _o, nextAttemptAt: _n, ...rest } = state;
      const { attempt, startedAt, trigger } = event.data;
      return { ...rest, attempts: Math.max(state.attempts, attempt), open: { attempt, startedAt, trigger }, updatedAt: startedAt };
    }
    case 'NotificationDelivered': {
      const { open: _o, nextAttemptAt: _n, ...rest } = state;
      return { ...rest, status: 'DELIVERED', updatedAt: event.data.deliveredAt };
    }
    case 'NotificationFailed': {
      const { open: _o, nextAttemptAt: _n, ...rest } = state;
      const next = event.data.nextAttemptAt;
      return { ...rest, ...(next !== undefined ? { nextAttemptAt: next } : {}), updatedAt: event.data.failedAt };
    }
    case 'NotificationAbandoned': {
      const { open: _o, nextAttemptAt: _n, ...rest } = state;
      return { ...rest, status: state.status === 'DELIVERED' ? 'DELIVERED' : 'ABANDONED', updatedAt: event.data.abandonedAt };
    }
  }
}

/** NOTIFICATION_RETRY_DELAY_MS, NOTIFICATION_MAX_ATTEMPTS, NOTIFICATION_TIMEOUT_MS (config.ts). */
export interface RetryPolicy {
  /** The wait after the first failed attempt; doubled after each further one, up to MAX_RETRY_DELAY_MS. */
  retryDelayMs: number;
  /** Attempts made on their own before giving up (a redelivery is one more). */
  maxAttempts: number;
  /** How long an attempt waits for the merchant's answer. */
  timeoutMs: number;
}

/** The longest wait between two attempts: 4 hours. */
export const MAX_RETRY_DELAY_MS = 4 * 3_600_000;

/** The wait after failed attempt number `attempt` (1, 2, ...): retryDelayMs, doubled each time, at most 4 hours. */
export function delayAfter(policy: RetryPolicy, attempt: number): number {
  return Math.min(MAX_RETRY_DELAY_MS, policy.retryDelayMs * 2 ** Math.min(attempt - 1, 30));
}

/**
 * Schedule the notification: once, whoever asks first (every instance, and the same instance after
 * a restart, asks for the notification of the same order event).
 */
export function decideSchedule(state: NotificationState, scheduled: NotificationScheduled['data']): NotificationEvent[] {
  return state.exists ? [] : [{ type: 'NotificationScheduled', data: scheduled }];
}

/**
 * An attempt whose answer is not recorded this long after it began was cut short (the process
 * making it stopped): its own timeout has passed, and a margin for recording the answer.
 */
export const interruptedAfterMs = (policy: RetryPolicy) => policy.timeoutMs + 2_000;

/**
 * The next attempt, if one is to be made now: `SCHEDULED` and `RETRY` only when due and pending;
 * `REDELIVERY` (on purpose, tokengate notifications redeliver) whatever the status. Never while
 * another attempt's answer is awaited.
 */
export function decideAttempt(state: NotificationState, trigger: AttemptTrigger, now: string): NotificationEvent[] {
  if (!state.exists || state.open) return [];
  if (trigger !== 'REDELIVERY') {
    if (state.status !== 'PENDING' || state.nextAttemptAt === undefined || Date.parse(state.nextAttemptAt) > Date.parse(now)) return [];
    trigger = state.attempts === 0 ? 'SCHEDULED' : 'RETRY';
  }
  return [{ type: 'NotificationAttempted', data: { ...state.ref, attempt: state.attempts + 1, url: state.url, trigger, startedAt: now } }];
}

/** What the merchant's server answered: a status, or an error (no connection, a timeout...). */
export type AttemptAnswer = { status: number; durationMs: number } | { error: string; durationMs?: number };

/**
 * The record of attempt `attempt`'s answer (nothing when it is recorded already): delivered on a
 * 2xx; otherwise failed, with the next attempt's time, or given up after maxAttempts. A failed
 * redelivery of a notification no longer pending schedules nothing.
 */
export function decideAnswer(state: NotificationState, attempt: number, answer: AttemptAnswer, policy: RetryPolicy, now: string): NotificationEvent[] {
  if (!state.exists || state.open?.attempt !== attempt) return [];
  const { ref } = state;
  if ('status' in answer && answer.status >= 200 && answer.status < 300) {
    return [{ type: 'NotificationDelivered', data: { ...ref, attempt, status: answer.status, durationMs: answer.durationMs, deliveredAt: now } }];
  }
  const what = 'status' in answer ? { status: answer.status } : { error: answer.error };
  const duration = answer.durationMs !== undefined ? { durationMs: answer.durationMs } : {};
  if (state.status !== 'PENDING') {
    return [{ type: 'NotificationFailed', data: { ...ref, attempt, ...what, ...duration, failedAt: now } }];
  }
  if (attempt >= policy.maxAttempts) {
    return [
      { type: 'NotificationFailed', data: { ...ref, attempt, ...what, ...duration, failedAt: now } },
      { type: 'NotificationAbandoned', data: { ...ref, attempts: attempt, abandonedAt: now } },
    ];
  }
  const nextAttemptAt = new Date(Date.parse(now) + delayAfter(policy, attempt)).toISOString();
  return [{ type: 'NotificationFailed', data: { ...ref, attempt, ...what, ...duration, failedAt: now, nextAttemptAt } }];
}

/** The error recorded for an attempt cut short (see interruptedAfterMs). */
export const INTERRUPTED = 'no answer recorded: the process making the attempt stopped before it ended';

/** An attempt still open `interruptedAfterMs` after it began: recorded as failed, never sent again as the same attempt. */
export function decideInterrupted(state: NotificationState, policy: RetryPolicy, now: string): NotificationEvent[] {
  if (!state.exists || !state.open) return [];
  if (Date.parse(state.open.startedAt) + interruptedAfterMs(policy) > Date.parse(now)) return [];
  return decideAnswer(state, state.open.attempt, { error: INTERRUPTED }, policy, now);
}
