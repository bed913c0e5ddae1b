// The product keeps its shape (test/fitness/checker.ts): files of at most 300 lines, functions of
// at most 60, no import cycle, imports that follow the layers (docs/architecture.md), the store's
// caches used only in store/, append conflicts (a changed stream, a failed condition) caught only by the command handler and the store.
// Each rule is also run over a fixture tree that breaks it (test/fitness/fixtures/), so a check
// that stopped firing fails here too; `clean` keeps every rule at its limit and must pass.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { checkTree, format, repositoryRoot, type Rule, type Violation } from './checker.js';

interface Known {
  readonly file: string;
  readonly rule: Rule;
  readonly reason: string;
}

/**
 * Violations a branch in progress is removing (none today). An entry no longer violated fails the
 * test: take it out, so that this list only shrinks.
 */
const KNOWN: readonly Known[] = [];

const isKnown = (violation: Violation): boolean =>
  KNOWN.some((known) => known.file === violation.file && known.rule === violation.rule);

t.test('the product files follow every rule', async (t) => {
  const violations = checkTree(repositoryRoot);
  t.same(violations.filter((violation) => !isKnown(violation)).map(format), [], 'no violation outside the known list');
  const stale = KNOWN.filter((known) => !violations.some((v) => v.file === known.file && v.rule === known.rule));
  t.same(stale.map((known) => `${known.file} ${known.rule}`), [], 'every known violation is still one (remove those that are not)');
});

/** What each fixture tree must report, as `file:line rule`. */
const EXPECTED: Readonly<Record<string, readonly string[]>> = {
  clean: [],
  'file-lines': ['services/long.ts:1 file-lines', 'web/page.html:1 file-lines'],
  'function-lines': [
    'lib/forms.ts:2 function-lines',
    'lib/forms.ts:64 function-lines',
    'lib/methods.ts:3 function-lines',
    'lib/methods.ts:65 function-lines',
    'lib/methods.ts:128 function-lines',
  ],
  'import-cycle': ['domain/y.ts:2 import-cycle', 'services/c.ts:2 import-cycle'],
  layers: [
    'domain/rule.ts:2 layers',
    'domain/rule.ts:3 layers',
    'domain/rule.ts:4 layers',
    'domain/rule.ts:5 layers',
    'domain/rule.ts:6 layers',
    'plugins/plugin.ts:2 layers',
    'routes/route.ts:2 layers',
    'store/store.ts:2 layers',
  ],
  'store-cache': [
    'plugins/read.ts:2 store-cache-outside-store',
    'services/pay.ts:2 store-cache-outside-store',
    'services/pay.ts:3 store-cache-outside-store',
  ],
  conflict: [
    'services/notification/notifier.ts:2 conflict-caught-outside-handler',
    'services/notification/notifier.ts:8 conflict-caught-outside-handler',
    'services/order/pay.ts:2 conflict-caught-outside-handler',
    'services/order/pay.ts:8 conflict-caught-outside-handler',
  ],
};

const FIXTURES = join(repositoryRoot, 'test', 'fitness', 'fixtures');

t.test('each rule reports its fixture tree, file and line', async (t) => {
  t.same(readdirSync(FIXTURES).sort(), Object.keys(EXPECTED).sort(), 'one expectation per fixture tree');
  for (const [name, expected] of Object.entries(EXPECTED)) {
    const found = checkTree(join(FIXTURES, name)).map((v) => `${v.file}:${v.line} ${v.rule}`).sort();
    t.same(found, [...expected].sort(), name);
  }
});

t.test('a violation names the file, the line and the rule', async (t) => {
  const [cycle] = checkTree(join(FIXTURES, 'import-cycle')).filter((v) => v.file === 'services/c.ts');
  t.equal(cycle && format(cycle), 'services/c.ts:2 import-cycle: import cycle: services/a.ts → services/b.ts → services/c.ts → services/a.ts');
  const [long] = checkTree(join(FIXTURES, 'function-lines')).filter((v) => v.line === 64);
  t.equal(long && format(long), 'lib/forms.ts:64 function-lines: arrow is 61 lines (at most 60)');
});
