// Issue 15: the order API of versions 1-100 but the deactivated ones, driven as a shop's client
// library drives it: PUT .../version/{version}/merchant/{id}/order/{uuid}/transaction/{id} with
// apiOperation AUTHORIZE, CAPTURE, REFUND, VOID, PAY, VERIFY and a token of the merchant's
// repository; Retrieve Transaction and Retrieve Order; retries; the refusals; a version 3 order
// seen on this path.
import t, { type Test } from 'tap';
import { createToken, M1, M2, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expect401, expectInvalid, assertSortedJson, type App } from './http.fixture.js';
import { MASK04, app as appWithMask, create } from './token-api.fixture.js';
import { buildTestApp } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';

type M = { id: string; apiPassword: string };
const orderPath = (m: M, order: string, version = 100) => `/api/rest/version/${version}/merchant/${m.id}/order/${encodeURIComponent(order)}`;
const txnPath = (m: M, order: string, txn: string, version = 100) => `${orderPath(m, order, version)}/transaction/${encodeURIComponent(txn)}`;

const put = (a: App, m: M, order: string, txn: string, payload: Record<string, unknown>, version = 100) =>
  a.inject({ method: 'PUT', url: txnPath(m, order, txn, version), headers: { authorization: tokenAuth(m) }, payload });
const get = (a: App, m: M, url: string) => a.inject({ method: 'GET', url, headers: { authorization: tokenAuth(m) } });

const authorize = (token: string, amount: unknown = '100.00', currency = 'USD') =>
  ({ apiOperation: 'AUTHORIZE', order: { amount, currency }, sourceOfFunds: { type: 'CARD', token } });
const payOp = (token: string, amount: unknown = '25.00', currency = 'USD') =>
  ({ apiOperation: 'PAY', order: { amount, currency }, sourceOfFunds: { type: 'CARD', token } });
const capture = (amount: unknown, currency = 'USD') => ({ apiOperation: 'CAPTURE', transaction: { amount, currency } });
const refund = (amount: unknown, currency = 'USD') => ({ apiOperation: 'REFUND', transaction: { amount, currency } });
const voidOf = (target: string) => ({ apiOperation: 'VOID', transaction: { targetTransactionId: target } });

type Body = Record<string, any>;
function expectTransaction(t: Test, res: Awaited<ReturnType<App['inject']>>, expected: {
  type: string; amount: number; status: string; authorized: number; captured: number; refunded: number; gatewayCode?: string; result?: string; version?: string;
}, what: string): Body {
  t.equal(res.statusCode, 201, `${what}: 201 (${res.body})`);
  assertSortedJson(t, res, what);
  const body = res.json() as Body;
  t.equal(body.result, expected.result ?? 'SUCCESS', `${what}: result`);
  t.equal(body.response?.gatewayCode, expected.gatewayCode ?? 'APPROVED', `${what}: gatewayCode`);
  t.equal(body.transaction?.type, expected.type, `${what}: transaction.type`);
  t.equal(body.transaction?.amount, expected.amount, `${what}: transaction.amount`);
  t.equal(body.order?.status, expected.status, `${what}: order.status`);
  t.equal(body.order?.totalAuthorizedAmount, expected.authorized, `${what}: totalAuthorizedAmount`);
  t.equal(body.order?.totalCapturedAmount, expected.captured, `${what}: totalCapturedAmount`);
  t.equal(body.order?.totalRefundedAmount, expected.refunded, `${what}: totalRefundedAmount`);
  t.equal(body.gatewayEntryPoint, 'WEB_SERVICES_API', `${what}: gatewayEntryPoint`);
  t.equal(body.version, expected.version ?? '100', `${what}: version`);
  t.equal(body.merchant, M1.id, `${what}: merchant`);
  return body;
}

