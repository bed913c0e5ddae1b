// A payment's order is guessed new unless the store knows its revision without a read
// (EventStore.knownRevision): the first decision is made without reading the order and the append
// (expected: no stream) checks it. An order the store knows exists (the memory store knows every
// stream) is read at once: an identical repeat reads it, without an append refused first. The
// answers are the same either way.
import t from 'tap';
import { buildTestApp, createToken, M1, payAuth, payPath } from '../helpers/app.js';
import { streams } from '../../domain/events.js';

t.test('new orders are not read before their append; a known order is not guessed new', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app, M1, '5123450000000008', '1', '39');
  const store = app.gateway.store;
  const reads: string[] = [];
  const appends: Array<{ stream: string; expected: unknown }> = [];
  const readStream = store.readStream.bind(store);
  const append = store.append.bind(store);
  store.readStream = (stream, options) => { reads.push(stream); return readStream(stream, options); };
  store.append = (stream, events, options) => { appends.push({ stream, expected: options?.expectedRevision }); return append(stream, events, options); };
  const pay = () => app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } } });
  const order = streams.order(M1.id, '10000000001');

  const first = await pay();
  t.equal(first.statusCode, 201, first.body);
  t.notOk(reads.includes(order), 'a new order is not read');
  t.same(appends.filter((a) => a.stream === order), [{ stream: order, expected: 'no_stream' }], 'its append expects no stream');

  reads.length = 0;
  appends.length = 0;
  const repeat = await pay();
  t.equal(repeat.statusCode, 201);
  t.equal(repeat.body, first.body, 'an identical repeat answers the same');
  t.ok(reads.includes(order), 'the known order is read');
  t.same(appends.filter((a) => a.stream === order), [], 'and nothing is appended to it, not even a refused guess');
});
