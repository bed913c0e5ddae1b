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
  ring.keep('y'.repeat(20)); // starts the ring again: the first texts are overwritten
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
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
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
