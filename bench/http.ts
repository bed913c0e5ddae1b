// HTTP scenarios: tokengate (the real dist/server.js on a fresh SQLite store) against the ceiling
// (bench/ceiling.mjs: bare Fastify, canned bodies of the same size) and the durable floor
// (bench/floor.mjs: the least a durable pay or create must do), with autocannon as a library.
// The load generator keeps a ledger of what tokengate acknowledged, checked against the SQLite
// file once the server has stopped ("every acknowledged event durable").
// With `prism`, a fourth target: Prism (@stoplight/prism-cli, through npx, not a dependency) mocking
// the OpenAPI document tokengate serves, on the same requests: the stateless mock to beat.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { buildDir, cpuMsOf, freePort, memoryOf, memorySampler, round, sleep, startChild, startCommand, waitListening, type Child } from './lib.js';
import { perfMapFile, recordPerf, type PerfRecording } from './perf.js';
import { monotonicUs, type Window } from './profile.js';
import { streams } from '../domain/events.js';

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
  /** Each scenario's duration cut into this many slices, the targets taking turns (sliceCount; default 1). */
  slices?: number;
  /** Directory for --cpu-prof of the tokengate process, when profiling. */
  profileDir: string | undefined;
  /** Directory for --cpu-prof of the floor's process (the cost budget, --budget). */
  floorProfileDir?: string | undefined;
  /**
   * Directory for `perf record` of tokengate and the floor during the scenarios (the cost budget
   * with perf, bench/perf.ts): both run with --perf-basic-prof.
   */
  perfDir?: string | undefined;
  /** Also measure Prism mocking tokengate's OpenAPI document (npx @stoplight/prism-cli). */
  prism?: boolean;
  log: (line: string) => void;
}

/** The npx package spec of Prism (major 5, current when this was written). */
export const PRISM_PACKAGE = '@stoplight/prism-cli@5';

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
  /** CPU time (user + system) of the load generator, this process, per 2xx response, in µs. */
  loadGenUsPerRequest?: number | undefined;
}

export interface ServerCpu {
  /** The server's CPU time (user + system, every thread, from /proc) per 2xx response, in µs: steadier than req/s on a VM whose speed moves. */
  cpuUsPerRequest: number | undefined;
}

export interface ScenarioResult {
  name: ScenarioName;
  description: string;
  connections: number;
  /** The slices each target's run was cut into (they took turns). */
  slices: number;
  tokengate: RunStats & ServerCpu & { peakRssMB: number; hwmMB: number; window: Window };
  ceiling: RunStats & ServerCpu;
  /** The durable floor (bench/floor.mjs) on the same requests; `window` for its profile. */
  floor: RunStats & ServerCpu & { window: Window };
  /** tokengate req/s divided by the ceiling's. */
  ratio: number;
  /** tokengate req/s divided by the floor's. */
  floorRatio: number;
  /** Prism on the same requests (with --prism). */
  prism?: RunStats;
  /** tokengate req/s divided by Prism's (2xx responses per second both; with --prism). */
  prismRatio?: number;
}

export interface PrismInfo {
  package: string;
  version: string | undefined;
  /** From spawning npx until Prism answered HTTP (includes npx's install on a first run). */
  startMs: number;
  /** The OpenAPI document it mocks, as tokengate served it. */
  documentBytes: number;
  /** One request of each route before the runs: what Prism answers to tokengate's requests (body
   *  cut at 600 characters, `bytes` its full length), and to a pay without credentials or with a
   *  body the schema rejects (tokengate: 401, 400). */
  probe: Record<'pay' | 'create' | 'payNoAuth' | 'payInvalid', { status: number; bytes: number; body: string }>;
  /** null: it ended on the signal. */
  exitCode: number | null;
}

export interface Durability {
  payments: { acknowledged: number; issued: number; recorded: number; missing: number; recordedUnacknowledged: number; ok: boolean };
  tokens: { acknowledged: number; issued: number; recorded: number; missing: number; recordedUnacknowledged: number; ok: boolean };
  retries: { seedOrderEvents: number; bodyMismatches: number; ok: boolean };
  /** PaymentRecorded events = 2xx pay responses (identical retries excluded), exactly. */
  exact: boolean;
  ok: boolean;
}

