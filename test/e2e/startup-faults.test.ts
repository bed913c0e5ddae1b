// A store that cannot be opened at start-up (a directory that is a file, a corrupt file, a
// KurrentDB nobody listens for) is one clear line on stderr and a non-zero exit: no stack trace,
// never "tokengate ready". Runs server.js of the test build.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { SERVER } from '../helpers/server.js';
import { budget } from '../helpers/slowdown.js';

const dir = mkdtempSync(join(tmpdir(), 'tokengate-startup-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Start the server and wait for it to exit (killed after 20 s: a server that started is a failure). */
async function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [SERVER], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => { stdout += String(chunk); });
  child.stderr.on('data', (chunk) => { stderr += String(chunk); });
  const timer = setTimeout(() => child.kill('SIGKILL'), budget(60_000));
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, stdout, stderr };
}

function expectOneLine(t: Test, run: Awaited<ReturnType<typeof start>>, reason: RegExp) {
  t.not(run.code, 0, 'exit code non-zero');
  t.not(run.code, null, 'it exits by itself');
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  t.equal(lines.length, 1, `one line on stderr: ${run.stderr}`);
  t.match(lines[0], /^tokengate: the event store .* cannot be opened: /, 'it names the store');
  t.match(lines[0], reason, 'and the reason');
  t.notMatch(run.stderr, /\n\s+at /, 'no stack trace');
  t.notMatch(run.stdout, /tokengate ready/, 'never "ready"');
}

t.test('a path component that is a file, not a directory', async (t) => {
  writeFileSync(join(dir, 'file-not-dir'), '');
  const run = await start({ EVENT_STORE: `sqlite:${join(dir, 'file-not-dir', 'gateway.db')}` });
  expectOneLine(t, run, /file-not-dir \(or a directory above it\) is not a directory/);
});

t.test('a directory the kernel will not make (under /proc): an error at once, not a hang', { skip: !existsSync('/proc/self') && 'no /proc here' }, async (t) => {
  const run = await start({ EVENT_STORE: 'sqlite:/proc/tokengate-nope/gateway.db' });
  expectOneLine(t, run, /the directory \/proc\/tokengate-nope cannot be made \(ENOENT\)/);
});

t.test('a corrupt event store file (random bytes)', async (t) => {
  const file = join(dir, 'corrupt.db');
  writeFileSync(file, randomBytes(8192));
  const run = await start({ EVENT_STORE: `sqlite:${file}` });
  expectOneLine(t, run, /file is not a database \(SQLITE_NOTADB\)/);
});

t.test('a corrupt key store file next to a good event store', async (t) => {
  mkdirSync(join(dir, 'keys'));
  writeFileSync(join(dir, 'keys', 'gateway.db.keys'), randomBytes(8192));
  const run = await start({ EVENT_STORE: `sqlite:${join(dir, 'keys', 'gateway.db')}` });
  expectOneLine(t, run, /SQLITE_NOTADB/);
});

t.test('a directory where the file should be', async (t) => {
  mkdirSync(join(dir, 'a-directory.db'));
  const run = await start({ EVENT_STORE: `sqlite:${join(dir, 'a-directory.db')}` });
  expectOneLine(t, run, /SQLITE_CANTOPEN/);
});

t.test('a KurrentDB nobody listens for', async (t) => {
  const run = await start({
    EVENT_STORE: 'kurrentdb://127.0.0.1:1?tls=false',
    READ_MODELS_FILE: join(dir, 'kurrent', 'read-models.db'),
    KEYS_FILE: join(dir, 'kurrent', 'keys.db'),
  });
  expectOneLine(t, run, /unavailable/i);
});
