// The PostgreSQL schema's released migrations never change (a database at version n ran exactly
// those texts: a changed one would not be applied to it, and two databases at one version would
// differ), and the batch text tokengate_append reads: an append's condition rides on its first
// event only, and a batch without conditions is sent exactly as before conditions existed.
import { createHash } from 'node:crypto';
import t from 'tap';
import { batchJson } from '../../store/postgres/append-commit.js';
import { copiesOf, type PendingAppend } from '../../store/postgres/append-batch.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../store/postgres/schema.js';

/** sha256 of each released migration's text, in order. Add one when a version is released; never edit one. */
const RELEASED = [
  '823d532048d2e1b66ab0823028854aaa97d5b580d27b8aa05206fa15cbe9282b',
  '2a13c3b672908e61a00e3f286fd2c74014c0c2695976c10f6f6aa7972e42c80c',
  '0cd09a6271ad46f85247ad1837f6226cf9b21f098247a09b676a31872b318c4e',
  '0a5be9e2392cf0079a3d9a1cb6c04c29eb363b4ca8826e7cbea6b98542543543',
  '0a25f496a9ea4c231e8268f7231fdc40971af28d742b1e2c2920c4e53f3f9224',
];

t.test('released migrations are byte for byte as released', async (t) => {
  t.equal(SCHEMA_VERSION, 5);
  t.same(MIGRATIONS.map((m) => createHash('sha256').update(m).digest('hex')), RELEASED);
});

const pending = (stream: string, count: number, options: Partial<PendingAppend> = {}): PendingAppend => ({
  stream, expected: 'any', resolve: () => {}, reject: () => {}, ...options,
  ...copiesOf(Array.from({ length: count }, (_, i) => ({ id: `${stream}-${i}`, type: 'T', data: { i }, metadata: { correlationId: 'c', recordedAt: 'r' } }))),
});

t.test("the batch text: a condition on its append's first event only; none, none sent; the bodies apart, in event order", async (t) => {
  const plain = batchJson([pending('a', 2, { expected: 1n }), pending('b', 1, { expected: 'no_stream' })]);
  t.equal(plain.json, '[{"n":0,"s":"a","x":"1","o":0,"k":0,"i":"a-0","t":"T"},'
    + '{"n":0,"s":"a","x":"1","o":1,"k":1,"i":"a-1","t":"T"},'
    + '{"n":1,"s":"b","x":"no_stream","o":0,"k":2,"i":"b-0","t":"T"}]', 'no condition sent');
  const meta = '{"correlationId":"c","recordedAt":"r"}';
  t.same(plain.bodies.split('\u0001'), ['{"i":0}', meta, '{"i":1}', meta, '{"i":0}', meta], 'data and metadata of each event, in order');
  const rows = JSON.parse(batchJson([
    pending('order', 2, { condition: { stream: 'token "x"', revision: 4n } }),
    pending('other', 1),
    pending('new', 1, { condition: { stream: 'none', revision: -1n } }),
  ]).json) as Array<{ s: string; o: number; c?: string; cr?: string }>;
  t.same(rows.map((r) => [r.s, r.o, r.c, r.cr]), [
    ['order', 0, 'token "x"', '4'], ['order', 1, undefined, undefined], ['other', 0, undefined, undefined], ['new', 0, 'none', '-1'],
  ]);
});
