// The linter (eslint.config.js: typescript-eslint, a few rules that catch bugs tsc lets through)
// reports nothing in the product's sources, tests, benchmarks and scripts, but for a list of known
// reports in files that other branches are restructuring: an entry no longer reported fails, so
// the list only shrinks.
import { ESLint } from 'eslint';
import t from 'tap';
import { repositoryRoot } from './checker.js';
import { budget } from '../helpers/slowdown.js';

// The type-aware rules type-check the product, the tests, the benchmarks and the scripts first
// (a program for each tsconfig.json): tens of seconds alone, minutes on a busy machine, so the
// bound scales with the load. No --cache: a file's cached result would survive a change to the
// types it uses in another file.
t.setTimeout(budget(600_000));

interface Known {
  readonly file: string;
  readonly rule: string;
  readonly reason: string;
}

const KNOWN: readonly Known[] = [];

t.test('eslint reports nothing outside the known list', async (t) => {
  const eslint = new ESLint({ cwd: repositoryRoot });
  const results = await eslint.lintFiles(['.']);
  t.ok(results.length > 100, `${results.length} files linted`);
  const reports = results.flatMap((result) =>
    result.messages.map((message) => ({
      file: result.filePath.slice(repositoryRoot.length + 1),
      rule: message.ruleId ?? 'eslint',
      text: `${result.filePath.slice(repositoryRoot.length + 1)}:${message.line} ${message.ruleId ?? 'eslint'}: ${message.message}`,
    })),
  );
  const isKnown = (report: { file: string; rule: string }): boolean => KNOWN.some((known) => known.file === report.file && known.rule === report.rule);
  t.same(reports.filter((report) => !isKnown(report)).map((report) => report.text), [], 'no report outside the known list');
  const stale = KNOWN.filter((known) => !reports.some((report) => report.file === known.file && report.rule === known.rule));
  t.same(stale.map((known) => `${known.file} ${known.rule}`), [], 'every known report is still made (remove those that are not)');
});

t.test('the tests, benchmarks and scripts are linted with the rules that catch a promise nobody awaits', async (t) => {
  const eslint = new ESLint({ cwd: repositoryRoot });
  for (const file of ['test/fitness/lint.test.ts', 'test/helpers/app.ts', 'bench/run.ts', 'scripts/crash-test.ts']) {
    const config = (await eslint.calculateConfigForFile(file)) as { rules?: Record<string, unknown> } | undefined;
    for (const rule of ['@typescript-eslint/no-floating-promises', '@typescript-eslint/await-thenable', '@typescript-eslint/no-misused-promises']) {
      t.match(config?.rules?.[rule], [2], `${file}: ${rule} is an error`);
    }
  }
  const script = (await eslint.calculateConfigForFile('scripts/test.mjs')) as { rules?: Record<string, unknown> } | undefined;
  t.match(script?.rules?.['@typescript-eslint/no-unused-vars'], [2], 'scripts/test.mjs: the rules that need no types');
});
