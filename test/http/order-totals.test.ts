// An order's totals are exact and never above the spec's response maximum, 1000000000000: in BHD
// (3 decimals) that is 10^15 fils, within a double's exact integers, so every total is exact. A
// PAY or AUTHORIZE that would take the total authorized past it (counting payments answered
// UNKNOWN, which may still add) is refused (400) on both paths; a refund beyond the captured
// amount not yet refunded is refused, always. Totals are compared, as written in the answers'
// text, with a model in bigint fils.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { buildTestApp, createToken, M1, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { streams } from '../../domain/events.js';
import { expectInvalid, orderId, type App } from './http.fixture.js';

const FILS_MAX = 10n ** 15n;
const orderUrl = (order: string) => `/api/rest/version/100/merchant/${M1.id}/order/${order}`;
const put = (app: App, order: string, txn: string, payload: Record<string, unknown>) =>
  app.inject({ method: 'PUT', url: `${orderUrl(order)}/transaction/${txn}`, headers: { authorization: tokenAuth(M1) }, payload });
const payOp = (token: string, amount: string, apiOperation = 'PAY') =>
  ({ apiOperation, order: { amount, currency: 'BHD' }, sourceOfFunds: { type: 'CARD', token } });
const refund = (amount: string) => ({ apiOperation: 'REFUND', transaction: { amount, currency: 'BHD' } });

/** A decimal text in fils, exactly (BHD: 3 decimals). */
function fils(text: string): bigint {
  const match = /^([0-9]+)(?:\.([0-9]{1,3}))?$/.exec(text);
  if (!match) throw new Error(`not a decimal amount: ${text}`);
  return BigInt(match[1]!) * 1000n + BigInt((match[2] ?? '').padEnd(3, '0'));
}

interface Totals { authorized: bigint; captured: bigint; refunded: bigint }

/** The totals as the answer's text writes them (not as a double reads them). */
function writtenTotals(body: string): Totals {
  const member = (name: string) => {
    const match = new RegExp(`"${name}":([^,}]+)`).exec(body);
    if (!match) throw new Error(`no ${name} in ${body.slice(0, 300)}`);
    return fils(match[1]!);
  };
  return { authorized: member('totalAuthorizedAmount'), captured: member('totalCapturedAmount'), refunded: member('totalRefundedAmount') };
}

function expectTotals(t: Test, res: { statusCode: number; body: string }, expected: Totals, what: string) {
  t.equal(res.statusCode, 201, `${what}: 201 (${res.body.slice(0, 300)})`);
  if (res.statusCode === 201) t.same(writtenTotals(res.body), expected, `${what}: totals exact`);
}

