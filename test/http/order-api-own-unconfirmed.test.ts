// The order API's transactions on an existing order decided on the order's stream read unconfirmed
// (EventStore.readStreamUnconfirmed, promise 8; services/command-handler.ts): a store whose memory
// missed another instance's write to the order answers every CAPTURE, REFUND and VOID as a careful read
// would (and Pay with token on an order another payment held). The app's memory store is given the read, served from a snapshot of the order taken
// before the change (test/helpers/unconfirmed-reads.ts): an append decided on the snapshot fails
// its expected revision and is decided again; a refusal, or an answer without an append, made on
// it is made again on the order read the careful way.
import t, { type Test } from 'tap';
import { streams } from '../../domain/events.js';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { waitFor } from '../helpers/poll.js';
import { unconfirmedReads } from '../helpers/unconfirmed-reads.js';
import { eventsOfType, orderId, pay, payBody, type App } from './http.fixture.js';
import { MERCHANTS_WITH_RULES, RULES } from './pay-triggers.fixture.js';

type Body = Record<string, any>;
const put = (a: App, order: string, txn: string, payload: Record<string, unknown>) =>
  a.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${txn}`, headers: { authorization: tokenAuth(M1) }, payload });
const authorize = (token: string) => ({ apiOperation: 'AUTHORIZE', order: { amount: '100.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } });
const capture = (amount: string) => ({ apiOperation: 'CAPTURE', transaction: { amount, currency: 'USD' } });
const refund = (amount: string) => ({ apiOperation: 'REFUND', transaction: { amount, currency: 'USD' } });
const voidOf = (target: string) => ({ apiOperation: 'VOID', transaction: { targetTransactionId: target } });
const expectedRevisions = (reads: ReturnType<typeof unconfirmedReads>, stream: string) => reads.appends(stream).map((options) => options.expectedRevision);

/** An order authorized for 100.00, its stream and the unconfirmed reads of the app. */
async function authorized(t: Test) {
  const a = await buildTestApp(t);
  const reads = unconfirmedReads(a.gateway.store);
  const token = await createToken(a, M1);
  const order = uniqueId();
  const auth = await put(a, order, 'auth-1', authorize(token));
  t.equal(auth.statusCode, 201, auth.body);
  return { a, reads, order, stream: streams.order(M1.id, order) };
}

const retrieve = async (a: App, order: string) =>
  (await a.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}`, headers: { authorization: tokenAuth(M1) } })).json() as Body;

/** A refusal of the VOID's target, and its answer once `stream` is read the careful way only (the same request again: a refusal records nothing). */
async function refusedAsCareful(t: Test, reads: ReturnType<typeof unconfirmedReads>, stream: string, send: () => Promise<Awaited<ReturnType<App['inject']>>>, explanation: RegExp) {
  const res = await send();
  t.equal(res.statusCode, 400, res.body);
  t.match(res.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'transaction.targetTransactionId', explanation } }, 'refused for its target');
  reads.thaw(stream);
  t.equal(res.body, (await send()).body, 'the answer of the careful read');
}

async function ok(t: Test, reply: Promise<Awaited<ReturnType<App['inject']>>>, what: string): Promise<Body> {
  const res = await reply;
  if (res.statusCode !== 201) t.comment(res.body);
  t.equal(res.statusCode, 201, what);
  return res.json() as Body;
}

