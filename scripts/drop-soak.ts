// Dropped connections for minutes (issue 19, defect 1: "a load test whose clients time out and
// reconnect, run for minutes, leaves the gateway answering every later request"). Starts the real
// server (dist/server.js) on a fresh SQLite file with a small MAX_IN_FLIGHT, then until the time is
// up: clients that send a pay or a create-token request and drop the connection (FIN or reset,
// whole or cut in the body), clients that time out after a few milliseconds and try again, and
// every 5 s a check that Check Gateway is OPERATING and each merchant's pay is answered 201.
//
// Usage: npm run soak -- [--seconds 120] [--max-in-flight 50] [--concurrency 100]
// Talks only to 127.0.0.1; every loop is bounded by the time limit. Exit status 1 on a failed check.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '120' }, 'max-in-flight': { type: 'string', default: '50' }, concurrency: { type: 'string', default: '100' } },
});
const seconds = Number(values.seconds);
const concurrency = Number(values.concurrency);

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
const server = spawn(process.execPath, [fileURLToPath(new URL('../server.js', import.meta.url))], {
  env: { ...process.env, HOST: '127.0.0.1', PORT: '0', EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), MAX_IN_FLIGHT: values['max-in-flight'] },
  stdio: ['ignore', 'pipe', 'inherit'],
});
let output = '';
server.stdout.on('data', (chunk) => { output += String(chunk); });
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
const raw = (method: string, path: string, authorization: string, body: string) =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${authorization}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`;

const counts = { dropped: 0, timedOut: 0, retriedAnswered: 0, checks: 0, failedChecks: 0 };
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
      const res = await fetch(url + path, { method: 'PUT', headers: { authorization: basic('', m.apiPassword), 'content-type': 'application/json' }, body: PAY, signal: AbortSignal.timeout(timeoutMs) });
      await res.text();
      if (timeoutMs > 100 && res.status === 201) counts.retriedAnswered++;
      return;
    } catch {
      counts.timedOut++;
    }
  }
}

async function check(): Promise<void> {
  counts.checks++;
  const info = await (await fetch(`${url}/api/rest/version/100/information`)).json() as { status: string };
  const pays = await Promise.all(MERCHANTS.map(async (m) => (await fetch(url + payPath(m), { method: 'PUT', headers: { authorization: basic('', m.apiPassword), 'content-type': 'application/json' }, body: PAY })).status));
  if (info.status !== 'OPERATING' || pays.some((s) => s !== 201)) {
    counts.failedChecks++;
    process.stderr.write(`check failed: status ${info.status}, pays ${pays.join(' ')}\n`);
  }
}

const deadline = Date.now() + seconds * 1000;
let nextCheck = Date.now() + 5000;
let i = 0;
while (Date.now() < deadline) {
  await Promise.all(Array.from({ length: concurrency }, () => client(i++)));
  if (Date.now() >= nextCheck) {
    await check();
    nextCheck = Date.now() + 5000;
    process.stdout.write(`${Math.round((deadline - Date.now()) / 1000)} s left: ${JSON.stringify(counts)}\n`);
  }
}
await new Promise((resolve) => setTimeout(resolve, 1000));
await check();
server.kill('SIGTERM');
await once(server, 'exit');
rmSync(dir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(counts)}\n${counts.failedChecks === 0 ? 'every check passed' : `${counts.failedChecks} checks failed`}\n`);
process.exit(counts.failedChecks === 0 ? 0 : 1);
