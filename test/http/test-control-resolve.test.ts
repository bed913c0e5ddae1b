// "Resolve this UNKNOWN now" (routes/admin-control.ts): a transaction answered UNKNOWN gets the
// outcome a test chose, at once (the delay set to 10 minutes here): Retrieve Transaction, Retrieve
// Order and an identical repeat answer it, the order stream records UnknownResolvedByTest and the
// PaymentOutcomeResolved it caused, and the reactor does not resolve it again; version 3 payments
// and the order API's AUTHORIZE alike; TEST10's UNKNOWN with the same order id stays UNKNOWN;
// refusals are the gateway's error body: 404 (no such order or transaction), 409 (not UNKNOWN),
// 400 (an outcome that cannot be chosen), each with its field.
import t from 'tap';
import { streams } from '../../domain/events.js';
import { tokenAuth } from '../helpers/app.js';
import { sleep } from '../helpers/poll.js';
import {
  control, controlApp, createToken, logTypes, pay, refused, retrieveOrder, retrieveTransaction, TEST1, TEST10, until, type App,
} from './test-control.fixture.js';

process.env.UNKNOWN_RESOLUTION_DELAY_MS = '600000';

const unknownToken = async (app: App, m: typeof TEST1) => (await createToken(app, m, '5123450000000008', '5', '37')).token;
const resolve = (app: App, m: { id: string }, order: string, transaction: string, gatewayCode: unknown) =>
  control(app, 'POST', `/merchants/${m.id}/orders/${order}/transactions/${transaction}/resolve`, { gatewayCode });
const resolvedCount = async (app: App, m: { id: string }, order: string) =>
  (await logTypes(app, streams.order(m.id, order))).filter((type) => type === 'PaymentOutcomeResolved').length;

