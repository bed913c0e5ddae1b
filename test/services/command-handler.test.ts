// The command handler's promises (services/command-handler.ts), on the memory store, with a tiny
// counter aggregate: fold + decide + append with the expected revision; a conflict is retried on
// the new state; attempts exhausted is Busy (or what `exhausted` gives); no append without events;
// the read models caught up once, to the append, before the answer; a guess of a new stream is
// checked by the append, and a refusal on a guessed named stream by a read; a decision's condition on another stream goes with its append, a failed
// one is a conflict the next attempt is told of, and `held` follows only a written append; the
// stream read unconfirmed (promise 8) where the store offers it, checked by the expected revision,
// and a decision without events or a refusal made on it made again on the careful read.
import t from 'tap';
import { type Aggregate, type Typed } from '../../services/aggregates.js';
import { CONFLICT, handleCommand } from '../../services/command-handler.js';
import type { RequestMeta } from '../../services/context.js';
import { Busy } from '../../domain/errors.js';
import { MemoryEventStore } from '../../store/memory.js';
import type { EventStore } from '../../store/event-store.js';
import { unconfirmedReads } from '../helpers/unconfirmed-reads.js';

interface Added { type: 'Added'; data: { by: number } }
const counter: Aggregate<number, Added> = {
  initialState: () => 0,
  evolve: (total, e) => total + e.data.by,
  handles: (e: Typed): e is Added => e.type === 'Added',
};
const meta: RequestMeta = { requestId: 'req-1', correlationId: 'corr-1', merchantId: 'M1' };
const added = (by: number): Added => ({ type: 'Added', data: { by } });
const STREAM = 'counter-M1:1';

/** Read models that count their catch-ups. */
const readModels = () => {
  const positions: Array<bigint | undefined> = [];
  return { positions, catchUp: async (position?: bigint) => { positions.push(position); } };
};

/** A store where another writer appends `by` to the stream just before each of our next `times` appends. */
function contended(store: MemoryEventStore, times: number, by = 100): EventStore {
  let left = times;
  return Object.assign(Object.create(store) as EventStore, {
    append: async (...args: Parameters<EventStore['append']>) => {
      if (left > 0) {
        left -= 1;
        await store.append(args[0], [{ id: crypto.randomUUID(), type: 'Added', data: { by }, metadata: { correlationId: 'other', recordedAt: '' } }]);
      }
      return store.append(...args);
    },
  });
}

t.test('folds the stream, decides on its state, appends with its revision, catches up, answers with the state after', async (t) => {
  const store = new MemoryEventStore();
  await store.append(STREAM, [{ id: crypto.randomUUID(), type: 'Added', data: { by: 2 }, metadata: { correlationId: 'c', recordedAt: '' } }]);
  const models = readModels();
  const seen: number[] = [];
  const answer = await handleCommand({ store, readModels: models }, STREAM, counter, (total) => {
    seen.push(total);
    return { events: [added(3)], answer: (after, position) => ({ after, position }) };
  }, { meta });
  t.same(seen, [2], 'decided once, on the folded state');
  t.same(answer, { after: 5, position: 2n });
  const events = await store.readStream(STREAM);
  t.same(events.map((e) => e.data), [{ by: 2 }, { by: 3 }]);
  t.equal(events[1]!.revision, 1n);
  t.match(events[1]!.metadata, { correlationId: 'corr-1', causationId: 'req-1', merchantId: 'M1', requestId: 'req-1' }, 'the request metadata');
  t.same(models.positions, [2n], 'read models caught up once, to the append');
});

t.test('a conflict is decided again on the new state, and the append carries the new revision', async (t) => {
  const store = new MemoryEventStore();
  const seen: number[] = [];
  const answer = await handleCommand({ store: contended(store, 2) }, STREAM, counter, (total) => {
    seen.push(total);
    return { events: [added(1)], answer: (after) => after };
  }, { meta });
  t.same(seen, [0, 100, 200], 'each decision on the state after the other writer');
  t.equal(answer, 201);
  t.same((await store.readStream(STREAM)).map((e) => (e.data as Added['data']).by), [100, 100, 1], 'our event once, after the other two');
});

t.test('attempts exhausted: Busy, or what exhausted gives; nothing of ours appended', async (t) => {
  const store = new MemoryEventStore();
  const decide = () => ({ events: [added(1)], answer: () => 'done' });
  await t.rejects(handleCommand({ store: contended(store, 3) }, STREAM, counter, decide, { meta, attempts: 3 }), Busy);
  t.same((await store.readStream(STREAM)).map((e) => (e.data as Added['data']).by), [100, 100, 100]);
  t.equal(await handleCommand({ store: contended(store, 1) }, STREAM, counter, decide, { meta, attempts: 1, exhausted: () => 'gave up' }), 'gave up');
  t.equal(await handleCommand({ store }, STREAM, counter, () => CONFLICT, { meta, attempts: 2, exhausted: () => 'conflicts' }), 'conflicts', 'decide may report a conflict of its own');
});

