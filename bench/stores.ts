// The stores compared (`npm run bench -- --store postgres`): tokengate on SQLite and on PostgreSQL,
// each with 1 and 2 worker processes (WORKERS, cluster.ts); two independent tokengate processes on
// PostgreSQL (WORKERS=1 each, each its own database, loaded at the same time with half the
// connections each: they share nothing but the cores and the server, the most any 2-worker design
// reaches here); and two durable floors on PostgreSQL (bench/floor.mjs with
// bench/floor-postgres.mjs: one transaction per pay, and group commit), all started at once, each
// in its own process, measured on the same scenarios slice by slice, the targets taking turns (the
// VM's speed moves within a minute: a ratio is only good between runs made side by side).
// PostgreSQL is a throwaway server from the machine's packages
// (scripts/postgres-server.ts, as the tests start it: fsync on), a database per target, stopped and
// removed at the end. What else ran on the machine meanwhile is measured too (/proc/stat: its CPU
// outside the bench's processes). After the runs each target is stopped and its store checked: every
// acknowledged payment and token recorded, the repeated payment once.
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  call, checkDurability, createToken, durabilityOf, fire, fireSlice, Ledger, mergeSlices, MERCHANT, PAY_BODY, PAY_HEADERS, payPath, perResponse, POOL_SIZE,
  sliceCount, Workload, type Durability, type FloorDurability, type RunStats, type ScenarioName, type Slice,
} from './http.js';
import { BenchError, buildDir, round, sleep, startChild, treeCpuDelta, treeCpuMsOf, waitListening, type Child } from './lib.js';
import { postgresBinaries, startPostgres, type RunningPostgres } from '../scripts/postgres-server.js';

export const STORES = ['sqlite', 'postgres'] as const;
export type StoreName = (typeof STORES)[number];
export const WORKER_COUNTS = [1, 2] as const;
/** Independent WORKERS=1 processes on PostgreSQL measured as one target, beside WORKERS=2. */
export const INDEPENDENT = 2;
/** The PostgreSQL floors: one transaction per append, and the appends of a turn in one (bench/floor-postgres.mjs). */
export const FLOOR_MODES = ['naive', 'group'] as const;
export type FloorMode = (typeof FLOOR_MODES)[number];

export interface StoresOptions {
  root: string;
  workDir: string;
  duration: number;
  connections: number;
  warmup: number;
  scenarios: readonly ScenarioName[];
  /** Each scenario's seconds cut into this many slices, the targets taking turns (http.ts sliceCount). */
  slices?: number;
  log: (line: string) => void;
}

export interface StoreRun extends RunStats {
  /** CPU of the target's processes (a gateway's primary and workers; a floor), µs per 2xx response. */
  cpuUsPerRequest: number | undefined;
  /** CPU of the PostgreSQL server (postmaster and backends), µs per 2xx response; PostgreSQL only. */
  dbCpuUsPerRequest?: number | undefined;
}

export interface StoreConfigResult {
  store: StoreName;
  workers: number;
  /** Spawn → the start-up block ("tokengate is ready"), every worker listening. */
  startMs: number;
  scenarios: Array<{ name: ScenarioName; tokengate: StoreRun }>;
  exitCode: number | null;
  durability: Durability;
}

/** Independent tokengate processes on PostgreSQL, loaded at once, measured as one target. */
export interface IndependentResult {
  store: 'postgres';
  /** How many (each WORKERS=1, each its own database on the same server, its own token pool and workload; the connections split evenly). */
  processes: number;
  /** req/s summed over the processes, latency of every response of them all, CPU per 2xx of them all and of the PostgreSQL server. */
  scenarios: Array<{ name: ScenarioName; tokengate: StoreRun }>;
  /** Each process: spawn → ready, exit code, its own store's durability check. */
  parts: Array<{ startMs: number; exitCode: number | null; durability: Durability }>;
}

export interface FloorResult {
  mode: FloorMode;
  scenarios: Array<{ name: ScenarioName; floor: StoreRun }>;
  exitCode: number | null;
  durability: FloorDurability;
}

/** What else the machine did during a scenario's slices: CPU of processes outside the bench (cores), and the load average after. */
export interface ScenarioLoad { name: ScenarioName; otherCores: number; loadAverage: number }

