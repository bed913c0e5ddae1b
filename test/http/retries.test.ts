// Retries and the order aggregate (facts "Payments"): an identical repeat returns the recorded
// outcome without paying twice, a different request reusing the ids is refused, concurrent
// requests on one order are serialised, unknown tokens reveal nothing about other repositories.
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, createToken, M1, M2, payPath, payAuth, tokenAuth, tokenPath } from '../helpers/app.js';
import { eventsOfType, expectInvalid, orderId, pay, payBody, type App } from './http.fixture.js';
import { sortedJson } from '../../lib/json.js';
import { streams } from '../../domain/events.js';

const withoutCorrelation = (body: Record<string, unknown>) => {
  const { correlationId: _ignored, ...rest } = body;
  return rest;
};

const paymentsOf = async (app: App, order: string) =>
  (await eventsOfType(app, 'PaymentRecorded')).filter((e) => e.stream.endsWith(`:${order}`));

t.test('an identical repeat returns the recorded outcome and appends nothing', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = orderId();
  const body = payBody({ amount: '12.50', reference: 'R1' }, { correlationId: 'first' });
  const first = await pay(app, token, body, { order, transaction: 't1' });
  t.equal(first.statusCode, 201, first.body);
  const head = await app.gateway.store.headPosition();

  const again = await pay(app, token, { ...body, correlationId: 'second' }, { order, transaction: 't1' });
  t.equal(again.statusCode, 201, again.body);
  t.same(withoutCorrelation(again.json()), withoutCorrelation(first.json()), 'same body except correlationId');
  t.equal(again.json().correlationId, 'second', 'the repeat echoes its own correlationId');
  t.equal(again.json().transaction.authorizationCode, first.json().transaction.authorizationCode, 'same authorization code');
  t.equal(await app.gateway.store.headPosition(), head, 'store head unchanged');

  const third = await pay(app, token, withoutCorrelation(body), { order, transaction: 't1' });
  t.equal(third.statusCode, 201, third.body);
  t.same(third.json(), withoutCorrelation(first.json()), 'without correlationId: same body, no correlationId');
  t.equal(await app.gateway.store.headPosition(), head, 'store head still unchanged');
  t.equal((await paymentsOf(app, order)).length, 1, 'one payment recorded');
});

// Repeats are answered from the recent answers while the store tells that nothing they depend on
// changed (services/order/recent-answers.ts): these are the changes that must make the gateway
// decide again.
t.test('a repeat with the same bytes answers the same bytes, and is decided again once the order or the token changed', async (t) => {
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(t.testdir(), 'retries.db') } });
  const token = await createToken(app);
  const order = orderId();
  const body = payBody({ amount: '12.50' }, { correlationId: 'c1' });
  const first = await pay(app, token, body, { order, transaction: 't1' });
  t.equal(first.statusCode, 201, first.body);
  t.equal(typeof app.gateway.store.knownRevision(streams.order(M1.id, order)), 'bigint', "a store that tells the order's revision without a read");
  for (const i of [1, 2, 3]) t.equal((await pay(app, token, body, { order, transaction: 't1' })).body, first.body, `repeat ${i}: the first answer, byte for byte`);
  const reordered = await pay(app, token, JSON.parse(sortedJson(body)) as unknown, { order, transaction: 't1' });
  t.equal(reordered.body, first.body, 'the same request written in another order of members: the same answer');

  const second = await pay(app, token, payBody({ amount: '1.00' }), { order, transaction: 't2' });
  t.equal(second.statusCode, 201, second.body);
  t.equal(second.json().order.totalCapturedAmount, 13.5, 'another transaction of the order');
  t.equal((await pay(app, token, body, { order, transaction: 't1' })).body, first.body, 'the repeat after it: its own record again');
  t.equal((await paymentsOf(app, order)).length, 2, 'two payments recorded, no more');

  const deleted = await app.inject({ method: 'DELETE', url: `${tokenPath(M1.id)}/${token}`, headers: { authorization: tokenAuth(M1) } });
  t.equal(deleted.statusCode, 200, deleted.body);
  const refused = await pay(app, token, body, { order, transaction: 't1' });
  t.equal(refused.statusCode, 400, 'after the token was deleted the repeat is refused as any pay with it, not answered from memory');
  t.equal(refused.json().error.field, 'tokenid');
});

