// Basic credentials sent without the `Basic ` scheme (the base64 text alone), as digistorm's Omnipay
// driver sends them on every request (its recorded answer is the real gateway's) and Mastercard's iOS
// SDK on Update Session: read as Basic credentials on every route; a wrong password is still 401
// and counted, another scheme is still refused.
import t from 'tap';
import { buildTestApp, cardBody, createToken, M1, M2, payPath, tokenPath } from '../helpers/app.js';
import { orderId, payBody as v3PayBody } from './http.fixture.js';

const bare = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');
const orderPath = (orderId: string) => `/api/rest/version/56/merchant/${M1.id}/order/${orderId}/transaction/1`;
const payBody = {
  apiOperation: 'PAY',
  order: { amount: '10.00', currency: 'USD' },
  sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' } } },
};

t.test('the order API, Create Token and Pay with token take the base64 credentials alone', async (t) => {
  const a = await buildTestApp(t);
  const order = await a.inject({ method: 'PUT', url: orderPath('bare-1'), headers: { authorization: bare(`merchant.${M1.id}`, M1.apiPassword) }, payload: payBody });
  t.equal(order.statusCode, 201, order.body);
  t.equal(order.json().result, 'SUCCESS');
  const created = await a.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: bare(`merchant.${M1.id}`, M1.apiPassword) }, payload: cardBody() });
  t.equal(created.statusCode, 201, created.body);
  const token = await createToken(a);
  const paid = await a.inject({ method: 'PUT', url: payPath(M1.id, token, orderId(), '1'), headers: { authorization: bare('', M1.apiPassword) }, payload: v3PayBody() });
  t.equal(paid.statusCode, 201, paid.body);
  const read = await a.inject({ method: 'GET', url: `/api/rest/version/56/merchant/${M1.id}/order/bare-1`, headers: { authorization: bare(`merchant.${M1.id}`, M1.apiPassword) } });
  t.equal(read.statusCode, 200, read.body);
});

t.test('a wrong password, another merchant, or another scheme: 401 as with the scheme', async (t) => {
  const a = await buildTestApp(t);
  const wrong = await a.inject({ method: 'PUT', url: orderPath('bare-3'), headers: { authorization: bare(`merchant.${M1.id}`, 'not-the-password-0123456789') }, payload: payBody });
  t.equal(wrong.statusCode, 401, wrong.body);
  t.same(wrong.json(), { error: { cause: 'INVALID_REQUEST', explanation: 'Invalid credentials.' }, result: 'ERROR' });
  const other = await a.inject({ method: 'PUT', url: orderPath('bare-4'), headers: { authorization: bare(`merchant.${M2.id}`, M2.apiPassword) }, payload: payBody });
  t.equal(other.statusCode, 401, 'another merchant\'s credentials do not reach this merchant\'s orders');
  const bearer = await a.inject({ method: 'PUT', url: orderPath('bare-5'), headers: { authorization: `Bearer ${bare(`merchant.${M1.id}`, M1.apiPassword)}` }, payload: payBody });
  t.equal(bearer.statusCode, 401, 'another scheme is not Basic');
  const garbage = await a.inject({ method: 'PUT', url: orderPath('bare-6'), headers: { authorization: 'bm90LWNyZWRlbnRpYWxz' }, payload: payBody });
  t.equal(garbage.statusCode, 401, 'base64 that holds no user id and password');
});
