// Pay with token decided on a token read unconfirmed (EventStore.readStreamUnconfirmed, promise 8;
// services/order/read-beside.ts): a store whose memory missed another instance's write to the
// token answers every pay as a careful read would. The app's memory store is given the read,
// served from a snapshot of the token taken before the change (test/helpers/unconfirmed-reads.ts):
// the order's append carries the token's revision as its condition, a failed one re-reads the
// token the careful way, and an answer without an append is confirmed first.
import t from 'tap';
import { streams } from '../../domain/events.js';
import { buildTestApp, createToken, M1, UNIQUE } from '../helpers/app.js';
import { unconfirmedReads } from '../helpers/unconfirmed-reads.js';
import { deleteTokenOk, eventsOfType, expectInvalid, orderId, pay, payBody } from './http.fixture.js';

const MASTERCARD = '5123450000000008';
const tokenStream = (repositoryId: string, token: string) => streams.token(repositoryId, token);

t.test('a token deleted behind a stale read: the pay is refused with the careful read\'s 400, nothing recorded', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app);
  const stream = tokenStream(M1.repository.id, token);
  await reads.freeze(stream);
  await deleteTokenOk(t, app, token);
  const order = orderId();
  const res = await pay(app, token, payBody(), { order });
  expectInvalid(t, res, { field: 'tokenid', explanation: /No such token/ });
  t.same(reads.conditions(streams.order(M1.id, order)), [{ stream, revision: 0n }], 'decided on the stale token: the append carried its revision, and failed');
  t.same(await eventsOfType(app, 'PaymentRecorded'), [], 'nothing recorded');
  t.same(await app.gateway.store.readStream(streams.order(M1.id, order)), [], 'the order holds nothing');
  reads.thaw(stream);
  const careful = await pay(app, token, payBody(), { order });
  t.equal(res.body, careful.body, 'the same answer as a pay that read the token the careful way');
});

t.test('a token\'s expiry updated behind a stale read: the pay answers with the new expiry', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app, UNIQUE, MASTERCARD, '1', '39');
  const stream = tokenStream(UNIQUE.repository.id, token);
  await reads.freeze(stream);
  t.equal(await createToken(app, UNIQUE, MASTERCARD, '12', '35'), token, 'UNIQUE_CARD: the same token, its expiry updated');
  const order = orderId();
  const res = await pay(app, token, payBody(), { order, merchant: UNIQUE });
  t.equal(res.statusCode, 201, res.body);
  t.same(res.json().card.expiry, { month: '12', year: '35' }, 'the new expiry');
  t.equal(res.json().result, 'SUCCESS');
  const recorded = await eventsOfType(app, 'PaymentRecorded');
  t.equal(recorded.length, 1, 'recorded once');
  t.match(recorded[0]?.data, { card: { expiry: { month: 12, year: 35 } } }, 'recorded with the new expiry');
  t.same(reads.conditions(streams.order(UNIQUE.id, order)), [{ stream, revision: 0n }, undefined], 'the stale append failed; the one after the careful read carried no condition');
});

t.test('a pay recorded, then its token deleted: an identical repeat decided on a stale read gets the careful read\'s 400', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app);
  const stream = tokenStream(M1.repository.id, token);
  const order = orderId();
  const first = await pay(app, token, payBody(), { order });
  t.equal(first.statusCode, 201, first.body);
  await reads.freeze(stream);
  await deleteTokenOk(t, app, token);
  const before = reads.carefulReads(stream);
  const repeat = await pay(app, token, payBody(), { order });
  expectInvalid(t, repeat, { field: 'tokenid', explanation: /No such token/ });
  t.ok(reads.carefulReads(stream) > before, 'the replay was confirmed by a careful read first');
  t.equal((await eventsOfType(app, 'PaymentRecorded')).length, 1, 'nothing more recorded');
  reads.thaw(stream);
  t.equal(repeat.body, (await pay(app, token, payBody(), { order })).body, 'the same answer as a careful read gives');
});

