// What each event did, in one line of the gateway's words, on the timeline API and the history API:
// the operation, amount and outcome ("AUTHORIZE 80.00 USD → APPROVED (00)"), a decline in red
// (tone failed) with the rule that chose it, an UNKNOWN in amber (pending) and its resolution with
// the resolver's rule, a token's and a notification's events; and the timeline newest first,
// paged back by position.
import t from 'tap';
import { basic, buildTestApp, createToken, M1, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { streams } from '../../domain/events.js';

process.env.UNKNOWN_RESOLUTION_DELAY_MS = '0';
const ADMIN = basic('admin', 'admin-password-for-tests');
type App = Awaited<ReturnType<typeof buildTestApp>>;
type Json = Record<string, any>;

async function admin(app: App, url: string): Promise<Json> {
  const res = await app.inject({ method: 'GET', url, headers: { authorization: ADMIN } });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json() as Json;
}

async function put(app: App, url: string, authorization: string, payload: Record<string, unknown>, status = 201) {
  const res = await app.inject({ method: 'PUT', url, headers: { authorization }, payload });
  if (res.statusCode !== status) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json() as Json;
}

async function until(what: string, check: () => Promise<boolean>, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

t.test('timeline events and history steps say what happened, how it ended and which rule decided', async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-for-tests' });
  const approved = await createToken(app, M1, '5123450000000008', '1', '39');
  const declined = await createToken(app, M1, '5123450000000008', '5', '39');
  const unknown = await createToken(app, M1, '2223000000000007', '5', '37');
  await put(app, payPath(M1.id, declined, '10000000001', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } });
  await put(app, payPath(M1.id, unknown, '10000000002', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '12.51', currency: 'USD' } });
  const orderApi = `/api/rest/version/100/merchant/${M1.id}/order/20000000001/transaction`;
  await put(app, `${orderApi}/auth-1`, tokenAuth(M1), { apiOperation: 'AUTHORIZE', order: { amount: '80.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token: approved } });
  await put(app, `${orderApi}/cap-1`, tokenAuth(M1), { apiOperation: 'CAPTURE', transaction: { amount: '50.00', currency: 'USD' } });
  await until('the resolution', async () => (await app.gateway.store.readStream(streams.order(M1.id, '10000000002'))).length === 2);

  const timeline = await admin(app, '/admin/api/events?order=desc&limit=500');
  const lines = timeline.events.map((e: Json) => [e.type, e.outcome.summary, e.outcome.tone, e.outcome.rule]);
  t.same(lines.slice(0, 5), [
    ['OrderTransactionRecorded', 'CAPTURE 50.00 USD → APPROVED (00)', 'ok', "the order's totals: within the amount authorized and not yet captured"],
    ['OrderTransactionRecorded', 'AUTHORIZE 80.00 USD → APPROVED (00)', 'ok', "expiry 01/39 in the test acquirer's table"],
    ['PaymentOutcomeResolved', 'UNKNOWN resolved → DECLINED (05)', 'failed', 'the unknown-resolver: amount in minor units is odd: DECLINED'],
    ['PaymentRecorded', 'PAY 12.51 USD → UNKNOWN (91)', 'pending', "expiry 05/37 in the test acquirer's table"],
    ['PaymentRecorded', 'PAY 12.50 USD → DECLINED (05)', 'failed', "expiry 05/39 in the test acquirer's table"],
  ], 'newest first, each in the gateway’s words with its rule');
  t.match(lines.at(-1), ['TokenCreated', /^Token created · 512345xxxxxx0008 MASTERCARD 01\/39/, 'ok'], 'the oldest last: a token created, its card masked');
  t.equal(timeline.next, null, 'the whole log on one page');

  // Paged back: two at a time, newest first, with no event twice or left out.
  const positions: number[] = [];
  for (let before: number | null | undefined; before !== null;) {
    const page = await admin(app, `/admin/api/events?order=desc&limit=2${before === undefined ? '' : `&before=${before}`}`);
    positions.push(...page.events.map((e: Json) => e.position));
    before = page.next;
  }
  t.same(positions, timeline.events.map((e: Json) => e.position), 'pages of two, back to the first event');
  const filtered = await admin(app, `/admin/api/events?order=desc&stream=${encodeURIComponent(streams.order(M1.id, '20000000001'))}`);
  t.same(filtered.events.map((e: Json) => e.data.transactionId), ['cap-1', 'auth-1'], 'a filter, newest first');

  const history = await admin(app, `/admin/api/history?stream=${encodeURIComponent(streams.order(M1.id, '10000000002'))}`);
  t.same(history.steps.map((s: Json) => s.outcome.summary), ['PAY 12.51 USD → UNKNOWN (91)', 'UNKNOWN resolved → DECLINED (05)']);
  const token = await admin(app, `/admin/api/history?stream=${encodeURIComponent(streams.token(M1.repository.id, declined))}`);
  t.same(token.steps.map((s: Json) => [s.outcome.summary, s.outcome.tone]).slice(1), [['PAY 12.50 USD → DECLINED (05)', 'failed']],
    'a token’s history shows the payment made with it, not only its last use');
});
