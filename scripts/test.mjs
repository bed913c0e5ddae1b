// `npm test` and `npm run test:long`: compile the gateway into a folder of this run's own, check
// the types, then run tap on the suite's files with that folder in TOKENGATE_DIST.
//
//   node scripts/test.mjs [--long | --all] [tap options] [test files]
//
// The folder (.test-build-XXXXXX at the project's top, where PROJECT_ROOT finds config/ and web/
// and node finds node_modules/) is what the end-to-end tests, the CLI tests, the benchmark driver
// and the crash test run (test/helpers/build.ts): an `npm start` or `npm run build` in the same
// checkout rewrites dist/ and never it, and two runs at once each have their own. It is removed
// at the end; one left by a run that was killed is removed by the next run.
//
// The files: `npm test` runs every file that runs in its one process (the domain, the store
// contracts on memory and SQLite, the projections, every operation through inject, the fitness
// checks, the benchmark's arithmetic); `--long` the ones that start processes or servers, or run
// long on purpose (LONG below: the end-to-end tests, the CLI, the compose files, PostgreSQL, the
// bounded fuzzing, the benchmark driver, the linter); `--all` both; files named on the command
// line instead of either, whichever list they are in.
//
// Each file's time limit is tap's --timeout: 300 s, times the machine's slowdown (the load per
// core when the run starts, 1 to 4, or TOKENGATE_TEST_SLOWDOWN): a limit that catches a hang, not
// a slow machine. Budgets inside the tests scale the same way (test/helpers/slowdown.ts).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(import.meta.url);

/**
 * The files (or folders) `--long` runs and `npm test` leaves out: each starts a process or a server
 * of its own, or runs long on purpose. `npm test` keeps what runs inside its one node process,
 * with nothing installed beyond the packages, so that it stays within minutes on 2 cores.
 */
const LONG = [
  // The gateway, its workers and the CLI as a user runs them (processes, SIGKILL, restarts, Chromium).
  'test/e2e/',
  'test/cli/',
  'test/deploy/',
  'test/http/limits.test.ts',
  'test/store/open-together.test.ts',
  // A throwaway PostgreSQL server per file (initdb, pg_ctl: seconds of CPU before the first test).
  'test/store/postgres.test.ts',
  'test/store/postgres-keys.test.ts',
  'test/store/postgres-restart.test.ts',
  'test/store/postgres-memory.test.ts',
  'test/store/postgres-batches.test.ts',
  'test/store/kurrentdb-keys.test.ts',
  'test/services/postgres-reactors.test.ts',
  'test/services/postgres-shared-keys.test.ts',
  'test/projections/postgres-after-reply.test.ts',
  'test/projections/postgres-read-models.test.ts',
  'test/projections/postgres-doc-cache.test.ts',
  'test/projections/postgres-head-reads.test.ts',
  'test/projections/postgres-read-your-writes.test.ts',
  'test/projections/postgres-pay-condition.test.ts',
  'test/projections/postgres-order-api-condition.test.ts',
  'test/projections/postgres-order-own-stream.test.ts',
  'test/http/request-values-postgres.test.ts',
  'test/http/guess-refusal-instances-postgres.test.ts',
  // Long on purpose: bounded fuzzing, thousands of dropped connections, the benchmark driver,
  // and the linter, whose type-aware rules type-check the whole product first.
  'test/fuzz/',
  'test/http/dropped-connections.test.ts',
  'test/bench/driver.test.ts',
  'test/bench/driver-stores.test.ts',
  'test/bench/driver-growth.test.ts',
  'test/bench/growth-fill.test.ts',
  'test/bench/journal.test.ts',
  'test/fitness/lint.test.ts',
];
const BUILD_PREFIX = '.test-build-';

function testFiles(dir) {
  const found = [];
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found.sort();
}

const isLong = (file) => LONG.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry));

/** The slowdown: TOKENGATE_TEST_SLOWDOWN when set, else the 1-minute load per core, between 1 and 4. */
function slowdown() {
  const set = Number(process.env.TOKENGATE_TEST_SLOWDOWN);
  const load = loadavg()[0] / Math.max(1, cpus().length);
  return Math.max(Number.isFinite(set) && set > 0 ? set : 1, Math.min(4, Math.max(1, load)));
}

const alive = (pid) => {
  try { process.kill(pid, 0); return true; } catch (error) { return error.code === 'EPERM'; }
};

/** Build folders of runs whose process is gone (killed before they could remove theirs). */
function removeStaleBuilds() {
  for (const name of readdirSync(ROOT)) {
    if (!name.startsWith(BUILD_PREFIX)) continue;
    const dir = join(ROOT, name);
    let owner = Number.NaN;
    try { owner = Number(readFileSync(join(dir, '.owner'), 'utf8')); } catch { /* no owner file: a run that died while starting */ }
    const age = Date.now() - statSync(dir).mtimeMs;
    if (Number.isInteger(owner) ? !alive(owner) : age > 10 * 60_000) rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `args` with node; resolves with its exit code (its output goes to ours). */
function run(args, env = process.env) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'inherit' });
  running.add(child);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => { running.delete(child); resolve(code ?? (signal ? 128 : 1)); });
  });
}
const running = new Set();

const argv = process.argv.slice(2);
const mode = argv.includes('--all') ? 'all' : argv.includes('--long') ? 'long' : 'main';
const rest = argv.filter((arg) => arg !== '--long' && arg !== '--all');
// Test files or folders named on the command line (anything else is an option for tap).
const named = rest.filter((arg) => !arg.startsWith('-') && existsSync(join(ROOT, arg)) && (arg.endsWith('.ts') || statSync(join(ROOT, arg)).isDirectory()));
const tapOptions = rest.filter((arg) => !named.includes(arg));
const all = testFiles('test');
const files = named.length > 0 ? named : all.filter((file) => (mode === 'all' ? true : mode === 'long' ? isLong(file) : !isLong(file)));

removeStaleBuilds();
const build = mkdtempSync(join(ROOT, BUILD_PREFIX));
writeFileSync(join(build, '.owner'), String(process.pid));
let cleaned = false;
const cleanUp = () => {
  if (cleaned) return;
  cleaned = true;
  rmSync(build, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    for (const child of running) child.kill(signal);
    cleanUp();
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
}

const tsc = require.resolve('typescript/bin/tsc');
const factor = slowdown();
const timeout = Math.round(300 * factor);
console.log(`# ${files.length} test files (${mode === 'main' && named.length === 0 ? 'npm test' : named.length > 0 ? 'named' : mode}); the gateway compiled into ${relative(ROOT, build)}/; each file's limit ${timeout} s (load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores)`);
// The build and the tests' type check at once: they are the same size, on a machine of 2 cores.
const [built, checked] = await Promise.all([
  run([tsc, '-p', 'tsconfig.json', '--outDir', build]),
  run([tsc, '-p', 'test/tsconfig.json']),
]);
let code = 1;
if (built !== 0 || checked !== 0) {
  console.error(`\n${built !== 0 ? 'the build (tsc -p tsconfig.json)' : 'the type check of the tests (tsc -p test/tsconfig.json)'} failed: no test was run`);
} else {
  const tap = join(dirname(require.resolve('tap/package.json')), 'dist', 'esm', 'run.mjs');
  code = await run([tap, `--timeout=${timeout}`, ...tapOptions, ...files], { ...process.env, TOKENGATE_DIST: build });
}
cleanUp();
process.exit(code);
