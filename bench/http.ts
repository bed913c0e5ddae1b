// HTTP scenarios: tokengate (the real dist/server.js on a fresh SQLite store) against the ceiling
// (bench/ceiling.mjs: bare Fastify, canned bodies of the same size), with autocannon as a library.
// The load generator keeps a ledger of what tokengate acknowledged, checked against the SQLite
// file once the server has stopped ("every acknowledged event durable").
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { memoryOf, memorySampler, round, sleep, startChild, waitListening, type Child } from './lib.js';
import { monotonicUs, type Window } from './profile.js';

export const SCENARIOS = ['pay', 'create', 'mixed', 'retries'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const DESCRIPTIONS: Record<ScenarioName, string> = {
  pay: 'PUT pay with token, a fresh order id per request, tokens from a pool',
  create: 'POST create token (RANDOM generation, a new token per request)',
  mixed: '1 create : 4 pays, in sequence on every connection',
  retries: 'the same pay request (same ids, same body) repeated: replayed, records nothing',
};

export interface HttpOptions {
  root: string;
  workDir: string;
  duration: number;
  connections: number;
  warmup: number;
  scenarios: readonly ScenarioName[];
  /** Directory for --cpu-prof of the tokengate process, when profiling. */
  profileDir: string | undefined;
  log: (line: string) => void;
}

export interface RunStats {
  /** 2xx responses per second (a 503 of load shedding is not throughput). */
  rps: number;
  /** All responses per second. */
  rpsAll: number;
  requests: number;
  durationSec: number;
  latencyMs: { p50: number; p97_5: number; p99: number; average: number; max: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

export interface ScenarioResult {
  name: ScenarioName;
  description: string;
  connections: number;
  tokengate: RunStats & { peakRssMB: number; hwmMB: number; window: Window };
  ceiling: RunStats;
  /** tokengate req/s divided by the ceiling's. */
  ratio: number;
}

export interface Durability {
  payments: { acknowledged: number; issued: number; recorded: number; missing: number; recordedUnacknowledged: number; ok: boolean };
  tokens: { acknowledged: number; issued: number; recorded: number; missing: number; recordedUnacknowledged: number; ok: boolean };
  retries: { seedOrderEvents: number; bodyMismatches: number; ok: boolean };
  /** PaymentRecorded events = 2xx pay responses (identical retries excluded), exactly. */
  exact: boolean;
  ok: boolean;
}

export interface HttpResult {
  scenarios: ScenarioResult[];
  durability: Durability;
  tokengateHwmMB: number;
  tokengateExitCode: number | null;
  profileFile: string | undefined;
}

const MERCHANT = {
  id: 'BENCHMERCHANT01',
  apiPassword: 'bench-api-password-0123456789abcdef',
  repository: { id: 'BENCHREPO01', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
};
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const PAY_HEADERS = { authorization: basic('', MERCHANT.apiPassword), 'content-type': 'application/json' };
const TOKEN_HEADERS = { authorization: basic(`merchant.${MERCHANT.id}`, MERCHANT.apiPassword), 'content-type': 'application/json' };
const PAY_BODY = JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' }, card: { securityCode: '100' } });
const TOKEN_BODY = JSON.stringify({ sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } });
const TOKEN_PATH = `/api/rest/version/100/merchant/${MERCHANT.id}/token`;
const payPath = (token: string, orderId: string) =>
  `/api/rest/version/3/merchant/${MERCHANT.id}/token/${token}/order/${orderId}/transaction/1`;
const POOL_SIZE = 20;

/** What the load generator saw of one target: issued requests and acknowledged ids. */
class Ledger {
  payIssued = 0;
  readonly paysAcked = new Set<string>();
  tokenIssued = 0;
  readonly tokensAcked = new Set<string>();
  retryMismatches = 0;
}

interface Context { orderId?: string }

class Workload {
  private nextOrder = 10_000_000_001;
  constructor(private readonly pool: readonly string[], private readonly seed: { orderId: string; token: string; body: string }) {}

  private pay(ledger: Ledger): autocannon.Request {
    return {
      method: 'PUT', path: payPath(this.pool[0] ?? '', '10000000000'), headers: PAY_HEADERS, body: PAY_BODY,
      setupRequest: (request, context) => {
        const orderId = String(this.nextOrder++);
        (context as Context).orderId = orderId;
        ledger.payIssued++;
        request.path = payPath(this.pool[Number(orderId) % this.pool.length] ?? '', orderId);
        return request;
      },
      onResponse: (status, _body, context) => {
        const orderId = (context as Context).orderId;
        if (status >= 200 && status < 300 && orderId) ledger.paysAcked.add(orderId);
      },
    };
  }

  private create(ledger: Ledger): autocannon.Request {
    return {
      method: 'POST', path: TOKEN_PATH, headers: TOKEN_HEADERS, body: TOKEN_BODY,
      setupRequest: (request) => { ledger.tokenIssued++; return request; },
      onResponse: (status, body) => {
        const token = /"token":"([0-9A-Za-z]+)"/.exec(body)?.[1];
        if (status >= 200 && status < 300 && token) ledger.tokensAcked.add(token);
      },
    };
  }

  private retry(ledger: Ledger): autocannon.Request {
    return {
      method: 'PUT', path: payPath(this.seed.token, this.seed.orderId), headers: PAY_HEADERS, body: PAY_BODY,
      onResponse: (status, body) => { if (status !== 201 || body !== this.seed.body) ledger.retryMismatches++; },
    };
  }

  requests(name: ScenarioName, ledger: Ledger): autocannon.Request[] {
    switch (name) {
      case 'pay': return [this.pay(ledger)];
      case 'create': return [this.create(ledger)];
      case 'mixed': return [this.create(ledger), this.pay(ledger), this.pay(ledger), this.pay(ledger), this.pay(ledger)];
      case 'retries': return [this.retry(ledger)];
    }
  }
}

async function fire(port: number, requests: autocannon.Request[], duration: number, connections: number): Promise<RunStats> {
  const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections, duration, requests, timeout: 10 });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = (stat as { count?: number }).count ?? 0;
  const durationSec = Number(result.duration) || duration;
  return {
    rps: round(result['2xx'] / durationSec, 1),
    rpsAll: round(result.requests.total / durationSec, 1),
    requests: result.requests.total,
    durationSec,
    latencyMs: {
      p50: result.latency.p50, p97_5: result.latency.p97_5, p99: result.latency.p99,
      average: round(result.latency.average, 2), max: result.latency.max,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
  };
}

/** One set-up request; a 503 (SERVER_BUSY: load shedding, e.g. just after start-up) is repeated, at most 20 times. */
async function call(port: number, method: string, path: string, headers: Record<string, string>, body: string) {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body });
    const text = await res.text();
    if (res.status !== 503 || attempt >= 20) return { status: res.status, text };
    await sleep(250);
  }
}