/** A scenario's ratios, req/s of 2xx by req/s of 2xx, measured side by side. */
export interface Comparison {
  name: ScenarioName;
  /** tokengate on PostgreSQL (1 worker) ÷ on SQLite (1 worker). */
  postgresOverSqlite: number;
  /** tokengate on PostgreSQL (1 worker) ÷ each PostgreSQL floor. */
  postgresOverNaiveFloor: number;
  postgresOverGroupFloor: number;
  /** tokengate on PostgreSQL: 2 workers ÷ 1. */
  twoWorkersOverOne: number;
  /** Two independent WORKERS=1 processes on PostgreSQL (req/s summed) ÷ one: what two processes can reach here. */
  independentOverOne: number;
  /** tokengate on PostgreSQL, 2 workers ÷ two independent processes: WORKERS=2 against what it could reach. */
  twoWorkersOverIndependent: number;
}

export interface StoresResult {
  /** The server's version, its binaries, and its temporary folder (removed at the end). */
  postgres: { version: string; binaries: string; dir: string };
  slices: number;
  configs: StoreConfigResult[];
  independent: IndependentResult;
  floors: FloorResult[];
  load: ScenarioLoad[];
  comparisons: Comparison[];
  /** Every target's durability check passed, every one stopped cleanly. */
  ok: boolean;
}

/** The one line `--store postgres` says without PostgreSQL. */
export const NO_POSTGRES = 'bench: --store postgres needs PostgreSQL installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)';

export function requirePostgres(): string {
  const bin = postgresBinaries();
  if (bin === undefined) throw new BenchError(NO_POSTGRES);
  return bin;
}

/** The pause before each slice: one target's work after its last answers is not the next one's slice. */
const SETTLE_MS = 300;

/** Waits for the start-up block (one process, or a cluster's primary once every worker listens); its port. */
async function waitReady(child: Child, timeoutMs: number): Promise<{ port: number; ms: number }> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const port = /tokengate is ready[^\n]*\n\s*gateway\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(child.output())?.[1];
    if (port) return { port: Number(port), ms: Math.round(performance.now() - started) };
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`bench: tokengate exited (${child.process.exitCode ?? child.process.signalCode}) before it was ready:\n${child.output().slice(-4000)}`);
    }
    await sleep(20);
  }
  throw new Error(`bench: tokengate was not ready within ${timeoutMs} ms:\n${child.output().slice(-4000)}`);
}

async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

/** The stream of every event of a type in a PostgreSQL table (tokengate's tokengate_events, a floor's events). */
const streamsOf = async (url: string, table: string, type: string) =>
  (await query<{ stream: string }>(url, `SELECT stream FROM ${table} WHERE type = $1`, [type])).map((r) => r.stream);

/** A target: a server measured slice by slice, with its own ledger of what it acknowledged. */
interface Target {
  label: string;
  child: Child;
  port: number;
  usesPostgres: boolean;
  workload: Workload;
  ledger: Ledger;
  /** The tokens its pays draw from. */
  pool: readonly string[];
  seed: { orderId: string; token: string; body: string };
  taken: Map<ScenarioName, Array<Slice & { dbCpuMs: number | undefined }>>;
}

interface Gateway extends Target { store: StoreName; workers: number; startMs: number; url: string | undefined; dbPath: string }
interface Floor extends Target { mode: FloorMode; url: string }

/** What takes a turn: one target, or independent ones loaded at the same time, the connections split between them. */
interface Group { label: string; usesPostgres: boolean; parts: readonly Target[] }
const alone = (target: Target): Group => ({ label: target.label, usesPostgres: target.usesPostgres, parts: [target] });

/** The `k`th of `n` targets loaded at once: its share of the connections (at least one). */
const shareOf = (connections: number, n: number, k: number) => Math.max(1, Math.floor(connections / n) + (k < connections % n ? 1 : 0));

/** The pool of tokens and the repeated payment, through the API of a started gateway. */
async function setUp(port: number, what: string): Promise<{ ledger: Ledger; pool: string[]; seed: Target['seed']; tokenText: string }> {
  const ledger = new Ledger();
  let tokenText = '';
  const pool = await Promise.all(Array.from({ length: POOL_SIZE }, async () => {
    const { token, text } = await createToken(port, what);
    ledger.tokenIssued++;
    ledger.tokensAcked.add(token);
    tokenText = text;
    return token;
  }));
  const seed = { orderId: '10000000000', token: pool[0] ?? '', body: '' };
  const paid = await call(port, 'PUT', payPath(seed.token, seed.orderId), PAY_HEADERS, PAY_BODY);
  if (paid.status !== 201) throw new Error(`bench: the seed payment failed on ${what}: ${paid.status} ${paid.text}`);
  seed.body = paid.text;
  ledger.payIssued++;
  ledger.paysAcked.add(seed.orderId);
  return { ledger, pool, seed, tokenText };
}