/** The floor's own ledger checked against its SQLite file after it stopped (it really records). */
export interface FloorDurability {
  payments: { acknowledged: number; recorded: number; missing: number };
  tokens: { acknowledged: number; recorded: number; missing: number };
  retries: { seedOrderEvents: number; bodyMismatches: number };
  ok: boolean;
}

export interface HttpResult {
  scenarios: ScenarioResult[];
  durability: Durability;
  floorDurability: FloorDurability;
  tokengateHwmMB: number;
  tokengateExitCode: number | null;
  profileFile: string | undefined;
  /** With --cpu-prof: every .cpuprofile each process wrote (its main thread's first, then its workers'). */
  profiles?: { tokengate: string[]; floor: string[] };
  /** With perfDir: each server's perf recording of the scenarios, and its process id (its V8 map file). */
  perf?: { tokengate: { file: string; pid: number }; floor: { file: string; pid: number } };
  prism?: PrismInfo;
}

export const MERCHANT = {
  id: 'BENCHMERCHANT01',
  apiPassword: 'bench-api-password-0123456789abcdef',
  repository: { id: 'BENCHREPO01', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
};
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
export const PAY_HEADERS = { authorization: basic('', MERCHANT.apiPassword), 'content-type': 'application/json' };
export const TOKEN_HEADERS = { authorization: basic(`merchant.${MERCHANT.id}`, MERCHANT.apiPassword), 'content-type': 'application/json' };
export const PAY_BODY = JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' }, card: { securityCode: '100' } });
export const TOKEN_BODY = JSON.stringify({ sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } });
export const TOKEN_PATH = `/api/rest/version/100/merchant/${MERCHANT.id}/token`;
export const payPath = (token: string, orderId: string) =>
  `/api/rest/version/3/merchant/${MERCHANT.id}/token/${token}/order/${orderId}/transaction/1`;
export const POOL_SIZE = 20;

/** One token of the bench's card, made through the API of the gateway on `port` (`where`: which one, for the error). */
export async function createToken(port: number, where = ''): Promise<{ token: string; text: string }> {
  const res = await call(port, 'POST', TOKEN_PATH, TOKEN_HEADERS, TOKEN_BODY);
  const token = /"token":"([0-9A-Za-z]+)"/.exec(res.text)?.[1];
  if (res.status !== 201 || !token) throw new Error(`bench: token creation failed${where ? ` on ${where}` : ''}: ${res.status} ${res.text}`);
  return { token, text: res.text };
}

/** What the load generator saw of one target: issued requests and acknowledged ids. */
export class Ledger {
  payIssued = 0;
  readonly paysAcked = new Set<string>();
  tokenIssued = 0;
  readonly tokensAcked = new Set<string>();
  retryMismatches = 0;
}

interface Context { orderId?: string }