export async function runHttp(options: HttpOptions): Promise<HttpResult> {
  const { root, workDir, log } = options;
  mkdirSync(workDir, { recursive: true });
  const merchantsFile = join(workDir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify({ merchants: [MERCHANT] }));
  const dbPath = join(workDir, 'data', 'gateway.db');
  const profileArgs = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
  const children: Child[] = [];
  try {
    const tokengate = startChild([...profileArgs, join(root, 'dist', 'server.js')], {
      HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', EVENT_STORE: `sqlite:${dbPath}`, MERCHANTS_FILE: merchantsFile,
    }, workDir);
    children.push(tokengate);
    const tg = await waitListening(tokengate, 30_000);
    log(`tokengate pid ${tokengate.pid} on port ${tg.port} (store ${dbPath})`);

    // Set-up through the real API: a pool of tokens, and the payment the retries repeat.
    const ledger = new Ledger();
    const pool: string[] = [];
    let tokenSample = '';
    for (let i = 0; i < POOL_SIZE; i++) {
      const res = await call(tg.port, 'POST', TOKEN_PATH, TOKEN_HEADERS, TOKEN_BODY);
      const token = /"token":"([0-9A-Za-z]+)"/.exec(res.text)?.[1];
      if (res.status !== 201 || !token) throw new Error(`bench: token creation failed: ${res.status} ${res.text}`);
      pool.push(token);
      ledger.tokenIssued++;
      ledger.tokensAcked.add(token);
      tokenSample = res.text;
    }
    const seed = { orderId: '10000000000', token: pool[0] ?? '', body: '' };
    const paid = await call(tg.port, 'PUT', payPath(seed.token, seed.orderId), PAY_HEADERS, PAY_BODY);
    if (paid.status !== 201) throw new Error(`bench: the seed payment failed: ${paid.status} ${paid.text}`);
    seed.body = paid.text;
    ledger.payIssued++;
    ledger.paysAcked.add(seed.orderId);

    writeFileSync(join(workDir, 'pay-body.json'), paid.text);
    writeFileSync(join(workDir, 'token-body.json'), tokenSample);
    const ceiling = startChild([join(root, 'bench', 'ceiling.mjs')], {
      CEILING_PAY_BODY: join(workDir, 'pay-body.json'), CEILING_TOKEN_BODY: join(workDir, 'token-body.json'),
    }, workDir);
    children.push(ceiling);
    const cl = await waitListening(ceiling, 30_000);
    log(`ceiling pid ${ceiling.pid} on port ${cl.port}; bodies: pay ${paid.text.length} B, token ${tokenSample.length} B`);

    const workload = new Workload(pool, seed);
    const ceilingLedger = new Ledger();
    if (options.warmup > 0) {
      // Both routes, or only pay when profiling (so the profile holds no token creation).
      const warmup: ScenarioName = options.profileDir ? 'pay' : 'mixed';
      log(`warm-up: ${warmup} for ${options.warmup} s on each`);
      await fire(cl.port, workload.requests(warmup, ceilingLedger), options.warmup, options.connections);
      await fire(tg.port, workload.requests(warmup, ledger), options.warmup, options.connections);
    }

    const scenarios: ScenarioResult[] = [];
    for (const name of options.scenarios) {
      log(`${name}: ${options.duration} s × ${options.connections} connections, ceiling then tokengate`);
      const ceilingStats = await fire(cl.port, workload.requests(name, ceilingLedger), options.duration, options.connections);
      const sampler = memorySampler(tokengate.pid);
      const fromUs = monotonicUs();
      const stats = await fire(tg.port, workload.requests(name, ledger), options.duration, options.connections);
      const window = { fromUs, toUs: monotonicUs() };
      const memory = sampler.stop();
      if (tokengate.process.exitCode !== null || tokengate.process.signalCode !== null) {
        throw new Error(`bench: tokengate exited (${tokengate.process.exitCode ?? tokengate.process.signalCode}) during '${name}':\n${tokengate.output().slice(-4000)}`);
      }
      scenarios.push({
        name, description: DESCRIPTIONS[name], connections: options.connections,
        tokengate: { ...stats, ...memory, window }, ceiling: ceilingStats,
        ratio: ceilingStats.rps > 0 ? round(stats.rps / ceilingStats.rps, 3) : 0,
      });
    }

    const tokengateHwmMB = memoryOf(tokengate.pid)?.hwmMB ?? 0;
    await ceiling.stop();
    const tokengateExitCode = await tokengate.stop();
    log(`tokengate stopped (exit ${tokengateExitCode}); checking the store`);
    const durability = checkDurability(dbPath, ledger, seed.orderId);
    const profileFile = options.profileDir
      ? readdirSync(options.profileDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(options.profileDir ?? '', f))[0]
      : undefined;
    return { scenarios, durability, tokengateHwmMB, tokengateExitCode, profileFile };
  } finally {
    for (const child of children) await child.stop(5_000);
  }
}

