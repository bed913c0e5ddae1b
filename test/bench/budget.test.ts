// The cost budget's attribution (bench/budget.ts) on a small hand-made .cpuprofile: a frame's stage
// by its script (tokengate's folders, packages), by function in bench/floor.mjs, native calls and
// Node's modules counted for their caller, GC apart, idle nowhere, per response, inside a window.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { budgetRow, FLOOR_RULES, rowOf, stageOfFrame, stageTimes, TOKENGATE_RULES } from '../../bench/budget.js';
import type { CpuProfile } from '../../bench/profile.js';

const frame = (functionName: string, url = '') => ({ functionName, url, lineNumber: 0, columnNumber: 0 });
const dist = (path: string) => `file:///work/tokengate/dist/${path}`;
const nm = (path: string) => `file:///work/tokengate/node_modules/${path}`;
const START = 1_000_000;

// (root) → handler (fastify) → { auth, appendToStream (store) → run (native), payWithToken
// (pay-request) → decidePay (domain) → JSON.stringify-like native, serialize (fast-json-stringify),
// emit (node:events) → (native) }, plus GC and idle. Every sample weighs 1 ms (the delta after it).
const tokengate: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 20, 21, 22] },
    { id: 2, callFrame: frame('handler', nm('fastify/lib/handleRequest.js')), children: [3, 4, 6, 8, 9] },
    { id: 3, callFrame: frame('authenticate', dist('plugins/auth.js')) },
    { id: 4, callFrame: frame('appendToStream', dist('store/sqlite/appends.js')), children: [5] },
    { id: 5, callFrame: frame('run') },
    { id: 6, callFrame: frame('payWithToken', dist('services/order/pay-request.js')), children: [7] },
    { id: 7, callFrame: frame('decidePay', dist('domain/order/pay.js')), children: [10] },
    { id: 8, callFrame: frame('serialize', nm('fast-json-stringify/index.js')) },
    { id: 9, callFrame: frame('emit', 'node:events'), children: [11] },
    { id: 10, callFrame: frame('stringify') },
    { id: 11, callFrame: frame('writev') },
    { id: 20, callFrame: frame('(garbage collector)') },
    { id: 21, callFrame: frame('(idle)') },
    { id: 22, callFrame: frame('(program)') },
  ],
  startTime: START,
  endTime: START + 20_000,
  //        auth run run decide stringify serialize writev handler gc idle idle program (last weighs nothing)
  samples: [3, 5, 5, 7, 10, 8, 11, 2, 20, 21, 21, 22, 1],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

t.test('tokengate: stages by script, native calls and Node modules counted for their caller', async (t) => {
  const times = Object.fromEntries(stageTimes(tokengate, TOKENGATE_RULES));
  t.same(times, {
    auth: 1000, append: 2000, decide: 2000, response: 1000, parse: 2000, gc: 1000, other: 1000,
  }, 'run → append, stringify → decide, writev via emit → the handler (parse), idle nowhere');
});

t.test("tokengate's body parsers are the parse stage, as Fastify's own parser is the floor's", async (t) => {
  t.equal(stageOfFrame(frame('parseJsonBody', dist('plugins/json-body.js')), TOKENGATE_RULES), 'parse');
  t.equal(stageOfFrame(frame('jsonSyntaxProblem', dist('plugins/json-body.js')), TOKENGATE_RULES), 'parse', 'the whole file');
  t.equal(stageOfFrame(frame('parse', dist('routes/pay.js')), TOKENGATE_RULES), 'parse', "the pay route's parser");
  t.equal(stageOfFrame(frame('errorBody', dist('plugins/errors.js')), TOKENGATE_RULES), 'other', 'the rest of the file as before');
  t.equal(stageOfFrame(frame('', dist('routes/pay.js')), TOKENGATE_RULES), 'other', "the pay route's handler as before");
});

t.test('the authentication is the auth stage, in each of its files', async (t) => {
  for (const file of ['auth', 'auth-credentials', 'auth-failures']) t.equal(stageOfFrame(frame('checkPassword', dist(`plugins/${file}.js`)), TOKENGATE_RULES), 'auth', file);
  t.equal(stageOfFrame(frame('checkPassword', dist('plugins/authority.js')), TOKENGATE_RULES), 'other', 'not a file of another name');
});

