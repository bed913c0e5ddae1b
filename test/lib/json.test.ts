// lib/json.ts sortedJson, tuned (issue 7): byte for byte what the implementation before it wrote,
// kept here as the reference, on generated values of every kind JSON and JavaScript offer; and
// frozenJsonCopy, the value JSON.parse(JSON.stringify(value)) gives, on the same values.
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import fc from 'fast-check';
import { frozen, frozenJsonCopy, sortedJson } from '../../lib/json.js';

/** sortedJson before issue 7 (recursive, Object.keys().sort(), arrays of parts joined). */
function reference(value: unknown): string {
  switch (typeof value) {
    case 'string': return JSON.stringify(value);
    case 'number': return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean': return value ? 'true' : 'false';
    case 'bigint': return value.toString();
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : reference(v))).join(',')}]`;
      const record = value as Record<string, unknown>;
      if (typeof (record as { toJSON?: unknown }).toJSON === 'function') return reference((record as { toJSON(): unknown }).toJSON());
      const parts: string[] = [];
      for (const key of Object.keys(record).sort()) {
        const member = record[key];
        if (member === undefined || typeof member === 'function') continue;
        parts.push(`${JSON.stringify(key)}:${reference(member)}`);
      }
      return `{${parts.join(',')}}`;
    }
    default: return 'null';
  }
}

const runs = Number(process.env.FUZZ_RUNS ?? 2000);

/** Keys and strings that exercise escaping and ordering: quotes, backslashes, controls, surrogates, digits. */
const awkwardString = fc.oneof(
  fc.string({ unit: 'grapheme' }),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('', '"', '\\', '\n', '\u0000', '\u001f', '\u007f', '\u2028', '\ud800', '\udfff', '\ud83d\ude00', 'a"b', 'x'.repeat(300), `${'y'.repeat(300)}"`, '10', '9', '01', '__proto__', 'toJSON', 'constructor'),
);

const anything = fc.anything({
  key: awkwardString,
  values: [awkwardString, fc.double(), fc.integer(), fc.bigInt(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(() => 1)],
  maxDepth: 4,
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withNullPrototype: true,
  withObjectString: true,
  withSet: true,
  withTypedArray: true,
  withUnicodeString: true,
});

t.test('the same text as the implementation before it, for any value', async (t) => {
  fc.assert(fc.property(anything, (value) => sortedJson(value) === reference(value)), { numRuns: runs });
  t.pass(`${runs} generated values`);
});

t.test('the same text for JSON values, and JSON.parse gives the value back', async (t) => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 5, noUnicodeString: false }), (value) => {
    const text = sortedJson(value);
    if (text !== reference(value)) return false;
    // -0 is written 0, as JSON.stringify writes it; key order aside, the same value.
    return isDeepStrictEqual(JSON.parse(text), JSON.parse(JSON.stringify(value))) && sortedJson(JSON.parse(text)) === text;
  }), { numRuns: runs });
  t.pass();
});

t.test('objects with their keys in any order, already sorted or not', async (t) => {
  // Up to 40 members: a few are sorted by hand (no work arrays), more than 16 by Array.prototype.sort.
  const record = fc.dictionary(awkwardString, fc.oneof(fc.string(), fc.integer(), fc.constant(undefined)), { maxKeys: 40 });
  fc.assert(fc.property(record, fc.boolean(), (dict, presort) => {
    const keys = Object.keys(dict);
    const ordered: Record<string, unknown> = {};
    for (const key of presort ? [...keys].sort() : keys.reverse()) ordered[key] = dict[key];
    return sortedJson(ordered) === reference(ordered);
  }), { numRuns: runs });
  t.pass();
});

t.test('cases written out', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{ b: 1, a: 2 }, '{"a":2,"b":1}'],
    [{ a: 2, b: 1 }, '{"a":2,"b":1}'],
    [{ b: undefined, a: () => 1 }, '{}'],
    [{ z: { y: [1, undefined, 'x'], x: null } }, '{"z":{"x":null,"y":[1,null,"x"]}}'],
    [{ id: 9999999999999999n }, '{"id":9999999999999999}'],
    [{ '10': 1, '9': 2, a: 3 }, '{"10":1,"9":2,"a":3}'],
    [[], '[]'],
    [{}, '{}'],
    [[NaN, Infinity, -0, 1e21, 0.1], '[null,null,0,1e+21,0.1]'],
    ['quote " backslash \\ newline \n', '"quote \\" backslash \\\\ newline \\n"'],
    ['\ud800', '"\\ud800"'],
    [new Date(0), '"1970-01-01T00:00:00.000Z"'],
    [{ toJSON: () => ({ b: 1, a: 1 }) }, '{"a":1,"b":1}'],
    [undefined, 'null'],
    [Symbol('s'), 'null'],
  ];
  for (const [value, expected] of cases) {
    t.equal(sortedJson(value), expected, expected);
    t.equal(sortedJson(value), reference(value), `${expected}: as before`);
  }
});

t.test('a sparse array: its holes are null, as JSON.stringify writes them (before: nothing, not JSON)', async (t) => {
  const sparse = [1, , 3];
  t.equal(sortedJson(sparse), '[1,null,3]');
  t.equal(sortedJson(sparse), JSON.stringify(sparse));
});

