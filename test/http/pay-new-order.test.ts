// A pay on an order the SQLite store has not cached is decided on an empty order without reading
// it; the append (expected: no stream) checks the guess. These tests make the guess wrong on
// purpose: a second app on the same file has none of the first app's orders cached, so every
// order the first one wrote looks new to it. What a client sees must not change.
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { buildTestApp, createToken, M1, MERCHANTS } from '../helpers/app.js';
import { orderId, pay, payBody, type App } from './http.fixture.js';
import { streams } from '../../domain/events.js';

const withoutCorrelation = (body: Record<string, unknown>) => {
  const { correlationId: _ignored, ...rest } = body;
  return rest;
};

/** Count readStream calls of one app's store, per stream. */
function countReads(app: App): Map<string, number> {
  const reads = new Map<string, number>();
  const store = app.gateway.store;
  const original = store.readStream.bind(store);
  store.readStream = (stream, options) => {
    reads.set(stream, (reads.get(stream) ?? 0) + 1);
    return original(stream, options);
  };
  return reads;
}

const paymentsIn = async (app: App, order: string) =>
  (await app.gateway.store.readAll()).filter((e) => e.type === 'PaymentRecorded' && e.stream === streams.order(M1.id, order));

async function twoApps(t: Test, merchants: unknown = MERCHANTS) {
  const path = join(t.testdir(), 'gateway.db');
  const a = await buildTestApp(t, { eventStore: { kind: 'sqlite', path } });
  const b = await buildTestApp(t, { eventStore: { kind: 'sqlite', path }, merchants });
  return { a, b };
}

t.test('a new order is recorded without reading its stream', async (t) => {
  const { a } = await twoApps(t);
  const token = await createToken(a);
  const reads = countReads(a);
  const order = orderId();
  const res = await pay(a, token, payBody({ amount: '12.50' }), { order, transaction: 't1' });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().result, 'SUCCESS');
  t.equal(reads.get(streams.order(M1.id, order)) ?? 0, 0, 'the order stream was not read');
  t.equal((await paymentsIn(a, order)).length, 1, 'one payment recorded');

  // The order is now cached: a second transaction reads it from memory and adds to its totals.
  const second = await pay(a, token, payBody({ amount: '2.50' }), { order, transaction: 't2' });
  t.equal(second.statusCode, 201, second.body);
  t.equal(second.json().order.totalCapturedAmount, 15, 'totals of both transactions');
});

t.test('an identical repeat on an order the store has not cached replays the recorded payment', async (t) => {
  const { a, b } = await twoApps(t);
  const token = await createToken(a);
  const order = orderId();
  const body = payBody({ amount: '12.50' }, { correlationId: 'first' });
  const first = await pay(a, token, body, { order, transaction: 't1' });
  t.equal(first.statusCode, 201, first.body);

  const reads = countReads(b);
  const again = await pay(b, token, { ...body, correlationId: 'again' }, { order, transaction: 't1' });
  t.equal(again.statusCode, 201, again.body);
  t.same(withoutCorrelation(again.json()), withoutCorrelation(first.json()), 'the recorded answer, not a new payment');
  t.equal(reads.get(streams.order(M1.id, order)), 1, 'the refused guess made the app read the order once');
  t.equal((await paymentsIn(b, order)).length, 1, 'still one payment');
});

t.test('another transaction on an order the store has not cached joins that order', async (t) => {
  const { a, b } = await twoApps(t);
  const token = await createToken(a);
  const order = orderId();
  t.equal((await pay(a, token, payBody({ amount: '12.50' }), { order, transaction: 't1' })).statusCode, 201);

  const second = await pay(b, token, payBody({ amount: '2.50' }), { order, transaction: 't2' });
  t.equal(second.statusCode, 201, second.body);
  t.equal(second.json().order.totalCapturedAmount, 15, 'the totals include the first transaction');
  const recorded = await paymentsIn(b, order);
  t.same(recorded.map((e) => [e.revision, (e.data as { transactionId: string }).transactionId]), [[0n, 't1'], [1n, 't2']], 'appended after the first');

  const otherCurrency = await pay(b, token, payBody({ amount: '1.00', currency: 'EUR' }), { order, transaction: 't3' });
  t.equal(otherCurrency.statusCode, 400, 'the order currency is checked against the stored order');
  t.equal(otherCurrency.json().error.field, 'transaction.currency');
});

t.test('a guess answered SERVER_BUSY by a merchant rule still replays a payment recorded before the rule', async (t) => {
  // The same file, restarted with a rule that answers SERVER_BUSY for 12.50: a repeat of a
  // payment recorded before gets its recorded answer, as it does when the order is read first.
  const busy = { merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id ? { ...m, rules: [{ match: { amount: '12.50' }, answer: { fault: 'SERVER_BUSY' } }] } : m)) };
  const { a, b } = await twoApps(t, busy);
  const token = await createToken(a);
  const order = orderId();
  const first = await pay(a, token, payBody({ amount: '12.50' }), { order, transaction: 't1' });
  t.equal(first.statusCode, 201, first.body);

  const repeat = await pay(b, token, payBody({ amount: '12.50' }), { order, transaction: 't1' });
  t.equal(repeat.statusCode, 201, repeat.body);
  t.equal(repeat.json().transaction.id, 't1');
  t.equal(repeat.json().transaction.authorizationCode, first.json().transaction.authorizationCode, 'the recorded payment');

  const fresh = await pay(b, token, payBody({ amount: '12.50' }), { order: orderId(), transaction: 't1' });
  t.equal(fresh.statusCode, 503, 'a new payment gets the rule');
  t.equal(fresh.json().error.cause, 'SERVER_BUSY');
});
