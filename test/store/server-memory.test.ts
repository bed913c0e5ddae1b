// The PostgreSQL store's memory on its own (store/postgres/memory.ts, no server): what it answers
// and when it stops, as positions are accounted for by commits and notifications.
import t from 'tap';
import { ServerMemory } from '../../store/postgres/memory.js';
import type { RecordedEvent } from '../../store/event-store.js';

const event = (stream: string, revision: bigint, position: bigint): RecordedEvent => Object.freeze({
  id: `${stream}-${revision}`, type: 'ThingHappened', data: {}, metadata: { correlationId: 'c', recordedAt: '2026-01-01T00:00:00.000Z' },
  stream, revision, position, created: '2026-01-01T00:00:00.000Z',
});

function listening(head = 0n): ServerMemory {
  const memory = new ServerMemory(100, 100);
  memory.listeningFrom(head);
  return memory;
}

t.test('own commits are answered, stream and tail, while every position is accounted for', async (t) => {
  const memory = listening();
  memory.committed([[event('a', 0n, 1n)], [event('b', 0n, 2n), event('b', 1n, 3n)]]);
  t.same(memory.stream('b')?.map((e) => e.position), [2n, 3n]);
  t.same(memory.fromTail(1n, -1)?.map((e) => e.position), [2n, 3n], 'the tail after a position');
  t.same(memory.fromTail(3n, -1), [], 'nothing after the head');
  memory.committed([[event('a', 1n, 4n)]]);
  t.same(memory.stream('a')?.map((e) => e.revision), [0n, 1n], 'a later commit joins its stream');
});

t.test('nothing is answered before LISTEN, nor once it is lost', async (t) => {
  const memory = new ServerMemory(100, 100);
  memory.committed([[event('a', 0n, 1n)]]);
  t.equal(memory.stream('a'), undefined, 'not listening yet');
  memory.listeningFrom(1n);
  t.equal(memory.stream('a'), undefined, 'what was held before LISTEN is dropped');
  memory.committed([[event('a', 1n, 2n)]]);
  memory.read(memory.beginRead('a'), [event('a', 0n, 1n), event('a', 1n, 2n)]);
  t.same(memory.stream('a')?.map((e) => e.revision), [0n, 1n]);
  memory.deaf();
  t.equal(memory.stream('a'), undefined, 'LISTEN lost: nothing');
});

t.test("another instance's commit drops exactly its streams; a gap stops every answer until it is filled", async (t) => {
  const memory = listening();
  memory.committed([[event('a', 0n, 1n)], [event('b', 0n, 2n)]]);
  // This instance's next commit shows positions 3-4 were someone else's, not yet heard of.
  memory.committed([[event('c', 0n, 5n)]]);
  t.equal(memory.stream('a'), undefined, 'a gap: memory does not answer');
  t.equal(memory.fromTail(4n, -1), undefined);
  memory.notified({ first: 3n, last: 4n, streams: ['b'] });
  t.same(memory.stream('a')?.map((e) => e.position), [1n], 'filled: a stream the other did not write is answered');
  t.equal(memory.stream('b'), undefined, 'the one it wrote is dropped');
  t.same(memory.stream('c')?.map((e) => e.position), [5n]);
  // The other's events at 3-4 are not in the tail: this instance's commit at 5 waits for a read of them.
  t.equal(memory.fromTail(2n, -1), undefined, 'the tail lacks the other\'s events: no answer from memory alone');
  const reads: Array<[bigint, bigint | undefined]> = [];
  const server = async (after: bigint, until: bigint | undefined) => {
    reads.push([after, until]);
    return [event('b', 1n, 3n), event('d', 0n, 4n)].filter((e) => e.position > after && (until === undefined || e.position <= until));
  };
  t.same((await memory.fillGaps(2n, -1, server))?.map((e) => e.position), [3n, 4n, 5n], 'the gap read once, the own commit after it joins');
  t.same(reads, [[2n, 4n]], 'only the positions the tail lacked were read');
  t.same(memory.fromTail(2n, -1)?.map((e) => e.position), [3n, 4n, 5n], 'the tail, filled, answers again from memory');
  memory.notified({ first: 6n, last: 6n, streams: ['d'] });
  t.equal(memory.fromTail(5n, -1), undefined, 'a commit after the tail: the tail no longer reaches the head');
  memory.committed([[event('c', 1n, 7n)]]);
  t.equal(memory.fromTail(6n, -1), undefined, 'an own commit after the other\'s is held, not answered, until the gap is read');
  memory.notified({ first: 8n, last: 8n, streams: undefined });
  t.equal(memory.stream('c'), undefined, 'a notification without its streams drops everything');
});

t.test('a position seen in a read opens a gap; one no notification fills is given up on after a while', async (t) => {
  const memory = listening();
  memory.committed([[event('a', 0n, 1n)]]);
  memory.note(7n);
  t.equal(memory.stream('a'), undefined, 'position 7 exists, 2-7 unheard of');
  const now = Date.now;
  Date.now = () => now() + 1_500;
  try {
    t.equal(memory.stream('a'), undefined, 'given up on: everything forgotten');
  } finally {
    Date.now = now;
  }
  memory.committed([[event('a', 1n, 8n)]]);
  t.same(memory.fromTail(7n, -1)?.map((e) => e.position), [8n], 'then answered again from what follows');
  memory.heardOwn(9n, 9n);
  t.equal(memory.fromTail(7n, -1), undefined, 'an own commit heard of only by its notification: the tail no longer reaches the head');
});