t.test('a CAPTURE decided on a stale order (a capture behind it): answers with the order as it is', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  await reads.freeze(stream);
  await ok(t, put(a, order, 'cap-1', capture('40.00')), 'a capture the snapshot misses');
  const before = expectedRevisions(reads, stream).length;
  const body = await ok(t, put(a, order, 'cap-2', capture('60.00')), 'the capture of the rest');
  t.equal(body.order.status, 'CAPTURED', 'the order fully captured');
  t.equal(body.order.totalCapturedAmount, 100, 'both captures counted');
  t.same(expectedRevisions(reads, stream).slice(before), [0n, 1n], 'decided on the snapshot (its append refused), then on the order as it is');
  const retrieved = await a.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}`, headers: { authorization: tokenAuth(M1) } });
  t.equal(retrieved.json().totalCapturedAmount, 100, 'Retrieve Order agrees');
});

t.test('a REFUND refused on a stale order (captured less there) is decided again on the careful read, and succeeds', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  await ok(t, put(a, order, 'cap-1', capture('50.00')), 'capture');
  await reads.freeze(stream);
  await ok(t, put(a, order, 'cap-2', capture('50.00')), 'a capture the snapshot misses');
  const careful = reads.carefulReads(stream);
  const body = await ok(t, put(a, order, 'ref-1', refund('80.00')), 'a refund of more than the snapshot shows captured');
  t.equal(body.transaction.type, 'REFUND');
  t.equal(body.order.totalRefundedAmount, 80, 'refunded');
  t.equal(body.order.totalCapturedAmount, 100);
  t.equal(reads.carefulReads(stream), careful + 1, 'the order read the careful way once');
});

t.test('an identical repeat (a replay, nothing appended) on a stale order is answered from the careful read', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  const first = await ok(t, put(a, order, 'cap-1', capture('40.00')), 'capture');
  t.equal(first.order.totalCapturedAmount, 40);
  await reads.freeze(stream);
  await ok(t, put(a, order, 'cap-2', capture('20.00')), 'a capture the snapshot misses');
  const appended = expectedRevisions(reads, stream).length;
  const careful = reads.carefulReads(stream);
  const repeat = await put(a, order, 'cap-1', capture('40.00'));
  t.equal(repeat.statusCode, 201, repeat.body);
  t.equal(repeat.json().transaction.id, 'cap-1', 'the capture recorded first');
  t.equal(reads.carefulReads(stream), careful + 1, 'answered after the order was read the careful way');
  t.equal(expectedRevisions(reads, stream).length, appended, 'nothing appended');
  reads.thaw(stream);
  t.equal(repeat.body, (await put(a, order, 'cap-1', capture('40.00'))).body, 'the answer of a repeat on the careful read');
});

t.test('LOCK_FAILURE decided on a stale order (a payment in progress there, recorded since): decided again, the payment records', async (t) => {
  const a = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const reads = unconfirmedReads(a.gateway.store);
  const rules = RULES as unknown as typeof M1;
  const token = await createToken(a, rules);
  const order = orderId();
  const stream = streams.order(RULES.id, order);
  const slow = pay(a, token, payBody({}, { order: { reference: 'slow' } }), { order, transaction: 'tx-1', merchant: RULES });
  await waitFor(async () => (await a.gateway.store.readStream(stream)).some((e) => e.type === 'PaymentStarted'), 'the first payment to start', { intervalMs: 5 });
  await reads.freeze(stream);
  const first = await slow;
  t.equal(first.statusCode, 201, first.body);
  const res = await pay(a, token, payBody(), { order, transaction: 'tx-2', merchant: RULES });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().response.gatewayCode, 'APPROVED', 'not LOCK_FAILURE: the order is no longer held');
  t.equal((await eventsOfType(a, 'PaymentRecorded')).length, 2, 'both payments recorded');
});

t.test('a fresh snapshot: a CAPTURE reads the order no other way; its append carries the revision read', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  await reads.freeze(stream);
  const careful = reads.carefulReads(stream);
  const before = expectedRevisions(reads, stream).length;
  const body = await ok(t, put(a, order, 'cap-1', capture('30.00')), 'capture');
  t.equal(body.order.totalCapturedAmount, 30);
  t.equal(reads.carefulReads(stream), careful, 'no careful read of the order');
  t.same(expectedRevisions(reads, stream).slice(before), [0n], 'one append, after the revision read');
});

t.test('a second PAY on an order memory holds is decided on it, not guessed new', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  // As on PostgreSQL: no revision is known without a read (else a PAY never guesses its order new).
  a.gateway.store.knownRevision = () => undefined;
  await reads.freeze(stream);
  const token = await createToken(a, M1);
  const before = expectedRevisions(reads, stream).length;
  await ok(t, put(a, order, 'pay-2', { apiOperation: 'PAY', order: { amount: '100.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } }), 'a payment on the order');
  t.same(expectedRevisions(reads, stream).slice(before), [0n], 'one append, at the revision memory holds (no guess of a new order refused first)');
});

t.test('a VOID of an authorization captured behind a stale order is refused as on the careful read; nothing recorded', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  await reads.freeze(stream);
  await ok(t, put(a, order, 'cap-1', capture('40.00')), 'a capture the snapshot misses');
  const before = expectedRevisions(reads, stream).length;
  await refusedAsCareful(t, reads, stream, () => put(a, order, 'void-1', voidOf('auth-1')), /captured/);
  t.same(expectedRevisions(reads, stream).slice(before), [0n], 'decided on the snapshot, its append refused; then refused on the order as it is');
  t.match(await retrieve(a, order), { status: 'PARTIALLY_CAPTURED', totalAuthorizedAmount: 100, totalCapturedAmount: 40 }, 'the order as the capture left it');
});

t.test('a VOID of a capture voided behind a stale order is refused as already voided', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  await ok(t, put(a, order, 'cap-1', capture('40.00')), 'capture');
  await reads.freeze(stream);
  t.equal((await ok(t, put(a, order, 'void-1', voidOf('cap-1')), 'a void the snapshot misses')).transaction.type, 'VOID_CAPTURE');
  await refusedAsCareful(t, reads, stream, () => put(a, order, 'void-2', voidOf('cap-1')), /already been voided/);
  t.match(await retrieve(a, order), { status: 'AUTHORIZED', totalCapturedAmount: 0 }, 'voided once');
});

t.test('a VOID refused on a stale order (the authorization captured there) is decided again on the careful read, and succeeds', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  await ok(t, put(a, order, 'cap-1', capture('40.00')), 'capture');
  await reads.freeze(stream);
  await ok(t, put(a, order, 'void-1', voidOf('cap-1')), 'a void of the capture the snapshot misses');
  const careful = reads.carefulReads(stream);
  const body = await ok(t, put(a, order, 'void-2', voidOf('auth-1')), 'the authorization voided');
  t.equal(body.transaction.type, 'VOID_AUTHORIZATION');
  t.match(body.order, { status: 'CANCELLED', totalAuthorizedAmount: 0, totalCapturedAmount: 0 }, 'the order cancelled');
  t.equal(reads.carefulReads(stream), careful + 1, 'the order read the careful way once');
});

t.test('a VOID of a capture a stale order does not have yet is decided again on the careful read, and succeeds', async (t) => {
  const { a, reads, order, stream } = await authorized(t);
  await reads.freeze(stream);
  await ok(t, put(a, order, 'cap-1', capture('40.00')), 'a capture the snapshot misses');
  const body = await ok(t, put(a, order, 'void-1', voidOf('cap-1')), 'the capture voided');
  t.equal(body.transaction.type, 'VOID_CAPTURE');
  t.match(body.order, { status: 'AUTHORIZED', totalCapturedAmount: 0 }, 'back to authorized');
  t.match(await retrieve(a, order), { status: 'AUTHORIZED', totalCapturedAmount: 0 }, 'Retrieve Order agrees');
});