t.test('version 3: the chosen outcome, at once, whatever the rule would say; TEST10 untouched; the reactor resolves nothing twice', async (t) => {
  const app = await controlApp(t);
  const token = await unknownToken(app, TEST1);
  const ten = await unknownToken(app, TEST10);
  for (const order of ['30000000001', '30000000002', '30000000003']) t.equal((await pay(app, TEST1, token, order, '1', order.endsWith('2') ? '12.51' : '12.50')).json().result, 'UNKNOWN');
  t.equal((await pay(app, TEST10, ten, '30000000001')).json().result, 'UNKNOWN');

  // 12.50 is even: the rule would approve it.
  const declined = await resolve(app, TEST1, '30000000001', '1', 'DECLINED');
  t.equal(declined.statusCode, 200);
  t.match(declined.json(), { merchantId: TEST1.id, orderId: '30000000001', transactionId: '1', gatewayCode: 'DECLINED', result: 'FAILURE', acquirerCode: '05', orderStatus: 'FAILED', rule: /test-control API/ });
  const transaction = (await retrieveTransaction(app, TEST1, '30000000001')).json();
  t.equal(transaction.response.gatewayCode, 'DECLINED', 'Retrieve Transaction answers the chosen outcome');
  t.equal(transaction.result, 'FAILURE');
  t.equal((await pay(app, TEST1, token, '30000000001')).json().response.gatewayCode, 'DECLINED', 'an identical repeat too');
  t.same(await logTypes(app, streams.order(TEST1.id, '30000000001')), ['PaymentRecorded', 'UnknownResolvedByTest', 'PaymentOutcomeResolved']);
  t.equal((await retrieveTransaction(app, TEST10, '30000000001')).json().response.gatewayCode, 'UNKNOWN', "TEST10's order of the same id stays UNKNOWN");

  // 12.51 is odd: the rule would decline it.
  const approved = (await resolve(app, TEST1, '30000000002', '1', 'APPROVED')).json();
  t.match(approved, { gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00', orderStatus: 'CAPTURED', authorizationCode: /^([0-9]{2}[A-Z]){2}$/ });
  t.equal((await retrieveOrder(app, TEST1, '30000000002')).json().totalCapturedAmount, 12.51, 'the totals follow');
  t.match((await resolve(app, TEST1, '30000000003', '1', 'INSUFFICIENT_FUNDS')).json(), { gatewayCode: 'INSUFFICIENT_FUNDS', result: 'FAILURE', acquirerCode: '51' });

  refused(t, await resolve(app, TEST1, '30000000001', '1', 'APPROVED'), 409, 'transactionId', 'resolved already');
  t.equal(await resolvedCount(app, TEST1, '30000000001'), 1, 'nothing recorded');
  // The reactor's own time comes: it resolves TEST10's, and finds TEST1's resolved.
  t.equal((await control(app, 'POST', `/merchants/${TEST10.id}/clock/advance`, { milliseconds: 3_600_000 })).statusCode, 200);
  t.equal((await control(app, 'POST', `/merchants/${TEST1.id}/clock/advance`, { milliseconds: 3_600_000 })).statusCode, 200);
  await until("TEST10's resolution by the rule", async () => (await retrieveTransaction(app, TEST10, '30000000001')).json().response.gatewayCode !== 'UNKNOWN');
  await sleep(100); // room for a second resolution of TEST1's, which must not come
  for (const order of ['30000000001', '30000000002', '30000000003']) t.equal(await resolvedCount(app, TEST1, order), 1, `${order}: resolved once`);
});

t.test("the order API's AUTHORIZE answered UNKNOWN: resolved APPROVED, the authorized total follows", async (t) => {
  const app = await controlApp(t);
  const token = await unknownToken(app, TEST1);
  const path = `/api/rest/version/100/merchant/${TEST1.id}/order/auth-1/transaction/a1`;
  const headers = { authorization: tokenAuth(TEST1) };
  const auth = await app.inject({ method: 'PUT', url: path, headers, payload: { apiOperation: 'AUTHORIZE', order: { amount: '20.01', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } } });
  t.equal(auth.json().response.gatewayCode, 'UNKNOWN');
  t.match((await resolve(app, TEST1, 'auth-1', 'a1', 'APPROVED')).json(), { gatewayCode: 'APPROVED', orderStatus: 'AUTHORIZED' });
  const retrieved = (await app.inject({ method: 'GET', url: path, headers })).json();
  t.equal(retrieved.response.gatewayCode, 'APPROVED');
  t.equal(retrieved.order.totalAuthorizedAmount, 20.01);
});

t.test('refusals: 404 for an order or transaction that is not there (another merchant\'s too), 409 for one not UNKNOWN, 400 for an outcome that cannot be chosen', async (t) => {
  const app = await controlApp(t);
  const token = await unknownToken(app, TEST1);
  const approvedCard = (await createToken(app, TEST1, '4508750015741019')).token;
  t.equal((await pay(app, TEST1, token, '40000000001')).json().result, 'UNKNOWN');
  t.equal((await pay(app, TEST1, approvedCard, '40000000002')).json().result, 'SUCCESS');
  refused(t, await resolve(app, TEST1, '40000000009', '1', 'APPROVED'), 404, 'orderId', 'no such order');
  refused(t, await resolve(app, TEST10, '40000000001', '1', 'APPROVED'), 404, 'orderId', "another merchant's order");
  refused(t, await resolve(app, TEST1, '40000000001', '2', 'APPROVED'), 404, 'transactionId', 'no such transaction');
  refused(t, await resolve(app, TEST1, '40000000002', '1', 'DECLINED'), 409, 'transactionId', 'an APPROVED transaction');
  for (const [code, what] of [['UNKNOWN', 'UNKNOWN again'], ['BLOCKED', "a code the gateway decides alone"], ['approved', 'lower case'], [5, 'a number']] as const) {
    refused(t, await resolve(app, TEST1, '40000000001', '1', code), 400, 'gatewayCode', what);
  }
  const missing = await control(app, 'POST', `/merchants/${TEST1.id}/orders/40000000001/transactions/1/resolve`, {});
  refused(t, missing, 400, 'gatewayCode', 'missing');
  refused(t, await resolve(app, { id: 'NOSUCH' }, '40000000001', '1', 'APPROVED'), 404, 'merchantId', 'an unknown merchant');
  t.same(await logTypes(app, streams.order(TEST1.id, '40000000001')), ['PaymentRecorded'], 'nothing recorded by a refusal');
  t.equal((await retrieveTransaction(app, TEST1, '40000000001')).json().response.gatewayCode, 'UNKNOWN');
});
