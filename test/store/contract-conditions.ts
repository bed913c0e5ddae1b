// The event store contract, promise 8: an append's condition on another stream's revision.
// Not a test file by itself: eventStoreContract (test/store/contract.ts) runs it for every adapter
// that checks conditions.
import type { Test } from 'tap';
import {
  ConditionFailedError, WrongExpectedRevisionError,
  type AppendCondition, type EventStore,
} from '../../store/event-store.js';
import { events, rejection } from './contract.js';

async function expectConditionFailed(
  t: Test, append: Promise<unknown>,
  expected: { stream: string; condition: AppendCondition; actual: bigint },
  what: string,
): Promise<void> {
  const error = await rejection(t, append, what);
  if (!(error instanceof ConditionFailedError)) {
    t.fail(`${what}: expected a ConditionFailedError, got ${String(error)}`);
    return;
  }
  t.equal(error.name, 'ConditionFailedError', `${what}: name`);
  t.equal(error.stream, expected.stream, `${what}: the stream appended to`);
  t.same(error.condition, expected.condition, `${what}: the condition`);
  t.equal(error.actual, expected.actual, `${what}: the condition stream's actual revision`);
}

const ids = async (store: EventStore, stream: string) => (await store.readStream(stream)).map((e) => e.id);

export function conditionContract(t: Test, open: (t: Test) => Promise<{ store: EventStore }>): void {
  t.test('promise 8: an append whose condition holds writes', async (t) => {
    const { store } = await open(t);
    await store.append('cond-token', events(2));
    const order = events(2);
    const result = await store.append('cond-order', order, { expectedRevision: 'no_stream', condition: { stream: 'cond-token', revision: 1n } });
    t.equal(result.nextExpectedRevision, 1n);
    t.same(await ids(store, 'cond-order'), order.map((e) => e.id), 'the events are written');
    const other = events(1);
    await store.append('cond-other', other, { condition: { stream: 'cond-none', revision: -1n } });
    t.same(await ids(store, 'cond-other'), other.map((e) => e.id), '-1n holds for a stream without events');
    t.equal((await store.readStream('cond-token')).length, 2, 'the condition stream is unchanged');
  });

  t.test('promise 8: a stale condition fails with ConditionFailedError and writes nothing', async (t) => {
    const { store } = await open(t);
    const token = events(2);
    await store.append('stale-token', token);
    const cases: Array<[string, AppendCondition, bigint]> = [
      ['the condition stream advanced', { stream: 'stale-token', revision: 0n }, 1n],
      ['-1n against an existing stream', { stream: 'stale-token', revision: -1n }, 1n],
      ['a revision against no stream', { stream: 'stale-none', revision: 0n }, -1n],
    ];
    for (const [what, condition, actual] of cases) {
      await expectConditionFailed(t, store.append('stale-order', events(1), { expectedRevision: 'no_stream', condition }),
        { stream: 'stale-order', condition, actual }, what);
    }
    t.same(await store.readStream('stale-order'), [], 'nothing written to the stream appended to');
    t.same(await ids(store, 'stale-token'), token.map((e) => e.id), 'nothing written to the condition stream');
    t.same(await store.readStream('stale-none'), []);
    t.equal((await store.readAll()).length, 2, 'the log holds only the condition stream');
  });

  t.test('promise 8: a repeat of written ids answers the original result even if its condition is now stale', async (t) => {
    const { store } = await open(t);
    await store.append('rep-token', events(1));
    const order = events(2);
    const options = { expectedRevision: 'no_stream' as const, condition: { stream: 'rep-token', revision: 0n } };
    const first = await store.append('rep-order', order, options);
    await store.append('rep-token', events(1));
    const repeat = await store.append('rep-order', order, options);
    t.same(repeat, first, 'the original result');
    t.equal((await store.readStream('rep-order')).length, 2, 'written once');
  });

  t.test('promise 8: a wrong expected revision wins over a failed condition', async (t) => {
    const { store } = await open(t);
    await store.append('win-token', events(2));
    await store.append('win-order', events(1));
    const error = await rejection(t, store.append('win-order', events(1), {
      expectedRevision: 'no_stream', condition: { stream: 'win-token', revision: 0n },
    }), 'both fail');
    t.ok(error instanceof WrongExpectedRevisionError, `a WrongExpectedRevisionError: ${String(error)}`);
    t.equal((await store.readStream('win-order')).length, 1);
  });

  t.test('promise 8: in one tick, an earlier append to the condition stream counts, a later one does not', async (t) => {
    const { store } = await open(t);
    await store.append('tick-token', events(1));
    const [, late] = await Promise.allSettled([
      store.append('tick-token', events(1), { expectedRevision: 0n }),
      store.append('tick-order', events(1), { condition: { stream: 'tick-token', revision: 0n } }),
    ]);
    t.ok(late?.status === 'rejected' && late.reason instanceof ConditionFailedError && late.reason.actual === 1n,
      `the append after the condition stream's fails: ${late?.status === 'rejected' ? String(late.reason) : 'it wrote'}`);
    t.same(await store.readStream('tick-order'), [], 'nothing written');

    const both = await Promise.allSettled([
      store.append('tick-order2', events(1), { condition: { stream: 'tick-token', revision: 1n } }),
      store.append('tick-token', events(1), { expectedRevision: 1n }),
    ]);
    t.same(both.map((s) => s.status), ['fulfilled', 'fulfilled'], 'the append before the condition stream’s and that one both write');
    t.equal((await store.readStream('tick-order2')).length, 1);
    t.equal((await store.readStream('tick-token')).length, 3);
  });

  t.test('promise 8: a failed condition does not undo the appends requested alongside it', async (t) => {
    const { store } = await open(t);
    await store.append('undo-token', events(1));
    const ok1 = events(1);
    const ok2 = events(2);
    const settled = await Promise.allSettled([
      store.append('undo-a', ok1, { condition: { stream: 'undo-token', revision: 0n } }),
      store.append('undo-b', events(1), { condition: { stream: 'undo-token', revision: 3n } }),
      store.append('undo-c', ok2, { expectedRevision: 'no_stream' }),
    ]);
    t.same(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled']);
    t.ok(settled[1]?.status === 'rejected' && settled[1].reason instanceof ConditionFailedError);
    t.same(await ids(store, 'undo-a'), ok1.map((e) => e.id));
    t.same(await ids(store, 'undo-c'), ok2.map((e) => e.id));
    t.same(await store.readStream('undo-b'), []);
    const log = await store.readAll();
    t.same(log.map((e) => e.stream), ['undo-token', 'undo-a', 'undo-c', 'undo-c'], 'the others written in the order asked');
    t.same(log.map((e) => e.position - (log[0]?.position ?? 0n)), [0n, 1n, 2n, 3n], 'at positions without a gap');
  });
}
