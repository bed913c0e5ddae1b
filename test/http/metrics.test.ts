// GET /metrics (plugins/metrics.ts), scraped over HTTP as Prometheus does: behind the admin
// credentials; after some requests the counters by operation and status, the latency histogram,
// the events appended, the log head and the notification outcomes have moved.
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { join } from 'node:path';
import { buildApp } from '../../app.js';
import type { EventStoreConfig } from '../../config.js';
import { parseMerchants } from '../../merchants.js';
import { basic, cardBody, M1, M2, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { waitFor } from '../helpers/poll.js';

const ADMIN_PASSWORD = 'metrics-test-admin-password';
const SECRET = 'notification-secret-0123456789abcdef-QZ';
const PAY = { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } };

/** An app listening on a free loopback port; M1's notifications go to `delivered`, M2's to `refused`. */
async function listening(t: Test, delivered: Receiver, refused: Receiver, eventStore: EventStoreConfig = { kind: 'memory' }) {
  const notifications = (receiver: Receiver) => ({ url: `${receiver.origin}/hooks/main`, secret: SECRET });
  const merchants = {
    merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id ? { ...m, notifications: notifications(delivered) }
      : m.id === M2.id ? { ...m, notifications: notifications(refused) } : m)),
  };
  const app = await buildApp({ eventStore, merchants: parseMerchants(merchants, 'test'), adminPassword: ADMIN_PASSWORD, limits: { authFailureLimit: 1_000_000 } });
  t.teardown(() => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const call = async (method: string, path: string, authorization?: string, body?: unknown) => {
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { ...(authorization ? { authorization } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() };
  };
  return { app, call, scrape: () => call('GET', '/metrics', basic('admin', ADMIN_PASSWORD)) };
}

/** The value of one sample of the exposition text (labels as written, in any order); undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

t.test('/metrics needs the admin credentials', async (t) => {
  const delivered = await startReceiver();
  t.teardown(() => delivered.close());
  const { call } = await listening(t, delivered, delivered);
  t.equal((await call('GET', '/metrics')).status, 401, 'no credentials: 401');
  t.equal((await call('GET', '/metrics', basic('admin', 'not-the-admin-password-at-all'))).status, 401, 'a wrong password: 401');
  t.equal((await call('GET', '/metrics', tokenAuth(M1))).status, 401, "a merchant's credentials: 401");
});

t.test('after some requests the counters, the histogram, the events and the notification outcomes have moved', async (t) => {
  const delivered = await startReceiver(() => 200);
  const refused = await startReceiver(() => 500);
  t.teardown(() => Promise.all([delivered.close(), refused.close()]));
  const { call, scrape } = await listening(t, delivered, refused);

  const before = await scrape();
  t.equal(before.status, 200);
  t.match(before.type, 'text/plain; version=0.0.4', "Prometheus' text format");
  t.equal(sample(before.text, 'tokengate_http_requests_total', { operation: 'Pay with token', status: '201' }), undefined, 'no payment yet');
  t.equal(sample(before.text, 'tokengate_build_info'), 1, 'the build info');
  t.ok(sample(before.text, 'process_cpu_user_seconds_total') !== undefined, "Node's process metrics");

  const created = await call('POST', tokenPath(M1.id), tokenAuth(M1), cardBody());
  t.equal(created.status, 201);
  const token = (JSON.parse(created.text) as { token: string }).token;
  const created2 = await call('POST', tokenPath(M2.id), tokenAuth(M2), cardBody());
  const token2 = (JSON.parse(created2.text) as { token: string }).token;
  for (const order of ['10000000001', '10000000002']) t.equal((await call('PUT', payPath(M1.id, token, order, '1'), payAuth(M1), PAY)).status, 201);
  t.equal((await call('PUT', payPath(M2.id, token2, '10000000003', '1'), payAuth(M2), PAY)).status, 201);
  t.equal((await call('PUT', payPath(M1.id, token, '10000000004', '1'), payAuth(M1), { ...PAY, transaction: { amount: '12.50', currency: 'FUF' } })).status, 400);
  t.equal((await call('PUT', payPath(M1.id, token, '10000000005', '1'), basic('', 'not-the-password-of-merchant-one'), PAY)).status, 401);
  t.equal((await call('GET', '/nothing/here')).status, 404);

  // The notifications are sent after the replies: waited for.
  await waitFor(async () => {
    const text = (await scrape()).text;
    return (sample(text, 'tokengate_notification_outcomes_total', { outcome: 'delivered' }) ?? 0) >= 2
      && (sample(text, 'tokengate_notification_outcomes_total', { outcome: 'failed' }) ?? 0) >= 1;
  }, 'one delivered and one failed notification', { intervalMs: 25 });
  const { text } = await scrape();
  t.equal(sample(text, 'tokengate_http_requests_total', { operation: 'Create or Update Token (system-generated token)', status: '201' }), 2, 'two tokens created');
  t.equal(sample(text, 'tokengate_http_requests_total', { operation: 'Pay with token', status: '201' }), 3, 'three payments');
  t.equal(sample(text, 'tokengate_http_requests_total', { operation: 'Pay with token', status: '400' }), 1, 'one refused (400)');
  t.equal(sample(text, 'tokengate_http_requests_total', { operation: 'Pay with token', status: '401' }), 1, 'one wrong password (401)');
  t.equal(sample(text, 'tokengate_http_requests_total', { operation: 'unknown path', status: '404' }), 1, 'one unknown path');
  t.ok((sample(text, 'tokengate_http_requests_total', { operation: 'Prometheus metrics', status: '200' }) ?? 0) >= 1, 'the scrapes themselves');
  t.equal(sample(text, 'tokengate_http_request_duration_seconds_count', { operation: 'Pay with token' }), 5, 'every pay in the histogram');
  t.equal(sample(text, 'tokengate_http_request_duration_seconds_bucket', { operation: 'Pay with token', le: '+Inf' }), 5, 'its +Inf bucket');
  t.ok((sample(text, 'tokengate_http_request_duration_seconds_sum', { operation: 'Pay with token' }) ?? 0) > 0, 'its sum of seconds');
  t.equal(sample(text, 'tokengate_events_total', { type: 'TokenCreated' }), 2, 'the TokenCreated events');
  t.equal(sample(text, 'tokengate_events_total', { type: 'PaymentRecorded' }), 3, 'the PaymentRecorded events');
  t.ok((sample(text, 'tokengate_events_total', { type: 'NotificationDelivered' }) ?? 0) >= 2, 'the notification events too');
  t.ok((sample(text, 'tokengate_log_head_position') ?? 0) >= 5, "the log's head");
  const lag = sample(text, 'tokengate_read_model_lag_events');
  t.ok(lag !== undefined && lag >= 0, `the read models' lag (${lag})`);
  t.equal(sample(text, 'tokengate_in_flight_requests'), 1, 'the scrape itself is in flight');
});

t.test('on SQLite (read models written after the reply): the head and the lag follow the log', async (t) => {
  const delivered = await startReceiver(() => 200);
  t.teardown(() => delivered.close());
  const { call, scrape } = await listening(t, delivered, delivered, { kind: 'sqlite', path: join(t.testdir(), 'gateway.db') });
  const created = await call('POST', tokenPath(M1.id), tokenAuth(M1), cardBody());
  const token = (JSON.parse(created.text) as { token: string }).token;
  t.equal((await call('PUT', payPath(M1.id, token, '10000000001', '1'), payAuth(M1), PAY)).status, 201);
  // The deferred read models write within 100 ms of the reply: the lag comes back to 0.
  await waitFor(async () => {
    const text = (await scrape()).text;
    return (sample(text, 'tokengate_log_head_position') ?? 0) >= 2 && sample(text, 'tokengate_read_model_lag_events') === 0;
  }, 'the read models written through the head', { intervalMs: 25 });
  const { text } = await scrape();
  t.equal(sample(text, 'tokengate_events_total', { type: 'PaymentRecorded' }), 1);
  t.equal(sample(text, 'tokengate_http_requests_total', { operation: 'Pay with token', status: '201' }), 1);
});
