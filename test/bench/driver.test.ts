// The benchmark driver works (not how fast anything is): a tiny run of every HTTP scenario against
// the real server, the ceiling and the durable floor, and a replay of 2,000 events, give a complete
// JSON result.
// (`--store postgres`, the stores compared: driver-stores.test.ts.)
// Runs the test build's server.js (test/helpers/build.ts, TOKENGATE_DIST); the driver itself runs from source.
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { parseArgs, runBench, type BenchResult } from '../../bench/run.js';
import { slowdown } from '../helpers/slowdown.js';

const finite = (value: unknown) => typeof value === 'number' && Number.isFinite(value);

t.test('a quick run yields every scenario, the durability check and the replay', async (t) => {
  const out = t.testdir({});
  // Half a second of load per run on a quiet machine; longer on a busy one, where half a second
  // may pass before a target's first answer (the test is that the driver works, not how fast).
  const duration = Math.round(0.5 * slowdown() * 10) / 10;
  const options = parseArgs(['--quick', '--duration', String(duration), '--connections', '4', '--events', '2000', '--rebuild-runs', '2', '--out', out, '--silent'], {});
  t.equal(options.duration, duration);
  t.equal(options.connections, 4);
  t.equal(options.warmup, 0.5, '--quick warms up briefly');

  const result = await runBench(options);
  t.ok(existsSync(result.file), 'the JSON result is written');
  const written = JSON.parse(readFileSync(result.file, 'utf8')) as BenchResult;
  t.same(written.targets, result.targets, 'the file holds the result');

  const http = written.http;
  if (!http) throw new Error('no HTTP result');
  t.same(http.scenarios.map((s) => s.name), ['pay', 'create', 'mixed', 'retries']);
  for (const s of http.scenarios) {
    for (const [target, run] of [['tokengate', s.tokengate], ['ceiling', s.ceiling], ['floor', s.floor]] as const) {
      const where = `${s.name} on ${target}`;
      t.ok(finite(run.rps) && run.rps > 0, `${where}: req/s ${run.rps}`);
      t.ok(run.requests > 0, `${where}: requests`);
      for (const p of ['p50', 'p97_5', 'p99', 'average', 'max'] as const) t.ok(finite(run.latencyMs[p]), `${where}: latency ${p}`);
      t.equal(run.errors, 0, `${where}: no errors`);
      t.equal(run.timeouts, 0, `${where}: no timeouts`);
      // tokengate may shed load (503 SERVER_BUSY) when the machine stalls it; nothing else.
      const other = Object.keys(run.statusCodes).filter((code) => !code.startsWith('2') && !(target === 'tokengate' && code === '503'));
      t.same(other, [], `${where}: only 2xx${target === 'tokengate' ? ' (or 503)' : ''}`);
      t.ok(finite(run.cpuUsPerRequest) && (run.cpuUsPerRequest ?? 0) > 0, `${where}: the server's CPU per response ${run.cpuUsPerRequest} µs`);
      t.ok(finite(run.loadGenUsPerRequest) && (run.loadGenUsPerRequest ?? 0) > 0, `${where}: the load generator's CPU per response ${run.loadGenUsPerRequest} µs`);
    }
    t.ok(finite(s.ratio) && s.ratio > 0, `${s.name}: ratio to the ceiling`);
    t.ok(finite(s.floorRatio) && s.floorRatio > 0, `${s.name}: ratio to the floor ${s.floorRatio}`);
    t.equal(s.floorRatio, Math.round((s.tokengate.rps / s.floor.rps) * 1000) / 1000, `${s.name}: the floor ratio is tokengate's req/s ÷ the floor's`);
    t.ok(s.tokengate.peakRssMB > 0, `${s.name}: RSS of tokengate sampled`);
  }
  t.equal(http.tokengateExitCode, 0, 'tokengate stopped cleanly');
  t.ok(http.durability.ok, 'every acknowledged payment and token is in the store');
  t.equal(http.durability.payments.missing, 0);
  t.equal(http.durability.retries.seedOrderEvents, 1, 'identical retries recorded nothing');
  t.equal(http.durability.retries.bodyMismatches, 0, 'identical retries answered the recorded body');
  t.ok(http.durability.payments.recorded >= http.durability.payments.acknowledged);
  const floor = http.floorDurability;
  t.ok(floor.ok, 'every payment and token the floor acknowledged is in its file');
  t.ok(floor.payments.acknowledged > 1 && floor.tokens.acknowledged > 0, 'the floor recorded pays and tokens');
  t.equal(floor.retries.bodyMismatches, 0, "the floor's retries answered its recorded body");

  const replay = written.replay;
  if (!replay) throw new Error('no replay result');
  t.equal(replay.events, 2000);
  t.ok(replay.rebuild.eventsPerSecond > 0, `rebuild ${replay.rebuild.eventsPerSecond} events/s`);
  t.equal(replay.rebuild.runs.length, 2, 'two rebuilds, each in its own process');
  t.ok(replay.rebuild.runs.includes(replay.rebuild.eventsPerSecond), 'the reported one is one of the runs (the median, by time)');
  t.ok(replay.rebuild.rssMB > 0);
  // The orders model ('onRead') is not replayed by rebuild(): its first read builds it, timed apart.
  const orders = replay.rebuild.ordersOnRead;
  t.ok(finite(orders.eventsPerSecond) && orders.eventsPerSecond > 0, `orders built by its first read ${orders.eventsPerSecond} events/s`);
  t.ok(finite(orders.seconds) && orders.seconds >= 0, 'the orders read timed');
  t.equal(orders.runs.length, 2, 'the orders read timed in each rebuild process');
  t.ok(orders.runs.every((r) => finite(r) && r > 0), 'every orders read timed');
  t.ok(orders.hwmMB > 0, 'memory after the orders read');
  t.ok(replay.startup.warmMs > 0 && finite(replay.startup.coldMs), 'start-up times');
  t.ok(replay.size.bytesPerEvent > 0);
  t.same(written.targets.map((target) => target.name), [
    'pay, throughput', 'create token, throughput', 'identical retries, throughput', 'pay, latency', 'rebuild', 'memory', 'durability',
  ]);
  t.ok(written.targets.every((target) => target.met !== null), 'every target measured');
  const payTarget = written.targets[0];
  t.equal(payTarget?.met, (http.scenarios[0]?.floorRatio ?? 0) >= 0.6, 'pay is met at 0.6× the floor');
  t.match(payTarget?.target, /0\.6× the durable floor/);
});