t.test('authorize → capture (partial, then the rest) → refund (partial) → void of the refund, UUID order id', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  const auth = expectTransaction(t, await put(a, M1, order, 'auth-1', authorize(token)),
    { type: 'AUTHORIZATION', amount: 100, status: 'AUTHORIZED', authorized: 100, captured: 0, refunded: 0 }, 'authorize');
  t.equal(auth.order.id, order, 'order.id is the UUID, as a string');
  t.equal(auth.order.currency, 'USD');
  t.equal(auth.order.amount, 100);
  t.match(auth.transaction.authorizationCode, /^([0-9]{2}[A-Z]){2}$/, 'an authorization code');
  t.match(auth.transaction.receipt, /^([0-9]{2}[A-Z]){4}$/, 'a receipt');
  t.equal(auth.transaction.acquirer.id, 'TOKENGATE_S2I');
  t.equal(auth.response.acquirerCode, '00');
  t.equal(auth.response.acquirerMessage, 'Approved');
  t.equal(auth.sourceOfFunds.token, token);
  t.equal(auth.sourceOfFunds.type, 'CARD');
  t.equal(auth.sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'card number masked 6.4');
  t.ok(auth.order.creationTime && auth.order.lastUpdatedTime && auth.timeOfRecord, 'times');

  expectTransaction(t, await put(a, M1, order, 'cap-1', capture('40.00')),
    { type: 'CAPTURE', amount: 40, status: 'PARTIALLY_CAPTURED', authorized: 100, captured: 40, refunded: 0 }, 'partial capture');
  const cap2 = expectTransaction(t, await put(a, M1, order, 'cap-2', capture(60)),
    { type: 'CAPTURE', amount: 60, status: 'CAPTURED', authorized: 100, captured: 100, refunded: 0 }, 'capture of the rest (JSON number)');
  t.equal(cap2.transaction.authorizationCode, auth.transaction.authorizationCode, 'the capture carries the authorization code');
  t.equal(cap2.sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'a capture shows the order\'s card, masked');
  expectTransaction(t, await put(a, M1, order, 'ref-1', refund(30.5)),
    { type: 'REFUND', amount: 30.5, status: 'PARTIALLY_REFUNDED', authorized: 100, captured: 100, refunded: 30.5 }, 'partial refund');
  const v = expectTransaction(t, await put(a, M1, order, 'void-1', voidOf('ref-1')),
    { type: 'VOID_REFUND', amount: 30.5, status: 'CAPTURED', authorized: 100, captured: 100, refunded: 0 }, 'void of the refund');
  t.equal(v.transaction.targetTransactionId, 'ref-1');

  const retrieved = await get(a, M1, txnPath(M1, order, 'cap-1'));
  t.equal(retrieved.statusCode, 200, retrieved.body);
  const first = (await get(a, M1, txnPath(M1, order, 'cap-1'))).json() as Body;
  t.equal(first.transaction.type, 'CAPTURE');
  t.equal(first.transaction.amount, 40);
  t.equal(first.order.status, 'PARTIALLY_CAPTURED', 'Retrieve Transaction answers the transaction as recorded');

  const whole = await get(a, M1, orderPath(M1, order));
  t.equal(whole.statusCode, 200, whole.body);
  assertSortedJson(t, whole, 'Retrieve Order');
  const o = whole.json() as Body;
  t.equal(o.id, order);
  t.equal(o.status, 'CAPTURED');
  t.equal(o.amount, 100);
  t.equal(o.totalCapturedAmount, 100);
  t.equal(o.totalRefundedAmount, 0);
  t.same(o.transaction.map((x: Body) => [x.transaction.id, x.transaction.type]),
    [['auth-1', 'AUTHORIZATION'], ['cap-1', 'CAPTURE'], ['cap-2', 'CAPTURE'], ['ref-1', 'REFUND'], ['void-1', 'VOID_REFUND']]);
});

