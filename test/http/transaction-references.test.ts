// transaction.reference: unique across the merchant's transactions on version 3's Pay with token
// only (the spec's rule), repeated freely on the order API (real clients send "1" on every CAPTURE,
// "PAY" on every PAY); and a transaction that is refused does not use up its reference.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid, orderId, pay, type App } from './http.fixture.js';
import { budget } from '../helpers/slowdown.js';

const put = (a: App, order: string, txn: string, payload: Record<string, unknown>) => a.inject({
  method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${txn}`, headers: { authorization: tokenAuth(M1) }, payload,
});
const money = (apiOperation: string, amount: string, reference: string) => ({ apiOperation, transaction: { amount, currency: 'USD', reference } });
const payOp = (token: string, amount: string, reference: string) =>
  ({ apiOperation: 'PAY', order: { amount, currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, transaction: { reference } });
const v3Pay = (amount: string, currency: string, reference: string) => ({ apiOperation: 'PAY', transaction: { amount, currency, reference } });

t.test('order API: the same reference on many orders and within an order, as real clients send it', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  for (let n = 1; n <= 3; n++) {
    const order = uniqueId();
    const paid = await put(a, order, 'pay', payOp(token, '20.00', 'PAY'));
    t.equal(paid.statusCode, 201, `order ${n}: PAY with reference "PAY" (${paid.body})`);
    t.equal(paid.json().transaction.reference, 'PAY', 'echoed');
    const auth = await put(a, order, '1', { apiOperation: 'AUTHORIZE', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } });
    t.equal(auth.statusCode, 201);
    for (const [txn, body] of [['capture-a', money('CAPTURE', '4.00', '1')], ['capture-b', money('CAPTURE', '6.00', '1')], ['refund', money('REFUND', '2.00', '1')]] as const) {
      const res = await put(a, order, txn, body);
      t.equal(res.statusCode, 201, `order ${n}: ${txn} with reference "1" (${res.body})`);
      t.equal(res.json().transaction.reference, '1');
    }
  }
});

t.test('version 3 still refuses a reference another version 3 transaction holds; the order API\'s do not count', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const reference = `v3-${randomUUID().slice(0, 8)}`;
  t.equal((await put(a, uniqueId(), 'pay', payOp(token, '5.00', reference))).statusCode, 201, 'the order API uses it first');
  const first = await pay(a, token, v3Pay('5.00', 'USD', reference));
  t.equal(first.statusCode, 201, `version 3 may still use it once (${first.body})`);
  expectInvalid(t, await pay(a, token, v3Pay('5.00', 'USD', reference)), { field: 'transaction.reference' }, 'on another order');
  t.equal((await put(a, uniqueId(), 'pay', payOp(token, '5.00', reference))).statusCode, 201, 'the order API still accepts it');
});

t.test('order API: eight parallel REFUNDs with distinct references, six refused; every reference stays usable', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const order = uniqueId();
  t.equal((await put(a, order, 'pay', payOp(token, '10.00', 'first'))).statusCode, 201);
  const references = Array.from({ length: 8 }, (_, i) => `refund-${i}-${randomUUID().slice(0, 6)}`);
  const replies = await Promise.all(references.map((reference, i) => put(a, order, `refund-${i}`, money('REFUND', '4.00', reference))));
  t.equal(replies.filter((r) => r.statusCode === 201).length, 2, 'two refunds of 4.00 fit in 10.00');
  const refused = references.filter((_, i) => replies[i]!.statusCode !== 201);
  t.equal(refused.length, 6);
  for (const [i, res] of replies.entries()) if (res.statusCode !== 201) expectInvalid(t, res, { field: 'transaction.amount' }, `refund ${i}: refused for its amount`);
  for (const reference of references) {
    const res = await put(a, uniqueId(), 'pay', payOp(token, '1.00', reference));
    t.equal(res.statusCode, 201, `reference ${reference} accepted on a new transaction (${res.body})`);
  }
});

/**
 * Hold the first `count` appends to streams starting with `prefix` until all of them have come (or
 * a generous deadline passed): every request has then decided, and claimed, on the order as it was
 * before any of them recorded. Later appends go through at once.
 */
function barrier(a: App, prefix: string, count: number): void {
  const store = a.gateway.store;
  const append = store.append.bind(store);
  let arrived = 0;
  let open!: () => void;
  const allThere = new Promise<void>((resolve) => { open = resolve; });
  const fallback = setTimeout(() => open(), budget(20_000));
  store.append = async (stream, events, options) => {
    if (stream.startsWith(prefix) && arrived < count) {
      arrived++;
      if (arrived === count) {
        clearTimeout(fallback);
        open();
      }
      await allThere;
    }
    return append(stream, events, options);
  };
}

for (const store of ['memory', 'sqlite'] as const) t.test(`version 3: parallel PAYs refused for their currency after their claims do not use up their references (${store})`, async (t) => {
  const a = await buildTestApp(t, { eventStore: store === 'memory' ? { kind: 'memory' } : { kind: 'sqlite', path: join(t.testdir(), 'gateway.db') } });
  const token = await createToken(a);
  const order = orderId();
  barrier(a, `order-${M1.id}:${order}`, 8);
  const references = Array.from({ length: 8 }, (_, i) => `par-${i}-${randomUUID().slice(0, 6)}`);
  const replies = await Promise.all(references.map((reference, i) =>
    pay(a, token, v3Pay('2.00', i % 2 === 0 ? 'USD' : 'EUR', reference), { order, transaction: String(i + 1) })));
  t.equal(replies.filter((r) => r.statusCode === 201).length, 4, "the four in the currency of the first recorded");
  for (const [i, res] of replies.entries()) {
    const reference = references[i]!;
    if (res.statusCode === 201) {
      expectInvalid(t, await pay(a, token, v3Pay('1.00', 'USD', reference)), { field: 'transaction.reference' }, `${reference}: recorded, so held`);
      continue;
    }
    expectInvalid(t, res, { field: 'transaction.currency' }, `${reference}: refused for its currency`);
    const again = await pay(a, token, v3Pay('1.00', 'USD', reference));
    t.equal(again.statusCode, 201, `${reference}: refused, so free for a new transaction (${again.body})`);
  }
  const events = (await a.gateway.store.readAll()).map((e) => e.type);
  t.equal(events.filter((type) => type === 'TransactionReferenceReleased').length, 4, 'the four refused let go of their references');
});
