// Cost flat in the store's size (`npm run bench -- --growth [--store postgres]`): a SQLite store, or
// a PostgreSQL database on a throwaway server, filled straight through its tables (bench/fixture.ts:
// the real deciders' events, 1 TokenCreated : 9 PaymentRecorded, for the bench's merchant;
// bench/growth-stores.ts), in steps up to each size (default 1,000,000 and 10,000,000 events:
// 100,000 and 1,000,000 tokens), and at each size:
//   - the first start after the fill (the read models catch up with the new events before it listens);
//   - a restart, read models current: spawn → the start-up block (the start-up that counts);
//   - pay, create and retrieve (Retrieve Token) on a pool of 20 tokens made through the API, beside
//     a gateway on an empty store, in slices taking turns: the cost at that size ÷ the empty store's,
//     measured side by side (the VM's speed moves within a minute). On PostgreSQL the server's CPU
//     per response too (the other gateway idle meanwhile).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import {
  call, createToken, fire, fireSlice, Ledger, mergeSlices, MERCHANT, PAY_BODY, PAY_HEADERS, payPath, perResponse, POOL_SIZE, TOKEN_HEADERS, Workload,
  type RunStats, type Slice,
} from './http.js';
import { growthStores, type GrowthStores } from './growth-stores.js';
import { buildDir, memoryOf, round, sleep, startChild, treeCpuDelta, treeCpuMsOf, type Child } from './lib.js';
import type { StoreName } from './stores.js';

export const GROWTH_SCENARIOS = ['pay', 'create', 'retrieve'] as const;
export type GrowthScenario = (typeof GROWTH_SCENARIOS)[number];

export interface GrowthOptions {
  root: string;
  workDir: string;
  /** Where both stores live: SQLite files, or databases of one throwaway PostgreSQL server. */
  store: StoreName;
  /** The store's sizes, in events, in increasing order. */
  sizes: readonly number[];
  /** Seconds per scenario and target, cut into `slices`. */
  duration: number;
  slices: number;
  connections: number;
  log: (line: string) => void;
}

export interface GrowthRun extends RunStats {
  cpuUsPerRequest: number | undefined;
  /** CPU of the PostgreSQL server (postmaster and backends), µs per 2xx response; PostgreSQL only. */
  dbCpuUsPerRequest?: number | undefined;
}

export interface GrowthPoint {
  events: number;
  tokens: number;
  /** Writing the events added since the last size. */
  fill: { seconds: number; eventsPerSecond: number };
  /** The start after the fill: the read models catch up with the events added before it listens. */
  firstStartMs: number;
  /** A restart, read models current: the start-up that counts. */
  startMs: number;
  startHwmMB: number;
  /** The grown store's size: its file, or its database (pg_database_size). */
  fileBytes: number;
  /**
   * Each scenario at this size and on the empty store, side by side; `ratio`: req/s here ÷ req/s
   * there, `cpuRatio` likewise for CPU per response; `loadAverage`: the machine's after its slices.
   */
  scenarios: Array<{ name: GrowthScenario; here: GrowthRun; empty: GrowthRun; ratio: number; cpuRatio: number | undefined; loadAverage: number }>;
}

export interface GrowthResult {
  store: StoreName;
  /** PostgreSQL's version, when on PostgreSQL. */
  postgres?: string | undefined;
  /** The empty store's gateway: spawn → the start-up block. */
  emptyStartMs: number;
  points: GrowthPoint[];
}

const retrievePath = (token: string) => `/api/rest/version/100/merchant/${MERCHANT.id}/token/${token}`;

interface Gateway { child: Child; port: number; startMs: number; workload: Workload; pool: string[]; ledger: Ledger }

/** spawn → the start-up block, one process (WORKERS=1) on the store `eventStore` (EVENT_STORE). */
async function start(options: GrowthOptions, eventStore: string, merchantsFile: string, timeoutMs: number): Promise<{ child: Child; port: number; ms: number }> {
  const child = startChild([join(buildDir(options.root), 'server.js')], {
    HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', MERCHANTS_FILE: merchantsFile, EVENT_STORE: eventStore, WORKERS: '1',
  }, options.workDir);
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const port = /tokengate is ready[^\n]*\n\s*gateway\s+http:\/\/127\.0\.0\.1:(\d+)/.exec(child.output())?.[1];
    if (port) return { child, port: Number(port), ms: Math.round(performance.now() - started) };
    if (child.process.exitCode !== null || child.process.signalCode !== null) throw new Error(`bench: tokengate exited before it was ready:\n${child.output().slice(-4000)}`);
    await sleep(10);
  }
  await child.stop();
  throw new Error(`bench: tokengate was not ready within ${timeoutMs} ms`);
}

