// The journal's bench (bench/journal.ts) works (not how fast anything is): a tiny run of the pay
// scenario on the floor and on tokengate with and without the journal gives a complete result,
// and the run checks that the one journal holds the pays and the other none.
// Needs dist/ (npm test builds it first); the script itself runs from source.
import { existsSync, readFileSync } from 'node:fs';
import t from 'tap';
import { parseJournalArgs, runJournalBench } from '../../bench/journal.js';

t.test('a tiny run: the three servers measured, the ratios given, the result written', async (t) => {
  const out = t.testdir({});
  const options = parseJournalArgs(['--duration', '2', '--slices', '2', '--connections', '4', '--warmup', '0.5', '--out', out, '--silent']);
  t.same(options, { duration: 2, slices: 2, connections: 4, warmup: 0.5, out, silent: true });
  const result = await runJournalBench(options);
  t.ok(existsSync(result.file), 'the JSON result is written');
  t.same(JSON.parse(readFileSync(result.file, 'utf8')).onOff, result.onOff);
  for (const target of ['floor', 'journal on', 'journal off'] as const) {
    const run = result.stats[target];
    t.ok(run.rps > 0 && run.requests > 0, `${target}: req/s ${run.rps}`);
    t.ok((run.cpuUsPerRequest ?? 0) > 0, `${target}: CPU per pay ${run.cpuUsPerRequest} µs`);
    t.equal(run.errors, 0, `${target}: no errors`);
  }
  for (const ratio of [result.onFloor, result.offFloor, result.onOff, result.cpuOnOff]) t.ok(Number.isFinite(ratio) && ratio > 0, `a ratio: ${ratio}`);
  t.throws(() => parseJournalArgs(['--duration', 'soon']), /--duration 'soon'/);
});