/** tokengate on a fresh store of its own; `part`: the how-manieth of the independent processes (its own folder and database). */
async function startGateway(options: StoresOptions, store: StoreName, workers: number, server: RunningPostgres | undefined, merchantsFile: string, part?: number): Promise<Gateway> {
  const name = part === undefined ? String(workers) : `independent_${part}`;
  const dir = join(options.workDir, `${store}-${name}`);
  mkdirSync(dir, { recursive: true });
  const dbPath = join(dir, 'data', 'gateway.db');
  const url = store === 'postgres' && server ? await server.createDatabase(`bench_${name}`) : undefined;
  const child = startChild([join(buildDir(options.root), 'server.js')], {
    HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', MERCHANTS_FILE: merchantsFile, WORKERS: String(workers),
    EVENT_STORE: url ?? `sqlite:${dbPath}`,
  }, dir);
  const ready = await waitReady(child, 60_000);
  const label = part === undefined ? `${store} ×${workers}` : `${store} independent ${part} of ${INDEPENDENT}`;
  options.log(`${label}: tokengate pid ${child.pid} on port ${ready.port}, ready in ${ready.ms} ms`);
  const { ledger, pool, seed, tokenText } = await setUp(ready.port, label);
  if (store === 'sqlite' && workers === 1) {
    // The floors answer tokengate's bodies' shape (bench/floor.mjs).
    writeFileSync(join(options.workDir, 'pay-body.json'), seed.body);
    writeFileSync(join(options.workDir, 'token-body.json'), tokenText);
  }
  return {
    label, child, port: ready.port, usesPostgres: url !== undefined, workload: new Workload(pool, seed), ledger, pool, seed, taken: new Map(),
    store, workers, startMs: ready.ms, url, dbPath,
  };
}

async function startFloor(options: StoresOptions, mode: FloorMode, server: RunningPostgres, merchantsFile: string, pool: readonly string[]): Promise<Floor> {
  const dir = join(options.workDir, `floor-${mode}`);
  mkdirSync(dir, { recursive: true });
  const url = await server.createDatabase(`floor_${mode}`);
  const child = startChild([join(options.root, 'bench', 'floor.mjs')], {
    FLOOR_DB: join(dir, 'floor.db'), FLOOR_MERCHANTS_FILE: merchantsFile, FLOOR_PG_URL: url, FLOOR_PG_MODE: mode,
    FLOOR_PAY_BODY: join(options.workDir, 'pay-body.json'), FLOOR_TOKEN_BODY: join(options.workDir, 'token-body.json'),
  }, dir);
  const { port } = await waitListening(child, 30_000);
  const ledger = new Ledger();
  const seed = { orderId: '10000000000', token: pool[0] ?? '', body: '' };
  const paid = await call(port, 'PUT', payPath(seed.token, seed.orderId), PAY_HEADERS, PAY_BODY);
  if (paid.status !== 201) throw new Error(`bench: the ${mode} floor's seed payment failed: ${paid.status} ${paid.text}`);
  seed.body = paid.text;
  ledger.payIssued++;
  ledger.paysAcked.add(seed.orderId);
  const label = `PostgreSQL floor, ${mode}`;
  options.log(`${label}: pid ${child.pid} on port ${port}`);
  return { label, child, port, usesPostgres: true, workload: new Workload(pool, seed), ledger, pool, seed, taken: new Map(), mode, url };
}

/** The machine's busy CPU time so far (every core), in ms, from /proc/stat. */
function machineBusyMs(): number {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return (user + nice + system + irq + softirq + steal) * 10;
}

/**
 * One slice of a group: its targets loaded at the same time (each its share of the connections),
 * the CPU of each one's process tree and the server's; returns the CPU the bench's processes used.
 * The load generator's and the server's CPU over the slice is the whole group's: each target
 * holds an equal part of it, so that the group's sums count it once.
 */
