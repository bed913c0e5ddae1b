// The stores compared (`npm run bench -- --store postgres`): tokengate alone (no ceiling, no floor)
// on SQLite and on PostgreSQL, each with 1 and 2 worker processes (WORKERS, cluster.ts), the same
// scenarios on each, one after another in one run. PostgreSQL is a throwaway server from the
// machine's packages (scripts/postgres-server.ts, as the tests start it: fsync on), one fresh
// database per configuration, stopped and removed at the end. After each configuration the
// gateway is stopped and its store checked as the SQLite bench checks its file: every
// acknowledged payment and token recorded, the repeated payment once.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import {
  call, checkDurability, durabilityOf, fire, Ledger, MERCHANT, PAY_BODY, PAY_HEADERS, payPath, perResponse, POOL_SIZE,
  TOKEN_BODY, TOKEN_HEADERS, TOKEN_PATH, Workload, type Durability, type RunStats, type ScenarioName,
} from './http.js';
import { BenchError, buildDir, sleep, startChild, treeCpuDelta, treeCpuMsOf, type Child } from './lib.js';
import { postgresBinaries, startPostgres, type RunningPostgres } from '../scripts/postgres-server.js';

export const STORES = ['sqlite', 'postgres'] as const;
export type StoreName = (typeof STORES)[number];
export const WORKER_COUNTS = [1, 2] as const;

export interface StoresOptions {
  root: string;
  workDir: string;
  duration: number;
  connections: number;
  warmup: number;
  scenarios: readonly ScenarioName[];
  log: (line: string) => void;
}

export interface StoreRun extends RunStats {
  /** CPU of the gateway's processes (the primary and its workers), µs per 2xx response. */
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

export interface StoresResult {
  /** The server's version, its binaries, and its temporary folder (removed at the end). */
  postgres: { version: string; binaries: string; dir: string };
  configs: StoreConfigResult[];
  /** Every configuration's durability check passed. */
  ok: boolean;
}

/** The one line `--store postgres` says without PostgreSQL. */
export const NO_POSTGRES = 'bench: --store postgres needs PostgreSQL installed (no /usr/lib/postgresql/*/bin/initdb; apt-get install postgresql)';

export function requirePostgres(): string {
  const bin = postgresBinaries();
  if (bin === undefined) throw new BenchError(NO_POSTGRES);
  return bin;
}

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

/** The stream of every event of a type in the PostgreSQL store (its tokengate_events table). */
async function postgresStreams(url: string): Promise<{ payments: string[]; tokens: string[] }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const of = async (type: string) =>
      (await client.query<{ stream: string }>('SELECT stream FROM tokengate_events WHERE type = $1', [type])).rows.map((r) => r.stream);
    return { payments: await of('PaymentRecorded'), tokens: await of('TokenCreated') };
  } finally {
    await client.end();
  }
}