t.test('refusals: beyond the authorized or captured amount, a voided transaction, an unknown order, another currency', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  t.equal((await put(a, M1, order, '1', authorize(token, '50.00'))).statusCode, 201);
  const head = await a.gateway.store.headPosition();
  expectInvalid(t, await put(a, M1, order, '2', capture('50.01')), { field: 'transaction.amount', explanation: /exceeds the order's authorized amount/ }, 'capture beyond the authorized amount');
  expectInvalid(t, await put(a, M1, order, '2', refund('1.00')), { field: 'transaction.amount', explanation: /exceeds the order's captured amount/ }, 'refund before any capture');
  expectInvalid(t, await put(a, M1, order, '2', capture('10.00', 'EUR')), { field: 'transaction.currency', explanation: /order's currency is USD/ }, 'capture in another currency');
  expectInvalid(t, await put(a, M1, uniqueId(), '1', capture('10.00')), { field: 'orderId', explanation: /No such order/ }, 'capture on an unknown order');
  expectInvalid(t, await put(a, M1, uniqueId(), '1', voidOf('1')), { field: 'orderId', explanation: /No such order/ }, 'void on an unknown order');
  expectInvalid(t, await put(a, M1, order, '2', voidOf('nope')), { field: 'transaction.targetTransactionId' }, 'void of an unknown transaction');
  expectInvalid(t, await put(a, M1, order, '2', capture('-1')), { field: 'transaction.amount' }, 'a negative amount');
  expectInvalid(t, await put(a, M1, order, '2', capture(0)), { field: 'transaction.amount' }, 'a zero amount');
  expectInvalid(t, await put(a, M1, order, '2', capture('1.001')), { field: 'transaction.amount' }, 'too many decimals');
  expectInvalid(t, await put(a, M1, order, '2', capture({ x: 1 })), { field: 'transaction.amount' }, 'an object as amount');
  expectInvalid(t, await put(a, M1, order, '2', { apiOperation: 'CAPTURE', transaction: { currency: 'USD' } }), { field: 'transaction.amount', validationType: 'MISSING' }, 'no amount');
  expectInvalid(t, await put(a, M1, order, '2', { apiOperation: 'VOID' }), { field: 'transaction.targetTransactionId', validationType: 'MISSING' }, 'void without a target');
  t.equal(await a.gateway.store.headPosition(), head, 'no refusal appended anything');

  expectTransaction(t, await put(a, M1, order, '2', capture('20.00')), { type: 'CAPTURE', amount: 20, status: 'PARTIALLY_CAPTURED', authorized: 50, captured: 20, refunded: 0 }, 'capture');
  expectInvalid(t, await put(a, M1, order, '3', voidOf('1')), { field: 'transaction.targetTransactionId', explanation: /captured/ }, 'void of a captured authorization');
  expectTransaction(t, await put(a, M1, order, '3', voidOf('2')), { type: 'VOID_CAPTURE', amount: 20, status: 'AUTHORIZED', authorized: 50, captured: 0, refunded: 0 }, 'void of the capture');
  expectInvalid(t, await put(a, M1, order, '4', voidOf('2')), { field: 'transaction.targetTransactionId', explanation: /already been voided/ }, 'a void of a voided transaction');
  expectInvalid(t, await put(a, M1, order, '4', voidOf('3')), { field: 'transaction.targetTransactionId', explanation: /cannot be voided/ }, 'a void of a void');
  expectTransaction(t, await put(a, M1, order, '4', voidOf('1')), { type: 'VOID_AUTHORIZATION', amount: 50, status: 'CANCELLED', authorized: 0, captured: 0, refunded: 0 }, 'void of the authorization');
  expectInvalid(t, await put(a, M1, order, '5', capture('1.00')), { field: 'transaction.amount' }, 'capture after the void');
});

t.test('a payment naming a 3DSecureId (a Check 3DS Enrollment tokengate never makes) is refused on every version, nothing recorded', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const head = await a.gateway.store.headPosition();
  const cases: Array<[string, Record<string, unknown>, number]> = [
    ['AUTHORIZE', authorize(token), 39], ['PAY', payOp(token), 52], ['PAY', payOp(token), 100],
    ['VERIFY', { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } }, 100],
  ];
  for (const [operation, body, version] of cases) {
    expectInvalid(t, await put(a, M1, uniqueId(), '1', { ...body, '3DSecureId': 'abc123' }, version), {
      field: '3DSecureId', validationType: 'INVALID', explanation: 'No check has been performed for this merchant and 3D Secure Id.',
    }, `${operation} on version ${version}`);
  }
  t.equal(await a.gateway.store.headPosition(), head, 'no refusal appended anything');
});

t.test('a payment sending 3DSecureId as null names no check: paid as without it (the WooCommerce module sends it so on every PAY and AUTHORIZE)', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  expectTransaction(t, await put(a, M1, uniqueId(), '1', { ...payOp(token, 25), '3DSecureId': null }, 100),
    { type: 'PAYMENT', amount: 25, status: 'CAPTURED', authorized: 25, captured: 25, refunded: 0 }, 'PAY with a null 3DSecureId');
  expectTransaction(t, await put(a, M1, uniqueId(), '1', { ...authorize(token), '3DSecureId': null }, 58),
    { type: 'AUTHORIZATION', amount: 100, status: 'AUTHORIZED', authorized: 100, captured: 0, refunded: 0, version: '58' }, 'AUTHORIZE with a null 3DSecureId');
});

t.test('PAY, then refunds up to the amount paid; VERIFY moves no funds; a decline by expiry 05/39', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  const paid = expectTransaction(t, await put(a, M1, order, 'p', payOp(token, 25)),
    { type: 'PAYMENT', amount: 25, status: 'CAPTURED', authorized: 25, captured: 25, refunded: 0 }, 'PAY');
  t.equal(paid.response.cardSecurityCode?.gatewayCode, 'NOT_PRESENT');
  const usage = (await a.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/token/${token}`, headers: { authorization: tokenAuth(M1) } })).json() as Body;
  t.equal(usage.usage?.lastUsed, paid.timeOfRecord, 'Retrieve Token: usage.lastUsed is the PAY');
  expectTransaction(t, await put(a, M1, order, 'r1', refund('25.00')), { type: 'REFUND', amount: 25, status: 'REFUNDED', authorized: 25, captured: 25, refunded: 25 }, 'full refund');
  expectInvalid(t, await put(a, M1, order, 'r2', refund('0.01')), { field: 'transaction.amount' }, 'refund beyond the captured amount');

  const verified = expectTransaction(t, await put(a, M1, uniqueId(), 'v', { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', token, provided: { card: { securityCode: '102' } } } }),
    { type: 'VERIFICATION', amount: 0, status: 'VERIFIED', authorized: 0, captured: 0, refunded: 0 }, 'VERIFY');
  t.equal(verified.response.cardSecurityCode.gatewayCode, 'NO_MATCH', 'the security code sent beside the token is checked');

  const declining = await createToken(a, M1, '5123450000000008', '5', '39');
  const declined = expectTransaction(t, await put(a, M1, uniqueId(), '1', authorize(declining)),
    { type: 'AUTHORIZATION', amount: 100, status: 'FAILED', authorized: 0, captured: 0, refunded: 0, gatewayCode: 'DECLINED', result: 'FAILURE' }, 'decline by expiry 05/39');
  t.equal(declined.response.acquirerCode, '05');
  t.notOk(declined.transaction.authorizationCode, 'no authorization code on a decline');
});

t.test('retries: identical → the recorded answer, nothing appended; different body → 400', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  const first = await put(a, M1, order, 'a', authorize(token));
  t.equal(first.statusCode, 201);
  const head = await a.gateway.store.headPosition();
  const again = await put(a, M1, order, 'a', authorize(token));
  t.equal(again.statusCode, 201);
  t.equal(again.body, first.body, 'byte for byte the recorded answer');
  t.equal(await a.gateway.store.headPosition(), head, 'nothing appended');
  expectInvalid(t, await put(a, M1, order, 'a', authorize(token, '99.00')), { explanation: /different request/ }, 'a different body under the same ids');
  const cap = await put(a, M1, order, 'c', capture('10.00'));
  const capAgain = await put(a, M1, order, 'c', capture('10.00'));
  t.equal(capAgain.body, cap.body, 'an identical capture repeat');
  expectInvalid(t, await put(a, M1, order, 'c', capture('11.00')), { explanation: /different request/ }, 'a capture with another amount under the same id');
  const o = (await get(a, M1, orderPath(M1, order))).json() as Body;
  t.equal(o.totalCapturedAmount, 10, 'captured once');
});

t.test('versions 50 and 100 alike; deactivated and unknown versions, ids and credentials refused', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = 'shop-order/#42 é'.slice(0, 40);
  expectTransaction(t, await put(a, M1, order, '1', payOp(token), 50), { type: 'PAYMENT', amount: 25, status: 'CAPTURED', authorized: 25, captured: 25, refunded: 0, version: '50' }, 'PAY on version 50');
  const v100 = await get(a, M1, txnPath(M1, order, '1', 100));
  t.equal(v100.statusCode, 200);
  t.equal((v100.json() as Body).version, '100', 'retrieved on version 100');
  expectInvalid(t, await put(a, M1, order, '2', payOp(token), 22), { field: 'version' }, 'version 22 (deactivated)');
  expectInvalid(t, await put(a, M1, order, '2', payOp(token), 101), { field: 'version' }, 'version 101');
  expectInvalid(t, await put(a, M1, 'x'.repeat(41), '2', payOp(token)), { field: 'orderId' }, 'an order id of 41 characters');
  expectInvalid(t, await put(a, M1, order, 'y'.repeat(41), payOp(token)), { field: 'transactionId' }, 'a transaction id of 41 characters');
  const cardAsId = await put(a, M1, '5123450000000008', '1', payOp(token));
  expectInvalid(t, cardAsId, { field: 'orderId' }, 'a card number as the order id');
  t.notMatch(cardAsId.body, '5123450000000008', 'not quoted');
  expectInvalid(t, await put(a, M1, uniqueId(), '1', payOp('9999999999999999')), { field: 'sourceOfFunds.token', explanation: 'Token not found' }, 'an unknown token');
  const other = await createToken(a, M2);
  expectInvalid(t, await put(a, M1, uniqueId(), '1', payOp(other)), { field: 'sourceOfFunds.token', explanation: 'Token not found' }, 'a token of another repository');
  expectInvalid(t, await put(a, M1, uniqueId(), '1', { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' } }), { field: 'sourceOfFunds.token', validationType: 'MISSING' }, 'no token');

  expectInvalid(t, await put(a, M1, uniqueId(), '1', { apiOperation: 'REFUND_ALL' }), { field: 'apiOperation' }, 'an unknown apiOperation');

  expect401(t, await a.inject({ method: 'PUT', url: txnPath(M1, order, '3'), headers: { authorization: tokenAuth({ id: M1.id, apiPassword: 'wrong' }) }, payload: payOp(token) }), 'wrong password');
  expect401(t, await a.inject({ method: 'PUT', url: txnPath(M1, order, '3'), payload: payOp(token) }), 'no credentials');
  const blank = await a.inject({ method: 'PUT', url: txnPath(M1, order, '3'), headers: { authorization: payAuth(M1) }, payload: payOp(token) });
  t.equal(blank.statusCode, 401, 'the blank user id of version 3 is not accepted here');
  const otherMerchant = await a.inject({ method: 'GET', url: orderPath(M1, order), headers: { authorization: tokenAuth(M2) } });
  t.equal(otherMerchant.statusCode, 401, 'another merchant\'s credentials');
});

t.test('a version 3 order on the order API: the same order; its v3 answers unchanged', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = '10000000777';
  const v3 = await a.inject({ method: 'PUT', url: payPath(M1.id, token, order, '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '30.00', currency: 'USD' } } });
  t.equal(v3.statusCode, 201, v3.body);
  const v3Order = await a.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${M1.id}/order/${order}`, headers: { authorization: payAuth(M1) } });
  const retrieved = await get(a, M1, txnPath(M1, order, '1'));
  t.equal(retrieved.statusCode, 200, retrieved.body);
  t.equal((retrieved.json() as Body).transaction.type, 'PAYMENT', 'the v3 payment seen on the order API');
  expectTransaction(t, await put(a, M1, order, '2', refund('10.00')), { type: 'REFUND', amount: 10, status: 'PARTIALLY_REFUNDED', authorized: 30, captured: 30, refunded: 10 }, 'refund of a v3 payment');
  expectInvalid(t, await put(a, M1, order, '1', refund('10.00')), { explanation: /different request/ }, 'the v3 transaction id is taken');
  const v3Again = await a.inject({ method: 'PUT', url: payPath(M1.id, token, order, '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '30.00', currency: 'USD' } } });
  t.equal(v3Again.body, v3.body, 'the v3 repeat answers exactly as before');
  const v3Taken = await a.inject({ method: 'PUT', url: payPath(M1.id, token, order, '2'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '30.00', currency: 'USD' } } });
  expectInvalid(t, v3Taken, { explanation: /different request/ }, 'v3 pay under the modern transaction id');
  t.ok(v3Order.statusCode === 200);
});

t.test('card numbers masked per cardNumberMasking 0.4 on the order API', async (t) => {
  const a = await appWithMask(t);
  const token = (await create(a, MASK04, { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } })).json().token as string;
  const order = uniqueId();
  const res = await put(a, MASK04, order, '1', payOp(token));
  t.equal(res.statusCode, 201, res.body);
  t.equal((res.json() as Body).sourceOfFunds.provided.card.number, 'xxxxxxxxxxxx0008');
  const o = await get(a, MASK04, orderPath(MASK04, order));
  t.notMatch(o.body, '512345', 'Retrieve Order shows no first six digits');
  t.match(o.body, 'xxxxxxxxxxxx0008');
});

t.test('the orders read model learns the order API; a rebuild equals the live read models; no card number in any event', async (t) => {
  const { join } = await import('node:path');
  const a = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(t.testdir(), 'gateway.db') } });
  const token = await createToken(a, M1);
  const order = uniqueId();
  await put(a, M1, order, 'a', authorize(token, '80.00'));
  await put(a, M1, order, 'c', capture('80.00'));
  await put(a, M1, order, 'r', refund('5.00'));
  await put(a, M1, order, 'v', voidOf('r'));
  await put(a, M1, uniqueId(), 'p', { ...payOp(token), sourceOfFunds: { type: 'CARD', token, provided: { card: { securityCode: '100' } } } });
  await a.gateway.readModels.catchUp();
  const doc = await a.gateway.readModels.get<Body>('orders', `${M1.id}/${order}`);
  t.equal(doc?.status, 'CAPTURED');
  t.equal(doc?.totalCapturedAmount, 8000, 'minor units');
  t.equal(doc?.totalRefundedAmount, 0);
  t.same(doc?.transactions.map((x: Body) => x.type), ['AUTHORIZATION', 'CAPTURE', 'REFUND', 'VOID_REFUND']);
  t.equal(doc?.transactions[3].targetTransactionId, 'r');
  const live = a.gateway.readModels.hash();
  await a.gateway.readModels.rebuild();
  t.equal(a.gateway.readModels.hash(), live, 'byte for byte the same read models after a rebuild');
  const events = JSON.stringify((await a.gateway.store.readAll()).map((e) => [e.data, e.metadata]));
  t.notMatch(events, '5123450000000008', 'no card number in any event');
  t.notMatch(events, /"securityCode":"100"/, 'no security code in any event');
});

