// The order API's PAY, AUTHORIZE and VERIFY with sourceOfFunds.token decided on a token read
// unconfirmed (EventStore.readStreamUnconfirmed, promise 8; services/order/read-beside.ts), as
// Pay with token is: a store whose memory missed another instance's write to the token answers as
// a careful read would. The app's memory store is given the read, served from a snapshot of the
// token taken before the change (test/helpers/unconfirmed-reads.ts).
import t from 'tap';
import { streams } from '../../domain/events.js';
import { buildTestApp, createToken, M1, tokenAuth, UNIQUE } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { unconfirmedReads } from '../helpers/unconfirmed-reads.js';
import { deleteTokenOk, eventsOfType, expectInvalid, type App } from './http.fixture.js';

type M = { id: string; apiPassword: string };
type Body = Record<string, any>;
const MASTERCARD = '5123450000000008';
const NOT_FOUND = '{"error":{"cause":"INVALID_REQUEST","explanation":"Token not found","field":"sourceOfFunds.token","validationType":"INVALID"},"result":"ERROR"}';

const put = (a: App, m: M, order: string, txn: string, payload: Record<string, unknown>) =>
  a.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${m.id}/order/${order}/transaction/${txn}`, headers: { authorization: tokenAuth(m) }, payload });
const operation = (apiOperation: 'PAY' | 'AUTHORIZE' | 'VERIFY', token: string, extra: Record<string, unknown> = {}) =>
  ({ apiOperation, order: apiOperation === 'VERIFY' ? { currency: 'USD' } : { amount: '25.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, ...extra });

t.test('a token deleted behind a stale read: the order API\'s 400 on sourceOfFunds.token, nothing recorded', async (t) => {
  const a = await buildTestApp(t);
  const reads = unconfirmedReads(a.gateway.store);
  const token = await createToken(a, M1);
  const stream = streams.token(M1.repository.id, token);
  await reads.freeze(stream);
  await deleteTokenOk(t, a, token);
  const order = uniqueId();
  const res = await put(a, M1, order, '1', operation('PAY', token));
  expectInvalid(t, res, { field: 'sourceOfFunds.token', explanation: 'Token not found' });
  t.equal(res.body, NOT_FOUND, 'the exact error body');
  t.same(reads.conditions(streams.order(M1.id, order)), [{ stream, revision: 0n }], 'decided on the stale token: its append carried the token\'s revision, and failed');
  t.same(await eventsOfType(a, 'OrderTransactionRecorded'), [], 'nothing recorded');
  t.same(await a.gateway.store.readStream(streams.order(M1.id, order)), [], 'the order holds nothing');
  reads.thaw(stream);
  t.equal((await put(a, M1, order, '1', operation('PAY', token))).body, res.body, 'the answer a careful read gives');
});

t.test('a token\'s expiry updated behind a stale read: the transaction records and answers the new expiry', async (t) => {
  const a = await buildTestApp(t);
  const reads = unconfirmedReads(a.gateway.store);
  const token = await createToken(a, UNIQUE, MASTERCARD, '1', '39');
  const stream = streams.token(UNIQUE.repository.id, token);
  await reads.freeze(stream);
  t.equal(await createToken(a, UNIQUE, MASTERCARD, '12', '35'), token, 'UNIQUE_CARD: the same token, its expiry updated');
  const order = uniqueId();
  const res = await put(a, UNIQUE, order, '1', operation('AUTHORIZE', token));
  t.equal(res.statusCode, 201, res.body);
  const body = res.json() as Body;
  t.equal(body.result, 'SUCCESS');
  t.same(body.sourceOfFunds?.provided?.card?.expiry, { month: '12', year: '35' }, 'answered with the new expiry');
  const recorded = await eventsOfType(a, 'OrderTransactionRecorded');
  t.equal(recorded.length, 1, 'recorded once');
  t.match(recorded[0]?.data, { source: { card: { expiry: { month: 12, year: 35 } } } }, 'recorded with the new expiry');
  t.same(reads.conditions(streams.order(UNIQUE.id, order)), [{ stream, revision: 0n }, undefined], 'the stale append failed; the one after the careful read carried no condition');
});

t.test('a transaction recorded, then its token deleted: an identical repeat on a stale read answers as a careful read does', async (t) => {
  const a = await buildTestApp(t);
  const reads = unconfirmedReads(a.gateway.store);
  const token = await createToken(a, M1);
  const stream = streams.token(M1.repository.id, token);
  const order = uniqueId();
  const first = await put(a, M1, order, '1', operation('PAY', token));
  t.equal(first.statusCode, 201, first.body);
  await reads.freeze(stream);
  await deleteTokenOk(t, a, token);
  const before = reads.carefulReads(stream);
  const repeat = await put(a, M1, order, '1', operation('PAY', token));
  t.ok(reads.carefulReads(stream) > before, 'the replay was confirmed by a careful read first');
  t.equal((await eventsOfType(a, 'OrderTransactionRecorded')).length, 1, 'nothing more recorded');
  reads.thaw(stream);
  const careful = await put(a, M1, order, '1', operation('PAY', token));
  t.equal(careful.body, NOT_FOUND, 'a careful read refuses the deleted token');
  t.equal(repeat.statusCode, careful.statusCode);
  t.equal(repeat.body, careful.body, 'the same answer as a careful read gives');
});

t.test('a fresh read: PAY, AUTHORIZE and VERIFY append with the token\'s revision as the condition; the token is read no other way', async (t) => {
  const a = await buildTestApp(t);
  const reads = unconfirmedReads(a.gateway.store);
  // A token of its own each: once paid with, the memory store knows its card is current (kept: no read at all).
  for (const apiOperation of ['PAY', 'AUTHORIZE', 'VERIFY'] as const) {
    const token = await createToken(a, M1);
    const stream = streams.token(M1.repository.id, token);
    await reads.freeze(stream);
    const before = reads.carefulReads(stream);
    const order = uniqueId();
    const res = await put(a, M1, order, '1', operation(apiOperation, token));
    t.equal(res.statusCode, 201, `${apiOperation}: ${res.body}`);
    t.equal((res.json() as Body).result, 'SUCCESS', apiOperation);
    t.equal(reads.carefulReads(stream), before, `${apiOperation}: no careful read of the token`);
    t.same(reads.conditions(streams.order(M1.id, order)), [{ stream, revision: 0n }], `${apiOperation}: one append, conditioned on the token as read`);
  }
});

t.test('a request with a session: the token is read the careful way and the append carries no condition', async (t) => {
  const a = await buildTestApp(t);
  const reads = unconfirmedReads(a.gateway.store);
  const token = await createToken(a, M1);
  const stream = streams.token(M1.repository.id, token);
  await reads.freeze(stream);
  const created = await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/session`, headers: { authorization: tokenAuth(M1) } });
  t.equal(created.statusCode, 201, created.body);
  const before = reads.carefulReads(stream);
  const order = uniqueId();
  const res = await put(a, M1, order, '1', operation('PAY', token, { session: { id: (created.json() as Body).session.id } }));
  t.equal(res.statusCode, 201, res.body);
  t.ok(reads.carefulReads(stream) > before, 'the token read the careful way');
  t.same(reads.conditions(streams.order(M1.id, order)), [undefined], 'no condition: the decision rests on the session too');
});
