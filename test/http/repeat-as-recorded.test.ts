// An identical repeat answers what the first answer said, however the order changed after it: the
// order's fields in the answer are the order as it stood right after that transaction (its amount,
// its reference), on the order API and on version 3, on every store. Retrieve Transaction shows
// the same order fields.
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { EventStoreConfig } from '../../config.js';
import { buildTestApp, createToken, M1, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import type { App } from './http.fixture.js';

const STORES: Array<[string, (t: Test) => EventStoreConfig]> = [
  ['memory', () => ({ kind: 'memory' })],
  ['sqlite', (t) => ({ kind: 'sqlite', path: join(t.testdir(), 'gateway.db') })],
];

const txnUrl = (order: string, txn: string) => `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${txn}`;
const put = (a: App, order: string, txn: string, payload: Record<string, unknown>) =>
  a.inject({ method: 'PUT', url: txnUrl(order, txn), headers: { authorization: tokenAuth(M1) }, payload });
const orderOp = (apiOperation: string, token: string, amount: string, order: Record<string, unknown> = {}) =>
  ({ apiOperation, order: { amount, currency: 'USD', ...order }, sourceOfFunds: { type: 'CARD', token } });

for (const [name, store] of STORES) {
  t.test(`order API: a CAPTURE repeated after a later AUTHORIZE answers its first body (${name})`, async (t) => {
    const a = await buildTestApp(t, { eventStore: store(t) });
    const token = await createToken(a);
    const order = uniqueId();
    t.equal((await put(a, order, 'auth-1', orderOp('AUTHORIZE', token, '10.00'))).statusCode, 201);
    const capture = { apiOperation: 'CAPTURE', transaction: { amount: '5.00', currency: 'USD' } };
    const first = await put(a, order, 'capture-1', capture);
    t.equal(first.statusCode, 201, first.body);
    t.equal(first.json().order.amount, 10, 'the first answer: order.amount 10');
    t.equal((await put(a, order, 'auth-2', orderOp('AUTHORIZE', token, '99.00'))).statusCode, 201);
    const repeat = await put(a, order, 'capture-1', capture);
    t.equal(repeat.statusCode, 201);
    t.equal(repeat.body, first.body, 'the repeat: byte for byte the first answer');
    const retrieved = await a.inject({ method: 'GET', url: txnUrl(order, 'capture-1'), headers: { authorization: tokenAuth(M1) } });
    t.equal(retrieved.json().order.amount, 10, 'Retrieve Transaction: the order as the capture left it');
    const whole = await a.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}`, headers: { authorization: tokenAuth(M1) } });
    t.equal(whole.json().amount, 99, 'Retrieve Order: the order as it stands');
  });

  t.test(`order API: a PAY repeated after a later PAY that gave the order a reference answers its first body (${name})`, async (t) => {
    const a = await buildTestApp(t, { eventStore: store(t) });
    const token = await createToken(a);
    const order = uniqueId();
    const first = await put(a, order, 'pay-1', orderOp('PAY', token, '3.00'));
    t.equal(first.statusCode, 201, first.body);
    t.notOk('reference' in first.json().order, 'no order.reference yet');
    const second = await put(a, order, 'pay-2', orderOp('PAY', token, '4.00', { reference: 'cart-77' }));
    t.equal(second.json().order.reference, 'cart-77');
    t.equal((await put(a, order, 'pay-1', orderOp('PAY', token, '3.00'))).body, first.body, 'the repeat: byte for byte the first answer');
    t.equal((await put(a, order, 'pay-2', orderOp('PAY', token, '4.00', { reference: 'cart-77' }))).body, second.body, 'the later one too');
  });

  t.test(`version 3: a PAY repeated after a later PAY that gave the order a reference answers its first body (${name})`, async (t) => {
    const a = await buildTestApp(t, { eventStore: store(t) });
    const token = await createToken(a);
    const order = String(20_000_000_000 + Math.floor(Math.random() * 1_000_000_000));
    const pay = (txn: string, payload: Record<string, unknown>) =>
      a.inject({ method: 'PUT', url: payPath(M1.id, token, order, txn), headers: { authorization: payAuth(M1) }, payload });
    const body1 = { apiOperation: 'PAY', transaction: { amount: '3.00', currency: 'USD' } };
    const first = await pay('1', body1);
    t.equal(first.statusCode, 201, first.body);
    t.equal((await pay('1', body1)).body, first.body, 'a repeat before anything else');
    t.equal((await pay('1', body1)).body, first.body, 'and again (a kept answer)');
    const body2 = { apiOperation: 'PAY', transaction: { amount: '4.00', currency: 'USD' }, order: { reference: 'cart-78' } };
    const second = await pay('2', body2);
    t.equal(second.json().order.reference, 'cart-78');
    for (let i = 0; i < 2; i++) t.equal((await pay('1', body1)).body, first.body, `the repeat after it (${i + 1}): byte for byte the first answer`);
    t.equal((await pay('2', body2)).body, second.body, 'the later one too');
  });
}
