// Property-based test of the order API (versions 1-100 but the deactivated ones) through
// app.inject: random sequences of AUTHORIZE, PAY, CAPTURE, REFUND, VOID and VERIFY on one order,
// amounts as strings or JSON numbers, some invalid. Every answer: never a 5xx; an error is the
// gateway's body and appends nothing; after every answer 0 <= refunded <= captured <= authorized
// and the order's status is the one its totals name; Retrieve Order agrees with the last answer.
// Bounded (a few seconds).
import fc from 'fast-check';
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';

const amount = fc.oneof(
  fc.integer({ min: 1, max: 12_000 }).map((c) => (c / 100).toFixed(2)),
  fc.integer({ min: 1, max: 12_000 }).map((c) => c / 100),
  fc.constantFrom('0', '-1', '1.001', 'abc', 0, null),
);
const step = fc.oneof(
  fc.record({ op: fc.constantFrom('AUTHORIZE', 'PAY'), amount }),
  fc.record({ op: fc.constantFrom('CAPTURE', 'REFUND'), amount, currency: fc.constantFrom('USD', 'USD', 'USD', 'EUR') }),
  fc.record({ op: fc.constant('VOID'), target: fc.integer({ min: 0, max: 8 }) }),
  fc.record({ op: fc.constant('VERIFY') }),
);

function body(s: Record<string, any>, token: string): Record<string, unknown> {
  switch (s.op) {
    case 'AUTHORIZE': case 'PAY': return { apiOperation: s.op, order: { amount: s.amount, currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } };
    case 'CAPTURE': case 'REFUND': return { apiOperation: s.op, transaction: { amount: s.amount, currency: s.currency } };
    case 'VOID': return { apiOperation: 'VOID', transaction: { targetTransactionId: String(s.target) } };
    default: return { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } };
  }
}

function statusOf(a: number, c: number, r: number, previous: string): string {
  if (r > 0) return r >= c ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
  if (c > 0) return c >= a ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
  if (a > 0) return 'AUTHORIZED';
  return previous;
}

t.test('random sequences of operations on one order keep the totals consistent', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app, M1);
  let checked = 0;
  await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), fc.constantFrom('50', '77', '100'), async (steps, version) => {
    const order = uniqueId();
    for (const [i, s] of steps.entries()) {
      const head = await app.gateway.store.headPosition();
      const res = await app.inject({
        method: 'PUT', url: `/api/rest/version/${version}/merchant/${M1.id}/order/${order}/transaction/${i}`,
        headers: { authorization: tokenAuth(M1) }, payload: body(s, token),
      });
      const what = `${JSON.stringify(steps)} step ${i} => ${res.statusCode} ${res.body.slice(0, 400)}`;
      if (res.statusCode >= 500) throw new Error(`5xx: ${what}`);
      const b = res.json() as Record<string, any>;
      if (res.statusCode !== 201) {
        if (res.statusCode !== 400 || b.result !== 'ERROR' || b.error?.cause !== 'INVALID_REQUEST') throw new Error(`not the gateway's error body: ${what}`);
        if ((await app.gateway.store.headPosition()) !== head) throw new Error(`a refusal appended: ${what}`);
        continue;
      }
      const o = b.order;
      const [a, c, r] = [o.totalAuthorizedAmount, o.totalCapturedAmount, o.totalRefundedAmount] as [number, number, number];
      if (!(r >= 0 && r <= c && c <= a)) throw new Error(`totals out of order: ${what}`);
      if (a + c + r > 0 && o.status !== statusOf(a, c, r, o.status)) throw new Error(`status ${o.status} is not the totals': ${what}`);
      checked += 1;
    }
    const retrieved = await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}`, headers: { authorization: tokenAuth(M1) } });
    if (retrieved.statusCode >= 500) throw new Error(`Retrieve Order 5xx: ${retrieved.body}`);
  }), { numRuns: 40, seed: 15 });
  t.ok(checked > 20, `answers checked (${checked})`);
});