t.test('transaction.reference is echoed and may repeat on this API (version 3 alone holds it unique)', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const order = uniqueId();
  const first = await put(a, M1, order, '1', { ...authorize(token), transaction: { reference: 'ref-A' } });
  t.equal(first.statusCode, 201, first.body);
  t.equal((first.json() as Body).transaction.reference, 'ref-A', 'echoed');
  const again = await put(a, M1, order, '1', { ...authorize(token), transaction: { reference: 'ref-A' } });
  t.equal(again.body, first.body, 'an identical repeat still answers the record');
  const captured = await put(a, M1, order, '2', { ...capture('1.00'), transaction: { amount: '1.00', currency: 'USD', reference: 'ref-A' } });
  t.equal(captured.statusCode, 201, `the reference of another transaction of the order (${captured.body})`);
  const v3 = await a.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000888', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD', reference: 'ref-A' } } });
  t.equal(v3.statusCode, 201, 'a reference of this API does not count on the version 3 path');
});

t.test('an UNKNOWN outcome (expiry 05/37) on the order API is made final by the resolver; Retrieve Transaction shows it', async (t) => {
  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '0';
  t.teardown(() => { delete process.env.UNKNOWN_RESOLUTION_DELAY_MS; });
  const a = await buildTestApp(t);
  const token = await createToken(a, M1, '5123450000000008', '5', '37');
  const order = uniqueId();
  // 12.50: an even amount in minor units resolves APPROVED (docs/triggers.md).
  const first = expectTransaction(t, await put(a, M1, order, '1', authorize(token, '12.50')),
    { type: 'AUTHORIZATION', amount: 12.5, status: 'INITIATED', authorized: 0, captured: 0, refunded: 0, gatewayCode: 'UNKNOWN', result: 'UNKNOWN' }, 'AUTHORIZE answered UNKNOWN');
  t.equal(first.response.acquirerCode, '91');
  const retrieved = await eventually(async () => (await get(a, M1, txnPath(M1, order, '1'))).json() as Body, { until: (body) => body.result !== 'UNKNOWN' });
  t.equal(retrieved.result, 'SUCCESS', 'resolved');
  t.equal(retrieved.response?.gatewayCode, 'APPROVED');
  t.equal(retrieved.order?.status, 'AUTHORIZED');
  t.equal(retrieved.order?.totalAuthorizedAmount, 12.5);
  expectTransaction(t, await put(a, M1, order, '2', capture('12.50')), { type: 'CAPTURE', amount: 12.5, status: 'CAPTURED', authorized: 12.5, captured: 12.5, refunded: 0 }, 'the resolved authorization is captured');
});

