// The driver's `--store postgres` works (not how fast anything is): a tiny run of the mixed scenario
// against tokengate on SQLite and on a throwaway PostgreSQL (test/helpers/postgres.ts), 1 and 2
// workers each, two independent one-worker processes on PostgreSQL loaded at once, and the two
// PostgreSQL floors, gives every target's numbers, the ratios side by side, and a passed durability
// check of each store.
// Skipped, and said so, without PostgreSQL; without it the driver says so in one line and exits 1.
// Its own file (not driver.test.ts): six gateways and a server start here, tens of seconds on a busy machine.
// Runs the test build's server.js (test/helpers/build.ts, TOKENGATE_DIST); the driver itself runs from source.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { parseArgs, runBench, type BenchResult } from '../../bench/run.js';
import { postgresAvailable, SKIP_MESSAGE } from '../helpers/postgres.js';
import { budget, slowdown } from '../helpers/slowdown.js';

const finite = (value: unknown) => typeof value === 'number' && Number.isFinite(value);

t.test('--store postgres: SQLite and PostgreSQL, 1 and 2 workers, 2 independent, the PostgreSQL floors, every acknowledged event in each store', async (t) => {
  if (!postgresAvailable()) {
    console.error(`\n*** ${SKIP_MESSAGE} ***\n`);
    t.skip(SKIP_MESSAGE, () => {}); // a skipped subtest's function is never called
    return;
  }
  const out = t.testdir({});
  // Half a second of load per configuration on a quiet machine; longer on a busy one (the test is
  // that the driver works, not how fast).
  const duration = String(Math.round(0.5 * slowdown() * 10) / 10);
  const options = parseArgs(['--only', 'http', '--store', 'postgres', '--scenarios', 'mixed', '--duration', duration, '--warmup', '0',
    '--connections', '4', '--out', out, '--silent'], {});
  t.equal(options.store, 'postgres');
  const result = await runBench(options);
  const written = JSON.parse(readFileSync(result.file, 'utf8')) as BenchResult;
  t.equal(written.http, undefined, 'tokengate alone: no ceiling, no floor');
  const stores = written.stores;
  if (!stores) throw new Error('no stores result');
  t.same(stores.configs.map((c) => [c.store, c.workers]), [['sqlite', 1], ['sqlite', 2], ['postgres', 1], ['postgres', 2]]);
  t.match(stores.postgres.version, /^\d+/, `PostgreSQL ${stores.postgres.version}`);
  for (const c of stores.configs) {
    const where = `${c.store} with ${c.workers} worker(s)`;
    t.same(c.scenarios.map((s) => s.name), ['mixed'], `${where}: the scenarios`);
    for (const s of c.scenarios) {
      t.ok(finite(s.tokengate.rps) && s.tokengate.rps > 0, `${where}, ${s.name}: ${s.tokengate.rps} req/s`);
      t.equal(s.tokengate.errors + s.tokengate.timeouts, 0, `${where}, ${s.name}: no errors`);
      t.ok(finite(s.tokengate.cpuUsPerRequest) && (s.tokengate.cpuUsPerRequest ?? 0) > 0, `${where}, ${s.name}: the gateway's CPU per response`);
      // Measured (a number) in each; above 0 in at least one (below): /proc counts CPU in 10 ms
      // ticks, and on a loaded machine a run of a handful of requests may not fill one.
      if (c.store === 'postgres') t.ok(finite(s.tokengate.dbCpuUsPerRequest) && (s.tokengate.dbCpuUsPerRequest ?? -1) >= 0, `${where}, ${s.name}: the PostgreSQL server's CPU per response ${s.tokengate.dbCpuUsPerRequest} µs`);
    }
    t.equal(c.exitCode, 0, `${where}: stopped cleanly`);
    t.ok(c.durability.ok, `${where}: every acknowledged payment and token is in the store`);
    t.equal(c.durability.payments.missing + c.durability.tokens.missing, 0, `${where}: nothing missing`);
    t.ok(c.durability.payments.acknowledged > 1 && c.durability.tokens.acknowledged > 0, `${where}: payments and tokens acknowledged`);
    t.equal(c.durability.retries.seedOrderEvents, 1, `${where}: the set-up payment recorded once`);
  }
  const { independent } = stores;
  t.equal(independent.processes, 2, 'two independent processes on PostgreSQL');
  t.same(independent.scenarios.map((s) => s.name), ['mixed'], 'independent: the scenarios');
  const together = independent.scenarios[0]?.tokengate;
  t.ok(together && together.rps > 0 && together.errors + together.timeouts === 0, `independent: ${together?.rps} req/s, no errors`);
  t.ok(finite(together?.cpuUsPerRequest) && (together?.cpuUsPerRequest ?? 0) > 0, 'independent: both processes\' CPU per response');
  t.ok(finite(together?.dbCpuUsPerRequest), `independent: the PostgreSQL server's CPU per response ${together?.dbCpuUsPerRequest} µs`);
  t.equal(independent.parts.length, 2, 'independent: each process checked');
  const acknowledged = independent.parts.map((p) => p.durability.payments.acknowledged);
  for (const [k, p] of independent.parts.entries()) {
    const where = `independent process ${k + 1}`;
    t.equal(p.exitCode, 0, `${where}: stopped cleanly`);
    t.ok(p.durability.ok, `${where}: every acknowledged payment and token is in its own database`);
    t.ok(p.durability.payments.acknowledged > 1 && p.durability.tokens.acknowledged > 0, `${where}: loaded (${p.durability.payments.acknowledged} payments acknowledged)`);
    t.equal(p.durability.retries.seedOrderEvents, 1, `${where}: its set-up payment recorded once`);
  }
  // req/s summed: both were loaded over the same seconds, so their 2xx add up over those seconds
  // (mixed: 4 pays in 5 answers, so the pays alone are 0.8 of it; were the seconds of both added,
  // as for slices taken one after another, it would be 0.625 of them).
  const alone = stores.configs.find((c) => c.store === 'postgres' && c.workers === 1)?.scenarios[0]?.tokengate.durationSec ?? 0;
  t.ok((together?.durationSec ?? Infinity) < 1.5 * alone, `independent: measured over the same seconds as one target (${together?.durationSec} s; one worker's ${alone} s)`);
  const paysPerSecond = acknowledged.reduce((a, b) => a + b, 0) / (together?.durationSec ?? 1);
  t.ok((together?.rps ?? 0) > 0.9 * paysPerSecond, `independent: req/s summed (${together?.rps}; both processes' acknowledged pays ${Math.round(paysPerSecond)}/s)`);
  t.same(stores.floors.map((f) => f.mode), ['naive', 'group'], 'both PostgreSQL floors');
  for (const f of stores.floors) {
    const run = f.scenarios[0]?.floor;
    t.ok(run && run.rps > 0 && run.errors + run.timeouts === 0, `the ${f.mode} floor answered (${run?.rps} req/s)`);
    t.ok((run?.dbCpuUsPerRequest ?? 0) > 0, `the ${f.mode} floor: the PostgreSQL server's CPU per response`);
    t.equal(f.exitCode, 0, `the ${f.mode} floor stopped cleanly`);
    t.ok(f.durability.ok && f.durability.payments.acknowledged > 1, `the ${f.mode} floor: every acknowledged payment and token in its table`);
  }
  const [comparison] = stores.comparisons;
  t.equal(comparison?.name, 'mixed');
  for (const key of ['postgresOverSqlite', 'postgresOverNaiveFloor', 'postgresOverGroupFloor', 'twoWorkersOverOne', 'independentOverOne', 'twoWorkersOverIndependent'] as const) {
    t.ok(finite(comparison?.[key]) && (comparison?.[key] ?? 0) > 0, `side by side: ${key} ${comparison?.[key]}`);
  }
  t.ok(finite(stores.load[0]?.otherCores) && finite(stores.load[0]?.loadAverage), 'what else the machine did is measured');
  t.ok(['pay on PostgreSQL ÷ on SQLite', 'pay on PostgreSQL ÷ naive floor', 'pay on PostgreSQL, 2 workers ÷ 1', 'pay on PostgreSQL, 2 workers ÷ 2 independent'].every((name) => written.targets.some((target) => target.name === name)),
    'the stores\' targets are evaluated');
  t.ok(stores.ok);
  const durability = written.targets.find((target) => target.name === 'durability');
  t.equal(durability?.met, true, 'the durability target is met');
  t.match(durability?.measured, /postgres independent 1: 0 of \d+ missing; postgres independent 2: 0 of \d+ missing/, 'both independent stores in the durability target');
  t.ok(stores.postgres.dir.includes('tokengate-pg-') && !existsSync(stores.postgres.dir), `the PostgreSQL server is stopped and its folder removed (${stores.postgres.dir})`);
});

t.test('--store postgres without PostgreSQL: one line, exit 1', async (t) => {
  // The child runs bench/run.ts as this process runs TypeScript: with test/helpers/ts-loader.mjs
  // (package.json's "tap" section), else with tap's own loader.
  const ours = process.execArgv.filter((arg) => arg.includes('ts-loader.mjs'));
  const typescript = ours.length > 0 ? ours : process.execArgv.filter((arg) => arg.includes('@tapjs/typescript'));
  const run = spawnSync(process.execPath, [...typescript, fileURLToPath(new URL('../../bench/run.ts', import.meta.url)), '--only', 'http', '--store', 'postgres'], {
    env: { ...process.env, PG_BIN: '/nonexistent' }, encoding: 'utf8', timeout: budget(60_000),
  });
  t.equal(run.status, 1, 'exit 1');
  t.equal(run.stdout, '', 'nothing on stdout');
  t.equal(run.stderr.trim().split('\n').length, 1, `one line: ${run.stderr.trim()}`);
  t.match(run.stderr, /--store postgres needs PostgreSQL installed/);
});
