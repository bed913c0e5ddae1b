// Dropped connections for minutes (issue 19, defect 1: "a load test whose clients time out and
// reconnect, run for minutes, leaves the gateway answering every later request"). Starts the real
// server (dist/server.js) on a fresh SQLite file with a small MAX_IN_FLIGHT, then until the time is
// up: clients that send a pay or a create-token request and drop the connection (FIN or reset,
// whole or cut in the body), clients that time out after a few milliseconds and try again, and
// every 5 s a check that Check Gateway is OPERATING and each merchant's pay is answered 201.
//
// With --postgres: on a PostgreSQL server of its own (scripts/postgres-server.ts; Debian's
// postgresql package) instead of SQLite, stopped every --outage-every seconds (fast, immediate,
// SIGKILL of the postmaster, in turn) and started again while the clients go on
// (scripts/postgres-outages.ts: Check Gateway SHUTDOWN and 503 SERVER_BUSY meanwhile, OPERATING
// and 201 after); --workers N runs the gateway with WORKERS=N. At the end every pay answered 201
// is retrieved (Retrieve Order), and the gateway's processes must never have died.
//
// Usage: npm run soak -- [--seconds 120] [--max-in-flight 50] [--concurrency 100]
//                        [--postgres [--workers 2] [--outage-every 20]]
// Talks only to 127.0.0.1; every loop is bounded by the time limit. Exit status 1 on a failed check.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startPostgres } from './postgres-server.js';
import { isServerBusy, outage, OUTAGE_MODES, type OutageResult } from './postgres-outages.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '120' }, 'max-in-flight': { type: 'string', default: '50' }, concurrency: { type: 'string', default: '100' },
    postgres: { type: 'boolean', default: false }, workers: { type: 'string', default: '1' }, 'outage-every': { type: 'string', default: '20' },
  },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);
const workers = Number(values.workers);
const outageEveryMs = Number(values['outage-every']) * 1000;

const repo = (id: string) => ({ id, tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' });
const MERCHANTS = [
  { id: 'TESTSOAK01', apiPassword: 'soak-password-merchant-01-0123456789', repository: repo('SOAK01') },
  { id: 'TESTSOAK02', apiPassword: 'soak-password-merchant-02-0123456789', repository: repo('SOAK02') },
];
type Merchant = (typeof MERCHANTS)[number];
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const PAY = JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } });
const CARD = JSON.stringify({ sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } });

const dir = mkdtempSync(join(tmpdir(), 'tokengate-soak-'));
writeFileSync(join(dir, 'merchants.json'), JSON.stringify({ merchants: MERCHANTS }));
const pg = values.postgres ? await startPostgres() : undefined;
const eventStore = pg ? await pg.createDatabase('soak') : `sqlite:${join(dir, 'gateway.db')}`;
const server = spawn(process.execPath, [fileURLToPath(new URL('../server.js', import.meta.url))], {
  env: {
    ...process.env, HOST: '127.0.0.1', PORT: '0', EVENT_STORE: eventStore, MERCHANTS_FILE: join(dir, 'merchants.json'), MAX_IN_FLIGHT: values['max-in-flight'],
    ...(workers > 1 ? { WORKERS: String(workers) } : {}),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
/** A process of the gateway died (the primary, or a worker the primary restarted). */
let died: string | undefined;
server.stdout.on('data', (chunk) => {
  // Kept only until the gateway listens (a soak's log is long); then only looked through.
  if (!/Server listening at/.test(output)) output += String(chunk);
  if (String(chunk).includes('worker exited unexpectedly')) died ??= 'a worker exited unexpectedly';
});
server.on('exit', (code, signal) => { died ??= `the gateway exited (${code ?? signal})`; });
const url = await new Promise<string>((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error(`the server did not start:\n${output}`)), 15_000);
  server.stdout.on('data', () => {
    const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
    if (match?.[1]) { clearTimeout(timer); resolve(match[1]); }
  });
});
const port = Number(new URL(url).port);

const tokens = new Map<string, string>();
for (const m of MERCHANTS) {
  const res = await fetch(`${url}/api/rest/version/100/merchant/${m.id}/token`, { method: 'POST', headers: { authorization: basic(`merchant.${m.id}`, m.apiPassword), 'content-type': 'application/json' }, body: CARD });
  tokens.set(m.id, (await res.json() as { token: string }).token);
}
let order = 40_000_000_000;
const payPath = (m: Merchant) => `/api/rest/version/3/merchant/${m.id}/token/${tokens.get(m.id)}/order/${order++}/transaction/1`;
/** Every pay answered 201 (merchant, order): each is retrieved at the end. */
const acknowledged: Array<[Merchant, string]> = [];
const orderOf = (path: string) => /\/order\/(\d+)\//.exec(path)![1]!;
/** A pay sent with fetch: its status and body, the 201s noted. */
async function pay(m: Merchant, path: string, signal?: AbortSignal): Promise<{ status: number; body: string }> {
  const res = await fetch(url + path, { method: 'PUT', headers: { authorization: basic('', m.apiPassword), 'content-type': 'application/json' }, body: PAY, ...(signal ? { signal } : {}) });
  const reply = { status: res.status, body: await res.text() };
  if (reply.status === 201) acknowledged.push([m, orderOf(path)]);
  else if (!isServerBusy(reply)) counts.unexpected.push(`${reply.status} ${reply.body.slice(0, 160)}`);
  return reply;
}
const raw = (method: string, path: string, authorization: string, body: string) =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${authorization}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`;

const counts = { dropped: 0, timedOut: 0, retriedAnswered: 0, busy: 0, refused: 0, checks: 0, failedChecks: 0, unexpected: [] as string[] };
const drop = (bytes: string, cut: number, reset: boolean) => new Promise<void>((resolve) => {
  const socket = connect(port, '127.0.0.1', () => socket.write(bytes.slice(0, cut), () => { if (reset) socket.resetAndDestroy(); else socket.destroy(); resolve(); }));
  socket.on('error', () => resolve());
});

async function client(i: number): Promise<void> {
  const m = MERCHANTS[i % 2]!;
  if (i % 3 !== 0) {
    const bytes = i % 5 === 0
      ? raw('POST', `/api/rest/version/100/merchant/${m.id}/token`, basic(`merchant.${m.id}`, m.apiPassword), CARD)
      : raw('PUT', payPath(m), basic('', m.apiPassword), PAY);
    await drop(bytes, i % 7 === 0 ? bytes.length - 10 : bytes.length, i % 2 === 0);
    counts.dropped++;
    return;
  }
  const path = payPath(m);
  for (const timeoutMs of [1 + (i % 5), 10_000]) {
    try {
      const { status } = await pay(m, path, AbortSignal.timeout(timeoutMs));
      if (timeoutMs > 100 && status === 201) counts.retriedAnswered++;
      if (status === 503) counts.busy++;
      return;
    } catch (error) {
      counts.timedOut++;
      // Not our own timeout: the gateway refused or dropped the connection.
      if ((error as Error).name !== 'TimeoutError') counts.refused++;
    }
  }
}

const pays = () => Promise.all(MERCHANTS.map((m) => pay(m, payPath(m)).catch((error: unknown) => ({ status: 0, body: String(error) }))));

async function check(): Promise<void> {
  counts.checks++;
  const info = await fetch(`${url}/api/rest/version/100/information`).then(async (res) => await res.json() as { status: string }, (error: unknown) => ({ status: String(error) }));
  const statuses = (await pays()).map((r) => r.status);
  if (info.status !== 'OPERATING' || statuses.some((s) => s !== 201) || died !== undefined) {
    counts.failedChecks++;
    process.stderr.write(`check failed: status ${info.status}, pays ${statuses.join(' ')}${died ? `, ${died}` : ''}\n`);
  }
}

/** PostgreSQL's outages, one at a time, while the clients go on (checks wait meanwhile). */
const outages: OutageResult[] = [];
let outageRunning: Promise<void> | undefined;
let nextOutage = Date.now() + outageEveryMs;
function maybeOutage(): void {
  if (!pg || outageRunning || Date.now() < nextOutage) return;
  const mode = OUTAGE_MODES[outages.length % OUTAGE_MODES.length]!;
  outageRunning = outage(pg, url, { pays }, mode, workers).then((result) => {
    outages.push(result);
    process.stdout.write(`PostgreSQL stopped (${mode}): SHUTDOWN and 503 seen after ${result.downSeenMs ?? 'never'} ms, serving again ${result.servingAgainMs ?? 'never'} ms after its start\n`);
    if (result.downSeenMs === undefined || result.servingAgainMs === undefined) counts.failedChecks++;
  }).finally(() => { outageRunning = undefined; nextOutage = Date.now() + outageEveryMs; });
}

const deadline = Date.now() + seconds * 1000;
let nextCheck = Date.now() + 5000;
let i = 0;
const summary = () => JSON.stringify({ ...counts, unexpected: counts.unexpected.length, acknowledged: acknowledged.length });
while (Date.now() < deadline && died === undefined) {
  await Promise.all(Array.from({ length: concurrency }, () => client(i++)));
  maybeOutage();
  if (Date.now() >= nextCheck && !outageRunning) {
    await check();
    nextCheck = Date.now() + 5000;
    process.stdout.write(`${Math.round((deadline - Date.now()) / 1000)} s left: ${summary()}\n`);
  }
}
await outageRunning;
await new Promise((resolve) => setTimeout(resolve, 1000));
await check();
if (died !== undefined) {
  await pg?.stop();
  process.stdout.write(`${summary()}\nthe soak stopped early: ${died}\n`);
  process.exit(1);
}
// Every pay answered 201 is there (after PostgreSQL's outages: nothing acknowledged lost).
let missing = 0;
for (const [m, id] of acknowledged) {
  const res = await fetch(`${url}/api/rest/version/3/merchant/${m.id}/order/${id}`, { headers: { authorization: basic('', m.apiPassword) } });
  await res.text();
  if (res.status !== 200) missing++;
}
if (missing > 0) { counts.failedChecks++; process.stderr.write(`${missing} of ${acknowledged.length} pays answered 201 are not retrieved\n`); }
if (counts.refused > 0 || counts.unexpected.length > 0) {
  counts.failedChecks++;
  process.stderr.write(`${counts.refused} connections refused or dropped by the gateway; ${counts.unexpected.length} answers neither 201 nor 503 SERVER_BUSY${counts.unexpected[0] ? `, the first: ${counts.unexpected[0]}` : ''}\n`);
}
server.kill('SIGTERM');
const [exitCode] = (await once(server, 'exit')) as [number | null];
if (exitCode !== 0) counts.failedChecks++;
await pg?.stop();
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${summary()}\n${pg ? `${outages.length} PostgreSQL outages; ` : ''}${acknowledged.length} pays answered 201, ${missing} not retrieved; gateway exit code ${exitCode}\n` +
  `${counts.failedChecks === 0 ? 'every check passed' : `${counts.failedChecks} checks failed`}\n`);
process.exit(counts.failedChecks === 0 ? 0 : 1);
