// The journal's entries as kept (services/journal/journal.ts): the events a request appended, held
// as one text, read back as they were handed over, whether they came before the entry or after.
import t from 'tap';
import { Journal, type JournalEntry } from '../../services/journal/journal.js';
import { requestView } from '../../services/journal/views.js';
import { TextRing } from '../../services/journal/texts.js';

const entry = (id: string): JournalEntry => ({
  id, atMs: 1000, method: 'PUT', path: '/p', operation: 'PAY', status: 201, durationMs: 1, merchant: 'M', correlationId: id,
  order: null, transaction: null, token: null, request: '{"card":{"securityCode":"xxx"}}', response: '{"result":"SUCCESS"}', nvp: false, events: '', answerAt: -1, answerBytes: 0, requestBytes: 0,
});
/** A repeatable random integer below n, from `seed` (a linear congruential generator). */
function seededRandom(seed: number): (n: number) => number {
  return (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
}
const logged = (requestId: string, stream: string, revision: number, position: number, type: string) =>
  ({ stream, revision: BigInt(revision), position: BigInt(position), type, metadata: { requestId } });

t.test('events before and after the entry, streams with spaces and digits, read back in order', async (t) => {
  const journal = new Journal({ size: 10, maxAgeMs: 60_000 }, (id) => id.startsWith('own'), () => 1000);
  journal.eventAppended(logged('own-1', 'order-M 1:o 2 3', 0, 41, 'PaymentRecorded'));
  journal.eventAppended(logged('other-1', 'order-M:x', 0, 42, 'PaymentRecorded'));
  journal.record(entry('own-1'));
  journal.eventAppended(logged('own-1', 'token-R:9123456789012345', 7, 12345678901, 'TokenUsed'));
  const view = requestView(journal.get('own-1')!, journal);
  t.same(view.events, [
    { stream: 'order-M 1:o 2 3', revision: 0, position: 41, type: 'PaymentRecorded' },
    { stream: 'token-R:9123456789012345', revision: 7, position: 12345678901, type: 'TokenUsed' },
  ]);
  t.same(view.request, { card: { securityCode: 'xxx' } }, "the request's body, parsed when read");
  journal.record(entry('own-2'));
  t.same(requestView(journal.get('own-2')!, journal).events, [], 'none');
});

t.test('answers kept in a ring of bytes: read back whole, and an entry whose answer was overwritten is dropped', async (t) => {
  const ring = new TextRing(64);
  const first = ring.keep('{"a":"é✓"}');
  t.equal(ring.read(first, ring.lastBytes), '{"a":"é✓"}', 'multi-byte characters');
  const second = ring.keep(Buffer.from('{"b":2}'));
  t.equal(ring.read(second, ring.lastBytes), '{"b":2}', 'a Buffer answer');
  t.equal(ring.keep('x'.repeat(30)), -1, 'larger than the ring (as many as 3 bytes a character): not kept');
  ring.keep(Buffer.from('y'.repeat(50))); // does not fit after them: starts the ring again, over the first texts
  t.equal(ring.read(first, 14), undefined, 'overwritten: gone');

  const journal = new Journal({ size: 10, maxAgeMs: 60_000 }, () => true, () => 1000);
  const answers = Array.from({ length: 8 }, (_v, i) => `{"i":${i},"pad":"${'p'.repeat(200_000)}"}`);
  answers.forEach((answer, i) => journal.record({ ...entry(`own-${i}`), response: answer }));
  const kept = [...journal.newestFirst()];
  t.ok(kept.length >= 1 && kept.length < 8, `fewer than 10 kept: the ring holds ${kept.length} such answers`);
  t.equal(kept[0]!.id, 'own-7', 'the newest kept');
  for (const e of kept) t.equal(journal.answerOf(e), answers[Number(e.id.slice(4))], `${e.id}: its answer whole`);
});

t.test('the ring grows while it would overwrite a text the journal holds, and keeps each body apart from its answer', async (t) => {
  const journal = new Journal({ size: 2000, maxAgeMs: 60_000 }, () => true, () => 1000);
  const answerOf = (i: number) => `{"i":${i},"pad":"${'a'.repeat(1000)}"}`;
  const bodyOf = (i: number) => `{"card":{"securityCode":"xxx"},"n":${i}}`;
  for (let i = 0; i < 2000; i++) journal.record({ ...entry(`own-${i}`), request: bodyOf(i), response: answerOf(i) });
  const kept = [...journal.newestFirst()];
  t.equal(kept.length, 2000, 'all 2000 kept: the ring grew past its first megabyte rather than drop them');
  for (const i of [0, 1, 999, 1999]) {
    const view = requestView(journal.get(`own-${i}`)!, journal);
    t.same(view.request, { card: { securityCode: 'xxx' }, n: i }, `own-${i}: its body`);
    t.same(view.response, { i, pad: 'a'.repeat(1000) }, `own-${i}: its answer`);
  }
  // Past JOURNAL_SIZE the oldest are dropped by count, and the ring wraps: the newest read whole.
  for (let i = 2000; i < 5000; i++) journal.record({ ...entry(`own-${i}`), request: bodyOf(i), response: answerOf(i) });
  t.equal([...journal.newestFirst()].length, 2000, 'still 2000');
  t.equal(journal.get('own-2999'), undefined, 'the oldest gone');
  for (const i of [3000, 4321, 4999]) {
    const view = requestView(journal.get(`own-${i}`)!, journal);
    t.same(view.request, { card: { securityCode: 'xxx' }, n: i }, `own-${i}: its body after the ring wrapped`);
    t.same(view.response, { i, pad: 'a'.repeat(1000) }, `own-${i}: its answer after the ring wrapped`);
  }
});

t.test('a body kept without an answer text stays readable, and a body with its answer once kept is masked as read', async (t) => {
  const journal = new Journal({ size: 10, maxAgeMs: 60_000 }, () => true, () => 1000);
  journal.record({ ...entry('own-a'), response: { masked: true } });
  t.same(requestView(journal.get('own-a')!, journal).request, { card: { securityCode: 'xxx' } }, 'a body beside an answer kept as a value');
  // A body text is masked before it is recorded (plugins/journal.ts); read back, it is masked again.
  journal.record({ ...entry('own-b'), request: '{"number":"5123450000000008"}' });
  t.same(requestView(journal.get('own-b')!, journal).request, { number: '512345xxxxxx0008' }, 'masked again when read from the ring');
});

t.test('the ring, grown and wrapped many times: every text it says it holds reads back whole', async (t) => {
  const random = seededRandom(7);
  const ring = new TextRing(64 * 1024);
  const kept: Array<{ at: number; text: string; bytes: number }> = [];
  let wrong = 0;
  let held = 0;
  for (let i = 0; i < 3000; i++) {
    const text = `${i}:${'é✓abc'.repeat(random(400))}`;
    // The journal's oldest: one of the last 40 texts (it holds a window of them).
    const oldest = kept.length > 40 ? kept[kept.length - 40]!.at : (kept[0]?.at ?? -1);
    const at = ring.keep(text, '', oldest);
    if (at >= 0) kept.push({ at, text, bytes: ring.lastBytes });
    for (const k of kept.slice(-60)) {
      const read = ring.read(k.at, k.bytes);
      if (read !== undefined) held++;
      if (read !== undefined && read !== k.text) wrong++;
    }
  }
  t.equal(wrong, 0, 'no text read back other than it was kept');
  t.ok(held > 3000 * 30, `most of the recent texts held (${held})`);
  const last = kept.slice(-40);
  t.ok(last.every((k) => ring.read(k.at, k.bytes) === k.text), 'the 40 newest whole: the ring grew rather than overwrite them');
});

t.test('an entry whose texts were overwritten is dropped, even behind an older one whose answer is kept as a value', async (t) => {
  const journal = new Journal({ size: 100, maxAgeMs: 60_000 }, () => true, () => 1000);
  // An answer asked unmasked is kept masked, as a value (plugins/journal.ts): it has no text in the ring.
  journal.record({ ...entry('own-value'), request: '{"merchant":"A"}', response: { result: 'SUCCESS' } });
  // Texts of 300 KB each: the ring (1 MB at this JOURNAL_SIZE) starts over, overwriting the older ones.
  for (let i = 0; i < 9; i++) journal.record({ ...entry(`own-${i}`), request: `{"merchant":"M${i}"}`, response: `{"r":"${'a'.repeat(300_000)}"}` });
  const kept = [...journal.newestFirst()];
  t.ok(kept.length >= 1 && kept.length < 10, `some dropped (${kept.length} kept)`);
  for (const e of kept) {
    const view = requestView(e, journal);
    const i = e.id.slice(4);
    t.same(view.request, { merchant: `M${i}` }, `${e.id}: its own body, not null`);
    t.not(view.response, null, `${e.id}: its answer`);
  }
});

t.test('a body too large to share the ring with its answer: the answer kept all the same', async (t) => {
  // JOURNAL_SIZE 1: a ring of 1 MB; a chunked body is bounded by BODY_LIMIT only, which may be raised.
  const journal = new Journal({ size: 1, maxAgeMs: 60_000 }, () => true, () => 1000);
  const body = `{"pad":"${'b'.repeat(400_000)}"}`;
  journal.record({ ...entry('own-large'), request: body, response: '{"result":"SUCCESS"}' });
  const view = requestView(journal.get('own-large')!, journal);
  t.same(view.response, { result: 'SUCCESS' }, 'its answer');
  t.same(view.request, { pad: 'b'.repeat(400_000) }, 'its body');
});

t.test('texts growing larger mid-lap: every entry kept, the ring growing where it reaches the texts of the lap before rather than overwrite them', async (t) => {
  // JOURNAL_SIZE 1,000: a ring of 2 MB at its most, 1 MB used at first. 0.5 KB texts fill laps of it;
  // then 1.5 KB ones catch up mid-lap with the texts of the lap before that the journal still holds
  // (as few as 691 entries kept for a while, when it grew only at the end of a lap).
  const journal = new Journal({ size: 1000, maxAgeMs: 60_000 }, () => true, () => 1000);
  const answerOf = (i: number) => `{"i":${i},"pad":"${'a'.repeat(i < 3000 ? 400 : 1400)}"}`;
  const bodyOf = (i: number) => `{"card":{"securityCode":"xxx"},"n":${i}}`;
  let fewest = 1000;
  for (let i = 0; i < 6000; i++) {
    journal.record({ ...entry(`own-${i}`), request: bodyOf(i), response: answerOf(i) });
    // Entries are dropped oldest first: the 1,000th newest there means all 1,000 are.
    if (i >= 999 && journal.get(`own-${i - 999}`) === undefined) fewest = Math.min(fewest, [...journal.newestFirst()].length);
  }
  t.equal(fewest, 1000, 'never fewer than 1,000 kept');
  const kept = [...journal.newestFirst()];
  t.equal(kept.length, 1000, '1,000 kept at the end');
  t.ok(kept.every((e) => journal.answerOf(e) === answerOf(Number(e.id.slice(4))) && journal.bodyOf(e) === bodyOf(Number(e.id.slice(4)))), 'each its own body and answer, whole');
});

t.test('texts growing and shrinking at random: no text read back other than kept, and every entry kept while they average 2 KB or less (less one text)', async (t) => {
  const random = seededRandom(11);
  const size = 1000;
  let wrong = 0;
  let short = 0;
  let checks = 0;
  // Journals made anew, each ring growing from its first megabyte by phases of its own.
  for (let round = 0; round < 8; round++) {
    const journal = new Journal({ size, maxAgeMs: 60_000 }, () => true, () => 1000);
    const bodies: string[] = [];
    const answers: string[] = [];
    // The bytes of the texts of the entries before each one: the newest 1,000's are a difference.
    const before: number[] = [0];
    let largest = 0;
    let average = 0;
    for (let i = 0; i < 4000; i++) {
      // Phases of a few hundred requests, each with its own average: 0.1 KB to 2.6 KB, a few 3.6 KB.
      if (i === 0 || random(300) === 0) average = random(10) === 0 ? 3600 : 100 + random(2500);
      const length = Math.max(1, Math.round(average * (0.5 + random(1000) / 1000)));
      const body = `{"n":${i},"name":"${'é'.repeat(random(20))}"}`;
      const answer = `{"i":${i},"pad":"${'a'.repeat(length)}"}`;
      bodies.push(body);
      answers.push(answer);
      before.push(before[i]! + Buffer.byteLength(body) + answer.length);
      largest = Math.max(largest, before[i + 1]! - before[i]!);
      journal.record({ ...entry(`own-${i}`), request: body, response: answer });
      // 2 KB each, less room for one text: a text is kept whole, so the end of a lap too short for
      // the next one is left unused (as in a ring fixed at its most).
      if (i + 1 >= size && before[i + 1]! - before[i + 1 - size]! + largest <= size * 2048) {
        checks++;
        if (journal.get(`own-${i + 1 - size}`) === undefined) short++;
      }
      // The oldest kept after each request (the texts the ring moves, or the next one overwrites), all of them now and then.
      let looked = 0;
      for (let n = Math.max(0, i + 1 - size); n <= i && (looked < 10 || i % 500 === 499); n++) {
        const e = journal.get(`own-${n}`);
        if (e === undefined) continue;
        looked++;
        if (journal.answerOf(e) !== answers[n] || journal.bodyOf(e) !== bodies[n]) wrong++;
      }
    }
  }
  t.equal(wrong, 0, 'every entry kept reads back its own body and answer');
  t.ok(checks > 10_000, `the newest 1,000 texts averaged 2 KB or less after ${checks} requests`);
  t.equal(short, 0, 'after each of those, all 1,000 entries kept');
});

t.test('the ring, growing where it reaches the oldest held text: no text read back other than kept, older ones too', async (t) => {
  const random = seededRandom(5);
  let wrong = 0;
  let gone = 0;
  for (let round = 0; round < 4; round++) {
    const ring = new TextRing(3 << 20);
    const kept: Array<{ at: number; text: string; bytes: number }> = [];
    // The journal holds a window of the newest texts; its size changes, and their lengths grow by phases.
    let window = 500;
    let length = 200;
    for (let i = 0; i < 2500; i++) {
      if (random(200) === 0) [window, length] = [300 + random(700), 100 + random(6000)];
      const text = `${round}:${i}:${'é✓abc'.repeat(random(length / 8 + 1))}`;
      const oldest = kept.length > window ? kept[kept.length - window]!.at : (kept[0]?.at ?? -1);
      const at = ring.keep(text, '', oldest);
      kept.push({ at, text, bytes: ring.lastBytes });
      // The oldest held and the older ones the journal no longer asks for: whole, or gone.
      for (const k of kept.slice(-window - 40, -window + 10)) {
        const read = ring.read(k.at, k.bytes);
        if (read === undefined) gone++;
        else if (read !== k.text) wrong++;
      }
    }
  }
  t.equal(wrong, 0, 'no text read back other than it was kept');
  t.ok(gone > 0, `some older than the oldest held overwritten, or no longer read (${gone})`);
});

t.test('two entries of one id: the newest is found by it, still once the older is dropped; its events go to it', async (t) => {
  const journal = new Journal({ size: 3, maxAgeMs: 60_000 }, () => true, () => 1000);
  journal.record({ ...entry('own-1'), path: '/older' });
  journal.record({ ...entry('own-1'), path: '/newer' });
  t.equal(journal.get('own-1')?.path, '/newer', 'the newest of the two');
  journal.eventAppended(logged('own-1', 'order-M:o', 0, 1, 'PaymentRecorded'));
  journal.record(entry('own-2'));
  journal.record(entry('own-3')); // the ring is full: the older own-1 is dropped
  t.same([...journal.newestFirst()].map((e) => e.path), ['/p', '/p', '/newer'], 'the older dropped, the newer kept');
  const found = journal.get('own-1');
  t.equal(found?.path, '/newer', 'still found by its id');
  t.same(found && requestView(found, journal).events.map((e) => e.type), ['PaymentRecorded'], 'with the events of that id');
  journal.record(entry('own-4'));
  t.equal(journal.get('own-1'), undefined, 'gone once the newer is dropped too');
});