export class Workload {
  private nextOrder: number;
  /** `firstOrder`: the first pay's order id (a later workload on the same store starts past the earlier one's). */
  constructor(private readonly pool: readonly string[], private readonly seed: { orderId: string; token: string; body: string }, firstOrder = 10_000_000_001) {
    this.nextOrder = firstOrder;
  }

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

/**
 * One slice of load on one server: autocannon's raw result (its latency histogram still encoded,
 * so that slices merge exactly: autocannon.aggregateResult), the load generator's CPU time over
 * it, and the server's (`pid`: from /proc; undefined without a pid or a reading).
 */
export interface Slice { url: string; raw: autocannon.Result; loadGenUs: number; serverCpuMs: number | undefined }

export async function fireSlice(port: number, requests: autocannon.Request[], duration: number, connections: number, pid?: number): Promise<Slice> {
  const serverFrom = pid === undefined ? undefined : cpuMsOf(pid);
  const cpuFrom = process.cpuUsage();
  const url = `http://127.0.0.1:${port}`;
  // autocannon ends a run at its first sample after `duration`, a sample a second by default: a
  // run shorter than a second (the tests' tiny runs) samples at its own length, else it lasts 1 s.
  const sampleInt = Math.min(1000, Math.max(1, Math.round(duration * 1000)));
  const raw = await autocannon({ url, connections, duration, requests, timeout: 10, skipAggregateResult: true, sampleInt } as autocannon.Options);
  const cpu = process.cpuUsage(cpuFrom);
  const serverTo = pid === undefined ? undefined : cpuMsOf(pid);
  return { url, raw, loadGenUs: cpu.user + cpu.system, serverCpuMs: serverFrom !== undefined && serverTo !== undefined ? serverTo - serverFrom : undefined };
}

/** Slices of one server as one run: counts and CPU summed, latency percentiles of every response of every slice. */
export function mergeSlices(slices: readonly Slice[], connections: number): RunStats & ServerCpu {
  const first = slices[0];
  if (first === undefined) throw new Error('bench: no slice to merge');
  // (autocannon's own merge of raw results; its type declarations do not list it.)
  const aggregate = (autocannon as unknown as { aggregateResult(results: autocannon.Result[], options: { url: string; connections: number }): autocannon.Result }).aggregateResult;
  // Its merge adds the later results' status counts into the first result's own objects: it is
  // given copies, so that merging the same slices again (or in another set) counts each once.
  const result = aggregate(slices.map((s) => ({ ...s.raw, statusCodeStats: structuredClone(s.raw.statusCodeStats) })), { url: first.url, connections });
  const raws = slices.map((s) => s.raw as autocannon.Result & { totalCompletedRequests: number; '2xx': number });
  const durationSec = raws.reduce((sum, r) => sum + (Number(r.duration) || 0), 0);
  const ok = raws.reduce((sum, r) => sum + r['2xx'], 0);
  const requests = raws.reduce((sum, r) => sum + r.totalCompletedRequests, 0);
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = (stat as { count?: number }).count ?? 0;
  const serverCpu = slices.every((s) => s.serverCpuMs !== undefined) ? slices.reduce((sum, s) => sum + (s.serverCpuMs ?? 0), 0) : undefined;
  return {
    rps: durationSec > 0 ? round(ok / durationSec, 1) : 0,
    rpsAll: durationSec > 0 ? round(requests / durationSec, 1) : 0,
    requests,
    durationSec: round(durationSec, 2),
    latencyMs: {
      p50: result.latency.p50, p97_5: result.latency.p97_5, p99: result.latency.p99,
      average: round(result.latency.average, 2), max: result.latency.max,
    },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    loadGenUsPerRequest: perResponse(slices.reduce((sum, s) => sum + s.loadGenUs, 0) / 1000, ok),
    cpuUsPerRequest: perResponse(serverCpu, ok),
  };
}

/** One run of `duration` seconds (one slice). */
export async function fire(port: number, requests: autocannon.Request[], duration: number, connections: number): Promise<RunStats> {
  const { cpuUsPerRequest: _none, ...stats } = mergeSlices([await fireSlice(port, requests, duration, connections)], connections);
  return stats;
}

/** CPU milliseconds per response, in µs (undefined without a measure or a response). */
export const perResponse = (cpuMs: number | undefined, responses: number) =>
  cpuMs !== undefined && responses > 0 ? round((cpuMs * 1000) / responses, 0) : undefined;

/**
 * How many slices a scenario's `duration` is cut into: `wanted`, but none shorter than a second.
 * The targets take turns slice by slice (issue 17): the VM's speed moves by a third within a minute,
 * and a target measured in one block after another's measured the VM as much as the server.
 */
export const sliceCount = (duration: number, wanted: number) => Math.max(1, Math.min(Math.round(wanted), Math.floor(duration)));

/** The pause before each slice of the floor or tokengate (ms), when a scenario is cut into slices. */
const SETTLE_MS = 300;

/** The spans a target was measured in, as one window (its first start to its last end, and each span). */
function windowOf(spans: readonly Window[]): Window {
  return { fromUs: spans[0]?.fromUs ?? 0, toUs: spans.at(-1)?.toUs ?? 0, ...(spans.length > 1 ? { spans } : {}) };
}

/** One set-up request; a 503 (SERVER_BUSY: load shedding, e.g. just after start-up) is repeated, at most 20 times. */
export async function call(port: number, method: string, path: string, headers: Record<string, string>, body: string) {
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
  // --perf-basic-prof: V8 writes the names of its compiled code where perf finds them (/tmp/perf-<pid>.map).
  // A server's sampling flags: perf's map file with perfDir, V8's profiles into `cpuProfDir` if given.
  const samplingArgs = (cpuProfDir: string | undefined) => [
    ...(options.perfDir ? ['--perf-basic-prof'] : []), ...(cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfDir}`] : []),
  ];
  const children: Child[] = [];
  const recordings: PerfRecording[] = [];
  let perf: HttpResult['perf'];
  let returned = false;
  try {
    const tokengate = startChild([...samplingArgs(options.profileDir), join(buildDir(root), 'server.js')], {
      HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn', EVENT_STORE: `sqlite:${dbPath}`, MERCHANTS_FILE: merchantsFile,
    }, workDir);
    children.push(tokengate);
    const tg = await waitListening(tokengate, 30_000);
    log(`tokengate pid ${tokengate.pid} on port ${tg.port} (store ${dbPath})`);

    // Set-up through the real API: a pool of tokens, and the payment the retries repeat.
    const ledger = new Ledger();
    const pool: string[] = [];
    let tokenSample = '';
    for (let i = 0; i < POOL_SIZE; i++) {
      const { token, text } = await createToken(tg.port);
      pool.push(token);
      ledger.tokenIssued++;
      ledger.tokensAcked.add(token);
      tokenSample = text;
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

    // The floor answers tokengate's captured bodies' shape with its own values; its own seed
    // payment is the one its retries repeat, and its own ledger is checked against its file.
    mkdirSync(join(workDir, 'floor'), { recursive: true });
    const floorDb = join(workDir, 'floor', 'floor.db');
    const floor = startChild([...samplingArgs(options.floorProfileDir), join(root, 'bench', 'floor.mjs')], {
      FLOOR_DB: floorDb, FLOOR_MERCHANTS_FILE: merchantsFile,
      FLOOR_PAY_BODY: join(workDir, 'pay-body.json'), FLOOR_TOKEN_BODY: join(workDir, 'token-body.json'),
    }, workDir);
    children.push(floor);
    const fl = await waitListening(floor, 30_000);
    const floorLedger = new Ledger();
    const floorSeed = { orderId: seed.orderId, token: seed.token, body: '' };
    const floorPaid = await call(fl.port, 'PUT', payPath(floorSeed.token, floorSeed.orderId), PAY_HEADERS, PAY_BODY);
    if (floorPaid.status !== 201) throw new Error(`bench: the floor's seed payment failed: ${floorPaid.status} ${floorPaid.text}`);
    floorSeed.body = floorPaid.text;
    floorLedger.payIssued++;
    floorLedger.paysAcked.add(floorSeed.orderId);
    log(`floor pid ${floor.pid} on port ${fl.port} (store ${floorDb}); its pay body ${floorPaid.text.length} B`);

    let prism: { child: Child; port: number; info: PrismInfo } | undefined;
    if (options.prism) {
      prism = await startPrism(tg.port, workDir, seed.token, log);
      children.push(prism.child);
    }

    const workload = new Workload(pool, seed);
    const floorWorkload = new Workload(pool, floorSeed);
    const ceilingLedger = new Ledger();
    if (options.warmup > 0) {
      // Both routes, or only pay when profiling tokengate's pay alone (--profile; the budget warms both).
      const warmup: ScenarioName = options.profileDir && !options.floorProfileDir ? 'pay' : 'mixed';
      log(`warm-up: ${warmup} for ${options.warmup} s on each`);
      await fire(cl.port, workload.requests(warmup, ceilingLedger), options.warmup, options.connections);
      await fire(fl.port, floorWorkload.requests(warmup, floorLedger), options.warmup, options.connections);
      await fire(tg.port, workload.requests(warmup, ledger), options.warmup, options.connections);
      if (prism) await fire(prism.port, workload.requests(warmup, new Ledger()), options.warmup, options.connections);
    }

    if (options.perfDir) {
      mkdirSync(options.perfDir, { recursive: true });
      perf = {
        tokengate: { file: join(options.perfDir, 'tokengate.perf.data'), pid: tokengate.pid },
        floor: { file: join(options.perfDir, 'floor.perf.data'), pid: floor.pid },
      };
      recordings.push(recordPerf(perf.tokengate.pid, perf.tokengate.file), recordPerf(perf.floor.pid, perf.floor.file));
      await sleep(500); // perf attached to every thread before the first slice
      log(`perf record: tokengate and the floor (${options.perfDir})`);
    }
    const scenarios: ScenarioResult[] = [];
    const slices = sliceCount(options.duration, options.slices ?? 1);
    const sliceSec = options.duration / slices;
    const exited = (child: Child, what: string, scenario: string) => {
      if (child.process.exitCode !== null || child.process.signalCode !== null) {
        throw new Error(`bench: ${what} exited (${child.process.exitCode ?? child.process.signalCode}) during '${scenario}':\n${child.output().slice(-4000)}`);
      }
    };
    for (const name of options.scenarios) {
      log(`${name}: ${options.duration} s × ${options.connections} connections on each of the ceiling, the floor and tokengate` +
        (slices > 1 ? `, in ${slices} slices of ${round(sliceSec, 2)} s taking turns` : '') + (prism ? '; then Prism' : ''));
      const taken = { ceiling: [] as Slice[], floor: [] as Slice[], tokengate: [] as Slice[] };
      const spans = { floor: [] as Window[], tokengate: [] as Window[] };
      const sampler = memorySampler(tokengate.pid);
      for (let slice = 0; slice < slices; slice++) {
        taken.ceiling.push(await fireSlice(cl.port, workload.requests(name, ceilingLedger), sliceSec, options.connections, ceiling.pid));
        // The floor and tokengate in turn, each first every other slice.
        for (const target of slice % 2 === 0 ? ['floor', 'tokengate'] as const : ['tokengate', 'floor'] as const) {
          // A pause first: the work a server does after its last answers (its WAL's sync and
          // checkpoint, its read models written after the reply) is not the next one's slice.
          if (slices > 1) await sleep(SETTLE_MS);
          const fromUs = monotonicUs();
          taken[target].push(target === 'floor'
            ? await fireSlice(fl.port, floorWorkload.requests(name, floorLedger), sliceSec, options.connections, floor.pid)
            : await fireSlice(tg.port, workload.requests(name, ledger), sliceSec, options.connections, tokengate.pid));
          spans[target].push({ fromUs, toUs: monotonicUs() });
          exited(target === 'floor' ? floor : tokengate, target === 'floor' ? 'the floor' : 'tokengate', name);
        }
      }
      const memory = sampler.stop();
      const ceilingStats = mergeSlices(taken.ceiling, options.connections);
      const floorStats = mergeSlices(taken.floor, options.connections);
      const stats = mergeSlices(taken.tokengate, options.connections);
      const window = windowOf(spans.tokengate);
      const floorWindow = windowOf(spans.floor);
      // Prism's own ledger: its answers acknowledge nothing that tokengate's store should hold.
      const prismStats = prism ? await fire(prism.port, workload.requests(name, new Ledger()), options.duration, options.connections) : undefined;
      if (prism && (prism.child.process.exitCode !== null || prism.child.process.signalCode !== null)) {
        throw new Error(`bench: Prism exited during '${name}':\n${prism.child.output().slice(-4000)}`);
      }
      scenarios.push({
        name, description: DESCRIPTIONS[name], connections: options.connections, slices,
        tokengate: { ...stats, ...memory, window }, ceiling: ceilingStats, floor: { ...floorStats, window: floorWindow },
        ratio: ceilingStats.rps > 0 ? round(stats.rps / ceilingStats.rps, 3) : 0,
        floorRatio: floorStats.rps > 0 ? round(stats.rps / floorStats.rps, 3) : 0,
        ...(prismStats ? { prism: prismStats, prismRatio: prismStats.rps > 0 ? round(stats.rps / prismStats.rps, 3) : 0 } : {}),
      });
    }

    const tokengateHwmMB = memoryOf(tokengate.pid)?.hwmMB ?? 0;
    for (const recording of recordings.splice(0)) await recording.stop();
    await ceiling.stop();
    const floorExit = await floor.stop();
    if (floorExit !== 0) throw new Error(`bench: the floor exited with ${floorExit}:\n${floor.output().slice(-4000)}`);
    const floorDurability = checkFloorDurability(floorDb, floorLedger, floorSeed.orderId);
    if (prism) {
      prism.info.exitCode = await prism.child.stop(5_000);
      log(`Prism stopped (exit ${prism.info.exitCode})`);
    }
    const tokengateExitCode = await tokengate.stop();
    log(`tokengate stopped (exit ${tokengateExitCode}); checking the store`);
    const durability = checkDurability(dbPath, ledger, seed.orderId);
    const profiles = { tokengate: cpuProfiles(options.profileDir), floor: cpuProfiles(options.floorProfileDir) };
    returned = true;
    return {
      scenarios, durability, floorDurability, tokengateHwmMB, tokengateExitCode, profileFile: profiles.tokengate[0],
      ...(options.profileDir || options.floorProfileDir ? { profiles } : {}), ...(prism ? { prism: prism.info } : {}),
      ...(perf ? { perf } : {}),
    };
  } finally {
    for (const recording of recordings) await recording.stop();
    for (const child of children) await child.stop(5_000);
    // The map files V8 wrote for perf: read with the recordings when the run succeeded (bench/perf.ts removes them then).
    if (!returned && perf) for (const { pid } of [perf.tokengate, perf.floor]) rmSync(perfMapFile(pid), { force: true });
  }
}

/**
 * The .cpuprofile files Node wrote in `dir` (one per thread: CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile),
 * the main thread's (thread id 0) first.
 */
function cpuProfiles(dir: string | undefined): string[] {
  if (!dir) return [];
  const threadOf = (f: string) => Number(f.split('.').at(-3) ?? 0);
  return readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort((a, b) => threadOf(a) - threadOf(b)).map((f) => join(dir, f));
}

const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/**
 * Prism mocking the OpenAPI document tokengate serves: the document written to the work folder,
 * `npx --yes @stoplight/prism-cli@5 mock` on a free loopback port (its own process group, so that
 * stopping it stops the server npx starts), ready once it answers HTTP (at most 180 s: npx may
 * have to install it first). Logs at warn, as tokengate runs in the bench (info logs every request).
 */
async function startPrism(tgPort: number, workDir: string, token: string, log: (line: string) => void) {
  const res = await fetch(`http://127.0.0.1:${tgPort}/openapi.json`);
  const document = await res.text();
  if (res.status !== 200) throw new Error(`bench: GET /openapi.json answered ${res.status}: ${document.slice(0, 500)}`);
  const file = join(workDir, 'openapi.json');
  writeFileSync(file, document);
  const port = await freePort();
  const started = performance.now();
  const child = startCommand(npx, ['--yes', PRISM_PACKAGE, 'mock', '-h', '127.0.0.1', '-p', String(port), '-v', 'warn', file], {}, workDir, true);
  try {
    const deadline = started + 180_000;
    for (;;) {
      if (child.process.exitCode !== null || child.process.signalCode !== null) {
        throw new Error(`bench: Prism exited (${child.process.exitCode ?? child.process.signalCode}) before listening:\n${child.output().slice(-4000)}`);
      }
      if (performance.now() > deadline) throw new Error(`bench: Prism did not listen within 180 s:\n${child.output().slice(-4000)}`);
      try {
        await (await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1_000) })).arrayBuffer();
        break;
      } catch {
        await sleep(100);
      }
    }
    const startMs = Math.round(performance.now() - started);
    const probe = async (method: string, path: string, headers: Record<string, string>, body: string) => {
      const r = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body });
      const text = await r.text();
      return { status: r.status, bytes: Buffer.byteLength(text), body: text.slice(0, 600) };
    };
    const { authorization: _dropped, ...noAuth } = PAY_HEADERS;
    const info: PrismInfo = {
      package: PRISM_PACKAGE, version: await prismVersion(workDir), startMs, documentBytes: document.length,
      probe: {
        pay: await probe('PUT', payPath(token, '10000000000'), PAY_HEADERS, PAY_BODY),
        create: await probe('POST', TOKEN_PATH, TOKEN_HEADERS, TOKEN_BODY),
        payNoAuth: await probe('PUT', payPath(token, '10000000000'), noAuth, PAY_BODY),
        payInvalid: await probe('PUT', payPath(token, '10000000000'), PAY_HEADERS, JSON.stringify({ apiOperation: 42 })),
      },
      exitCode: null,
    };
    log(`Prism ${info.version ?? '?'} (group ${child.pid}) on port ${port} after ${startMs} ms; ` +
      `probe: pay ${info.probe.pay.status} (${info.probe.pay.bytes} B), create ${info.probe.create.status} (${info.probe.create.bytes} B), ` +
      `no credentials ${info.probe.payNoAuth.status}, invalid body ${info.probe.payInvalid.status}`);
    return { child, port, info };
  } catch (error) {
    await child.stop(5_000);
    throw error;
  }
}