t.test('transaction.reference held by a pay whose condition fails: let go of, a second transaction uses it', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const deleted = await createToken(app);
  const other = await createToken(app);
  const stream = tokenStream(M1.repository.id, deleted);
  await reads.freeze(stream);
  await deleteTokenOk(t, app, deleted);
  const order = orderId();
  const refused = await pay(app, deleted, payBody({ reference: 'REF-UNCONFIRMED' }), { order });
  expectInvalid(t, refused, { field: 'tokenid', explanation: /No such token/ });
  t.same(reads.conditions(streams.order(M1.id, order)), [{ stream, revision: 0n }], 'the reference was held, then the order\'s append failed its condition');
  t.ok((await eventsOfType(app, 'TransactionReferenceReserved')).length > 0, 'the reference was held');
  const second = await pay(app, other, payBody({ reference: 'REF-UNCONFIRMED' }));
  t.equal(second.statusCode, 201, `a second transaction with the reference (${second.body})`);
  t.equal(second.json().transaction.reference, 'REF-UNCONFIRMED');
});

t.test('a fresh read: the order\'s append carries the token\'s revision as its condition; the token is read no other way', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app);
  const stream = tokenStream(M1.repository.id, token);
  await reads.freeze(stream);
  const before = reads.carefulReads(stream);
  const order = orderId();
  const res = await pay(app, token, payBody(), { order });
  t.equal(res.statusCode, 201, res.body);
  t.equal(reads.carefulReads(stream), before, 'no careful read of the token');
  t.same(reads.conditions(streams.order(M1.id, order)), [{ stream, revision: 0n }], 'one append, conditioned on the token as read');
});

t.test('a refusal decided on an unconfirmed read is decided again on the careful read', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app);
  const deleted = await createToken(app);
  await deleteTokenOk(t, app, deleted);
  // The memory answers the token's stream with a deleted token's history (same repository).
  const stream = tokenStream(M1.repository.id, token);
  reads.serve(stream, await app.gateway.store.readStream(tokenStream(M1.repository.id, deleted)));
  const before = reads.carefulReads(stream);
  const order = orderId();
  const res = await pay(app, token, payBody(), { order });
  t.equal(res.statusCode, 201, `paid: the careful read shows the token valid (${res.body})`);
  t.equal(reads.carefulReads(stream), before + 1, 'read the careful way once');
  t.same(reads.conditions(streams.order(M1.id, order)), [undefined], 'decided on the careful read: no condition');
});

t.test('an identical repeat replayed after its token changed behind a stale read: kept with the revision it was confirmed at', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const token = await createToken(app, UNIQUE, MASTERCARD, '1', '39');
  const stream = tokenStream(UNIQUE.repository.id, token);
  const order = orderId();
  const first = await pay(app, token, payBody(), { order, merchant: UNIQUE });
  t.equal(first.statusCode, 201, first.body);
  await reads.freeze(stream);
  t.equal(await createToken(app, UNIQUE, MASTERCARD, '12', '35'), token, 'the token\'s expiry updated');
  const repeat = await pay(app, token, payBody(), { order, merchant: UNIQUE });
  t.equal(repeat.body, first.body, 'replayed: the recorded answer');
  // The replay was kept with the token's revision it was decided on (after the careful read): the
  // store knows the token is still at it, so the next repeat is answered from what was kept,
  // without reading the order (or the token) again.
  const orderStream = streams.order(UNIQUE.id, order);
  const before = { token: reads.carefulReads(stream), order: reads.carefulReads(orderStream) };
  const again = await pay(app, token, payBody(), { order, merchant: UNIQUE });
  t.equal(again.body, first.body);
  t.same({ token: reads.carefulReads(stream), order: reads.carefulReads(orderStream) }, before, 'answered from the kept replay: nothing read');
});

t.test('a refusal decided on a stale read (the reference another transaction holds) gives way to the careful read\'s', async (t) => {
  const app = await buildTestApp(t);
  const reads = unconfirmedReads(app.gateway.store);
  const deleted = await createToken(app);
  const other = await createToken(app);
  const held = await pay(app, other, payBody({ reference: 'REF-TAKEN' }));
  t.equal(held.statusCode, 201, held.body);
  const stream = tokenStream(M1.repository.id, deleted);
  await reads.freeze(stream);
  await deleteTokenOk(t, app, deleted);
  const order = orderId();
  const refused = await pay(app, deleted, payBody({ reference: 'REF-TAKEN' }), { order });
  expectInvalid(t, refused, { field: 'tokenid', explanation: /No such token/ }, 'the token\'s refusal, as a careful read gives it first');
  reads.thaw(stream);
  t.equal(refused.body, (await pay(app, deleted, payBody({ reference: 'REF-TAKEN' }), { order })).body, 'the careful read\'s answer');
});
