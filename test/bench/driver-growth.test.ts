// The driver's `--growth` works (not how fast anything is): a tiny run, a store filled to two small
// sizes through its table, each measured beside an empty store after a first start and a restart,
// gives every point's numbers and evaluates the growth targets. Needs dist/ (npm test builds it
// first); the driver itself runs from source.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { parseArgs, runBench, type BenchResult } from '../../bench/run.js';

const finite = (value: unknown) => typeof value === 'number' && Number.isFinite(value);

t.test('--growth-sizes: each size beside an empty store, pay, create and retrieve, start-up timed', async (t) => {
  const out = t.testdir({});
  t.throws(() => parseArgs(['--growth-sizes', '4000,2000'], {}), /increasing/, 'sizes must increase');
  const options = parseArgs(['--growth-sizes', '2000,5000', '--duration', '1', '--connections', '4', '--out', out, '--silent'], {});
  t.same(options.growth, [2000, 5000]);
  const result = await runBench(options);
  const written = JSON.parse(readFileSync(result.file, 'utf8')) as BenchResult;
  t.equal(written.http, undefined, 'no HTTP half');
  t.equal(written.replay, undefined, 'no replay');
  const growth = written.growth;
  if (!growth) throw new Error('no growth result');
  t.ok(growth.emptyStartMs > 0, 'the empty store\'s start-up');
  t.same(growth.points.map((p) => p.events), [2000, 5000]);
  t.same(growth.points.map((p) => p.tokens), [200, 500], '1 token : 10 events');
  for (const p of growth.points) {
    t.ok(p.firstStartMs > 0 && p.startMs > 0 && p.fileBytes > 0, `${p.events} events: started, restarted, on a file`);
    t.same(p.scenarios.map((s) => s.name), ['pay', 'create', 'retrieve']);
    for (const s of p.scenarios) {
      t.ok(s.here.rps > 0 && s.empty.rps > 0 && finite(s.ratio), `${p.events} events, ${s.name}: ${s.here.rps} beside ${s.empty.rps} req/s`);
      t.equal(s.here.errors + s.here.timeouts + s.here.non2xx + s.empty.non2xx, 0, `${p.events} events, ${s.name}: every answer 2xx`);
    }
  }
  for (const name of ['cost flat in the store\'s size', 'start-up at the largest size']) {
    t.ok(written.targets.find((target) => target.name === name)?.met !== null, `target evaluated: ${name}`);
  }
});