t.test('a different request reusing the order and transaction ids is refused', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const other = await createToken(app, M1, '4508750015741019');
  const order = orderId();
  const first = await pay(app, token, payBody({ amount: '12.50' }), { order, transaction: 't1' });
  t.equal(first.statusCode, 201, first.body);
  const head = await app.gateway.store.headPosition();

  const variants: Array<[string, string, unknown]> = [
    ['different amount', token, payBody({ amount: '13.00' })],
    ['different currency', token, payBody({ amount: '12.50', currency: 'EUR' })],
    ['added reference', token, payBody({ amount: '12.50', reference: 'X' })],
    ['different token', other, payBody({ amount: '12.50' })],
  ];
  for (const [what, tok, body] of variants) {
    const res = await pay(app, tok, body, { order, transaction: 't1' });
    t.equal(res.statusCode, 400, `${what}: 400 (${res.body})`);
    t.equal(res.json().result, 'ERROR', `${what}: result ERROR`);
    t.equal(res.json().error?.cause, 'INVALID_REQUEST', `${what}: INVALID_REQUEST`);
  }
  t.equal(await app.gateway.store.headPosition(), head, 'nothing appended');
  const original = await pay(app, token, payBody({ amount: '12.50' }), { order, transaction: 't1' });
  t.same(original.json(), first.json(), 'the original request still reads the recorded outcome');
});

t.test('10 identical requests at once: all 201, identical bodies, one payment recorded', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = orderId();
  const responses = await Promise.all(Array.from({ length: 10 }, () => pay(app, token, payBody({ amount: '5.00' }), { order, transaction: 'same' })));
  t.same(responses.map((r) => r.statusCode), Array(10).fill(201), 'all 201');
  t.equal(new Set(responses.map((r) => r.body)).size, 1, 'identical bodies');
  t.equal((await paymentsOf(app, order)).length, 1, 'exactly one PaymentRecorded');
  t.equal(responses[0]!.json().order.totalCapturedAmount, 5, 'paid once');
});

t.test('10 different transactions on one order at once: all recorded, totals add up', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = orderId();
  const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => pay(app, token, payBody({ amount: '1.00' }), { order, transaction: `t${i}` })));
  t.same(responses.map((r) => r.statusCode), Array(10).fill(201), responses.map((r) => r.body).find((b) => !b.startsWith('{"card"')) ?? 'all 201');
  t.equal((await paymentsOf(app, order)).length, 10, 'ten payments recorded');
  const totals = responses.map((r) => r.json().order?.totalCapturedAmount as number).sort((a, b) => a - b);
  t.same(totals, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 'each response shows the totals after its own payment');
});

t.test('a new transaction id on a declined order is recorded and the totals follow', async (t) => {
  const app = await buildTestApp(t);
  const declining = await createToken(app, M1, '5123450000000008', '5', '39');
  const approving = await createToken(app, M1, '5123450000000008', '1', '39');
  const order = orderId();

  const declined = await pay(app, declining, payBody({ amount: '10.00' }), { order, transaction: 't1' });
  t.equal(declined.statusCode, 201, declined.body);
  t.equal(declined.json().result, 'FAILURE');
  t.equal(declined.json().order.totalCapturedAmount, 0);

  const retried = await pay(app, approving, payBody({ amount: '10.00' }), { order, transaction: 't2' });
  t.equal(retried.statusCode, 201, retried.body);
  t.equal(retried.json().result, 'SUCCESS');
  t.equal(retried.json().order.id, Number(order));
  t.equal(retried.json().order.totalAuthorizedAmount, 10);
  t.equal(retried.json().order.totalCapturedAmount, 10);

  const more = await pay(app, approving, payBody({ amount: '2.50' }), { order, transaction: 't3' });
  t.equal(more.json().order.totalCapturedAmount, 12.5, 'a further payment adds to the totals');
  t.equal(more.json().transaction.amount, 2.5, 'the transaction carries its own amount');

  const replay = await pay(app, declining, payBody({ amount: '10.00' }), { order, transaction: 't1' });
  t.same(replay.json(), declined.json(), 'the declined transaction still reads as declined');
  t.equal((await paymentsOf(app, order)).length, 3, 'three payments recorded');
});