function prismVersion(cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(npx, ['--yes', PRISM_PACKAGE, '--version'], { cwd, timeout: 60_000 }, (error, stdout) =>
      resolve(error ? undefined : stdout.trim().split('\n').pop()?.trim() || undefined));
  });
}

/** After the server stopped: every acknowledged payment and token is in the file, and nothing more
 *  than what was sent (requests still in flight when a run ended may be recorded, unacknowledged). */
export function checkDurability(dbPath: string, ledger: Ledger, seedOrderId: string): Durability {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const streamsOf = (type: string) => db.prepare<[string], string>('SELECT stream FROM events WHERE type = ?').pluck().all(type);
    return durabilityOf(streamsOf('PaymentRecorded'), streamsOf('TokenCreated'), ledger, seedOrderId);
  } finally {
    db.close();
  }
}

/**
 * The durability check on what a store holds: the stream of every PaymentRecorded and every
 * TokenCreated event (one entry per event), against what the load generator saw acknowledged.
 */
export function durabilityOf(paymentStreams: readonly string[], tokenStreams: readonly string[], ledger: Ledger, seedOrderId: string): Durability {
  const orderPrefix = streams.order(MERCHANT.id, '');
  const tokenPrefix = streams.token(MERCHANT.repository.id, '');
  const orders = new Set(paymentStreams.map((s) => s.slice(orderPrefix.length)));
  const tokens = new Set(tokenStreams.map((s) => s.slice(tokenPrefix.length)));
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
}

