// An order's totals under random sequences of both paths' transactions in BHD (3 decimals): version
// 3 payments, the order API's PAY, AUTHORIZE, CAPTURE, REFUND and VOID, payments answered UNKNOWN
// and their resolution. Compared after every decision with a model in bigint fils: the totals are
// exact, never above 1000000000000 (10^15 fils), refunded <= captured <= authorized; a transaction
// that would break that is refused (InvalidRequest), and only such a one.
import fc from 'fast-check';
import t from 'tap';
import { InvalidRequest } from '../../domain/errors.js';
import type { OrderEvent, OrderTotals } from '../../domain/events.js';
import { decide, evolveOrder, initialOrderState, type AuthenticationCommand, type OrderApiCommand, type OrderState, type PayWithToken } from '../../domain/order/order.js';
import { checkTotalWithin, statusOfTotals } from '../../domain/order/totals.js';

const MAX = 10n ** 15n;
const NOW = '2026-11-21T12:34:56.789Z';
const ids = { authorizationCode: '654321', receipt: '610000000123', stan: '000456', acquirerTransactionId: 'ATX-1', batch: 20261121 };
const card = (unknown: boolean) => ({
  number: '512345xxxxxx0008', brand: 'MASTERCARD' as const, scheme: 'MASTERCARD' as const, fundingMethod: 'CREDIT' as const,
  expiry: unknown ? { month: 5, year: 37 } : { month: 1, year: 39 },
});

const v3Pay = (id: string, amount: number, unknown: boolean): PayWithToken => ({
  type: 'PayWithToken', merchantId: 'M', orderId: 'O', transactionId: id, requestFingerprint: `fp-${id}`, repositoryId: 'R',
  token: '9123456789012348', card: card(unknown), amount, currency: 'BHD', securityCode: undefined, billingStreet: undefined,
  orderReference: undefined, transactionReference: undefined, source: undefined, frequency: undefined, cashAdvance: undefined,
  taxLocal: undefined, acquirerMerchantId: 'M', ids, now: NOW,
});

/** The order API's payment commands (3-D Secure's record no payment). */
type PaymentApiCommand = Exclude<OrderApiCommand, AuthenticationCommand>;
const apiCommand = (id: string, type: PaymentApiCommand['type'], rest: Record<string, unknown>): PaymentApiCommand => ({
  type, merchantId: 'M', orderId: 'O', transactionId: id, requestFingerprint: `fp-${id}`, acquirerMerchantId: 'M', ids, now: NOW, rules: [], ...rest,
} as unknown as PaymentApiCommand);

type Step =
  | { op: 'V3' | 'PAY' | 'AUTHORIZE'; amount: number; unknown: boolean }
  | { op: 'CAPTURE' | 'REFUND'; amount: number }
  | { op: 'VOID' | 'RESOLVE'; target: number };

/** Fils: near the maximum and tiny, where an inexact sum would show. */
const fils = fc.oneof(
  fc.constantFrom(1e15, 999_999_999_999_000, 5e14, 9_999_999_999_999, 1, 3, 4),
  fc.integer({ min: 1, max: 1e15 }),
);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constantFrom('V3' as const, 'PAY' as const, 'AUTHORIZE' as const), amount: fils, unknown: fc.boolean() }),
  fc.record({ op: fc.constantFrom('CAPTURE' as const, 'REFUND' as const), amount: fils }),
  fc.record({ op: fc.constantFrom('VOID' as const, 'RESOLVE' as const), target: fc.nat(12) }),
);

interface Model { a: bigint; c: bigint; r: bigint; pending: Map<string, { amount: bigint; captures: boolean }> }
interface Done { id: string; type: string; amount: bigint; success: boolean; voided: boolean }

/** Whether the model lets this step through, and the model after it (undefined: must be refused). */
function expected(m: Model, s: Step, done: readonly Done[]): ((result: string | undefined, id: string) => void) | undefined {
  const pending = [...m.pending.values()].reduce((sum, p) => sum + p.amount, 0n);
  switch (s.op) {
    case 'V3': case 'PAY': case 'AUTHORIZE': {
      const x = BigInt(s.amount);
      if (m.a + pending + x > MAX) return undefined;
      const captures = s.op !== 'AUTHORIZE';
      return (result, id) => {
        if (result === 'UNKNOWN') m.pending.set(id, { amount: x, captures });
        else if (result === 'SUCCESS') { m.a += x; if (captures) m.c += x; }
      };
    }
    case 'CAPTURE': case 'REFUND': {
      const x = BigInt(s.amount);
      if (done.length === 0 || (s.op === 'CAPTURE' ? m.c + x > m.a : m.r + x > m.c)) return undefined;
      return () => { if (s.op === 'CAPTURE') m.c += x; else m.r += x; };
    }
    case 'VOID': {
      const target = done[s.target];
      if (!target || !target.success || target.voided) return undefined;
      const x = target.amount;
      const after = { AUTHORIZATION: [-x, 0n, 0n], PAYMENT: [-x, -x, 0n], CAPTURE: [0n, -x, 0n], REFUND: [0n, 0n, -x] }[target.type];
      if (!after) return undefined;
      const [a, c, r] = [m.a + after[0]!, m.c + after[1]!, m.r + after[2]!];
      if (c > a || r > c) return undefined;
      return () => { m.a = a; m.c = c; m.r = r; target.voided = true; };
    }
    case 'RESOLVE':
      return () => {};
  }
}