/** Until the process has used less than 5% of a core for a second (its start-up's background work done), at most `maxMs`. */
async function settled(child: Child, maxMs: number): Promise<void> {
  const deadline = performance.now() + maxMs;
  let before = treeCpuMsOf(child.pid);
  while (performance.now() < deadline) {
    await sleep(1_000);
    const now = treeCpuMsOf(child.pid);
    if ((treeCpuDelta(before, now) ?? 0) < 50) return;
    before = now;
  }
}

/**
 * A started gateway with its pool of tokens; `round` numbers the workloads on one store, each
 * paying orders of its own (an order paid again with another token would be refused).
 */
async function ready(options: GrowthOptions, eventStore: string, merchantsFile: string, round: number): Promise<Gateway> {
  const { child, port, ms } = await start(options, eventStore, merchantsFile, 120_000);
  const ledger = new Ledger();
  const pool: string[] = [];
  for (let i = 0; i < POOL_SIZE; i++) {
    pool.push((await createToken(port)).token);
  }
  const firstOrder = 10_000_000_000 + round * 100_000_000;
  const seed = { orderId: String(firstOrder), token: pool[0] ?? '', body: '' };
  seed.body = (await call(port, 'PUT', payPath(seed.token, seed.orderId), PAY_HEADERS, PAY_BODY)).text;
  return { child, port, startMs: ms, workload: new Workload(pool, seed, firstOrder + 1), pool, ledger };
}

function requests(gateway: Gateway, name: GrowthScenario): autocannon.Request[] {
  if (name !== 'retrieve') return gateway.workload.requests(name, gateway.ledger);
  let next = 0;
  return [{
    method: 'GET', path: retrievePath(gateway.pool[0] ?? ''), headers: { authorization: TOKEN_HEADERS.authorization },
    setupRequest: (request) => { request.path = retrievePath(gateway.pool[next++ % gateway.pool.length] ?? ''); return request; },
  }];
}

type Taken = Slice & { dbCpuMs: number | undefined };

/**
 * One scenario on both gateways, in slices taking turns; each one's stats and CPU per response
 * (and the PostgreSQL server's, `serverPid`: the other gateway idle meanwhile).
 */
async function sideBySide(options: GrowthOptions, here: Gateway, empty: Gateway, name: GrowthScenario, serverPid: number | undefined): Promise<GrowthPoint['scenarios'][number]> {
  const taken: Record<'here' | 'empty', Taken[]> = { here: [], empty: [] };
  for (let slice = 0; slice < options.slices; slice++) {
    for (const which of slice % 2 === 0 ? ['here', 'empty'] as const : ['empty', 'here'] as const) {
      const gateway = which === 'here' ? here : empty;
      await sleep(300);
      const from = treeCpuMsOf(gateway.child.pid);
      const dbFrom = serverPid === undefined ? undefined : treeCpuMsOf(serverPid);
      const result = await fireSlice(gateway.port, requests(gateway, name), options.duration / options.slices, options.connections);
      const dbCpuMs = serverPid === undefined ? undefined : treeCpuDelta(dbFrom, treeCpuMsOf(serverPid));
      taken[which].push({ ...result, serverCpuMs: treeCpuDelta(from, treeCpuMsOf(gateway.child.pid)), dbCpuMs });
    }
  }
  const runOf = (slices: Taken[]): GrowthRun => {
    const run: GrowthRun = mergeSlices(slices, options.connections);
    if (serverPid === undefined) return run;
    const db = slices.every((s) => s.dbCpuMs !== undefined) ? slices.reduce((sum, s) => sum + (s.dbCpuMs ?? 0), 0) : undefined;
    return { ...run, dbCpuUsPerRequest: perResponse(db, slices.reduce((sum, s) => sum + s.raw['2xx'], 0)) };
  };
  const h = runOf(taken.here);
  const e = runOf(taken.empty);
  return {
    name, here: h, empty: e, ratio: e.rps > 0 ? round(h.rps / e.rps, 2) : 0, loadAverage: round(loadavg()[0] ?? 0, 1),
    cpuRatio: h.cpuUsPerRequest !== undefined && e.cpuUsPerRequest ? round(h.cpuUsPerRequest / e.cpuUsPerRequest, 2) : undefined,
  };
}

