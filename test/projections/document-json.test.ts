// projections/document-json.ts: the order document's compiled serializer writes exactly what
// JSON.stringify writes, for every document the orders projection builds (generated payments and
// resolutions with awkward strings and numbers), and schema constructs it cannot write exactly are
// refused when the serializer is built.
import t from 'tap';
import fc from 'fast-check';
import { Type } from '@sinclair/typebox';
import { documentSchema, documentSerializer } from '../../projections/document-json.js';
import { ordersProjection, OrderDocSchema, type OrderDoc } from '../../projections/orders.js';
import type { ProjectedEvent } from '../../store/event-store.js';

const runs = Number(process.env.FUZZ_RUNS ?? 1000);

/** Strings that exercise escaping: quotes, backslashes, controls, lone surrogates, long ones (fast-json-stringify escapes strings of 42 characters and more another way). */
const awkward = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'binary', minLength: 40, maxLength: 90 }),
  fc.constantFrom('', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', '\ud83d\ude00', 'a"b', 'x'.repeat(300), `${'y'.repeat(300)}"`),
);
const amount = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -0, 1250, Number.MAX_SAFE_INTEGER, 1e21, 0.1));
const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const payment = fc.record({
  transactionId: awkward,
  amount,
  currency: awkward,
  result: awkward,
  gatewayCode: awkward,
  authorizationCode: optional(awkward),
  transactionReference: optional(awkward),
  orderReference: optional(awkward),
  token: awkward,
  number: awkward,
  brand: awkward,
  orderStatus: awkward,
  timeOfRecord: awkward,
  totals: fc.tuple(amount, amount, amount),
});
const resolution = fc.record({
  /** Which recorded transaction it resolves (an index), or another id. */
  which: fc.nat(),
  otherId: optional(awkward),
  result: awkward,
  gatewayCode: awkward,
  authorizationCode: optional(awkward),
  orderStatus: awkward,
  resolvedAt: awkward,
  totals: fc.tuple(amount, amount, amount),
});
const step = fc.oneof({ arbitrary: payment.map((p) => ({ kind: 'pay' as const, p })), weight: 3 }, resolution.map((r) => ({ kind: 'resolve' as const, r })));

function event(type: string, data: unknown, revision: number): ProjectedEvent {
  return { type, data, stream: 'order-M-1', revision: BigInt(revision), position: BigInt(revision + 1), created: '2026-01-01T00:00:00.000Z' };
}

t.test("the orders projection's documents: the compiled serializer writes what JSON.stringify writes", async (t) => {
  const serialize = ordersProjection.serialize;
  if (!serialize) throw new Error('the orders projection has no compiled serializer');
  let compared = 0;
  fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 6 }), (steps) => {
    let doc: OrderDoc | undefined;
    const ids: string[] = [];
    steps.forEach((s, revision) => {
      if (s.kind === 'pay') {
        const p = s.p;
        ids.push(p.transactionId);
        doc = ordersProjection.evolve(doc, event('PaymentRecorded', {
          merchantId: 'M', orderId: '1', transactionId: p.transactionId, amount: p.amount, currency: p.currency,
          ...(p.orderReference !== undefined ? { orderReference: p.orderReference } : {}),
          ...(p.transactionReference !== undefined ? { transactionReference: p.transactionReference } : {}),
          token: p.token, card: { number: p.number, brand: p.brand },
          outcome: { result: p.result, gatewayCode: p.gatewayCode, ...(p.authorizationCode !== undefined ? { authorizationCode: p.authorizationCode } : {}) },
          orderStatus: p.orderStatus, timeOfRecord: p.timeOfRecord,
          totalsAfter: { authorized: p.totals[0], captured: p.totals[1], refunded: p.totals[2] },
        }, revision), '1');
      } else {
        const r = s.r;
        doc = ordersProjection.evolve(doc, event('PaymentOutcomeResolved', {
          merchantId: 'M', orderId: '1', transactionId: r.otherId ?? ids[r.which % Math.max(ids.length, 1)] ?? 'none',
          result: r.result, gatewayCode: r.gatewayCode, ...(r.authorizationCode !== undefined ? { authorizationCode: r.authorizationCode } : {}),
          orderStatus: r.orderStatus, resolvedAt: r.resolvedAt,
          totalsAfter: { authorized: r.totals[0], captured: r.totals[1], refunded: r.totals[2] },
        }, revision), '1');
      }
      if (doc !== undefined) {
        compared++;
        const expected = JSON.stringify(doc);
        const written = serialize(doc);
        if (written !== expected) throw new Error(`different text:\n${written}\n${expected}`);
      }
    });
  }), { numRuns: runs });
  t.ok(compared >= runs / 2, `${compared} documents compared`);
});

t.test('a resolution keeps the schema order: an authorization code it brings sits before the reference, resolvedAt last', async (t) => {
  const recorded = ordersProjection.evolve(undefined, event('PaymentRecorded', {
    merchantId: 'M', orderId: '1', transactionId: 't1', amount: 100, currency: 'USD', transactionReference: 'ref', token: 'tok',
    card: { number: '512345xxxxxx0008', brand: 'MASTERCARD' }, outcome: { result: 'UNKNOWN', gatewayCode: 'UNKNOWN' },
    orderStatus: 'INITIATED', timeOfRecord: '2026-01-01T00:00:00.000Z', totalsAfter: { authorized: 0, captured: 0, refunded: 0 },
  }, 0), '1');
  const resolved = ordersProjection.evolve(recorded, event('PaymentOutcomeResolved', {
    merchantId: 'M', orderId: '1', transactionId: 't1', result: 'SUCCESS', gatewayCode: 'APPROVED', authorizationCode: '123456',
    orderStatus: 'CAPTURED', resolvedAt: '2026-01-01T00:00:05.000Z', totalsAfter: { authorized: 100, captured: 100, refunded: 0 },
  }, 1), '1');
  t.same(Object.keys(resolved?.transactions[0] ?? {}),
    ['id', 'type', 'amount', 'currency', 'result', 'gatewayCode', 'authorizationCode', 'reference', 'token', 'card', 'timeOfRecord', 'resolvedAt']);
  t.equal(ordersProjection.serialize?.(resolved as OrderDoc), JSON.stringify(resolved));
  const again = ordersProjection.evolve(resolved, event('PaymentOutcomeResolved', {
    merchantId: 'M', orderId: '1', transactionId: 't1', result: 'SUCCESS', gatewayCode: 'APPROVED',
    orderStatus: 'CAPTURED', resolvedAt: '2026-01-01T00:00:09.000Z', totalsAfter: { authorized: 100, captured: 100, refunded: 0 },
  }, 2), '1');
  t.equal(again?.transactions[0]?.authorizationCode, '123456', 'a later resolution without a code keeps the one it had');
});

t.test('what a compiled serializer could not write like JSON.stringify is refused when it is built', async (t) => {
  t.throws(() => documentSchema(Type.Object({ a: Type.Union([Type.String(), Type.Number()]) })), /\/a: Union/);
  t.throws(() => documentSchema(Type.Object({ a: Type.Unknown() })), /\/a: Unknown/);
  t.throws(() => documentSchema(Type.Record(Type.String(), Type.String())), /Record/);
  t.throws(() => documentSchema(Type.Object({ a: Type.String() }, { additionalProperties: true })), /additional properties/);
  t.throws(() => documentSchema(Type.Object({ a: Type.Literal(1) })), /a literal other than a string/);
  t.same(documentSchema(Type.Object({ n: Type.Integer() })), { type: 'object', properties: { n: { type: 'number', nullable: true } }, nullable: true },
    'an integer is written as a number (a fraction is not cut)');
  const write = documentSerializer<{ n: number; s?: string }>(Type.Object({ n: Type.Integer(), s: Type.Optional(Type.String()) }));
  t.equal(write({ n: 1.5 }), '{"n":1.5}');
  t.equal(write({ n: Number.NaN, s: 'x' }), JSON.stringify({ n: Number.NaN, s: 'x' }), 'a value the compiled serializer refuses: JSON.stringify');
  // The order API (versions 1-100 but the deactivated ones) adds AUTHORIZATION, CAPTURE, REFUND,
  // VERIFICATION and VOID_* to PAYMENT: a string.
  t.equal(OrderDocSchema.properties.transactions.items.properties.type.type, 'string');
});
