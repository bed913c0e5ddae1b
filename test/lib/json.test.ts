// lib/json.ts sortedJson, tuned (issue 7): byte for byte what the implementation before it wrote,
// kept here as the reference, on generated values of every kind JSON and JavaScript offer.
import { isDeepStrictEqual } from 'node:util';
import t from 'tap';
import fc from 'fast-check';
import { sortedJson } from '../../lib/json.js';

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
  const record = fc.dictionary(awkwardString, fc.oneof(fc.string(), fc.integer(), fc.constant(undefined)), { maxKeys: 12 });
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
  // eslint-disable-next-line no-sparse-arrays
  const sparse = [1, , 3];
  t.equal(sortedJson(sparse), '[1,null,3]');
  t.equal(sortedJson(sparse), JSON.stringify(sparse));
});
