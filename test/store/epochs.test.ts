// The epochs view (store/epochs.ts) and promise 8: what it offers of an adapter's unconfirmed read,
// and that an append through it keeps its condition.
import { join } from 'node:path';
import t from 'tap';
import { Epochs, withEpochs } from '../../store/epochs.js';
import { ConditionFailedError, type EventStore } from '../../store/event-store.js';
import { MemoryEventStore } from '../../store/memory.js';
import { SqliteEventStore } from '../../store/sqlite.js';
import { events, rejection } from './contract.js';

t.test("readStreamUnconfirmed: the store's own, except for a stream of a new epoch", async (t) => {
  const store = new SqliteEventStore(join(t.testdir(), 'events.db'));
  t.teardown(() => store.close());
  const epochs = new Epochs();
  const view = withEpochs(store, epochs);
  const reset = await view.append('token-R1:t1', events(2));
  await view.append('token-R2:t2', events(1));
  await view.readStream('token-R1:t1');
  await view.readStream('token-R2:t2');
  t.equal(view.readStreamUnconfirmed?.('token-R1:t1')?.length, 2, 'before the reset: the store’s memory');
  epochs.begin('repositoryId', 'R1', reset.position);
  t.equal(view.readStreamUnconfirmed?.('token-R1:t1'), undefined, 'a stream of a new epoch: not held (read it)');
  t.ok(store.readStreamUnconfirmed('token-R1:t1') !== undefined, 'though the store holds it');
  t.same(view.readStreamUnconfirmed?.('token-R2:t2'), store.readStreamUnconfirmed('token-R2:t2'), 'another owner’s stream: the store’s');
  t.equal(view.readStreamUnconfirmed?.('token-R2:none'), undefined, 'a stream the store does not hold');
});

t.test('readStreamUnconfirmed is not offered over a store that does not offer it', async (t) => {
  const view: EventStore = withEpochs(new MemoryEventStore(), new Epochs());
  t.equal(view.readStreamUnconfirmed, undefined);
});

t.test("an append to a stream of a new epoch keeps its condition when the view rewrites 'no_stream'", async (t) => {
  const store = new MemoryEventStore();
  const epochs = new Epochs();
  const view = withEpochs(store, epochs);
  const before = await view.append('order-M1:o1', events(1));
  await view.append('token-R9:t9', events(2));
  epochs.begin('merchantId', 'M1', before.position);
  const condition = { stream: 'token-R9:t9', revision: 0n };
  const error = await rejection(t, view.append('order-M1:o1', events(1), { expectedRevision: 'no_stream', condition }), 'a stale condition');
  t.ok(error instanceof ConditionFailedError && error.actual === 1n, `a ConditionFailedError: ${String(error)}`);
  t.equal((await store.readStream('order-M1:o1')).length, 1, 'nothing written');
  const written = await view.append('order-M1:o1', events(1), { expectedRevision: 'no_stream', condition: { ...condition, revision: 1n } });
  t.equal(written.nextExpectedRevision, 1n, 'a held one writes after the events before the epoch');
});