async function measureSlice(group: Group, name: ScenarioName, seconds: number, connections: number, server: RunningPostgres | undefined): Promise<number> {
  const { parts } = group;
  const dbPid = group.usesPostgres ? server?.serverPid() : undefined;
  const from = parts.map((target) => treeCpuMsOf(target.child.pid));
  const dbFrom = dbPid === undefined ? undefined : treeCpuMsOf(dbPid);
  const loadFrom = process.cpuUsage();
  const slices = await Promise.all(parts.map((target, k) =>
    fireSlice(target.port, target.workload.requests(name, target.ledger), seconds, shareOf(connections, parts.length, k))));
  const load = process.cpuUsage(loadFrom);
  const loadGenUs = load.user + load.system;
  const ms = parts.map((target, k) => treeCpuDelta(from[k], treeCpuMsOf(target.child.pid)));
  const dbCpuMs = dbPid === undefined ? undefined : treeCpuDelta(dbFrom, treeCpuMsOf(dbPid));
  parts.forEach((target, k) => {
    if (target.child.process.exitCode !== null || target.child.process.signalCode !== null) {
      throw new Error(`bench: ${target.label} exited (${target.child.process.exitCode ?? target.child.process.signalCode}) during '${name}':\n${target.child.output().slice(-4000)}`);
    }
    const list = target.taken.get(name) ?? [];
    list.push({
      ...(slices[k] as Slice), serverCpuMs: ms[k], loadGenUs: loadGenUs / parts.length,
      dbCpuMs: dbCpuMs === undefined ? undefined : dbCpuMs / parts.length,
    });
    target.taken.set(name, list);
  });
  return ms.reduce<number>((sum, m) => sum + (m ?? 0), 0) + (dbCpuMs ?? 0) + loadGenUs / 1000;
}

/**
 * A group's run of a scenario: every slice of its targets merged (latency of every response, CPU
 * per 2xx of them all and of the server); targets loaded at the same time add their req/s up over
 * the same seconds (mergeSlices adds the seconds of slices taken one after another).
 */
function runOf(group: Group, name: ScenarioName, connections: number): StoreRun {
  const taken = group.parts.map((target) => target.taken.get(name) ?? []);
  const slices = taken.flat();
  const { cpuUsPerRequest, ...stats } = mergeSlices(slices, connections);
  if (taken.length > 1) {
    const each = taken.map((own) => mergeSlices(own, connections));
    stats.rps = round(each.reduce((sum, e) => sum + e.rps, 0), 1);
    stats.rpsAll = round(each.reduce((sum, e) => sum + e.rpsAll, 0), 1);
    stats.durationSec = Math.max(...each.map((e) => e.durationSec));
  }
  const ok = slices.reduce((sum, s) => sum + s.raw['2xx'], 0);
  const db = slices.every((s) => s.dbCpuMs !== undefined) && group.usesPostgres ? slices.reduce((sum, s) => sum + (s.dbCpuMs ?? 0), 0) : undefined;
  return { ...stats, cpuUsPerRequest, ...(group.usesPostgres ? { dbCpuUsPerRequest: perResponse(db, ok) } : {}) };
}

/** Stops a gateway and checks its store: every acknowledged payment and token recorded, the repeated payment once. */
async function stopAndCheck(g: Gateway, log: (line: string) => void): Promise<{ exitCode: number | null; durability: Durability }> {
  const exitCode = await g.child.stop();
  const durability = g.url
    ? durabilityOf(await streamsOf(g.url, 'tokengate_events', 'PaymentRecorded'), await streamsOf(g.url, 'tokengate_events', 'TokenCreated'), g.ledger, g.seed.orderId)
    : checkDurability(g.dbPath, g.ledger, g.seed.orderId);
  log(`${g.label}: stopped (exit ${exitCode}); durability ${durability.ok ? 'OK' : 'FAILED'}: ` +
    `${durability.payments.missing + durability.tokens.missing} of ${durability.payments.acknowledged + durability.tokens.acknowledged} acknowledged missing`);
  return { exitCode, durability };
}

