// The notification decider (domain/notification/notification.ts): scheduling once, when an attempt is due, what an
// answer records, the doubling delay and its cap, giving up, redelivery, an attempt cut short.
import t from 'tap';
import {
  decideAnswer, decideAttempt, decideInterrupted, decideSchedule, delayAfter, evolveNotification, initialNotificationState, INTERRUPTED,
  MAX_RETRY_DELAY_MS, type NotificationState, type RetryPolicy,
} from '../../domain/notification/notification.js';
import type { NotificationEvent } from '../../domain/notification/events.js';
import { loadGatewaySettings } from '../../config.js';

const policy: RetryPolicy = { retryDelayMs: 1000, maxAttempts: 3, timeoutMs: 5000 };
const ref = { merchantId: 'M', notificationId: 'n-1', orderId: 'o-1', transactionId: 't-1' };
const T0 = '2026-11-25T10:00:00.000Z';
const at = (ms: number) => new Date(Date.parse(T0) + ms).toISOString();
const scheduled: NotificationEvent = {
  type: 'NotificationScheduled',
  data: { ...ref, url: 'https://shop.example/hook', cause: { type: 'PaymentRecorded', stream: 'order-M:o-1', revision: '0', position: '1' }, body: '{}', scheduledAt: T0 },
};
const given = (...events: NotificationEvent[]): NotificationState => events.reduce(evolveNotification, initialNotificationState());

t.test('scheduled once: a notification that exists is not scheduled again', async (t) => {
  t.strictSame(decideSchedule(initialNotificationState(), scheduled.data), [scheduled], 'a new notification is scheduled');
  t.strictSame(decideSchedule(given(scheduled), { ...scheduled.data, scheduledAt: at(5) }), [], 'scheduled already: nothing');
  const delivered = given(scheduled, ...decideAttempt(given(scheduled), 'SCHEDULED', T0));
  t.strictSame(decideSchedule(delivered, scheduled.data), [], 'nor once attempted');
});

t.test('the delay doubles after each failure, at most 4 hours', async (t) => {
  t.strictSame([1, 2, 3, 4].map((n) => delayAfter(policy, n)), [1000, 2000, 4000, 8000]);
  t.equal(delayAfter({ ...policy, retryDelayMs: 60_000 }, 20), MAX_RETRY_DELAY_MS);
});

t.test('attempts: the first when scheduled, none while one is under way, the next when due', async (t) => {
  t.strictSame(decideAttempt(initialNotificationState(), 'SCHEDULED', T0), [], 'no notification, no attempt');
  const [first] = decideAttempt(given(scheduled), 'SCHEDULED', T0);
  t.match(first, { type: 'NotificationAttempted', data: { attempt: 1, trigger: 'SCHEDULED', url: 'https://shop.example/hook' } });
  const open = given(scheduled, first!);
  t.strictSame(decideAttempt(open, 'SCHEDULED', at(1)), [], 'not while attempt 1 awaits its answer');
  t.strictSame(decideAttempt(open, 'REDELIVERY', at(1)), [], 'not even on purpose');
  const failed = decideAnswer(open, 1, { status: 500, durationMs: 3 }, policy, at(10));
  t.match(failed, [{ type: 'NotificationFailed', data: { attempt: 1, status: 500, nextAttemptAt: at(1010) } }]);
  const waiting = given(scheduled, first!, ...failed);
  t.strictSame(decideAttempt(waiting, 'SCHEDULED', at(1009)), [], 'not before it is due');
  t.match(decideAttempt(waiting, 'SCHEDULED', at(1010)), [{ data: { attempt: 2, trigger: 'RETRY' } }]);
  t.strictSame(decideAnswer(open, 2, { status: 200, durationMs: 1 }, policy, at(10)), [], 'an answer to another attempt records nothing');
});

t.test('a 2xx delivers; the last failure gives up; a redelivery after that schedules nothing', async (t) => {
  let events: NotificationEvent[] = [scheduled];
  for (let n = 1; n <= 3; n++) {
    const attempt = decideAttempt(given(...events), 'SCHEDULED', at(100_000 * n));
    events = [...events, ...attempt, ...decideAnswer(given(...events, ...attempt), n, { error: 'ECONNREFUSED' }, policy, at(100_000 * n + 1))];
  }
  t.strictSame(events.slice(-2).map((e) => e.type), ['NotificationFailed', 'NotificationAbandoned']);
  t.match(events.at(-1), { data: { attempts: 3 } });
  const abandoned = given(...events);
  t.match(abandoned, { status: 'ABANDONED', attempts: 3 });
  t.strictSame(decideAttempt(abandoned, 'SCHEDULED', at(10_000_000)), [], 'no attempt on its own once given up');
  const redelivery = decideAttempt(abandoned, 'REDELIVERY', at(10_000_000));
  t.match(redelivery, [{ data: { attempt: 4, trigger: 'REDELIVERY' } }]);
  const failedAgain = decideAnswer(given(...events, ...redelivery), 4, { status: 502, durationMs: 1 }, policy, at(10_000_001));
  t.equal(failedAgain.length, 1);
  t.equal((failedAgain[0]?.data as { nextAttemptAt?: string }).nextAttemptAt, undefined, 'no retry of a failed redelivery');
  const delivered = decideAnswer(given(...events, ...redelivery), 4, { status: 204, durationMs: 1 }, policy, at(10_000_001));
  t.match(delivered, [{ type: 'NotificationDelivered', data: { attempt: 4, status: 204 } }]);
  t.match(given(...events, ...redelivery, ...delivered), { status: 'DELIVERED' });
});

t.test('an attempt cut short is recorded as failed once overdue, never made again under its number', async (t) => {
  const [first] = decideAttempt(given(scheduled), 'SCHEDULED', T0);
  const open = given(scheduled, first!);
  t.strictSame(decideInterrupted(open, policy, at(policy.timeoutMs)), [], 'not while it may still be answered');
  const interrupted = decideInterrupted(open, policy, at(policy.timeoutMs + 2000));
  t.match(interrupted, [{ type: 'NotificationFailed', data: { attempt: 1, error: INTERRUPTED, nextAttemptAt: String } }]);
  t.match(decideAttempt(given(scheduled, first!, ...interrupted), 'SCHEDULED', at(60_000)), [{ data: { attempt: 2 } }]);
});

t.test('settings: defaults, and a bad value stops the start naming the variable', async (t) => {
  t.strictSame(loadGatewaySettings({}).notifications, { retryDelayMs: 60_000, maxAttempts: 10, timeoutMs: 10_000 });
  t.strictSame(loadGatewaySettings({ NOTIFICATION_RETRY_DELAY_MS: '20', NOTIFICATION_MAX_ATTEMPTS: '3', NOTIFICATION_TIMEOUT_MS: '500' }).notifications,
    { retryDelayMs: 20, maxAttempts: 3, timeoutMs: 500 });
  t.throws(() => loadGatewaySettings({ NOTIFICATION_MAX_ATTEMPTS: '0' }), /NOTIFICATION_MAX_ATTEMPTS '0'/);
  t.throws(() => loadGatewaySettings({ NOTIFICATION_MAX_ATTEMPTS: '101' }), /NOTIFICATION_MAX_ATTEMPTS '101'/);
  t.throws(() => loadGatewaySettings({ NOTIFICATION_TIMEOUT_MS: 'soon' }), /NOTIFICATION_TIMEOUT_MS 'soon'/);
  t.throws(() => loadGatewaySettings({ NOTIFICATION_RETRY_DELAY_MS: '-1' }), /NOTIFICATION_RETRY_DELAY_MS '-1'/);
});
