// lib/clock.ts writes the ISO time of a millisecond itself within a minute it formatted with Date:
// the text must be Date#toISOString's for any order of calls (time going on, standing still, going
// back, jumping across minutes, days and years; before 1970 and after 9999).
import fc from 'fast-check';
import t from 'tap';
import { isoNow, isoOf } from '../../lib/clock.js';

const YEAR_10000 = Date.UTC(10_000, 0, 1);

t.test('isoOf is toISOString for any sequence of times', async (t) => {
  // Steps as clocks take them (a few ms on, the same ms, back a little) and jumps anywhere.
  const step = fc.oneof(fc.integer({ min: -3, max: 2_500 }), fc.integer({ min: -8.64e12, max: 8.64e12 }), fc.constantFrom(60_000, -60_000, 59_999, 1, 0));
  fc.assert(fc.property(fc.integer({ min: -62_198_755_200_000, max: 253_402_300_799_999 }), fc.array(step, { maxLength: 200 }), (start, steps) => {
    let ms = start;
    for (const delta of [0, ...steps]) {
      ms = Math.max(-8.64e15, Math.min(8.64e15, ms + delta));
      const text = isoOf(ms);
      if (text !== new Date(ms).toISOString()) throw new Error(`isoOf(${ms}) = ${text}, toISOString ${new Date(ms).toISOString()}`);
    }
  }), { numRuns: 300, seed: 17 });
  t.pass('300 sequences of up to 200 times');
});

t.test('around the edges: minutes, days, years, the epoch, year 10000', async (t) => {
  const edges = [0, -1, 1, 59_999, 60_000, 60_001, -60_000, -60_001, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2027, 0, 1), YEAR_10000 - 1, YEAR_10000, YEAR_10000 + 61_000, Date.UTC(0, 0, 1) - 1];
  for (const base of edges) {
    for (const ms of [base, base + 1, base - 1, base + 999, base + 1000, base]) t.equal(isoOf(ms), new Date(ms).toISOString(), `${ms}`);
  }
});

t.test('isoNow is the time now', async (t) => {
  const before = Date.now();
  const text = isoNow();
  const after = Date.now();
  const ms = Date.parse(text);
  t.ok(ms >= before && ms <= after, `${text} between ${before} and ${after}`);
  t.equal(text, new Date(ms).toISOString());
});
