// Retrieve Order and Retrieve Transaction in the gateway's shapes; an UNKNOWN payment shows its
// final outcome once the reactor has resolved it.
import t from 'tap';
import { buildTestApp, createToken, M1, M2, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';

const orderUrl = (m: string, o: string) => `/api/rest/version/3/merchant/${m}/order/${o}`;
const pay = (app: Awaited<ReturnType<typeof buildTestApp>>, token: string, orderId: string, txn: string, amount: string) =>
  app.inject({ method: 'PUT', url: payPath(M1.id, token, orderId, txn), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount, currency: 'USD' }, order: { reference: 'cart-7' } } });

t.test('an order with several transactions, and each transaction as recorded', async (t) => {
  const app = await buildTestApp(t);
  const approvedToken = await createToken(app, M1, '5123450000000008', '1', '39');
  const declinedToken = await createToken(app, M1, '4508750015741019', '5', '39');
  const first = await pay(app, declinedToken, '10000000001', 'a', '10.00');
  t.equal(first.json().result, 'FAILURE');
  const second = await pay(app, approvedToken, '10000000001', 'b', '10.00');
  t.equal(second.json().result, 'SUCCESS');

  const order = await app.inject({ method: 'GET', url: orderUrl(M1.id, '10000000001'), headers: { authorization: payAuth(M1) } });
  t.equal(order.statusCode, 200);
  const body = order.json();
  t.equal(body.result, 'SUCCESS');
  t.equal(body.status, 'CAPTURED');
  t.equal(body.totalCapturedAmount, 10);
  t.equal(body.reference, 'cart-7');
  t.match(order.body, '"id":10000000001');
  t.same(body.transaction.map((x: { transaction: { id: string }; result: string }) => [x.transaction.id, x.result]), [['a', 'FAILURE'], ['b', 'SUCCESS']]);

  const txn = await app.inject({ method: 'GET', url: `${orderUrl(M1.id, '10000000001')}/transaction/b`, headers: { authorization: payAuth(M1) } });
  t.equal(txn.statusCode, 200);
  const { correlationId: _c, ...recorded } = second.json();
  t.same(txn.json(), recorded, 'the transaction as the pay request answered it');

  const missingTxn = await app.inject({ method: 'GET', url: `${orderUrl(M1.id, '10000000001')}/transaction/zz`, headers: { authorization: payAuth(M1) } });
  t.equal(missingTxn.statusCode, 400);
  t.equal(missingTxn.json().error.field, 'transactionid');
  const missingOrder = await app.inject({ method: 'GET', url: orderUrl(M1.id, '10000000009'), headers: { authorization: payAuth(M1) } });
  t.equal(missingOrder.json().error.field, 'orderid');
  const otherMerchant = await app.inject({ method: 'GET', url: orderUrl(M2.id, '10000000001'), headers: { authorization: payAuth(M2) } });
  t.equal(otherMerchant.body.replace('10000000001', 'X'), missingOrder.body.replace('10000000009', 'X'), "another merchant's order is not found either");
  const wrongAuth = await app.inject({ method: 'GET', url: orderUrl(M1.id, '10000000001'), headers: { authorization: payAuth(M2) } });
  t.equal(wrongAuth.statusCode, 401);
  const tokenStyleAuth = await app.inject({ method: 'GET', url: orderUrl(M1.id, '10000000001'), headers: { authorization: tokenAuth(M1) } });
  t.equal(tokenStyleAuth.statusCode, 200, 'merchant.<id> credentials work too');
});

t.test('a payment answered UNKNOWN shows its final outcome after resolution', async (t) => {
  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '50';
  t.teardown(() => { delete process.env.UNKNOWN_RESOLUTION_DELAY_MS; });
  const app = await buildTestApp(t);
  const token = await createToken(app, M1, '5123450000000008', '5', '37');
  const answered = await pay(app, token, '10000000002', '1', '12.50');
  t.equal(answered.json().response.gatewayCode, 'UNKNOWN');
  const url = `${orderUrl(M1.id, '10000000002')}/transaction/1`;
  type Final = { response: { gatewayCode: string }; result: string; order: { totalCapturedAmount: number } };
  const read = async () => (await app.inject({ method: 'GET', url, headers: { authorization: payAuth(M1) } })).json() as Final;
  const final = await eventually(read, { until: (res) => res.response.gatewayCode !== 'UNKNOWN', intervalMs: 20 });
  t.not(final.response.gatewayCode, 'UNKNOWN', 'resolved');
  t.equal(final?.response.gatewayCode, 'APPROVED', 'an even amount in minor units resolves approved');
  t.equal(final?.result, 'SUCCESS');
  t.equal(final?.order.totalCapturedAmount, 12.5);
  const order = (await app.inject({ method: 'GET', url: orderUrl(M1.id, '10000000002'), headers: { authorization: payAuth(M1) } })).json();
  t.equal(order.status, 'CAPTURED');
});