t.test('the same order id of two merchants are two orders', async (t) => {
  const app = await buildTestApp(t);
  const token1 = await createToken(app, M1);
  const token2 = await createToken(app, M2);
  const order = orderId();
  const a = await pay(app, token1, payBody({ amount: '3.00' }), { order, transaction: '1' });
  const b = await pay(app, token2, payBody({ amount: '4.00' }), { merchant: M2, order, transaction: '1' });
  t.equal(a.statusCode, 201, a.body);
  t.equal(b.statusCode, 201, b.body);
  t.equal(a.json().order.totalCapturedAmount, 3);
  t.equal(b.json().order.totalCapturedAmount, 4);
  t.equal(b.json().merchant, M2.id);
});

t.test('an unknown token is 400 on tokenid; another repository\'s token looks exactly like an unknown one', async (t) => {
  const app = await buildTestApp(t);
  const own = await createToken(app, M1);
  const ofM2 = await createToken(app, M2);
  const never = '9000000000000000';
  const head = await app.gateway.store.headPosition();

  const unknown = await pay(app, never, payBody());
  const unknownBody = expectInvalid(t, unknown, { field: 'tokenid', validationType: 'INVALID' }, 'unknown token');
  const foreign = await pay(app, ofM2, payBody());
  const foreignBody = expectInvalid(t, foreign, { field: 'tokenid', validationType: 'INVALID' }, 'token of M2 used by M1');
  // Same answer, save for the echoed token id itself.
  t.equal(foreignBody.error.explanation?.replace(ofM2, '<token>'), unknownBody.error.explanation?.replace(never, '<token>'), 'same explanation');
  t.equal(await app.gateway.store.headPosition(), head, 'nothing recorded');
  // And the M1 token is unknown to M2 as well.
  const reverse = await app.inject({ method: 'PUT', url: payPath(M2.id, own, orderId(), '1'), headers: { authorization: payAuth(M2) }, payload: payBody() });
  expectInvalid(t, reverse, { field: 'tokenid', validationType: 'INVALID' }, 'token of M1 used by M2');
});

t.test('no security code can be found again from a payment\'s fingerprint, and it is not part of what a repeat must match', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = orderId();
  const body = payBody({}, { card: { securityCode: '4721' } });
  const first = await pay(app, token, body, { order, transaction: 't1' });
  t.equal(first.statusCode, 201, 'paid with a security code');
  const [recorded] = await paymentsOf(app, order);
  const stored = (recorded?.data as { requestFingerprint: string }).requestFingerprint;
  // What someone holding the files (the key file's secret included) would try: every code of 3 and 4 digits.
  const { correlationId: _none, ...fingerprinted } = body as Record<string, unknown>;
  const candidate = (code: string) => app.gateway.sealer.fingerprint(sortedJson({ tokenid: token, body: { ...fingerprinted, card: { securityCode: code } } }));
  const codes = [...Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')), ...Array.from({ length: 10_000 }, (_, i) => String(i).padStart(4, '0'))];
  t.equal(codes.find((code) => candidate(code) === stored), undefined, 'no code of 3 or 4 digits gives the stored fingerprint');
  // The code as a value of its own (a JSON string or number), not four digits inside a random
  // token, id or sealed text (a token such as 9963472137592165 holds 4721 by chance).
  t.notMatch(JSON.stringify((await app.gateway.store.readAll()).map((e) => [e.data, e.metadata])), /(?<![\w-])4721(?![\w-])/, 'nor is it in any event');

  const head = await app.gateway.store.headPosition();
  const other = await pay(app, token, payBody({}, { card: { securityCode: '4722' } }), { order, transaction: 't1' });
  t.equal(other.statusCode, 201, 'a repeat with another code of the same length is the same request');
  t.equal(other.json().transaction.authorizationCode, first.json().transaction.authorizationCode, 'answered the recorded payment');
  t.equal(await app.gateway.store.headPosition(), head, 'nothing appended');
  const without = await pay(app, token, payBody(), { order, transaction: 't1' });
  t.equal(without.statusCode, 400, 'a repeat without a security code is another request: refused');
});
