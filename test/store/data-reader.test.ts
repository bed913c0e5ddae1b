// The replay's cut of the events' data (store/sqlite/log-reader.ts dataReader): what SQLite's JSON
// functions pick on the worker's thread, parsed back, is what a projection would read of the
// whole data, for the members declared (projections/projection.ts `reads`), by a reference in
// JavaScript over random JSON; the read models' union of declarations (dataShape).
import Database from 'better-sqlite3';
import fc from 'fast-check';
import t from 'tap';
import { dataShape } from '../../projections/page.js';
import type { Projection } from '../../projections/projection.js';
import { dataReader } from '../../store/sqlite/log-reader.js';
import type { DataShape } from '../../store/projection-feed.js';

const db = new Database(':memory:');
t.teardown(() => db.close());
db.exec('CREATE TABLE events (type TEXT NOT NULL, data TEXT NOT NULL)');

/** The data of each row as the replay hands it for `shape`: SQLite's column, then the reader's parse. */
function read(shape: DataShape | undefined, rows: Array<{ type: string; data: unknown }>): unknown[] {
  db.exec('DELETE FROM events');
  const insert = db.prepare('INSERT INTO events (type, data) VALUES (?, ?)');
  for (const row of rows) insert.run(row.type, JSON.stringify(row.data));
  const reader = dataReader(shape);
  return db.prepare<[], [string, string]>(`SELECT type, ${reader.column} FROM events ORDER BY rowid`).raw(true).all()
    .map(([type, text]) => reader.parse(type, text));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The reference: of `data`, every member named by a path (a path under a member named whole
 * dropped), through members that are objects; a member not there or JSON null absent; an object a
 * path goes into kept (maybe empty).
 */
function pick(data: unknown, paths: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const split = paths.map((p) => p.split('.'));
  const kept = split.filter((path) => !split.some((other) => other.length < path.length && other.every((name, i) => path[i] === name)));
  for (const path of kept) {
    let source: unknown = data;
    let target: Record<string, unknown> = out;
    let through = true;
    for (const name of path.slice(0, -1)) {
      if (!isObject(source)) { through = false; break; }
      source = source[name];
      if (!isObject(source)) { through = false; break; }
      target = (target[name] ??= {}) as Record<string, unknown>;
    }
    if (!through || !isObject(source)) continue;
    const value = source[path.at(-1)!];
    if (value !== undefined && value !== null) target[path.at(-1)!] = structuredClone(value);
  }
  return out;
}

const NAMES = ['a', 'b', 'c', 'outcome', 'result', 'source', 'token'];
const name = fc.constantFrom(...NAMES);
// Objects over a few names (so paths find them), any JSON below: strings with escapes and
// astral characters, numbers of every size, nulls, arrays.
const data = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), tie('object')),
  object: fc.dictionary(name, tie('value'), { maxKeys: 5 }),
})).object;
const path = fc.array(name, { minLength: 1, maxLength: 3 }).map((names) => names.join('.'));

t.test('a cut type reads, of its data, exactly the members named (random JSON, random paths)', async (t) => {
  fc.assert(fc.property(fc.array(data, { minLength: 1, maxLength: 8 }), fc.array(path, { minLength: 1, maxLength: 5 }), (datas, paths) => {
    const got = read(new Map([['PaymentRecorded', paths]]), datas.map((d) => ({ type: 'PaymentRecorded', data: d })));
    t.strictSame(got, datas.map((d) => pick(d, paths)));
    return true;
  }), { numRuns: 300 });
});

t.test('a type read whole is its data; a type no one reads is {}; a type cut to no member is {}', async (t) => {
  const rows = [
    { type: 'TokenCreated', data: { token: '9000000000000001', nested: { x: [1, null, { y: 'é' }] }, empty: null } },
    { type: 'AccountIdentifierReserved', data: { accountIdentifier: 'sealed...' } },
    { type: 'SessionExpired', data: { sessionId: 's', expiredAt: '2026-03-01T10:00:00.000Z' } },
    { type: 'PaymentRecorded', data: { transactionId: '1', outcome: { result: 'SUCCESS', acquirer: { id: 'X' } }, card: { number: '512345xxxxxx0008' } } },
  ];
  const shape: DataShape = new Map<string, readonly string[] | 'all'>([['TokenCreated', 'all'], ['SessionExpired', []], ['PaymentRecorded', ['transactionId', 'outcome.result']]]);
  t.strictSame(read(shape, rows), [
    rows[0]!.data,
    {},
    {},
    { transactionId: '1', outcome: { result: 'SUCCESS' } },
  ]);
  t.strictSame(read(undefined, rows), rows.map((r) => r.data), 'no shape: every data whole');
  t.strictSame(read(new Map(), rows), [{}, {}, {}, {}], 'an empty shape: nothing read');
  const quoted = read(new Map([["it's", ['a']]]), [{ type: "it's", data: { a: 1, b: 2 } }]);
  t.strictSame(quoted, [{ a: 1 }], 'a type with a quote in its name');
});

t.test('a path that is not a member name is refused (it would be SQL)', async (t) => {
  for (const bad of ["a'b", 'a..b', '', 'a[0]', '__proto__', 'a.__proto__', '1a', 'a b']) {
    t.throws(() => dataReader(new Map([['PaymentRecorded', [bad]]])), /not a data member path/, JSON.stringify(bad));
  }
});

const projection = (name: string, handles: string[], reads?: Projection['reads']): Projection => ({
  name, version: 1, handles: new Set(handles), ...(reads ? { reads } : {}), keysOf: () => [], evolve: (doc) => doc,
});

t.test('dataShape: the union of what the projections read, whole where one declares nothing', async (t) => {
  const shape = dataShape([
    projection('one', ['PaymentRecorded', 'TokenCreated', 'TokenDeleted'], { PaymentRecorded: ['transactionId'], TokenDeleted: ['token'] }),
    projection('two', ['PaymentRecorded', 'TokenDeleted', 'SessionExpired'], { PaymentRecorded: ['outcome.result', 'transactionId'], TokenDeleted: [], SessionExpired: [] }),
    projection('three', ['TokenDeleted']),
  ]);
  t.strictSame(Object.fromEntries(shape), {
    PaymentRecorded: ['transactionId', 'outcome.result'],
    TokenCreated: 'all',
    TokenDeleted: 'all',
    SessionExpired: [],
  });
  t.notOk(shape.has('OrderTransactionRecorded'), 'a type none handles is not read');
});
