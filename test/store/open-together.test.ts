// Processes that open the same new SQLite file at the same moment (two gateways started together
// on a fresh store) all open it: SQLite refuses one of two simultaneous switches to WAL at once,
// without its busy timeout, and openDatabase tries that one again. The first test pins the retry
// with a connection that answers SQLITE_BUSY on purpose; the second races real processes (before
// the fix it failed in each of 3 runs: 2 of 24 opens refused) and uses the test run's build
// (test/helpers/build.ts).
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { enableWal } from '../../store/sqlite.js';
import { builtModule } from '../helpers/build.js';

const STORE = builtModule('store/sqlite.js');
const CHILD = `
import { existsSync } from 'node:fs';
const { openDatabase } = await import(process.argv[1]);
const go = process.argv[3];
console.log('ready');
while (!existsSync(go)) { /* every child opens the moment the parent creates the go file */ }
try {
  const db = openDatabase(process.argv[2]);
  db.exec('CREATE TABLE IF NOT EXISTS opened (pid INTEGER)');
  db.prepare('INSERT INTO opened VALUES (?)').run(process.pid);
  db.close();
} catch (error) {
  console.error(error.code, error.message);
  process.exit(1);
}`;

/** Start `count` children on `file`; once all are ready, create the go file; their exit codes and errors. */
async function openTogether(file: string, go: string, count: number) {
  let ready = 0;
  let allReady: () => void = () => {};
  const readyAll = new Promise<void>((resolve) => { allReady = resolve; });
  const runs = Array.from({ length: count }, () => new Promise<{ code: number | null; stderr: string }>((resolve) => {
    // Plain Node (without the test runner's loaders in NODE_OPTIONS).
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, STORE, file, go], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } });
    let stderr = '';
    child.stdout.once('data', () => { ready += 1; if (ready === count) allReady(); });
    child.stderr.on('data', (chunk) => { stderr += String(chunk); });
    child.once('exit', (code) => {
      if (code !== 0 && ready < count) allReady(); // never ready: do not wait for it
      resolve({ code, stderr });
    });
  }));
  await readyAll;
  writeFileSync(go, '');
  return Promise.all(runs);
}

t.test('a switch to WAL refused with SQLITE_BUSY is tried again; other errors, and a lock that never ends, are not hidden', async (t) => {
  const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  let calls = 0;
  enableWal({ pragma: ((source: string) => { calls += 1; if (calls < 3) throw busy(); t.equal(source, 'journal_mode = WAL'); return 'wal'; }) as never });
  t.equal(calls, 3, 'two refusals, then the switch');

  calls = 0;
  t.throws(() => enableWal({ pragma: (() => { calls += 1; throw Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }); }) as never }), { code: 'SQLITE_IOERR' });
  t.equal(calls, 1, 'another error at once');

  calls = 0;
  t.throws(() => enableWal({ pragma: (() => { calls += 1; throw busy(); }) as never }), { code: 'SQLITE_BUSY' });
  t.equal(calls, 100, 'a lock that never ends: 100 attempts, then the error');
});

t.test('four processes opening one new file at the same moment all open it, in WAL mode', async (t) => {
  const dir = t.testdir();
  for (let round = 1; round <= 6; round++) {
    const file = join(dir, `together-${round}.db`);
    const results = await openTogether(file, join(dir, `go-${round}`), 4);
    t.same(results.map((r) => r.code), [0, 0, 0, 0], `round ${round}: every process opened the file ${results.map((r) => r.stderr.trim()).filter(Boolean).join('; ')}`);
    const db = new Database(file, { readonly: true });
    t.equal(db.pragma('journal_mode', { simple: true }), 'wal', `round ${round}: WAL`);
    t.equal((db.prepare('SELECT COUNT(*) AS n FROM opened').get() as { n: number }).n, 4, `round ${round}: each wrote its row`);
    db.close();
  }
});
