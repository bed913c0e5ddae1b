// A payment that used no 3-D Secure authentication says so: order.authenticationStatus and
// transaction.authenticationStatus AUTHENTICATION_NOT_IN_EFFECT, as the real gateway's answers to a
// PAY without authentication do at versions 56 and 74 (at 46 they carry neither), and Retrieve
// Order says it of the order. Lunar's MPGS driver stores the payment's
// transaction.authenticationStatus as its transaction's status, read from Retrieve Order. A
// CAPTURE, REFUND or VOID shows nothing; a payment that named an authentication shows its status.
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import type { App } from './http.fixture.js';

const NOT_IN_EFFECT = 'AUTHENTICATION_NOT_IN_EFFECT';
const url = (version: number, order: string, transaction?: string) =>
  `/api/rest/version/${version}/merchant/${M1.id}/order/${order}${transaction === undefined ? '' : `/transaction/${transaction}`}`;
const put = (a: App, version: number, order: string, transaction: string, payload: Record<string, unknown>) =>
  a.inject({ method: 'PUT', url: url(version, order, transaction), headers: { authorization: tokenAuth(M1) }, payload });
const get = (a: App, version: number, order: string, transaction?: string) =>
  a.inject({ method: 'GET', url: url(version, order, transaction), headers: { authorization: tokenAuth(M1) } });

t.test('PAY, AUTHORIZE and VERIFY without authentication: AUTHENTICATION_NOT_IN_EFFECT on the order and the transaction', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  for (const [apiOperation, version] of [['PAY', 56], ['AUTHORIZE', 74], ['VERIFY', 100]] as const) {
    const order = uniqueId();
    const amount = apiOperation === 'VERIFY' ? {} : { amount: '10.00' };
    const paid = await put(a, version, order, '1', { apiOperation, order: { ...amount, currency: 'AUD' }, sourceOfFunds: { type: 'CARD', token } });
    t.equal(paid.statusCode, 201, paid.body);
    t.equal(paid.json().order.authenticationStatus, NOT_IN_EFFECT, `${apiOperation} ${version}: order.authenticationStatus`);
    t.equal(paid.json().transaction.authenticationStatus, NOT_IN_EFFECT, `${apiOperation} ${version}: transaction.authenticationStatus`);
    const again = await get(a, version, order, '1');
    t.equal(again.json().transaction.authenticationStatus, NOT_IN_EFFECT, 'Retrieve Transaction says the same');
    const whole = (await get(a, version, order)).json();
    t.equal(whole.authenticationStatus, NOT_IN_EFFECT, 'Retrieve Order: the order');
    t.equal(whole.transaction[0].transaction.authenticationStatus, NOT_IN_EFFECT, 'Retrieve Order: its payment');
  }
});

t.test('a CAPTURE shows none; versions before 50 show none', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  t.equal((await put(a, 74, order, '1', { apiOperation: 'AUTHORIZE', order: { amount: '10.00', currency: 'AUD' }, sourceOfFunds: { type: 'CARD', token } })).statusCode, 201);
  const captured = await put(a, 74, order, '2', { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'AUD' } });
  t.equal(captured.statusCode, 201, captured.body);
  t.notOk('authenticationStatus' in captured.json().transaction, 'the capture: no transaction.authenticationStatus');
  const old = uniqueId();
  const paid = await put(a, 46, old, '1', { apiOperation: 'PAY', order: { amount: '10.00', currency: 'AUD' }, sourceOfFunds: { type: 'CARD', token } });
  t.equal(paid.statusCode, 201, paid.body);
  t.notOk('authenticationStatus' in paid.json().order, 'version 46: no order.authenticationStatus');
  t.notOk('authenticationStatus' in paid.json().transaction, 'version 46: no transaction.authenticationStatus');
  t.notOk('authenticationStatus' in (await get(a, 46, old)).json(), 'version 46: Retrieve Order shows none');
});
