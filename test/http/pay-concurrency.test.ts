// Safe under retries and concurrency, in one process (inject): exactly one PaymentRecorded per
// (merchant, order, transaction) whatever the interleaving; identical repeats answer the recorded
// outcome, also while the first is in flight behind a merchant rule's latency; another
// transaction meanwhile is LOCK_FAILURE; transaction.reference is claimed once.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { buildTestApp, M1 } from '../helpers/app.js';
import { MERCHANTS_WITH_RULES, newOrderId, payAs, payBody, RULES, storedCard, type App } from './pay-triggers.fixture.js';
import { streams } from '../../domain/events.js';
import { waitFor } from '../helpers/poll.js';

const typesOf = async (app: App, merchantId: string, order: string) =>
  (await app.gateway.store.readStream(streams.order(merchantId, order))).map((e) => e.type);

/** Wait until the first request holds the order (its PaymentStarted is stored), however loaded the machine. */
async function started(app: App, merchantId: string, order: string) {
  await waitFor(async () => (await typesOf(app, merchantId, order)).includes('PaymentStarted'), 'the first request to start', { intervalMs: 5 });
}

t.test('20 identical requests at once: identical bodies, one PaymentRecorded', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, M1, 1, 39);
  const order = newOrderId();
  const replies = await Promise.all(Array.from({ length: 20 }, () => payAs(app, M1, token, payBody('20.00'), order, 'tx-1')));
  t.strictSame(new Set(replies.map((r) => r.statusCode)), new Set([201]));
  t.equal(new Set(replies.map((r) => r.body)).size, 1, 'one body for all');
  t.strictSame(await typesOf(app, M1.id, order), ['PaymentRecorded']);
});

t.test('identical requests while the first is in flight (rule latency): they wait and answer its record', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, RULES, 1, 39);
  const order = newOrderId();
  const body = payBody('20.00', { order: { reference: 'slow' } });
  const first = payAs(app, RULES, token, body, order, 'tx-1');
  await started(app, RULES.id, order);
  const repeats = await Promise.all(Array.from({ length: 10 }, () => payAs(app, RULES, token, body, order, 'tx-1')));
  const all = [await first, ...repeats];
  t.strictSame(new Set(all.map((r) => r.statusCode)), new Set([201]));
  t.equal(new Set(all.map((r) => r.body)).size, 1, 'every repeat answers the same body');
  t.strictSame(await typesOf(app, RULES.id, order), ['PaymentStarted', 'PaymentRecorded'], 'one start, one record');
});

t.test('another transaction while one is in progress: LOCK_FAILURE, 201, nothing recorded; later it pays', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, RULES, 1, 39);
  const order = newOrderId();
  const first = payAs(app, RULES, token, payBody('20.00', { order: { reference: 'slow' } }), order, 'tx-1');
  await started(app, RULES.id, order);
  const second = await payAs(app, RULES, token, payBody('5.00'), order, 'tx-2');
  t.equal(second.statusCode, 201);
  const locked = second.json();
  t.equal(locked.result, 'FAILURE');
  t.equal(locked.response.gatewayCode, 'LOCK_FAILURE');
  t.notOk('acquirerCode' in locked.response, 'the acquirer was not asked');
  t.equal(locked.order.totalCapturedAmount, 0);
  const different = await payAs(app, RULES, token, payBody('99.00', { order: { reference: 'slow' } }), order, 'tx-1');
  t.equal(different.statusCode, 400, 'the same ids with another body while in flight: refused');
  t.equal((await first).json().response.gatewayCode, 'APPROVED');
  t.strictSame(await typesOf(app, RULES.id, order), ['PaymentStarted', 'PaymentRecorded'], 'the LOCK_FAILURE is not recorded');
  const retry = await payAs(app, RULES, token, payBody('5.00'), order, 'tx-2');
  t.equal(retry.json().response.gatewayCode, 'APPROVED', 'the identical request, once the order is free, pays');
  t.equal(retry.json().order.totalCapturedAmount, 25, 'totals of both transactions');
});

t.test('parallel transactions with latency on one order: each either records or is LOCK_FAILURE, never both, never twice', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, RULES, 1, 39);
  const order = newOrderId();
  const replies = await Promise.all(Array.from({ length: 8 }, (_, i) =>
    payAs(app, RULES, token, payBody('1.00', { order: { reference: 'slow' } }), order, `tx-${i}`)));
  const codes = replies.map((r) => r.json().response.gatewayCode);
  t.equal(codes.filter((c) => c === 'APPROVED').length, 1, `one wins the order: ${codes.join(',')}`);
  t.equal(codes.filter((c) => c === 'LOCK_FAILURE').length, 7);
  const types = await typesOf(app, RULES.id, order);
  t.equal(types.filter((type) => type === 'PaymentRecorded').length, 1);
});

t.test('a lock whose holder died expires: the order is free again, the abandoned transaction can still pay once', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, M1, 1, 39);
  const order = newOrderId();
  const past = new Date(Date.now() - 60_000).toISOString();
  await app.gateway.store.append(streams.order(M1.id, order), [{
    id: randomUUID(), type: 'PaymentStarted',
    data: { merchantId: M1.id, orderId: order, transactionId: 'abandoned', requestFingerprint: 'x', attemptId: 'dead', amount: 100, currency: 'USD', latencyMs: 1000, startedAt: past, lockExpiresAt: past },
    metadata: { correlationId: 'test', recordedAt: past },
  }], { expectedRevision: 'no_stream' });
  const other = await payAs(app, M1, token, payBody('3.00'), order, 'tx-2');
  t.equal(other.json().response.gatewayCode, 'APPROVED', 'an expired lock does not block');
  t.equal(other.json().order.creationTime, other.json().timeOfRecord, 'the order dates from its first record');
});

t.test('transaction.reference: of 10 transactions claiming one reference at once, one wins', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, M1, 1, 39);
  const reference = `ref-${randomUUID().slice(0, 8)}`;
  const orders = Array.from({ length: 10 }, () => newOrderId());
  const body = payBody('2.00', { transaction: { amount: '2.00', currency: 'USD', reference } });
  const replies = await Promise.all(orders.map((order) => payAs(app, M1, token, body, order, 'tx-1')));
  const winners = replies.filter((r) => r.statusCode === 201);
  t.equal(winners.length, 1, 'one transaction holds the reference');
  for (const loser of replies.filter((r) => r.statusCode !== 201)) {
    t.equal(loser.statusCode, 400);
    t.equal(loser.json().error.field, 'transaction.reference');
    t.equal(loser.json().error.validationType, 'INVALID');
  }
  const winnerOrder = orders[replies.indexOf(winners[0]!)]!;
  const again = await payAs(app, M1, token, body, winnerOrder, 'tx-1');
  t.equal(again.body, winners[0]!.body, 'the identical retry of the winner still replays');
  const recorded = await Promise.all(orders.map((order) => typesOf(app, M1.id, order)));
  t.equal(recorded.flat().length, 1, 'one payment recorded in all');
});