t.test('no events: nothing appended, no catch-up, the answer at once', async (t) => {
  const store = new MemoryEventStore();
  const models = readModels();
  const answer = await handleCommand({ store, readModels: models }, STREAM, counter, () => ({ events: [], answer: (after, position) => ({ after, position }) }), { meta });
  t.same(answer, { after: 0, position: undefined });
  t.same(await store.readStream(STREAM), []);
  t.same(models.positions, []);
});

t.test('a guessed new stream is not read; an existing one refuses the append and is read then', async (t) => {
  const store = new MemoryEventStore();
  await store.append(STREAM, [{ id: crypto.randomUUID(), type: 'Added', data: { by: 7 }, metadata: { correlationId: 'c', recordedAt: '' } }]);
  const seen: number[] = [];
  const answer = await handleCommand({ store }, STREAM, counter, (total, { history }) => {
    seen.push(total);
    return { events: [added(1)], answer: (after) => ({ after, read: history.length }) };
  }, { meta, guessNew: () => true });
  t.same(seen, [0, 7], 'the guess, then the stream as read');
  t.same(answer, { after: 8, read: 1 });
});

t.test('a refusal decided on a guessed new stream is made again on the stream as read; on a drawn stream it is the answer', async (t) => {
  const store = new MemoryEventStore();
  await store.append(STREAM, [{ id: crypto.randomUUID(), type: 'Added', data: { by: 7 }, metadata: { correlationId: 'c', recordedAt: '' } }]);
  const seen: number[] = [];
  const answer = await handleCommand({ store }, STREAM, counter, (total) => {
    seen.push(total);
    if (total === 0) throw new Error('nothing to add to');
    return { events: [added(1)], answer: (after) => after };
  }, { meta, guessNew: () => true });
  t.same(seen, [0, 7], 'the guess refused, then decided on the stream as read');
  t.equal(answer, 8);

  let drawn = 0;
  const refused = handleCommand({ store }, () => `counter-M1:new-${++drawn}`, counter, () => {
    throw new Error('refused');
  }, { meta, guessNew: () => true });
  await t.rejects(refused, /refused/, 'a drawn stream is new: its refusal stands');
  t.equal(drawn, 1, 'decided once');
});

t.test('a decide that always refuses a guessed named stream: decided at most three times (guess, memory, careful read), one careful read, its refusal the answer, whatever the attempts', async (t) => {
  for (const attempts of [1, 10]) {
    const store = new MemoryEventStore();
    const reads = unconfirmedReads(store);
    await store.append(STREAM, [{ id: crypto.randomUUID(), type: 'Added', data: { by: 7 }, metadata: { correlationId: 'c', recordedAt: '' } }]);
    await reads.freeze(STREAM);
    const seen: number[] = [];
    const refused = handleCommand({ store }, STREAM, counter, (total) => {
      seen.push(total);
      throw new Error(`refused at ${total}`);
    }, { meta, guessNew: () => true, attempts });
    await t.rejects(refused, /refused at 7/, 'the refusal made on the careful read');
    t.same(seen, [0, 7, 7], `attempts ${attempts}: the guess, memory's stream, the careful read`);
    t.equal(reads.carefulReads(STREAM), 1, 'one careful read');
    t.same(await store.readStream(STREAM).then((events) => events.length), 1, 'nothing appended');
  }
});

t.test('again: the events appended, no catch-up, then decided again on a fresh read', async (t) => {
  const store = new MemoryEventStore();
  const models = readModels();
  const answer = await handleCommand({ store, readModels: models }, STREAM, counter, (total) =>
    (total === 0 ? { events: [added(1)], again: 1 } : { events: [added(10)], answer: (after) => after }), { meta });
  t.equal(answer, 11);
  t.same(models.positions, [2n], 'caught up once, after the last append');
});

t.test('reactor metadata: a function of the event and the attempt', async (t) => {
  const store = new MemoryEventStore();
  await handleCommand({ store }, STREAM, counter, () => ({ events: [added(1)], answer: () => undefined }), {
    meta: (e, { now, stream }) => ({ correlationId: stream, causationId: String(e.data.by), recordedAt: now, reactor: 'test' }),
  });
  t.match((await store.readStream(STREAM))[0]!.metadata, { correlationId: STREAM, causationId: '1', reactor: 'test' });
});

t.test('a drawn stream guessed new whose decision appends nothing counts as an attempt: bounded, then Busy', async (t) => {
  const store = new MemoryEventStore();
  let drawn = 0;
  const decided = handleCommand({ store }, () => `counter-M1:${++drawn}`, counter, () => ({ events: [], answer: () => 'never' }), {
    meta, guessNew: () => true, attempts: 5, busy: 'no free id',
  });
  await t.rejects(decided, Busy, 'ends with Busy instead of drawing ids forever');
  t.equal(drawn, 5, 'one drawn name per attempt');
});