/** After the floor stopped: every pay and token it acknowledged is a row of its file (floor.mjs's streams). */
export function checkFloorDurability(dbPath: string, ledger: Ledger, seedOrderId: string): FloorDurability {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const streamsOf = (type: string) => new Set(db.prepare<[string], string>('SELECT stream FROM events WHERE type = ?').pluck().all(type));
    const orders = streamsOf('PaymentRecorded');
    const tokens = streamsOf('TokenCreated');
    const orderStream = (orderId: string) => `order-${MERCHANT.id}-${orderId}/1`;
    const payMissing = [...ledger.paysAcked].filter((id) => !orders.has(orderStream(id))).length;
    const tokenMissing = [...ledger.tokensAcked].filter((token) => !tokens.has(`token-${MERCHANT.repository.id}-${token}`)).length;
    const seedOrderEvents = orders.has(orderStream(seedOrderId)) ? 1 : 0;
    return {
      payments: { acknowledged: ledger.paysAcked.size, recorded: orders.size, missing: payMissing },
      tokens: { acknowledged: ledger.tokensAcked.size, recorded: tokens.size, missing: tokenMissing },
      retries: { seedOrderEvents, bodyMismatches: ledger.retryMismatches },
      ok: payMissing === 0 && tokenMissing === 0 && seedOrderEvents === 1 && ledger.retryMismatches === 0 &&
        orders.size <= ledger.payIssued && tokens.size <= ledger.tokenIssued,
    };
  } finally {
    db.close();
  }
}
