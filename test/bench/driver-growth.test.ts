// The driver's `--growth` works (not how fast anything is): a tiny run, a store filled to two small
// sizes through its tables, each measured beside an empty store after a first start and a restart,
// gives every point's numbers and evaluates the growth targets; on SQLite, and with `--store
// postgres` on a throwaway PostgreSQL (skipped, and said so, without it). Needs dist/ (npm test
// builds it first); the driver itself runs from source.
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { parseArgs, runBench, type BenchResult } from '../../bench/run.js';
import { postgresAvailable, SKIP_MESSAGE } from '../helpers/postgres.js';

const finite = (value: unknown) => typeof value === 'number' && Number.isFinite(value);

/** A tiny growth run on `store`, checked: both sizes measured beside the empty store, every answer 2xx, the targets evaluated. */
async function tinyRun(t: Test, store: 'sqlite' | 'postgres'): Promise<NonNullable<BenchResult['growth']>> {
  const out = t.testdir({});
  const options = parseArgs(['--growth-sizes', '2000,5000', '--store', store, '--duration', '1', '--connections', '4', '--out', out, '--silent'], {});
  t.same(options.growth, [2000, 5000]);
  const result = await runBench(options);
  const written = JSON.parse(readFileSync(result.file, 'utf8')) as BenchResult;
  t.equal(written.http, undefined, 'no HTTP half');
  t.equal(written.replay, undefined, 'no replay');
  const growth = written.growth;
  if (!growth) throw new Error('no growth result');
  t.equal(growth.store, store);
  t.ok(growth.emptyStartMs > 0, 'the empty store\'s start-up');
  t.same(growth.points.map((p) => p.events), [2000, 5000]);
  t.same(growth.points.map((p) => p.tokens), [200, 500], '1 token : 10 events');
  for (const p of growth.points) {
    t.ok(p.firstStartMs > 0 && p.startMs > 0 && p.fileBytes > 0, `${p.events} events: started, restarted, on a file`);
    t.same(p.scenarios.map((s) => s.name), ['pay', 'create', 'retrieve']);
    for (const s of p.scenarios) {
      t.ok(s.here.rps > 0 && s.empty.rps > 0 && finite(s.ratio), `${p.events} events, ${s.name}: ${s.here.rps} beside ${s.empty.rps} req/s`);
      t.equal(s.here.errors + s.here.timeouts + s.here.non2xx + s.empty.non2xx, 0, `${p.events} events, ${s.name}: every answer 2xx`);
      t.ok(finite(s.loadAverage), 'the load average beside it');
    }
  }
  for (const name of ['cost flat in the store\'s size', 'start-up at the largest size']) {
    t.ok(written.targets.find((target) => target.name === name)?.met !== null, `target evaluated: ${name}`);
  }
  return growth;
}

t.test('--growth-sizes: each size beside an empty store, pay, create and retrieve, start-up timed', async (t) => {
  t.throws(() => parseArgs(['--growth-sizes', '4000,2000'], {}), /increasing/, 'sizes must increase');
  t.same(parseArgs(['--growth'], {}).growth, [1_000_000, 10_000_000], 'SQLite: 1M and 10M by default');
  const growth = await tinyRun(t, 'sqlite');
  t.equal(growth.postgres, undefined);
});

t.test('--growth --store postgres: the same on PostgreSQL, the server\'s CPU per response too', async (t) => {
  if (!postgresAvailable()) {
    console.error(`\n*** ${SKIP_MESSAGE} ***\n`);
    t.skip(SKIP_MESSAGE, () => {}); // a skipped subtest's function is never called
    return;
  }
  t.same(parseArgs(['--growth', '--store', 'postgres'], {}).growth, [1_000_000, 10_000_000], 'PostgreSQL: 1M and 10M by default too');
  const growth = await tinyRun(t, 'postgres');
  t.match(growth.postgres, /^\d+/, `PostgreSQL ${growth.postgres}`);
  for (const p of growth.points) {
    for (const s of p.scenarios) t.ok(finite(s.here.dbCpuUsPerRequest) && finite(s.empty.dbCpuUsPerRequest), `${p.events} events, ${s.name}: the server's CPU`);
  }
});