const OTHER = 'other-M1:1';
const recorded = (by: number) => [{ id: crypto.randomUUID(), type: 'Added', data: { by }, metadata: { correlationId: 'c', recordedAt: '' } }];

t.test('a failed condition: a conflict (nothing written), the next attempt told which stream; held only after a written conditioned append', async (t) => {
  const store = new MemoryEventStore();
  await store.append(OTHER, recorded(1));
  await store.append(OTHER, recorded(1));
  const attempts: Array<{ total: number; conditionFailed: string | undefined }> = [];
  let held = 0;
  const answer = await handleCommand({ store }, STREAM, counter, (total, attempt) => {
    attempts.push({ total, conditionFailed: attempt.conditionFailed });
    // The first decision read the other stream at revision 0 (stale: it is at 1); the second at 1.
    const revision = attempts.length === 1 ? 0n : 1n;
    return { events: [added(1)], condition: { stream: OTHER, revision, held: () => { held += 1; } }, answer: (after) => after };
  }, { meta, attempts: 2 });
  t.same(attempts, [{ total: 0, conditionFailed: undefined }, { total: 0, conditionFailed: OTHER }], 'decided again, told the condition on the other stream failed');
  t.equal(answer, 1);
  t.equal(held, 1, 'held once: after the append that was written, not after the refused one');
  t.same((await store.readStream(STREAM)).map((e) => (e.data as Added['data']).by), [1], 'the refused append wrote nothing');

  // A failed condition counts toward the attempts: one allowed, it fails, Busy.
  let calledHeld = false;
  await t.rejects(handleCommand({ store }, STREAM, counter, () => ({ events: [added(1)], condition: { stream: OTHER, revision: 0n, held: () => { calledHeld = true; } }, answer: () => 'no' }), { meta, attempts: 1 }), Busy);
  t.equal(calledHeld, false, 'held not called for a refused append');
  t.same((await store.readStream(STREAM)).length, 1, 'nothing more written');
});

t.test('a conflict on the stream itself tells the next attempt of no failed condition', async (t) => {
  const store = new MemoryEventStore();
  const told: Array<string | undefined> = [];
  let held = 0;
  await handleCommand({ store: contended(store, 1) }, STREAM, counter, (_, attempt) => {
    told.push(attempt.conditionFailed);
    return { events: [added(1)], condition: { stream: OTHER, revision: -1n, held: () => { held += 1; } }, answer: () => undefined };
  }, { meta });
  t.same(told, [undefined, undefined]);
  t.equal(held, 1);
});

t.test('the stream read unconfirmed: an append checks it; no events or a refusal on it are decided again on the careful read; `careful` never reads it so', async (t) => {
  const store = new MemoryEventStore();
  const reads = unconfirmedReads(store);
  const add = (by: number) => store.append(STREAM, [{ id: crypto.randomUUID(), type: 'Added', data: { by }, metadata: { correlationId: 'c', recordedAt: '' } }]);
  await add(1);
  await reads.freeze(STREAM);
  await add(10);
  // Behind the snapshot (1) the stream holds 11.
  const seen: number[] = [];
  const appended = await handleCommand({ store }, STREAM, counter, (total) => {
    seen.push(total);
    return { events: [added(1)], answer: (after) => after };
  }, { meta });
  t.same({ seen, appended }, { seen: [1, 11], appended: 12 }, 'decided on the snapshot, its append refused, then on the careful read (read so after the conflict)');
  await reads.freeze(STREAM);
  await add(100);
  seen.length = 0;
  const careful = reads.carefulReads(STREAM);
  const none = await handleCommand({ store }, STREAM, counter, (total) => {
    seen.push(total);
    return { events: [], answer: () => total };
  }, { meta });
  t.same({ seen, none, reads: reads.carefulReads(STREAM) - careful }, { seen: [12, 112], none: 112, reads: 1 }, 'nothing to append on the snapshot: decided again on one careful read');
  seen.length = 0;
  const refused = await handleCommand({ store }, STREAM, counter, (total) => {
    seen.push(total);
    if (total < 100) throw new Error('refused');
    return { events: [], answer: () => total };
  }, { meta });
  t.same({ seen, refused }, { seen: [12, 112], refused: 112 }, 'a refusal on the snapshot: decided again on the careful read');
  seen.length = 0;
  await t.rejects(handleCommand({ store }, STREAM, counter, (total) => {
    seen.push(total);
    throw new Error('refused');
  }, { meta }), /refused/, 'a refusal on the careful read stands');
  t.same(seen, [12, 112], 'made twice, once on each read');
  seen.length = 0;
  await handleCommand({ store }, STREAM, counter, (total) => {
    seen.push(total);
    return { events: [], answer: () => total };
  }, { meta, careful: true });
  t.same(seen, [112], '`careful`: decided on the careful read only');
});