export async function runGrowth(options: GrowthOptions): Promise<GrowthResult> {
  const { log } = options;
  mkdirSync(options.workDir, { recursive: true });
  const merchantsFile = join(options.workDir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify({ merchants: [MERCHANT] }));
  const stores = await growthStores(options.store, options.workDir);
  try {
    if (stores.version) log(`growth: PostgreSQL ${stores.version}, fsync on, a database for each store`);
    const empty = await ready(options, stores.empty, merchantsFile, 0);
    log(`growth: a gateway on an empty store, pid ${empty.child.pid}`);
    try {
      await fire(empty.port, requests(empty, 'pay'), 1, options.connections);
      const points: GrowthPoint[] = [];
      let tokens = 0;
      for (const size of options.sizes) {
        const point = await measureSize(options, stores, merchantsFile, empty, { size, from: points.at(-1)?.events ?? 0, tokens, round: points.length });
        tokens = point.tokens;
        points.push(point);
      }
      return { store: options.store, ...(stores.version ? { postgres: stores.version } : {}), emptyStartMs: empty.startMs, points };
    } finally {
      await empty.child.stop();
    }
  } finally {
    await stores.close();
  }
}

/** The store filled from `from` to `size` events, started once, restarted, and measured beside the empty store. */
async function measureSize(options: GrowthOptions, stores: GrowthStores, merchantsFile: string, empty: Gateway,
  at: { size: number; from: number; tokens: number; round: number }): Promise<GrowthPoint> {
  const { log } = options;
  log(`growth: filling the store to ${at.size.toLocaleString('en')} events`);
  // The fixture's orders and tokens are its own: the measured requests make theirs beside them.
  const owner = { merchantId: MERCHANT.id, repositoryId: MERCHANT.repository.id, firstToken: at.tokens, orderBase: 50_000_000_000 };
  const fill = at.size > at.from ? await stores.fill(at.size - at.from, owner, log) : undefined;
  const tokens = at.tokens + (fill?.tokens ?? 0);
  const first = await start(options, stores.grown, merchantsFile, 60 * 60_000);
  log(`  the first start after the fill: ${first.ms} ms; waiting for its background work`);
  await settled(first.child, 10 * 60_000);
  await first.child.stop();
  // The fill's and the catch-up's gigabytes written back to the disk before anything is timed:
  // else the restart's syncs wait behind them, and the first scenario measures the disk.
  spawnSync('sync');
  const here = await ready(options, stores.grown, merchantsFile, at.round + 1);
  const startHwmMB = memoryOf(here.child.pid)?.hwmMB ?? 0;
  log(`  a restart: ${here.startMs} ms (peak RSS ${startHwmMB} MB)`);
  try {
    // Warmed up as the empty store's gateway was by the sizes before (its code compiled by V8).
    await fire(here.port, here.workload.requests('mixed', here.ledger), 3, options.connections);
    const scenarios: GrowthPoint['scenarios'] = [];
    for (const name of GROWTH_SCENARIOS) {
      const s = await sideBySide(options, here, empty, name, stores.serverPid());
      scenarios.push(s);
      const db = (run: GrowthRun) => (run.dbCpuUsPerRequest === undefined ? '' : ` + PostgreSQL ${run.dbCpuUsPerRequest} µs`);
      log(`  ${name}: ${s.here.rps} req/s (${s.here.cpuUsPerRequest ?? '?'} µs${db(s.here)}) beside ${s.empty.rps} (${s.empty.cpuUsPerRequest ?? '?'} µs${db(s.empty)}) on the empty store: ×${s.ratio}, CPU ×${s.cpuRatio ?? '?'}, load average ${s.loadAverage}` +
        (s.here.non2xx + s.empty.non2xx > 0 ? `; NOT 2xx: ${s.here.non2xx} here, ${s.empty.non2xx} on the empty store` : ''));
    }
    return {
      events: at.size, tokens, fill: { seconds: fill?.seconds ?? 0, eventsPerSecond: fill?.eventsPerSecond ?? 0 },
      firstStartMs: first.ms, startMs: here.startMs, startHwmMB, fileBytes: await stores.bytes(), scenarios,
    };
  } finally {
    await here.child.stop();
  }
}