t.test('BHD: ten PAYs of 1000000000000 and one of 0.003, then ten REFUNDs of 1000000000000 and one of 0.004', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = uniqueId();
  expectTotals(t, await put(app, order, 'p0', payOp(token, '1000000000000')), { authorized: FILS_MAX, captured: FILS_MAX, refunded: 0n }, 'the first PAY');
  for (let i = 1; i < 10; i++) {
    expectInvalid(t, await put(app, order, `p${i}`, payOp(token, '1000000000000')), {
      field: 'order.amount', explanation: "Value '1000000000000.000' is invalid. The order's total authorized amount would exceed 1000000000000",
    }, `PAY ${i + 1}`);
  }
  expectInvalid(t, await put(app, order, 'p10', payOp(token, '0.003')), { field: 'order.amount', explanation: /would exceed 1000000000000/ }, 'PAY of 0.003');
  expectTotals(t, await put(app, order, 'r0', refund('1000000000000')), { authorized: FILS_MAX, captured: FILS_MAX, refunded: FILS_MAX }, 'the first REFUND');
  for (let i = 1; i < 10; i++) {
    expectInvalid(t, await put(app, order, `r${i}`, refund('1000000000000')), { field: 'transaction.amount', explanation: /exceeds the order's captured amount not yet refunded/ }, `REFUND ${i + 1}`);
  }
  expectInvalid(t, await put(app, order, 'r10', refund('0.004')), { field: 'transaction.amount', explanation: /not yet refunded/ }, 'REFUND of 0.004');
  const retrieved = await app.inject({ method: 'GET', url: orderUrl(order), headers: { authorization: tokenAuth(M1) } });
  t.equal(retrieved.json().status, 'REFUNDED');
  t.same(writtenTotals(retrieved.body), { authorized: FILS_MAX, captured: FILS_MAX, refunded: FILS_MAX }, 'Retrieve Order: exact');
});

t.test('BHD: up to the maximum by the fils, every total exact; one fils more is refused', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = uniqueId();
  let total = 0n;
  for (const [i, amount] of ['999999999999', '0.997', '0.001', '0.001', '0.001'].entries()) {
    total += fils(amount);
    expectTotals(t, await put(app, order, `p${i}`, payOp(token, amount)), { authorized: total, captured: total, refunded: 0n }, `PAY of ${amount}`);
  }
  t.equal(total, FILS_MAX, 'the total is the maximum');
  t.match((await put(app, order, 'p4', payOp(token, '0.001'))).body, /"totalCapturedAmount":1000000000000[,}]/, 'an identical repeat of the last');
  expectInvalid(t, await put(app, order, 'over', payOp(token, '0.001')), { field: 'order.amount', explanation: "Value '0.001' is invalid. The order's total authorized amount would exceed 1000000000000" }, 'one fils more');
  expectInvalid(t, await put(app, order, 'auth', payOp(token, '0.001', 'AUTHORIZE')), { field: 'order.amount', explanation: /would exceed/ }, 'an AUTHORIZE of one fils more');
  let refunded = 0n;
  for (const [i, amount] of ['999999999999', '0.998', '0.002'].entries()) {
    refunded += fils(amount);
    expectTotals(t, await put(app, order, `r${i}`, refund(amount)), { authorized: total, captured: total, refunded }, `REFUND of ${amount}`);
  }
  expectInvalid(t, await put(app, order, 'r-over', refund('0.001')), { field: 'transaction.amount' }, 'a refund of one fils more');
});

t.test('version 3 Pay with token in BHD: a second payment past the maximum is refused; the order API refunds it exactly', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = orderId();
  const v3 = (txn: string, amount: string) => app.inject({
    method: 'PUT', url: payPath(M1.id, token, order, txn), headers: { authorization: payAuth(M1) },
    payload: { apiOperation: 'PAY', transaction: { amount, currency: 'BHD' } },
  });
  expectTotals(t, await v3('1', '1000000000000'), { authorized: FILS_MAX, captured: FILS_MAX, refunded: 0n }, 'PAY of 1000000000000');
  expectInvalid(t, await v3('2', '0.003'), { field: 'transaction.amount', explanation: "Value '0.003' is invalid. The order's total authorized amount would exceed 1000000000000" }, 'PAY of 0.003');
  expectInvalid(t, await v3('3', '1000000000000'), { field: 'transaction.amount', explanation: /would exceed/ }, 'PAY of 1000000000000 again');
  expectTotals(t, await put(app, order, 'r1', refund('999999999999')), { authorized: FILS_MAX, captured: FILS_MAX, refunded: 999_999_999_999_000n }, 'REFUND of 999999999999');
  expectTotals(t, await put(app, order, 'r2', refund('1')), { authorized: FILS_MAX, captured: FILS_MAX, refunded: FILS_MAX }, 'REFUND of 1');
  expectInvalid(t, await put(app, order, 'r3', refund('0.001')), { field: 'transaction.amount' }, 'REFUND of 0.001 more');
});

t.test('a payment answered UNKNOWN counts toward the maximum: its resolution may add it', async (t) => {
  const app = await buildTestApp(t);
  const unknownCard = await createToken(app, M1, '5123450000000008', '5', '37');
  const approved = await createToken(app);
  const order = uniqueId();
  const first = await put(app, order, 'u', payOp(unknownCard, '1000000000000'));
  t.equal(first.json().result, 'UNKNOWN', `answered UNKNOWN (${first.body.slice(0, 200)})`);
  t.same(writtenTotals(first.body), { authorized: 0n, captured: 0n, refunded: 0n }, 'not in the totals yet');
  expectInvalid(t, await put(app, order, 'p', payOp(approved, '0.001')), { field: 'order.amount', explanation: /would exceed/ }, 'a PAY beside it');
});

