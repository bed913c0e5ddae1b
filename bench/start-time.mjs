#!/usr/bin/env node
// How long `npm start` takes from a built tree to the first answer of Check Gateway
// (GET /api/rest/version/100/information, 200 OPERATING), and, beside it, `node dist/server.js`.
// Each run starts the command in a fresh temporary folder's SQLite store on a free loopback port,
// polls Check Gateway every 10 ms, prints the time, and stops the run's process group.
//
//   npm run bench:start                  # builds once, then 5 runs of each
//   node bench/start-time.mjs --runs 3   # as it is (dist/ as built)
//
// Only 127.0.0.1; each run is bounded (60 s), the whole loop by --runs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const DEADLINE_MS = 60_000;
const runsFlag = process.argv.indexOf('--runs');
const runs = runsFlag > 0 ? Number(process.argv[runsFlag + 1]) : 5;
if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
  process.stderr.write('start-time: --runs takes a whole number from 1 to 50\n');
  process.exit(2);
}

async function freePort() {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  server.close();
  await once(server, 'close');
  return port;
}

async function operating(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/api/rest/version/100/information`, { signal: AbortSignal.timeout(1000) });
    return response.status === 200 && (await response.json()).status === 'OPERATING';
  } catch {
    return false;
  }
}

/** Milliseconds from spawning `command` to Check Gateway's first OPERATING answer. */
async function timeStart(command, args) {
  const dir = mkdtempSync(join(tmpdir(), 'tokengate-start-'));
  const port = await freePort();
  const env = { ...process.env, HOST: '127.0.0.1', PORT: String(port), EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, LOG_LEVEL: 'warn' };
  const started = performance.now();
  // Its own process group: npm's child (sh, then node) is stopped with it.
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let output = '';
  child.stderr.on('data', (chunk) => { output = (output + String(chunk)).slice(-4000); });
  try {
    while (performance.now() - started < DEADLINE_MS) {
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(' ')} exited (${child.exitCode}) before answering:\n${output}`);
      if (await operating(port)) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`${command} ${args.join(' ')}: no answer within ${DEADLINE_MS} ms:\n${output}`);
  } finally {
    const exited = child.exitCode === null ? once(child, 'exit') : Promise.resolve();
    try { process.kill(-child.pid, 'SIGTERM'); } catch { /* gone */ }
    const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 10_000);
    await exited;
    clearTimeout(timer);
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
for (const [name, command, args] of [['npm start', npm, ['start']], ['node dist/server.js', process.execPath, ['dist/server.js']]]) {
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await timeStart(command, args));
  process.stdout.write(`${name.padEnd(20)} to Check Gateway's first answer: median ${Math.round(median(times))} ms (${times.map((ms) => Math.round(ms)).join(', ')} ms)\n`);
}