/** Every target started, then each scenario's slices, the targets taking turns (a rotating order). */
export async function runStores(options: StoresOptions): Promise<StoresResult> {
  const binaries = requirePostgres();
  mkdirSync(options.workDir, { recursive: true });
  const merchantsFile = join(options.workDir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify({ merchants: [MERCHANT] }));
  const gateways: Gateway[] = [];
  const independent: Gateway[] = [];
  const floors: Floor[] = [];
  let server: RunningPostgres | undefined;
  try {
    server = await startPostgres();
    options.log(`PostgreSQL (${binaries}) on port ${server.port}, fsync on`);
    for (const store of STORES) for (const workers of WORKER_COUNTS) gateways.push(await startGateway(options, store, workers, server, merchantsFile));
    for (let part = 1; part <= INDEPENDENT; part++) independent.push(await startGateway(options, 'postgres', 1, server, merchantsFile, part));
    const pool = gateways[0]?.pool ?? [];
    for (const mode of FLOOR_MODES) floors.push(await startFloor(options, mode, server, merchantsFile, pool));
    const together: Group = { label: `postgres, ${INDEPENDENT} independent`, usesPostgres: true, parts: independent };
    const groups: Group[] = [...gateways.map(alone), together, ...floors.map(alone)];
    if (options.warmup > 0) {
      options.log(`warm-up: mixed for ${options.warmup} s on each`);
      for (const { parts } of groups) {
        await Promise.all(parts.map((t, k) => fire(t.port, t.workload.requests('mixed', t.ledger), options.warmup, shareOf(options.connections, parts.length, k))));
      }
    }
    const slices = sliceCount(options.duration, options.slices ?? 5);
    const load = await runScenarios(options, groups, slices, server);
    const configs: StoreConfigResult[] = [];
    for (const g of gateways) {
      const { exitCode, durability } = await stopAndCheck(g, options.log);
      configs.push({
        store: g.store, workers: g.workers, startMs: g.startMs, exitCode, durability,
        scenarios: options.scenarios.map((name) => ({ name, tokengate: runOf(alone(g), name, options.connections) })),
      });
    }
    const independentResult: IndependentResult = {
      store: 'postgres', processes: INDEPENDENT,
      scenarios: options.scenarios.map((name) => ({ name, tokengate: runOf(together, name, options.connections) })),
      parts: [],
    };
    for (const g of independent) independentResult.parts.push({ startMs: g.startMs, ...await stopAndCheck(g, options.log) });
    const floorResults: FloorResult[] = [];
    for (const f of floors) {
      const exitCode = await f.child.stop();
      const durability = await floorDurability(f);
      options.log(`${f.label}: stopped (exit ${exitCode}); durability ${durability.ok ? 'OK' : 'FAILED'}`);
      floorResults.push({ mode: f.mode, exitCode, durability, scenarios: options.scenarios.map((name) => ({ name, floor: runOf(alone(f), name, options.connections) })) });
    }
    const version = (await query<{ server_version: string }>(server.url, 'SHOW server_version'))[0]?.server_version ?? '?';
    const stored = [...configs, ...independentResult.parts, ...floorResults];
    return {
      postgres: { version, binaries, dir: server.dir }, slices, configs, independent: independentResult, floors: floorResults, load,
      comparisons: compare(options.scenarios, configs, independentResult, floorResults),
      ok: stored.every((c) => c.durability.ok && c.exitCode === 0),
    };
  } finally {
    for (const target of [...gateways, ...independent, ...floors]) await target.child.stop(5_000);
    await server?.stop();
  }
}

/** Each scenario: its seconds in slices, the groups taking turns; what else the machine did meanwhile. */
async function runScenarios(options: StoresOptions, groups: readonly Group[], slices: number, server: RunningPostgres): Promise<ScenarioLoad[]> {
  const load: ScenarioLoad[] = [];
  for (const name of options.scenarios) {
    options.log(`${name}: ${options.duration} s × ${options.connections} connections on each of ${groups.length} targets, in ${slices} slices taking turns`);
    let ours = 0;
    let busy = 0;
    let elapsed = 0;
    for (let slice = 0; slice < slices; slice++) {
      for (let i = 0; i < groups.length; i++) {
        const group = groups[(i + slice) % groups.length] as Group;
        if (slices > 1) await sleep(SETTLE_MS);
        const busyFrom = machineBusyMs();
        const started = performance.now();
        ours += await measureSlice(group, name, options.duration / slices, options.connections, server);
        busy += machineBusyMs() - busyFrom;
        elapsed += performance.now() - started;
      }
    }
    load.push({ name, otherCores: elapsed > 0 ? round(Math.max(0, busy - ours) / elapsed, 2) : 0, loadAverage: round(loadavg()[0] ?? 0, 1) });
    for (const group of groups) {
      const run = runOf(group, name, options.connections);
      options.log(`  ${group.label}: ${run.rps} req/s, p99 ${run.latencyMs.p99} ms, ${run.cpuUsPerRequest ?? '?'} µs CPU/resp` +
        (group.usesPostgres ? ` + PostgreSQL ${run.dbCpuUsPerRequest ?? '?'} µs` : ''));
    }
    options.log(`  the rest of the machine: ${load.at(-1)?.otherCores} cores busy on average, load average ${load.at(-1)?.loadAverage}`);
  }
  return load;
}

