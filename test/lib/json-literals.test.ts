// The literal text of JSON number members, kept beside the value JSON.parse made (lib/json-literals.ts).
import fc from 'fast-check';
import t from 'tap';
import { keepNumberLiterals, numberLiteral } from '../../lib/json-literals.js';

const AMOUNT = new Set(['amount']);
function parsed(text: string): any {
  const value: unknown = JSON.parse(text);
  keepNumberLiterals(text, value, AMOUNT);
  return value;
}

t.test('the text as written, by the object that holds it', async (t) => {
  const body = parsed('{"order":{"amount":0.009999999999999999999,"currency":"USD"},"transaction":{ "amount" : 1e12 },"amount":1.10}');
  t.equal(numberLiteral(body.order, 'amount'), '0.009999999999999999999');
  t.equal(body.order.amount, 0.01, 'the value is JSON.parse\'s');
  t.equal(numberLiteral(body.transaction, 'amount'), '1e12');
  t.equal(numberLiteral(body, 'amount'), '1.10');
  t.equal(numberLiteral(body.order, 'currency'), undefined, 'a string member');
});

t.test('only the named members; not numbers inside strings; arrays and nests', async (t) => {
  const body = parsed('{"a":{"amount":"1e12","total":1e3,"note":"\\"amount\\":5"},"list":[{"amount":-0},[1,{"amount":2.50}]],"deep":{"x":{"y":{"amount":7E-1}}}}');
  t.equal(numberLiteral(body.a, 'amount'), undefined, 'a string amount has no literal');
  t.equal(numberLiteral(body.a, 'total'), undefined, 'a member not named');
  t.equal(numberLiteral(body.list[0], 'amount'), '-0');
  t.equal(numberLiteral(body.list[1][1], 'amount'), '2.50');
  t.equal(numberLiteral(body.deep.x.y, 'amount'), '7E-1');
});

t.test('a name written twice: the last, as JSON.parse keeps it; an escaped name is its decoded name', async (t) => {
  const body = parsed('{"t":{"amount":1e2,"amount":100.50},"u":{"amount":100.50,"amount":1e2},"v":{"amount":1e2},"v":{"amount":"5"},"w":{"am\\u006funt":1.0}}');
  t.equal(numberLiteral(body.t, 'amount'), '100.50');
  t.equal(numberLiteral(body.u, 'amount'), '1e2');
  t.equal(numberLiteral(body.v, 'amount'), undefined, 'the group kept holds a string');
  t.equal(numberLiteral(body.w, 'amount'), '1.0');
});

t.test('nothing kept for a text without numbers, for a value that is not an object, for an object never parsed', async (t) => {
  t.equal(numberLiteral(parsed('{"amount":"12.50"}'), 'amount'), undefined);
  t.equal(numberLiteral(parsed('5'), 'amount'), undefined);
  t.equal(numberLiteral({ amount: 5 }, 'amount'), undefined);
  t.equal(numberLiteral(undefined, 'amount'), undefined);
});

t.test('a nest deeper than the stack is walked without overflowing it', async (t) => {
  const depth = 200_000;
  const text = `{"x":${'['.repeat(depth)}{"amount":1e1}${']'.repeat(depth)},"amount":2e0}`;
  const body = parsed(text);
  t.equal(numberLiteral(body, 'amount'), '2e0');
  let inner = body.x;
  for (let i = 0; i < depth; i++) inner = inner[0];
  t.equal(numberLiteral(inner, 'amount'), '1e1');
});

t.test('property: every number member named amount, anywhere, gets a literal that reads as its value', async (t) => {
  const literal = fc.tuple(fc.boolean(), fc.nat(10 ** 6), fc.option(fc.stringMatching(/^[0-9]{1,25}$/)), fc.option(fc.integer({ min: -30, max: 30 })))
    .map(([minus, whole, fraction, exponent]) => `${minus ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}${exponent === null ? '' : `e${exponent}`}`);
  const { tree } = fc.letrec((tie) => ({
    tree: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('object'), tie('array')),
    leaf: fc.oneof(literal.map((l) => ({ raw: l })), fc.string().map((s) => ({ raw: JSON.stringify(s) })), fc.constantFrom({ raw: 'true' }, { raw: 'null' })),
    object: fc.array(fc.tuple(fc.constantFrom('amount', 'other', 'amo\\u0075nt', ' '), tie('tree')), { maxLength: 4 })
      .map((members) => ({ raw: `{${members.map(([k, v]) => `"${k}" : ${(v as { raw: string }).raw}`).join(',')}}` })),
    array: fc.array(tie('tree'), { maxLength: 4 }).map((items) => ({ raw: `[ ${items.map((i) => (i as { raw: string }).raw).join(' ,')}]` })),
  }));
  fc.assert(fc.property(tree, ({ raw }: any) => {
    const body = parsed(`{"root":${raw as string}}`);
    const check = (v: unknown): void => {
      if (Array.isArray(v)) { v.forEach(check); return; }
      if (typeof v !== 'object' || v === null) return;
      const amount = (v as Record<string, unknown>).amount;
      if (typeof amount === 'number') {
        const kept = numberLiteral(v, 'amount');
        if (kept === undefined || Number(kept) !== amount) throw new Error(`amount ${amount}: kept ${kept}`);
      }
      for (const member of Object.values(v)) check(member);
    };
    check(body);
  }), { numRuns: 500 });
  t.pass('every amount kept');
});