t.test('a session holding a card pays on the order API (Create Session → Update Session → AUTHORIZE with session.id)', async (t) => {
  const a = await buildTestApp(t);
  const sessions = `/api/rest/version/100/merchant/${M1.id}/session`;
  const created = await a.inject({ method: 'POST', url: sessions, headers: { authorization: tokenAuth(M1) } });
  t.equal(created.statusCode, 201, created.body);
  const sessionId = (created.json() as Body).session.id as string;
  expectInvalid(t, await put(a, M1, uniqueId(), '1', { apiOperation: 'AUTHORIZE', order: { amount: '5.00', currency: 'USD' }, session: { id: sessionId } }),
    { field: 'session.id', explanation: /holds no card/ }, 'a session without a card');
  const updated = await a.inject({ method: 'PUT', url: `${sessions}/${sessionId}`, headers: { authorization: tokenAuth(M1) },
    payload: { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '5', year: '39' }, securityCode: '101' } } } } });
  t.equal(updated.statusCode, 200, updated.body);
  const declined = expectTransaction(t, await put(a, M1, uniqueId(), '1', { apiOperation: 'AUTHORIZE', order: { amount: '5.00', currency: 'USD' }, session: { id: sessionId } }),
    { type: 'AUTHORIZATION', amount: 5, status: 'FAILED', authorized: 0, captured: 0, refunded: 0, gatewayCode: 'DECLINED', result: 'FAILURE' }, 'the session card (05/39) declines');
  t.equal(declined.response.cardSecurityCode.gatewayCode, 'NOT_PROCESSED', "the session's security code is checked");
  t.equal(declined.sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  t.notOk(declined.sourceOfFunds.token, 'no token');
  expectInvalid(t, await put(a, M1, uniqueId(), '1', { apiOperation: 'PAY', order: { amount: '5.00', currency: 'USD' }, session: { id: 'SESSION0002000000000000000000000' } }),
    { field: 'session.id' }, 'an unknown session');
  const events = JSON.stringify((await a.gateway.store.readAll()).filter((e) => e.type === 'OrderTransactionRecorded').map((e) => e.data));
  t.notMatch(events, '5123450000000008', 'no card number in the order events');
});