async function runConfig(options: StoresOptions, store: StoreName, workers: number, server: RunningPostgres | undefined): Promise<StoreConfigResult> {
  const { root, log } = options;
  const dir = join(options.workDir, `${store}-${workers}`);
  mkdirSync(dir, { recursive: true });
  const merchantsFile = join(dir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify({ merchants: [MERCHANT] }));
  const dbPath = join(dir, 'data', 'gateway.db');
  const url = server ? await server.createDatabase(`bench_${workers}`) : undefined;
  const child = startChild([join(buildDir(root), 'server.js')], {
    HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', MERCHANTS_FILE: merchantsFile, WORKERS: String(workers),
    EVENT_STORE: url ?? `sqlite:${dbPath}`,
  }, dir);
  try {
    const ready = await waitReady(child, 60_000);
    log(`${store}, ${workers} worker(s): tokengate pid ${child.pid} on port ${ready.port}, ready in ${ready.ms} ms`);
    // Set-up through the API: the pool of tokens (created at once: independent requests), the repeated payment.
    const ledger = new Ledger();
    const pool = await Promise.all(Array.from({ length: POOL_SIZE }, async () => {
      const res = await call(ready.port, 'POST', TOKEN_PATH, TOKEN_HEADERS, TOKEN_BODY);
      const token = /"token":"([0-9A-Za-z]+)"/.exec(res.text)?.[1];
      if (res.status !== 201 || !token) throw new Error(`bench: token creation failed on ${store}: ${res.status} ${res.text}`);
      ledger.tokenIssued++;
      ledger.tokensAcked.add(token);
      return token;
    }));
    const seed = { orderId: '10000000000', token: pool[0] ?? '', body: '' };
    const paid = await call(ready.port, 'PUT', payPath(seed.token, seed.orderId), PAY_HEADERS, PAY_BODY);
    if (paid.status !== 201) throw new Error(`bench: the seed payment failed on ${store}: ${paid.status} ${paid.text}`);
    seed.body = paid.text;
    ledger.payIssued++;
    ledger.paysAcked.add(seed.orderId);
    const workload = new Workload(pool, seed);
    if (options.warmup > 0) await fire(ready.port, workload.requests('mixed', ledger), options.warmup, options.connections);

    const scenarios: StoreConfigResult['scenarios'] = [];
    for (const name of options.scenarios) {
      const dbPid = server?.serverPid();
      const gwFrom = treeCpuMsOf(child.pid);
      const dbFrom = dbPid === undefined ? undefined : treeCpuMsOf(dbPid);
      const stats = await fire(ready.port, workload.requests(name, ledger), options.duration, options.connections);
      const gwMs = treeCpuDelta(gwFrom, treeCpuMsOf(child.pid));
      const dbMs = dbPid === undefined ? undefined : treeCpuDelta(dbFrom, treeCpuMsOf(dbPid));
      if (child.process.exitCode !== null || child.process.signalCode !== null) {
        throw new Error(`bench: tokengate exited (${child.process.exitCode ?? child.process.signalCode}) during '${name}' on ${store}:\n${child.output().slice(-4000)}`);
      }
      const answered = Math.round(stats.rps * stats.durationSec);
      const run: StoreRun = {
        ...stats, cpuUsPerRequest: perResponse(gwMs, answered),
        ...(server ? { dbCpuUsPerRequest: perResponse(dbMs, answered) } : {}),
      };
      log(`  ${name}: ${run.rps} req/s, p99 ${run.latencyMs.p99} ms, ${run.cpuUsPerRequest ?? '?'} µs CPU/resp` +
        (server ? ` + PostgreSQL ${run.dbCpuUsPerRequest ?? '?'} µs` : ''));
      scenarios.push({ name, tokengate: run });
    }
    const exitCode = await child.stop();
    let durability: Durability;
    if (url) {
      const recorded = await postgresStreams(url);
      durability = durabilityOf(recorded.payments, recorded.tokens, ledger, seed.orderId);
    } else {
      durability = checkDurability(dbPath, ledger, seed.orderId);
    }
    log(`  stopped (exit ${exitCode}); durability ${durability.ok ? 'OK' : 'FAILED'}: ${durability.payments.missing + durability.tokens.missing} of ` +
      `${durability.payments.acknowledged + durability.tokens.acknowledged} acknowledged missing`);
    return { store, workers, startMs: ready.ms, scenarios, exitCode, durability };
  } finally {
    await child.stop(5_000);
  }
}

/** Every store × worker count in turn: SQLite 1, 2, then PostgreSQL 1, 2 (one server for both, a database each). */
export async function runStores(options: StoresOptions): Promise<StoresResult> {
  const binaries = requirePostgres();
  const configs: StoreConfigResult[] = [];
  let server: RunningPostgres | undefined;
  try {
    for (const store of STORES) {
      if (store === 'postgres') {
        server = await startPostgres();
        options.log(`PostgreSQL (${binaries}) on port ${server.port}, fsync on`);
      }
      for (const workers of WORKER_COUNTS) configs.push(await runConfig(options, store, workers, server));
    }
    const version = server ? await serverVersion(server.url) : '?';
    return { postgres: { version, binaries, dir: server?.dir ?? '' }, configs, ok: configs.every((c) => c.durability.ok && c.exitCode === 0) };
  } finally {
    await server?.stop();
  }
}

async function serverVersion(url: string): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version ?? '?';
  } finally {
    await client.end();
  }
}

/** The comparison as rows: store, workers, then per scenario req/s, p99 and CPU per response. */
export function storesTable(result: StoresResult): Array<Array<string | number>> {
  return [
    ['store', 'workers', 'scenario', 'req/s', 'p50', 'p99', 'errors', 'non2xx', 'CPU µs/req', 'PostgreSQL µs/req', 'durability'],
    ...result.configs.flatMap((c) => c.scenarios.map((s, i) => [
      i === 0 ? c.store : '', i === 0 ? c.workers : '', s.name, s.tokengate.rps, s.tokengate.latencyMs.p50, s.tokengate.latencyMs.p99,
      s.tokengate.errors + s.tokengate.timeouts, s.tokengate.non2xx, s.tokengate.cpuUsPerRequest ?? '?',
      s.tokengate.dbCpuUsPerRequest ?? '', i === 0 ? (c.durability.ok ? 'OK' : 'FAILED') : '',
    ])),
  ];
}
