// One attempt of a webhook notification, by the reactor (notifier.ts) or on purpose (tokengate
// notifications redeliver): NotificationAttempted appended first, with the stream's revision as
// the expected one (so one process alone makes attempt n, and an attempt is never sent twice under
// one number, whatever restarts or instances), then the POST, then its answer recorded. The secret
// goes in X-Notification-Secret and nowhere else (no event, no log line); the response body is
// not read.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

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
import { destinationOf, systemLookup, type Destination, type HostLookup } from './destination.js';

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
  /** How host names are resolved (default: the system's resolver). */
  readonly lookup?: HostLookup;
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

/** The promise's value, or a rejection once the signal aborts (a resolver that never answers). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** How an attempt is made: the merchant's private hosts, the resolver, the time allowed, the stop. */
interface PostOptions { privateHosts: readonly string[]; lookup: HostLookup; timeoutMs: number; stopping?: AbortSignal | undefined }

/**
 * The answer of a POST: its status (2xx: delivered; a redirect is not followed), or what went
 * wrong. The host name is resolved once and the address checked (destination.ts); the request
 * goes to that address (its own `lookup` answers it: no second resolution), with the name in the
 * Host header and, over TLS, as the name the certificate must have. A connection of its own
 * (agent: false): a kept-alive one would go to wherever the name pointed before.
 */
async function post(text: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<AttemptAnswer> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  const url = new URL(text);
  // The time allowed covers the resolution too.
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const signal = options.stopping ? AbortSignal.any([timeout, options.stopping]) : timeout;
  try {
    const destination = await untilAborted(destinationOf(url, options.lookup, options.privateHosts), signal);
    if ('refused' in destination) return { error: `not sent: ${maskCardNumbers(oneLine(destination.refused))}`.slice(0, 200), durationMs: durationMs() };
    const pinned: LookupFunction = (_host, lookupOptions, callback) => {
      if (lookupOptions.all) (callback as unknown as (e: null, a: Destination[]) => void)(null, [destination]);
      else callback(null, destination.address, destination.family);
    };
    const status = await new Promise<number>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, lookup: pinned, agent: false, signal,
      }, (response) => {
        // The body is not read: only the status says whether the merchant took the notification.
        response.destroy();
        resolve(response.statusCode ?? 0);
      });
      request.on('error', reject);
      request.end(body);
    });
    return { status, durationMs: durationMs() };
  } catch (error) {
    const e = error as Error & { code?: string };
    const reason = timeout.aborted ? `no answer within ${options.timeoutMs} ms`
      : options.stopping?.aborted ? 'the gateway stopped during the attempt'
        : e.code ?? e.message;
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
    }, { privateHosts: merchant.notifications?.privateHosts ?? [], lookup: deps.lookup ?? systemLookup, timeoutMs: deps.policy.timeoutMs, stopping: deps.stopping })
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