/** After the server stopped: every acknowledged payment and token is in the file, and nothing more
 *  than what was sent (requests still in flight when a run ended may be recorded, unacknowledged). */
export function checkDurability(dbPath: string, ledger: Ledger, seedOrderId: string): Durability {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const streamsOf = (type: string) => db.prepare<[string], string>('SELECT stream FROM events WHERE type = ?').pluck().all(type);
    const orderPrefix = `order-${MERCHANT.id}-`;
    const tokenPrefix = `token-${MERCHANT.repository.id}-`;
    const paymentStreams = streamsOf('PaymentRecorded');
    const orders = new Set(paymentStreams.map((s) => s.slice(orderPrefix.length)));
    const tokens = new Set(streamsOf('TokenCreated').map((s) => s.slice(tokenPrefix.length)));
    const count = (acked: Set<string>, recorded: Set<string>) => [...acked].filter((id) => !recorded.has(id)).length;
    const payMissing = count(ledger.paysAcked, orders);
    const tokenMissing = count(ledger.tokensAcked, tokens);
    const seedOrderEvents = paymentStreams.filter((s) => s === orderPrefix + seedOrderId).length;
    const payments = {
      acknowledged: ledger.paysAcked.size, issued: ledger.payIssued, recorded: paymentStreams.length, missing: payMissing,
      recordedUnacknowledged: paymentStreams.length - (ledger.paysAcked.size - payMissing),
      ok: payMissing === 0 && paymentStreams.length <= ledger.payIssued && paymentStreams.length === orders.size,
    };
    const tokensResult = {
      acknowledged: ledger.tokensAcked.size, issued: ledger.tokenIssued, recorded: tokens.size, missing: tokenMissing,
      recordedUnacknowledged: tokens.size - (ledger.tokensAcked.size - tokenMissing),
      ok: tokenMissing === 0 && tokens.size <= ledger.tokenIssued,
    };
    const retries = { seedOrderEvents, bodyMismatches: ledger.retryMismatches, ok: seedOrderEvents === 1 && ledger.retryMismatches === 0 };
    return {
      payments, tokens: tokensResult, retries,
      exact: payments.recorded === payments.acknowledged && tokensResult.recorded === tokensResult.acknowledged,
      ok: payments.ok && tokensResult.ok && retries.ok,
    };
  } finally {
    db.close();
  }
}