t.test('a card in the request pays; only its 6.4 mask is recorded', async (t) => {
  const a = await buildTestApp(t);
  const order = uniqueId();
  const cardPay = (number: string, month = '1', year = '39', securityCode?: string) => ({
    apiOperation: 'PAY', order: { amount: '7.00', currency: 'USD' },
    sourceOfFunds: { type: 'CARD', provided: { card: { number, expiry: { month, year }, ...(securityCode ? { securityCode } : {}) } } },
  });
  const first = await put(a, M1, order, '1', cardPay('4508750015741019', '1', '39', '100'));
  const paid = expectTransaction(t, first,
    { type: 'PAYMENT', amount: 7, status: 'CAPTURED', authorized: 7, captured: 7, refunded: 0 }, 'PAY with a card in the request');
  t.equal(paid.sourceOfFunds.provided.card.number, '450875xxxxxx1019');
  t.equal(paid.sourceOfFunds.provided.card.brand, 'VISA');
  t.equal(paid.response.cardSecurityCode.gatewayCode, 'MATCH');
  const again = await put(a, M1, order, '1', cardPay('4508750015741019', '1', '39', '100'));
  t.equal(again.body, first.body, 'an identical repeat answers the record');
  expectInvalid(t, await put(a, M1, order, '1', cardPay('4012000033330026', '1', '39', '100')), { explanation: /different request/ }, 'another card under the same ids');
  expectTransaction(t, await put(a, M1, order, '2', refund('7.00')), { type: 'REFUND', amount: 7, status: 'REFUNDED', authorized: 7, captured: 7, refunded: 7 }, 'refund of it');
  expectTransaction(t, await put(a, M1, uniqueId(), '1', cardPay('4508750015741019', '4', '27')),
    { type: 'PAYMENT', amount: 7, status: 'FAILED', authorized: 0, captured: 0, refunded: 0, gatewayCode: 'EXPIRED_CARD', result: 'FAILURE' }, 'expiry 04/27: EXPIRED_CARD');
  const luhn = await put(a, M1, uniqueId(), '1', cardPay('4508750015741018'));
  expectInvalid(t, luhn, { field: 'sourceOfFunds.provided.card.number' }, 'a number failing Luhn');
  t.notMatch(luhn.body, '4508750015741018', 'not quoted');
  expectInvalid(t, await put(a, M1, uniqueId(), '1', { apiOperation: 'PAY', order: { amount: '7.00', currency: 'USD' }, sourceOfFunds: { provided: { card: { number: '4508750015741019' } } } }),
    { field: 'sourceOfFunds.provided.card.expiry.month', validationType: 'MISSING' }, 'no expiry');
  const text = JSON.stringify((await a.gateway.store.readAll()).map((e) => [e.stream, e.data, e.metadata]));
  t.notMatch(text, '4508750015741019', 'no card number in any event');
  t.notMatch(text, '"100"', 'no security code in any event');
});