t.test('a row: µs per response, only the samples inside the window, every thread', async (t) => {
  const dir = t.testdir({});
  const main = join(dir, 'main.cpuprofile');
  writeFileSync(main, JSON.stringify(tokengate));
  // Sample i is taken at START + (i + 1) ms: samples 1..4 (run, run, decide, stringify).
  const window = { fromUs: START + 2000, toUs: START + 5000 };
  const row = budgetRow([main], TOKENGATE_RULES, window, { scenario: 'pay', target: 'tokengate', responses: 4, cpuUsPerRequest: 1500 });
  t.equal(row.perStage.append, 500, '2 ms of append over 4 responses');
  t.equal(row.perStage.decide, 500);
  t.equal(row.perStage.auth, 0);
  t.equal(row.profiledUsPerRequest, 1000);
  t.equal(row.cpuUsPerRequest, 1500);
  const twice = budgetRow([main, main], TOKENGATE_RULES, window, { scenario: 'pay', target: 'tokengate', responses: 4, cpuUsPerRequest: undefined });
  t.equal(twice.profiledUsPerRequest, 2000, 'the threads of a process add up');
});

t.test('a window of slices: only the samples inside its spans count, not those between them', async (t) => {
  const dir = t.testdir({});
  const main = join(dir, 'main.cpuprofile');
  writeFileSync(main, JSON.stringify(tokengate));
  // Samples at START + 2..3 ms (run, run) and + 5 ms (stringify); decide (+ 4 ms) falls between.
  const window = { fromUs: START + 2000, toUs: START + 5000, spans: [{ fromUs: START + 2000, toUs: START + 3000 }, { fromUs: START + 4500, toUs: START + 5000 }] };
  const row = budgetRow([main], TOKENGATE_RULES, window, { scenario: 'pay', target: 'tokengate', responses: 3, cpuUsPerRequest: undefined });
  t.equal(row.perStage.append, 666.7, '2 ms of append over 3 responses');
  t.equal(row.perStage.decide, 333.3, 'the stringify sample of the second span (1 ms), not the decide sample between the spans');
  t.equal(row.profiledUsPerRequest, 1000);
});

t.test('a sample followed by a long gap (the thread not scheduled) weighs at most 3× the median interval', async (t) => {
  // The decide sample (index 3) is followed by 50 ms without a sample.
  const gap = { ...tokengate, timeDeltas: tokengate.timeDeltas?.map((d, i) => (i === 4 ? 50_000 : d)) };
  const times = Object.fromEntries(stageTimes(gap, TOKENGATE_RULES));
  t.equal(times.decide, 4000, 'decide: 1 ms + 3 ms (capped), not 1 + 50');
  t.equal(times.append, 2000, 'the other samples unchanged');
});

t.test('the floor: its functions by name, the rest of its file "other"', async (t) => {
  const floorUrl = 'file:///work/tokengate/bench/floor.mjs';
  const floor: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2] },
      { id: 2, callFrame: frame('pay', floorUrl), children: [3, 4, 6, 7] },
      { id: 3, callFrame: frame('findRecorded', floorUrl), children: [5] },
      { id: 4, callFrame: frame('encodeEvent', floorUrl) },
      { id: 5, callFrame: frame('get') },
      { id: 6, callFrame: frame('authenticate', floorUrl) },
      { id: 7, callFrame: frame('validate', nm('ajv/dist/compile/index.js')) },
    ],
    startTime: START,
    endTime: START + 10_000,
    samples: [2, 3, 5, 4, 6, 7, 1],
    timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };
  t.same(Object.fromEntries(stageTimes(floor, FLOOR_RULES)), {
    other: 1000, 'token lookup': 2000, 'event encoding': 1000, auth: 1000, validation: 1000,
  });
});

t.test('a row from perf: stages and kinds per response alike, every kind given kept in order', async (t) => {
  const row = rowOf(new Map([['append', 300], ['gc', 100]]), 'perf', { scenario: 'pay', target: 'floor', responses: 4, cpuUsPerRequest: 110 },
    new Map([['SQLite', 250], ['gc', 100], ['kernel', 0]]));
  t.equal(row.sampler, 'perf');
  t.equal(row.perStage.append, 75);
  t.equal(row.profiledUsPerRequest, 100);
  t.same(row.perKind, { SQLite: 62.5, gc: 25, kernel: 0 });
  t.same(Object.keys(row.perKind ?? {}), ['SQLite', 'gc', 'kernel']);
  t.same(rowOf(new Map(), 'perf', { scenario: 'pay', target: 'floor', responses: 0, cpuUsPerRequest: undefined }, new Map([['gc', 5]])).perKind, { gc: 0 }, 'no responses: 0');
  t.notOk('perKind' in rowOf(new Map(), 'cpu-prof', { scenario: 'pay', target: 'floor', responses: 1, cpuUsPerRequest: undefined }), 'no kinds without perf');
});
