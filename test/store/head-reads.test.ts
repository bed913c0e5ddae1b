// The shared reads of the PostgreSQL head (store/postgres/head-reads.ts): callers of a moment share
// a statement, and a caller never gets the answer of a read sent before its call.
import t from 'tap';
import { HeadReads } from '../../store/postgres/head-reads.js';

t.test('callers of a moment share a read, each one sent after its call', async (t) => {
  const pending: Array<(head: bigint) => void> = [];
  let sent = 0;
  const heads = new HeadReads(() => { sent += 1; return new Promise<bigint>((resolve) => pending.push(resolve)); });
  const first = heads.next();
  const second = heads.next();
  const third = heads.next();
  t.equal(sent, 1, 'one read under way');
  pending.shift()?.(5n);
  t.equal(await first, 5n);
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(sent, 2, 'the callers that came during it share the next read');
  pending.shift()?.(7n);
  t.same(await Promise.all([second, third]), [7n, 7n]);
  const failing = new HeadReads(() => Promise.reject(new Error('down')));
  await t.rejects(failing.next(), /down/);
});