t.test('the OpenAPI document lists the order API', async (t) => {
  const a = await buildTestApp(t);
  const doc = (await a.inject({ method: 'GET', url: '/openapi.json' })).json() as Body;
  const path = '/api/rest/version/{version}/merchant/{merchantId}/order/{orderId}';
  t.ok(doc.paths[`${path}/transaction/{transactionId}`]?.put, 'PUT transaction');
  t.ok(doc.paths[`${path}/transaction/{transactionId}`]?.get, 'Retrieve Transaction');
  t.ok(doc.paths[path]?.get, 'Retrieve Order');
});

t.test('Retrieve Order and Retrieve Transaction of an unknown order: 400 in the real gateway\'s words, no field (a recorded answer of Omnipay\'s sudiptpa driver)', async (t) => {
  const a = await buildTestApp(t);
  const orderId = uniqueId();
  for (const url of [`/api/rest/version/69/merchant/${M1.id}/order/${orderId}`, `/api/rest/version/100/merchant/${M1.id}/order/${orderId}/transaction/1`]) {
    const res = await get(a, M1, url);
    t.equal(res.statusCode, 400, url);
    t.same(res.json(), { error: { cause: 'INVALID_REQUEST', explanation: `Unable to find order ${orderId} for merchant ${M1.id}` }, result: 'ERROR' }, url);
  }
  await put(a, M2, orderId, '1', { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } });
  const other = await get(a, M1, `/api/rest/version/69/merchant/${M1.id}/order/${orderId}`);
  t.equal(other.json().error?.explanation, `Unable to find order ${orderId} for merchant ${M1.id}`, 'another merchant\'s order of the same id is not this merchant\'s');
});
