// Every answer of a recorded session (golden-session.fixture.ts: every operation of the order
// path, retries and refusals included) compared byte for byte with the answers recorded in
// test/fixtures/golden-answers.json, on the memory store and on SQLite: a change of any byte any
// client sees fails here. The clock is fixed (one second further at each request) and the random
// digits of token and session ids come from a seeded generator, so the answers are the same on
// every run. Two values are normalised, being random by design and drawn where no test can fix
// them: a 500's supportCode (the request id, whose prefix is drawn once per process) and a
// session's version (10 hexadecimal characters from the CSPRNG).
//
// After a change that is meant to change answers, record them again and review the diff:
//   GOLDEN_RECORD=1 npx tap test/http/golden-answers.test.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { buildApp } from '../../app.js';
import { loadGatewaySettings, type EventStoreConfig } from '../../config.js';
import { parseMerchants } from '../../merchants.js';
import { random } from '../../store/keys/random.js';
import { GOLDEN_MERCHANTS, runSession, type Answer } from './golden-session.fixture.js';

const FILE = fileURLToPath(new URL('../fixtures/golden-answers.json', import.meta.url));
const START = Date.parse('2026-11-21T12:00:00.000Z');

/** Date with a clock that moves only when told (`Date.now()` and `new Date()` alike). */
function fixClock(t: Test): () => void {
  const RealDate = Date;
  let now = START;
  class FixedDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(now);
      else super(...(args as [string]));
    }
    static override now(): number { return now; }
  }
  globalThis.Date = FixedDate as DateConstructor;
  t.teardown(() => { globalThis.Date = RealDate; });
  return () => { now += 1000; };
}

/** Random bytes from a seeded generator (mulberry32) for token and session ids. */
function fixRandomDigits(t: Test): void {
  const original = random.byte;
  let seed = 0x5eed;
  random.byte = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) & 0xff;
  };
  t.teardown(() => { random.byte = original; });
}

const normalised = (answers: Answer[]): Answer[] =>
  answers.map((a) => ({ ...a, body: a.body
    .replace(/"supportCode":"[^"]*"/g, '"supportCode":"(request id)"')
    .replace(/"version":"[0-9a-f]{10}"/g, '"version":"(session version)"') }));

async function sessionOn(t: Test, eventStore: EventStoreConfig): Promise<Answer[]> {
  const tick = fixClock(t);
  fixRandomDigits(t);
  const app = await buildApp({
    eventStore,
    merchants: parseMerchants(GOLDEN_MERCHANTS, 'golden merchants'),
    // An UNKNOWN is made final at once (the session waits for it): its answers are part of the session.
    settings: { ...loadGatewaySettings({}), unknownResolutionDelayMs: 0 },
    limits: { authFailureLimit: 1_000_000 },
  });
  t.teardown(() => app.close());
  return normalised(await runSession(app, tick));
}

function compare(t: Test, answers: Answer[]): void {
  const golden = JSON.parse(readFileSync(FILE, 'utf8')) as Answer[];
  t.equal(answers.length, golden.length, 'as many answers as recorded');
  let differing = 0;
  for (const [i, expected] of golden.entries()) {
    const actual = answers[i];
    if (actual?.step === expected.step && actual.status === expected.status && actual.type === expected.type && actual.body === expected.body) continue;
    differing++;
    t.strictSame(actual, expected, `answer ${i}: ${expected.step}`);
  }
  t.equal(differing, 0, 'every answer byte for byte as recorded');
}

for (const [name, store] of [['memory', () => ({ kind: 'memory' })], ['sqlite', (dir: string) => ({ kind: 'sqlite', path: join(dir, 'golden.db') })]] as const) {
  t.test(`the recorded session on the ${name} store answers as recorded`, async (t) => {
    const answers = await sessionOn(t, store(t.testdir()) as EventStoreConfig);
    if (process.env.GOLDEN_RECORD === '1' && name === 'memory') {
      writeFileSync(FILE, `${JSON.stringify(answers, null, 1)}\n`);
      t.pass(`recorded ${answers.length} answers in ${FILE}`);
      return;
    }
    compare(t, answers);
  });
}