t.test('a read is kept only if nothing wrote its stream while it was in flight', async (t) => {
  const memory = listening();
  const ticket = memory.beginRead('a');
  memory.notified({ first: 1n, last: 1n, streams: ['a'] });
  memory.read(ticket, [event('a', 0n, 1n)]);
  t.equal(memory.stream('a'), undefined, 'written meanwhile: not kept');
  memory.read(memory.beginRead('a'), [event('a', 0n, 1n)]);
  t.same(memory.stream('a')?.map((e) => e.position), [1n], 'a read after it is kept');
  const stale = memory.beginRead('b');
  memory.forgetAll();
  memory.read(stale, [event('b', 0n, 2n)]);
  t.equal(memory.stream('b'), undefined, 'everything forgotten meanwhile: not kept');
});

t.test("readers of the same gap at once: it is read from the server once, and each is answered from the tail", async (t) => {
  // The reactors' subscription and the read models' catch-up are woken by the same commit: each
  // used to read the gap itself, and the one whose read came back second, finding the tail
  // already extended, gave up on memory and read the whole log after its position again.
  const memory = listening();
  memory.committed([[event('a', 0n, 1n)]]);
  memory.notified({ first: 2n, last: 3n, streams: ['b'] });
  const reads: Array<[bigint, bigint | undefined]> = [];
  const log = [event('b', 0n, 2n), event('b', 1n, 3n)];
  const server = async (after: bigint, until: bigint | undefined) => {
    reads.push([after, until]);
    await new Promise((resolve) => setTimeout(resolve, 5));
    return log.filter((e) => e.position > after && (until === undefined || e.position <= until));
  };
  const answers = await Promise.all([memory.fillGaps(1n, -1, server), memory.fillGaps(0n, -1, server), memory.fillGaps(1n, 1, server)]);
  t.same(answers.map((events) => events?.map((e) => e.position)), [[2n, 3n], [1n, 2n, 3n], [2n]], 'every reader answered from the tail');
  t.same(reads, [[1n, undefined]], 'the gap read once');
});

t.test('a gap read that finds the tail moved on meanwhile reads what is still missing, not the whole log', async (t) => {
  const memory = listening();
  memory.committed([[event('a', 0n, 1n)]]);
  memory.notified({ first: 2n, last: 2n, streams: ['b'] });
  const log = [event('b', 0n, 2n), event('b', 1n, 3n)];
  const reads: Array<[bigint, bigint | undefined]> = [];
  let first = true;
  const server = async (after: bigint, until: bigint | undefined) => {
    reads.push([after, until]);
    if (first) {
      // While this read is in flight another reader of the log extends the tail (a read from the server).
      first = false;
      memory.readFromServer(1n, [log[0] as RecordedEvent]);
      memory.notified({ first: 3n, last: 3n, streams: ['b'] });
    }
    return log.filter((e) => e.position > after && (until === undefined || e.position <= until));
  };
  t.same((await memory.fillGaps(1n, -1, server))?.map((e) => e.position), [2n, 3n], 'answered from the tail');
  t.same(reads, [[1n, undefined], [2n, undefined]], 'the second read begins where the tail ends');
});

t.test('a reader that knows of a position a gap read in flight may not show does not share it: its commit is answered', async (t) => {
  // This instance's commit at 3 wakes a reader while another's at 1-2 is not heard of yet: it reads
  // after 3 and finds nothing. Before that read comes back, the other instance commits 4 and its
  // notifications arrive: the reader they wake must see 4, which the read in flight may not show.
  const memory = listening();
  const log = [event('b', 0n, 1n), event('b', 1n, 2n), event('a', 0n, 3n)];
  memory.committed([[log[2] as RecordedEvent]]);
  const reads: Array<[bigint, bigint | undefined]> = [];
  const server = async (after: bigint, until: bigint | undefined) => {
    reads.push([after, until]);
    // The server's answer is the log as it was when the query ran, which comes back later.
    const shown = log.filter((e) => e.position > after && (until === undefined || e.position <= until));
    await new Promise((resolve) => setTimeout(resolve, 5));
    return shown;
  };
  const first = memory.fillGaps(3n, -1, server);
  memory.notified({ first: 1n, last: 2n, streams: ['b'] });
  log.push(event('d', 0n, 4n));
  memory.notified({ first: 4n, last: 4n, streams: ['d'] });
  const woken = memory.fillGaps(3n, -1, server);
  t.same((await first)?.map((e) => e.position), [], 'the first read came before 4');
  t.same((await woken)?.map((e) => e.position), [4n], 'the reader woken by 4 gets it');
  t.same(reads, [[3n, undefined], [3n, undefined]], 'a read of its own, sent after it heard of 4');
});
