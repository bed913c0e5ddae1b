// Pay with token decided on a token read unconfirmed (services/order/read-beside.ts) where the
// order's decision appends nothing: another transaction holds the order (LOCK_FAILURE), an
// identical repeat finds its payment in progress (it waits for the record), a merchant rule's
// simulated SERVER_BUSY. Each is confirmed by a careful read of the token first, so a token
// deleted or changed behind the stale read gets the answer a careful read gives. And a payment
// held by a merchant rule's latency appends its start with the token's revision as its condition
// and its record after the wait without one (the token is read once per payment, as on a careful
// read). The app's memory store is given the unconfirmed read (test/helpers/unconfirmed-reads.ts).
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { streams } from '../../domain/events.js';
import { buildTestApp, createToken, M1, UNIQUE } from '../helpers/app.js';
import { waitFor } from '../helpers/poll.js';
import { unconfirmedReads } from '../helpers/unconfirmed-reads.js';
import { deleteTokenOk, eventsOfType, expectInvalid, orderId, pay, payBody, type App } from './http.fixture.js';
import { MERCHANTS_WITH_RULES, RULES } from './pay-triggers.fixture.js';

const MASTERCARD = '5123450000000008';
type Merchant = typeof M1;

const typesOf = async (app: App, merchantId: string, order: string) =>
  (await app.gateway.store.readStream(streams.order(merchantId, order))).map((e) => e.type);

/** The order held by another transaction's payment in progress (its lock expires in a minute). */
async function heldOrder(app: App, merchant: Merchant): Promise<string> {
  const order = orderId();
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 60_000).toISOString();
  await app.gateway.store.append(streams.order(merchant.id, order), [{
    id: randomUUID(), type: 'PaymentStarted',
    data: { merchantId: merchant.id, orderId: order, transactionId: 'holder', requestFingerprint: 'x', attemptId: 'elsewhere', amount: 100, currency: 'USD', latencyMs: 50_000, startedAt: now, lockExpiresAt: expires },
    metadata: { correlationId: 'test', recordedAt: now },
  }], { expectedRevision: 'no_stream' });
  return order;
}

t.test('LOCK_FAILURE decided on a stale read of a deleted token: the careful read\'s 400, nothing recorded', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app);
  const stream = streams.token(M1.repository.id, token);
  const order = await heldOrder(app, M1);
  await reads.freeze(stream);
  await deleteTokenOk(t, app, token);
  const before = reads.carefulReads(stream);
  const res = await pay(app, token, payBody(), { order, transaction: 'tx-2' });
  expectInvalid(t, res, { field: 'tokenid', explanation: /No such token/ }, 'not LOCK_FAILURE: the token is gone');
  t.ok(reads.carefulReads(stream) > before, 'the token was read the careful way');
  t.same(await typesOf(app, M1.id, order), ['PaymentStarted'], 'nothing appended to the order');
  reads.thaw(stream);
  t.equal(res.body, (await pay(app, token, payBody(), { order, transaction: 'tx-2' })).body, 'the careful read\'s answer');
});

t.test('LOCK_FAILURE decided on a stale read of a changed token: answered with the token as it is', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app, UNIQUE, MASTERCARD, '1', '39');
  const stream = streams.token(UNIQUE.repository.id, token);
  const order = await heldOrder(app, UNIQUE);
  await reads.freeze(stream);
  t.equal(await createToken(app, UNIQUE, MASTERCARD, '12', '35'), token, 'UNIQUE_CARD: the same token, its expiry updated');
  const res = await pay(app, token, payBody(), { order, transaction: 'tx-2', merchant: UNIQUE });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().response.gatewayCode, 'LOCK_FAILURE');
  t.same(res.json().card.expiry, { month: '12', year: '35' }, 'the new expiry, not the stale read\'s');
  t.same(await typesOf(app, UNIQUE.id, order), ['PaymentStarted'], 'nothing appended to the order');
  reads.thaw(stream);
  const careful = (await pay(app, token, payBody(), { order, transaction: 'tx-2', merchant: UNIQUE })).json();
  t.same({ card: res.json().card, sourceOfFunds: res.json().sourceOfFunds }, { card: careful.card, sourceOfFunds: careful.sourceOfFunds }, 'the card of the careful read\'s answer (its times are its own)');
});

t.test('a payment held by a rule\'s latency: its start conditioned, its record not; a repeat meanwhile on a stale read of its deleted token: the careful read\'s 400', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app, RULES as unknown as Merchant);
  const stream = streams.token(RULES.repository.id, token);
  await reads.freeze(stream);
  const order = orderId();
  const body = payBody({}, { order: { reference: 'slow' } });
  const first = pay(app, token, body, { order, transaction: 'tx-1', merchant: RULES });
  await waitFor(async () => (await typesOf(app, RULES.id, order)).includes('PaymentStarted'), 'the first request to start', { intervalMs: 5 });
  // Deleted while the payment waits: the payment still records (its token was read once, as today).
  await deleteTokenOk(t, app, token, RULES);
  const repeat = await pay(app, token, body, { order, transaction: 'tx-1', merchant: RULES });
  expectInvalid(t, repeat, { field: 'tokenid', explanation: /No such token/ }, 'the repeat, confirmed before it waits for the record');
  const paid = await first;
  t.equal(paid.statusCode, 201, paid.body);
  t.equal(paid.json().response.gatewayCode, 'APPROVED', 'the payment in progress records');
  t.same(await typesOf(app, RULES.id, order), ['PaymentStarted', 'PaymentRecorded'], 'one start, one record');
  t.same(reads.conditions(streams.order(RULES.id, order)), [{ stream, revision: 0n }, undefined],
    'the start carried the token\'s revision; the record after the wait none');
  reads.thaw(stream);
  t.equal(repeat.body, (await pay(app, token, body, { order, transaction: 'tx-1', merchant: RULES })).body, 'the careful read\'s answer');
});

t.test('a simulated SERVER_BUSY decided on a stale read of a deleted token: the careful read\'s 400', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app, RULES as unknown as Merchant);
  const stream = streams.token(RULES.repository.id, token);
  await reads.freeze(stream);
  await deleteTokenOk(t, app, token, RULES);
  const order = orderId();
  const body = payBody({}, { order: { reference: 'busy' } });
  const res = await pay(app, token, body, { order, merchant: RULES });
  expectInvalid(t, res, { field: 'tokenid', explanation: /No such token/ }, 'not SERVER_BUSY: the token is gone');
  t.same(await eventsOfType(app, 'PaymentRecorded'), [], 'nothing recorded');
  reads.thaw(stream);
  t.equal(res.body, (await pay(app, token, body, { order, merchant: RULES })).body, 'the careful read\'s answer');
});

