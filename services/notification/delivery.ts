// One attempt of a webhook notification, by the reactor (notifier.ts) or on purpose (tokengate
// notifications redeliver): NotificationAttempted appended first, with the stream's revision as
// the expected one (so one process alone makes attempt n, and an attempt is never sent twice under
// one number, whatever restarts or instances), then the POST, then its answer recorded. The secret
// goes in X-Notification-Secret and nowhere else (no event, no log line); the response body is
// not read.
import { isNotificationEvent, type NotificationEvent } from '../../domain/events.js';
import {
  decideAnswer, decideAttempt, decideInterrupted, evolveNotification, initialNotificationState,
  type AttemptAnswer, type NotificationState, type RetryPolicy,
} from '../../domain/notification/notification.js';
import type { AttemptTrigger } from '../../domain/notification/events.js';
import { maskCardNumbers } from '../../lib/mask.js';
import { notificationUrlAllowed, type Merchants } from '../../merchants.js';
import type { EventMetadata } from '../../store/event-store.js';
import { oneLine } from '../../store/storage-fault.js';
import type { Aggregate } from '../aggregates.js';
import { handleCommand, type Attempt, type HandlerDeps } from '../command-handler.js';

export const notificationAggregate: Aggregate<NotificationState, NotificationEvent> = {
  initialState: initialNotificationState, evolve: evolveNotification, handles: isNotificationEvent,
};

export interface DeliveryDeps extends HandlerDeps {
  readonly merchants: Merchants;
  readonly policy: RetryPolicy;
  /** Who records the events (metadata.reactor, or metadata.command for the CLI). */
  readonly actor: { reactor: string } | { command: string };
  /** Aborted when the process stops: an attempt under way ends as failed (and is retried later) instead of holding the stop. */
  readonly stopping?: AbortSignal;
}

/**
 * Every event of a notification carries the correlation id of the order event that caused it and
 * that event's id as its causationId (the order's history finds its notifications by it).
 */
function metaOf(deps: DeliveryDeps) {
  return (event: NotificationEvent, attempt: Attempt): EventMetadata => {
    const first = attempt.history[0]?.metadata;
    return {
      correlationId: first?.correlationId ?? event.data.notificationId,
      ...(first?.causationId !== undefined ? { causationId: first.causationId } : {}),
      merchantId: event.data.merchantId,
      recordedAt: attempt.now,
      ...deps.actor,
    };
  };
}

/** The answer of a POST: its status (2xx: delivered; a redirect is not followed), or what went wrong. */
async function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number, stopping?: AbortSignal): Promise<AttemptAnswer> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const signal = stopping ? AbortSignal.any([timeout, stopping]) : timeout;
    const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal });
    // The body is not kept: only the status says whether the merchant took the notification.
    await response.body?.cancel().catch(() => undefined);
    return { status: response.status, durationMs: durationMs() };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms`
      : e.name === 'AbortError' ? 'the gateway stopped during the attempt'
        : e.cause?.code ?? e.cause?.message ?? e.message;
    return { error: maskCardNumbers(oneLine(reason)).slice(0, 200), durationMs: durationMs() };
  }
}

export interface AttemptResult { attempt: number; answer: AttemptAnswer; state: NotificationState }

/**
 * Make the next attempt of the notification in `stream` if one is to be made now (see
 * decideAttempt), and record its answer. Undefined when no attempt was made here: none was due,
 * or another process began it first.
 */
export async function attemptDelivery(deps: DeliveryDeps, stream: string, trigger: AttemptTrigger): Promise<AttemptResult | undefined> {
  const meta = metaOf(deps);
  if (deps.stopping?.aborted) return undefined;
  const begun = await handleCommand(deps, stream, notificationAggregate, (state, { now }) => ({
    events: decideAttempt(state, trigger, now),
    answer: (after, position) => (position === undefined || !after.exists || !after.open ? undefined : { state: after, open: after.open }),
  }), { meta, exhausted: () => undefined });
  if (!begun) return undefined;
  const { state, open } = begun;
  if (!state.exists) return undefined;
  const merchant = deps.merchants.get(state.ref.merchantId);
  const secret = merchant?.notifications?.secret;
  // The merchants file may have changed since it was scheduled: only what it allows now is called.
  const answer: AttemptAnswer = merchant && secret !== undefined && notificationUrlAllowed(merchant, state.url)
    ? await post(state.url, state.body, {
      'content-type': 'application/json; charset=UTF-8',
      'user-agent': 'tokengate-webhook',
      'x-notification-id': state.ref.notificationId,
      'x-notification-attempt': String(open.attempt),
      'x-notification-secret': secret,
    }, deps.policy.timeoutMs, deps.stopping)
    : { error: 'not sent: the merchants file no longer allows this URL for this merchant' };
  const after = await handleCommand(deps, stream, notificationAggregate, (current, { now }) => ({
    events: decideAnswer(current, open.attempt, answer, deps.policy, now),
    answer: (s) => s,
  }), { meta, exhausted: () => state });
  return { attempt: open.attempt, answer, state: after };
}

/** Record an attempt whose answer never came (its process stopped) as failed, once it is overdue (decideInterrupted). */
export async function recordInterrupted(deps: DeliveryDeps, stream: string): Promise<void> {
  await handleCommand(deps, stream, notificationAggregate, (state, { now }) => ({
    events: decideInterrupted(state, deps.policy, now),
    answer: () => undefined,
  }), { meta: metaOf(deps), exhausted: () => undefined });
}