t.test('an order an earlier release recorded past the maximum: read back as recorded, refunded, no further PAY', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = uniqueId();
  expectTotals(t, await put(app, order, 'p0', payOp(token, '1000000000000')), { authorized: FILS_MAX, captured: FILS_MAX, refunded: 0n }, 'a PAY');
  // A second payment of 1000000000000, as a release without the bound recorded it (the same event format).
  const stream = streams.order(M1.id, order);
  const [first] = await app.gateway.store.readStream(stream);
  const data = { ...(first!.data as Record<string, unknown>), transactionId: 'p1', totalsAfter: { authorized: 2e15, captured: 2e15, refunded: 0 } };
  await app.gateway.store.append(stream, [{ id: randomUUID(), type: first!.type, data, metadata: first!.metadata }], { expectedRevision: 0n });
  const retrieved = await app.inject({ method: 'GET', url: orderUrl(order), headers: { authorization: tokenAuth(M1) } });
  t.equal(retrieved.statusCode, 200, retrieved.body.slice(0, 200));
  t.same(writtenTotals(retrieved.body), { authorized: 2n * FILS_MAX, captured: 2n * FILS_MAX, refunded: 0n }, 'Retrieve Order: the totals as recorded');
  expectInvalid(t, await put(app, order, 'p2', payOp(token, '0.001')), { field: 'order.amount', explanation: /would exceed/ }, 'no further PAY');
  expectTotals(t, await put(app, order, 'r1', refund('1000000000000')), { authorized: 2n * FILS_MAX, captured: 2n * FILS_MAX, refunded: FILS_MAX }, 'a REFUND');
});

/** Amounts near the maximum and tiny ones, where an inexact sum would show. */
const amount = fc.oneof(
  fc.constantFrom('1000000000000', '999999999999', '500000000000', '9999999999.999', '0.001', '0.003', '0.004', '1'),
  fc.bigInt({ min: 1n, max: 10n ** 13n - 1n }).map((f) => { const s = f.toString().padStart(4, '0'); return `${s.slice(0, -3)}.${s.slice(-3)}`.replace(/^0+(?=[0-9])/, ''); }),
);

t.test('property: totals in BHD under random PAYs and REFUNDs equal a bigint model, on the fils', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  let accepted = 0;
  await fc.assert(fc.asyncProperty(fc.array(fc.tuple(fc.constantFrom('PAY', 'REFUND', 'REFUND'), amount), { minLength: 1, maxLength: 12 }), async (steps) => {
    const order = uniqueId();
    const model: Totals = { authorized: 0n, captured: 0n, refunded: 0n };
    for (const [i, [op, text]] of steps.entries()) {
      const x = fils(text);
      const res = await put(app, order, String(i), op === 'PAY' ? payOp(token, text) : refund(text));
      const what = `${JSON.stringify(steps)} step ${i}: ${res.statusCode} ${res.body.slice(0, 300)}`;
      // A request longer than 14 characters is refused by the request decimal rule before the totals are looked at.
      const fits = text.length <= 14 && (op === 'PAY' ? model.authorized + x <= FILS_MAX : model.refunded + x <= model.captured);
      if (!fits) {
        if (res.statusCode !== 400) throw new Error(`expected a refusal: ${what}`);
        continue;
      }
      if (res.statusCode !== 201) throw new Error(`expected 201: ${what}`);
      if (op === 'PAY') { model.authorized += x; model.captured += x; } else model.refunded += x;
      const written = writtenTotals(res.body);
      if (written.authorized !== model.authorized || written.captured !== model.captured || written.refunded !== model.refunded) {
        throw new Error(`totals ${JSON.stringify(written, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}: ${what}`);
      }
      accepted += 1;
    }
  }), { numRuns: 40 });
  t.ok(accepted > 40, `transactions accepted and checked (${accepted})`);
});