/** A floor's table after it stopped: every pay and token it acknowledged is a row (floor.mjs's streams). */
async function floorDurability(floor: Floor): Promise<FloorDurability> {
  const orders = new Set(await streamsOf(floor.url, 'events', 'PaymentRecorded'));
  const tokens = new Set(await streamsOf(floor.url, 'events', 'TokenCreated'));
  const orderStream = (orderId: string) => `order-${MERCHANT.id}-${orderId}/1`;
  const { ledger } = floor;
  const payMissing = [...ledger.paysAcked].filter((id) => !orders.has(orderStream(id))).length;
  const tokenMissing = [...ledger.tokensAcked].filter((token) => !tokens.has(`token-${MERCHANT.repository.id}-${token}`)).length;
  const seedOrderEvents = orders.has(orderStream(floor.seed.orderId)) ? 1 : 0;
  return {
    payments: { acknowledged: ledger.paysAcked.size, recorded: orders.size, missing: payMissing },
    tokens: { acknowledged: ledger.tokensAcked.size, recorded: tokens.size, missing: tokenMissing },
    retries: { seedOrderEvents, bodyMismatches: ledger.retryMismatches },
    ok: payMissing === 0 && tokenMissing === 0 && seedOrderEvents === 1 && ledger.retryMismatches === 0,
  };
}

function compare(scenarios: readonly ScenarioName[], configs: readonly StoreConfigResult[], independent: IndependentResult, floors: readonly FloorResult[]): Comparison[] {
  const rps = (store: StoreName, workers: number, name: ScenarioName) =>
    configs.find((c) => c.store === store && c.workers === workers)?.scenarios.find((s) => s.name === name)?.tokengate.rps ?? 0;
  const independentRps = (name: ScenarioName) => independent.scenarios.find((s) => s.name === name)?.tokengate.rps ?? 0;
  const floorRps = (mode: FloorMode, name: ScenarioName) => floors.find((f) => f.mode === mode)?.scenarios.find((s) => s.name === name)?.floor.rps ?? 0;
  const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 2) : 0);
  return scenarios.map((name) => ({
    name,
    postgresOverSqlite: ratio(rps('postgres', 1, name), rps('sqlite', 1, name)),
    postgresOverNaiveFloor: ratio(rps('postgres', 1, name), floorRps('naive', name)),
    postgresOverGroupFloor: ratio(rps('postgres', 1, name), floorRps('group', name)),
    twoWorkersOverOne: ratio(rps('postgres', 2, name), rps('postgres', 1, name)),
    independentOverOne: ratio(independentRps(name), rps('postgres', 1, name)),
    twoWorkersOverIndependent: ratio(rps('postgres', 2, name), independentRps(name)),
  }));
}

/** The comparison as rows: target, then per scenario req/s, latency and CPU per response. */
export function storesTable(result: StoresResult): Array<Array<string | number>> {
  const rows: Array<Array<string | number>> = [['target', 'scenario', 'req/s', 'p50', 'p99', 'errors', 'non2xx', 'CPU µs/req', 'PostgreSQL µs/req', 'durability']];
  const add = (label: string, runs: ReadonlyArray<{ name: string; run: StoreRun }>, ok: boolean) => runs.forEach(({ name, run }, i) => rows.push([
    i === 0 ? label : '', name, run.rps, run.latencyMs.p50, run.latencyMs.p99, run.errors + run.timeouts, run.non2xx,
    run.cpuUsPerRequest ?? '?', run.dbCpuUsPerRequest ?? '', i === 0 ? (ok ? 'OK' : 'FAILED') : '',
  ]));
  for (const c of result.configs) add(`tokengate, ${c.store} ×${c.workers}`, c.scenarios.map((s) => ({ name: s.name, run: s.tokengate })), c.durability.ok);
  const { independent } = result;
  add(`tokengate, ${independent.store} ×1, ${independent.processes} independent`, independent.scenarios.map((s) => ({ name: s.name, run: s.tokengate })),
    independent.parts.every((p) => p.durability.ok));
  for (const f of result.floors) add(`floor, PostgreSQL ${f.mode}`, f.scenarios.map((s) => ({ name: s.name, run: s.floor })), f.durability.ok);
  return rows;
}
