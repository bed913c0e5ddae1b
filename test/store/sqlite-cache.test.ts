// The SQLite store's memory of streams is least recently USED, not least recently written: a
// stream read over and over (a token every pay reads) stays in memory while streams written once
// (each payment's new order) pass through it.
import { join } from 'node:path';
import t from 'tap';
import { SqliteEventStore } from '../../store/sqlite.js';
import { events } from './contract.js';

t.test('a stream read between new streams stays in memory; one left unread goes', async (t) => {
  const store = new SqliteEventStore(join(t.testdir(), 'cache.db'), { cachedStreams: 3 });
  t.teardown(() => store.close());
  await store.append('token-R:read', events(1));
  await store.append('token-R:unread', events(1));
  for (let i = 0; i < 10; i++) {
    t.ok(store.cachedStream('token-R:read'), `before new stream ${i}: the stream read each time is in memory`);
    await store.append(`order-M:${i}`, events(1), { expectedRevision: 'no_stream' });
  }
  t.same(store.cachedStream('token-R:read')?.map((e) => e.revision), [0n], 'still there, whole');
  t.equal(store.cachedRevision('token-R:unread'), undefined, 'the stream never read again went out');
  t.equal(store.cachedRevision('order-M:0'), undefined, 'and so did the first new ones');
  t.equal(store.cachedRevision('order-M:9'), 0n, 'the newest is in memory');
  t.equal((await store.readStream('token-R:unread')).length, 1, 'what went out is read from the file');
});

t.test('streams all in use: still at most cachedStreams of them, the newest among them', async (t) => {
  const store = new SqliteEventStore(join(t.testdir(), 'bounded.db'), { cachedStreams: 3 });
  t.teardown(() => store.close());
  const names = Array.from({ length: 12 }, (_, i) => `order-M:${i}`);
  for (const name of names) {
    await store.append(name, events(1), { expectedRevision: 'no_stream' });
    for (const earlier of names) store.cachedStream(earlier);
    const cached = names.filter((n) => store.cachedRevision(n) !== undefined);
    t.ok(cached.length <= 3, `after ${name}: ${cached.length} streams in memory`);
  }
  t.equal(store.cachedRevision('order-M:11'), 0n, 'the newest stream is in memory');
  for (const name of names) t.equal((await store.readStream(name)).length, 1, `${name} read alike, from memory or the file`);
});