/** Every object and array in it frozen. */
function deeplyFrozen(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

/** The copy equals what JSON gives back, member order included (its text is the same), and is frozen throughout. */
function copiesLikeJson(value: unknown): boolean {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    // What JSON.stringify refuses (a BigInt), the copy refuses the same way.
    try { frozenJsonCopy(value); } catch (copyError) { return copyError instanceof TypeError && error instanceof TypeError; }
    return false;
  }
  const copy = frozenJsonCopy(value);
  if (text === undefined) return copy === undefined;
  const parsed: unknown = JSON.parse(text);
  return isDeepStrictEqual(copy, parsed) && JSON.stringify(copy) === text && deeplyFrozen(copy) &&
    (typeof copy !== 'object' || copy === null || Object.getPrototypeOf(copy) === Object.getPrototypeOf(parsed));
}

t.test('frozenJsonCopy: what JSON.parse(JSON.stringify(value)) gives, frozen, for any value', async (t) => {
  fc.assert(fc.property(anything, copiesLikeJson), { numRuns: runs });
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 5, noUnicodeString: false }), copiesLikeJson), { numRuns: runs });
  t.pass(`${runs * 2} generated values`);
});

t.test('frozenJsonCopy: cases written out', async (t) => {
  const sparse = [1, , 3];
  const withProto = JSON.parse('{"__proto__":{"x":1},"a":2}') as unknown;
  const cases: unknown[] = [
    { b: undefined, a: () => 1, c: Symbol('s') }, [undefined, () => 1], sparse, [NaN, Infinity, -0, 1e21, 0.1], -0,
    new Date(0), { d: new Date(0) }, { toJSON: (key: string) => ({ key }) }, { inner: { toJSON: (key: string) => key } },
    Object.assign(() => 1, { toJSON: () => 'function with toJSON' }), [Object.assign(() => 1, { toJSON: () => 7 })],
    Object(1), Object('s'), Object(false), new Map([[1, 2]]), new Set([1]), new Uint8Array([1, 2]), Object.create(null),
    withProto, { '10': 1, '9': 2, a: 3 }, '\ud800', 'quote " \\ \n',
  ];
  for (const value of cases) t.ok(copiesLikeJson(value), JSON.stringify(value) ?? String(value));
  t.throws(() => frozenJsonCopy({ id: 1n }), TypeError, 'a BigInt: TypeError, as JSON.stringify');
  t.equal(Object.getPrototypeOf(frozenJsonCopy(withProto)), Object.prototype, '"__proto__" is a member of the copy, not its prototype');
  t.same(Object.keys(frozenJsonCopy(withProto) as object), ['__proto__', 'a']);
  t.ok(Object.is(frozenJsonCopy(-0), 0), '-0 becomes 0');
});

t.test('frozenJsonCopy: a member added to Object.prototype is not copied (JSON lists own members only)', async (t) => {
  const proto = Object.prototype as Record<string, unknown>;
  proto.polluted = 'inherited';
  try {
    const value = { a: 1, nested: { b: [{ c: 2 }] }, withOwn: { polluted: 'own' } };
    t.ok(copiesLikeJson(value), 'the copy is what JSON gives back');
    t.same(Object.keys((frozenJsonCopy(value) as { nested: object }).nested), ['b']);
    t.equal((frozenJsonCopy(value) as { withOwn: Record<string, unknown> }).withOwn.polluted, 'own', 'an own member of that name is');
  } finally {
    delete proto.polluted;
  }
  t.ok(copiesLikeJson({ a: 1, nested: { b: 2 } }), 'and once it is gone, as before');
});

t.test('frozen: the value itself, every object and array in it frozen, nothing else changed', async (t) => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 5 }), (json) => {
    const text = JSON.stringify(json);
    const value: unknown = JSON.parse(text);
    return frozen(value) === value && deeplyFrozen(value) && JSON.stringify(value) === text;
  }), { numRuns: runs });
  // Not only what JSON.parse makes: an object without a prototype, a class's instance, a Map (its
  // own members only), a nested member frozen already, array holes.
  class Box { constructor(readonly inner: { n: number[] }) {} }
  const holes = [{ a: 1 }, , { b: [2] }];
  const cases: object[] = [Object.assign(Object.create(null) as object, { a: { b: [1] } }), new Box({ n: [1] }), { m: new Map([[1, { x: 1 }]]) }, { done: Object.freeze({ inner: { x: 1 } }) }, holes];
  for (const value of cases) t.ok(frozen(value) === value && Object.isFrozen(value), String(Object.keys(value)));
  t.ok(Object.isFrozen((cases[0] as { a: { b: number[] } }).a.b) && Object.isFrozen((cases[1] as Box).inner.n), 'nested in each: frozen');
  t.notOk(Object.isFrozen((cases[3] as { done: { inner: object } }).done.inner), 'inside a member frozen already: left as it is');
  t.ok(Object.isFrozen(holes[2]), 'after a hole');
});

t.test('frozen: a member added to Object.prototype is not frozen (own members only)', async (t) => {
  const proto = Object.prototype as Record<string, unknown>;
  const inherited = { shared: true };
  proto.polluted = inherited;
  try {
    const value = { a: { b: [{ c: 2 }] } };
    frozen(value);
    t.ok(deeplyFrozen(value), 'the value frozen throughout');
    t.notOk(Object.isFrozen(inherited), "the prototype's member left alone");
  } finally {
    delete proto.polluted;
  }
});

