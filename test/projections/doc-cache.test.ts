// The cache of shared tables' documents (projections/doc-cache.ts) against a log in memory: what it
// keeps, and what it must not keep (a document an event touched, one read while an event touched
// it, one read from tables behind what the cache accounted for).
import t from 'tap';
import { DocCache, MOST_EVENTS_READ } from '../../projections/doc-cache.js';
import type { Projection } from '../../projections/projection.js';
import type { ProjectedEvent } from '../../store/event-store.js';

const projection: Projection<unknown> = {
  name: 'docs', version: 1, handles: new Set(['Touched']),
  keysOf: (event) => [(event.data as { key: string }).key],
  evolve: (_doc, event) => event.data,
};

function logAndCache(max?: number) {
  const log: ProjectedEvent[] = [];
  const append = (key: string, type = 'Touched') => {
    log.push({ type, data: { key }, stream: `s-${key}`, revision: 0n, position: BigInt(log.length + 1), created: new Date(0).toISOString() } as ProjectedEvent);
    return BigInt(log.length);
  };
  const cache = new DocCache([projection], (from, max) => Promise.resolve(log.filter((e) => e.position > from).slice(0, max)), max, 2);
  /** A read of the tables, which hold the log up to `head`, answering `doc`. */
  const read = (key: string, head: bigint, doc: string) => {
    const reading = cache.begin('docs', key, head);
    return () => cache.end(reading, doc);
  };
  return { append, cache, read };
}

t.test('a document read is held until an event touches it; others stay', async (t) => {
  const { append, cache, read } = logAndCache();
  let head = append('a');
  await cache.reach(head);
  read('a', head, 'A1')();
  read('b', head, 'B1')();
  t.equal(cache.get('docs', 'a', head), 'A1');
  head = append('a');
  append('x', 'Unrelated');
  head = append('c');
  t.equal(cache.get('docs', 'a', head), undefined, 'not answered before the cache reached the head');
  await cache.reach(head);
  t.equal(cache.get('docs', 'a', head), undefined, 'touched by an event (read over pages of 2)');
  t.equal(cache.get('docs', 'b', head), 'B1', 'untouched');
});

t.test('a read during which an event touched its document keeps nothing', async (t) => {
  const { append, cache, read } = logAndCache();
  let head = append('a');
  await cache.reach(head);
  const done = read('a', head, 'A1');
  head = append('a');
  await cache.reach(head);
  done();
  t.equal(cache.get('docs', 'a', head), undefined);
  read('a', head, 'A2')();
  t.equal(cache.get('docs', 'a', head), 'A2', 'the next read keeps its document');
});

t.test('a read from tables behind what the cache accounted for keeps nothing', async (t) => {
  const { append, cache, read } = logAndCache();
  const before = append('a');
  const head = append('b');
  await cache.reach(head);
  read('a', before, 'A-old')();
  t.equal(cache.get('docs', 'a', head), undefined);
});

t.test('clear, far behind, and the bound', async (t) => {
  const { append, cache, read } = logAndCache(2);
  let head = append('a');
  await cache.reach(head);
  const during = read('c', head, 'C1');
  cache.clear();
  await cache.reach(head);
  during();
  t.equal(cache.get('docs', 'c', head), undefined, 'a read begun before a clear keeps nothing');
  read('a', head, 'A1')();
  read('b', head, 'B1')();
  t.equal(cache.get('docs', 'a', head), 'A1', 'a used again');
  read('c', head, 'C1')();
  t.equal(cache.size, 2);
  t.equal(cache.get('docs', 'b', head), undefined, 'the least recently used went');
  read('a', head, 'A1')();
  for (let i = 0; i < MOST_EVENTS_READ + 1; i++) head = append(`k${i}`);
  await cache.reach(head);
  t.equal(cache.size, 0, 'too far behind: started again empty');
});