function decideStep(state: OrderState, s: Step, id: string, done: readonly Done[]): { events: OrderEvent[]; result?: string; type?: string } {
  switch (s.op) {
    case 'V3': {
      const d = decide(v3Pay(id, s.amount, s.unknown), state);
      if (d.kind !== 'recorded') throw new Error(`v3 ${d.kind}`);
      return { events: d.events, result: d.transaction.outcome.result, type: 'PAYMENT' };
    }
    case 'RESOLVE': {
      const target = done[s.target];
      return { events: target ? decide({ type: 'ResolveUnknownPayment', transactionId: target.id, authorizationCode: '111111', now: NOW }, state) : [] };
    }
    default: {
      const rest: Record<string, unknown> = s.op === 'VOID' ? { targetTransactionId: done[s.target]?.id ?? 'none' }
        : s.op === 'PAY' || s.op === 'AUTHORIZE' ? { amount: s.amount, currency: 'BHD', source: { repositoryId: 'R', token: 'T', card: { ...card(s.unknown), type: 'MASTERCARD' } } }
          : { amount: 'amount' in s ? s.amount : 0, currency: 'BHD' };
      const d = decide(apiCommand(id, s.op, rest), state);
      if (d.kind !== 'recorded') throw new Error(`${s.op} ${d.kind}`);
      return { events: d.events, result: d.transaction.outcome.result, type: d.transaction.transactionType };
    }
  }
}

const show = (o: unknown) => JSON.stringify(o, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v instanceof Map ? [...v] : v));

t.test('property: totals equal a bigint model, exactly, under random transactions in BHD on both paths', async (t) => {
  let accepted = 0;
  let refused = 0;
  fc.assert(fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
    let state = initialOrderState();
    const model: Model = { a: 0n, c: 0n, r: 0n, pending: new Map() };
    const done: Done[] = [];
    for (const [i, s] of steps.entries()) {
      const id = `t${i}`;
      const apply = expected(model, s, done);
      let decided: ReturnType<typeof decideStep>;
      try {
        decided = decideStep(state, s, id, done);
      } catch (error) {
        if (!(error instanceof InvalidRequest)) throw error;
        if (apply) throw new Error(`step ${i} ${show(s)} refused (${error.message}); model ${show(model)}`);
        refused += 1;
        continue;
      }
      if (!apply) throw new Error(`step ${i} ${show(s)} accepted; model ${show(model)}`);
      for (const e of decided.events) state = evolveOrder(state, e);
      if (s.op === 'RESOLVE') {
        const resolved = decided.events[0];
        const target = done[s.target];
        const held = target ? model.pending.get(target.id) : undefined;
        if (resolved?.type === 'PaymentOutcomeResolved' && target && held) {
          model.pending.delete(target.id);
          if (resolved.data.result === 'SUCCESS') { model.a += held.amount; if (held.captures) model.c += held.amount; target.success = true; }
        }
      } else {
        apply(decided.result, id);
        if (decided.type !== undefined) done.push({ id, type: decided.type, amount: BigInt('amount' in s ? s.amount : 0), success: decided.result === 'SUCCESS', voided: false });
        accepted += 1;
      }
      const totals: OrderTotals = state.exists ? state.totals : { authorized: 0, captured: 0, refunded: 0 };
      if (BigInt(totals.authorized) !== model.a || BigInt(totals.captured) !== model.c || BigInt(totals.refunded) !== model.r) {
        throw new Error(`step ${i} ${show(s)}: totals ${show(totals)}, model ${show(model)}`);
      }
      if (!(model.r <= model.c && model.c <= model.a && model.a <= MAX)) throw new Error(`step ${i}: model out of order ${show(model)}`);
    }
  }), { numRuns: 1000 });
  t.ok(accepted > 1000 && refused > 500, `transactions accepted (${accepted}) and refused (${refused})`);
});

t.test('checkTotalWithin: the maximum is 1000000000000 in every currency, counted in its minor units', async (t) => {
  const order = (authorized: number, currency: string): OrderState =>
    evolveOrder(initialOrderState(), { type: 'PaymentRecorded', data: decidePayData(authorized, currency) });
  t.doesNotThrow(() => checkTotalWithin(order(999_999_999_999_99, 'USD'), 1, 'USD', 'f'), 'USD: up to 1000000000000.00');
  t.throws(() => checkTotalWithin(order(999_999_999_999_99, 'USD'), 2, 'USD', 'f'), { message: "Value '0.02' is invalid. The order's total authorized amount would exceed 1000000000000", field: 'f' });
  t.doesNotThrow(() => checkTotalWithin(order(999_999_999_999, 'JPY'), 1, 'JPY', 'f'), 'JPY: up to 1000000000000');
  t.throws(() => checkTotalWithin(order(1e12, 'JPY'), 1, 'JPY', 'f'), { message: /Value '1' is invalid/ });
  t.equal(statusOfTotals({ authorized: 1e15, captured: 1e15, refunded: 1e15 - 1 }, 'X'), 'PARTIALLY_REFUNDED', 'one fils short of refunded');
});

function decidePayData(authorized: number, currency: string) {
  const d = decide({ ...v3Pay('x', authorized, false), currency }, initialOrderState());
  if (d.kind !== 'recorded') throw new Error(d.kind);
  return d.transaction;
}
