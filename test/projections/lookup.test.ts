// The lookup read model: the order streams that hold a transaction id, the latest LOOKUP_STREAMS of them.
import t from 'tap';
import { LOOKUP_STREAMS, lookupProjection, transactionLookupKey, type LookupDoc } from '../../projections/lookup.js';

const payment = (stream: string, transactionId: string, position: number) =>
  ({ type: 'PaymentRecorded', stream, revision: 0n, position: BigInt(position), created: '', data: { transactionId } });

t.test('a transaction id names its streams, each once, the latest kept', async (t) => {
  let doc: LookupDoc | undefined;
  const apply = (stream: string, position: number) => {
    const e = payment(stream, '1', position);
    t.same(lookupProjection.keysOf(e), [transactionLookupKey('1')]);
    doc = lookupProjection.evolve(doc, e, transactionLookupKey('1'));
  };
  apply('order-M:1', 1);
  apply('order-M:2', 2);
  apply('order-M:1', 3);
  t.same(doc?.streams, ['order-M:2', 'order-M:1'], 'once each, the most recent last');
  for (let i = 0; i < LOOKUP_STREAMS + 5; i++) apply(`order-M:${100 + i}`, 10 + i);
  t.equal(doc?.streams.length, LOOKUP_STREAMS, 'at most LOOKUP_STREAMS');
  t.equal(doc?.streams.at(-1), `order-M:${100 + LOOKUP_STREAMS + 4}`);
  t.same(lookupProjection.keysOf({ ...payment('x', '1', 1), data: {} }), [], 'an event without a transaction id: no document');
});

t.test('the streams are the reference rule: the stream moved or added last, the oldest beyond LOOKUP_STREAMS dropped', async (t) => {
  const { default: fc } = await import('fast-check');
  // A few stream names, so that repeats (a stream already in the list, at any place) are common.
  const streams = fc.array(fc.integer({ min: 0, max: LOOKUP_STREAMS + 6 }).map((i) => `order-M:${i}`), { maxLength: 80 });
  fc.assert(fc.property(streams, (names) => {
    let doc: LookupDoc | undefined;
    let reference: string[] = [];
    for (const [i, stream] of names.entries()) {
      doc = lookupProjection.evolve(doc, payment(stream, '1', i + 1), transactionLookupKey('1'));
      reference = [...reference.filter((s) => s !== stream), stream].slice(-LOOKUP_STREAMS);
      if (JSON.stringify(doc?.streams) !== JSON.stringify(reference)) return false;
    }
    return true;
  }), { numRuns: 500 });
  t.pass();
});
