// A PAY or AUTHORIZE the acquirer answered carries authorizationResponse with its response code,
// STAN and transaction identifier, as the real gateway's answers from the test acquirer do
// (versions 56, 57, 74: equal to response.acquirerCode, transaction.stan and
// transaction.acquirer.transactionId). The Omnipay driver of workhouse-advertising reads
// authorizationResponse.transactionIdentifier as the payment's reference. A CAPTURE, REFUND, VOID
// or VERIFY carries none.
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import type { App } from './http.fixture.js';

const url = (order: string, transaction: string) => `/api/rest/version/68/merchant/${M1.id}/order/${order}/transaction/${transaction}`;
const put = (a: App, order: string, transaction: string, payload: Record<string, unknown>) =>
  a.inject({ method: 'PUT', url: url(order, transaction), headers: { authorization: tokenAuth(M1) }, payload });

t.test('PAY and AUTHORIZE: authorizationResponse as the acquirer answered; the answers and Retrieve Transaction alike', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  for (const apiOperation of ['PAY', 'AUTHORIZE']) {
    const order = uniqueId();
    const paid = await put(a, order, '1', { apiOperation, order: { amount: '10.00', currency: 'AUD' }, sourceOfFunds: { type: 'CARD', token } });
    t.equal(paid.statusCode, 201, paid.body);
    const body = paid.json();
    t.same(body.authorizationResponse, {
      responseCode: body.response.acquirerCode, stan: body.transaction.stan, transactionIdentifier: body.transaction.acquirer.transactionId,
    }, `${apiOperation}: response code, STAN, transaction identifier`);
    t.match(body.authorizationResponse.transactionIdentifier, /^[0-9A-Z]+$/, `${apiOperation}: the identifier is text`);
    const again = await a.inject({ method: 'GET', url: url(order, '1'), headers: { authorization: tokenAuth(M1) } });
    t.same(again.json().authorizationResponse, body.authorizationResponse, `${apiOperation}: Retrieve Transaction says the same`);
  }
});

t.test('CAPTURE, REFUND and VERIFY carry none', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  t.equal((await put(a, order, '1', { apiOperation: 'AUTHORIZE', order: { amount: '10.00', currency: 'AUD' }, sourceOfFunds: { type: 'CARD', token } })).statusCode, 201);
  for (const [id, apiOperation] of [['2', 'CAPTURE'], ['3', 'REFUND']]) {
    const done = await put(a, order, id!, { apiOperation, transaction: { amount: '10.00', currency: 'AUD' } });
    t.equal(done.statusCode, 201, done.body);
    t.notOk('authorizationResponse' in done.json(), `${apiOperation}: none`);
  }
  const verified = await put(a, uniqueId(), '1', { apiOperation: 'VERIFY', order: { currency: 'AUD' }, sourceOfFunds: { type: 'CARD', token } });
  t.equal(verified.statusCode, 201, verified.body);
  t.notOk('authorizationResponse' in verified.json(), 'VERIFY: none');
});
