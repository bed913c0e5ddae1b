// Cost flat in the store's size (`npm run bench -- --growth`): a SQLite store filled straight
// through its table (the replay's fixture, bench/replay.ts: the real deciders' events, 1 TokenCreated
// : 9 PaymentRecorded, for the bench's merchant), in steps up to each size (default 1,000,000 and
// 10,000,000 events: 100,000 and 1,000,000 tokens), and at each size:
//   - the first start after the fill (the read models catch up with the new events before it listens);
//   - a restart, read models current: spawn → the start-up block (the start-up that counts);
//   - pay, create and retrieve (Retrieve Token) on a pool of 20 tokens made through the API, beside
//     a gateway on an empty store, in slices taking turns: the cost at that size ÷ the empty store's,
//     measured side by side (the VM's speed moves within a minute).
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import {
  call, createToken, fire, fireSlice, Ledger, mergeSlices, MERCHANT, PAY_BODY, PAY_HEADERS, payPath, POOL_SIZE, TOKEN_HEADERS, Workload,
  type RunStats, type Slice,
} from './http.js';
import { buildDir, memoryOf, round, sleep, startChild, treeCpuDelta, treeCpuMsOf, type Child } from './lib.js';
import { writeEvents } from './replay.js';

export const GROWTH_SCENARIOS = ['pay', 'create', 'retrieve'] as const;
export type GrowthScenario = (typeof GROWTH_SCENARIOS)[number];

export interface GrowthOptions {
  root: string;
  workDir: string;
  /** The store's sizes, in events, in increasing order. */
  sizes: readonly number[];
  /** Seconds per scenario and target, cut into `slices`. */
  duration: number;
  slices: number;
  connections: number;
  log: (line: string) => void;
}

export interface GrowthRun extends RunStats { cpuUsPerRequest: number | undefined }

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
  fileBytes: number;
  /** Each scenario at this size and on the empty store, side by side; `ratio`: req/s here ÷ req/s there, `cpuRatio` likewise for CPU per response. */
  scenarios: Array<{ name: GrowthScenario; here: GrowthRun; empty: GrowthRun; ratio: number; cpuRatio: number | undefined }>;
}

export interface GrowthResult {
  /** The empty store's gateway: spawn → the start-up block. */
  emptyStartMs: number;
  points: GrowthPoint[];
}

const retrievePath = (token: string) => `/api/rest/version/100/merchant/${MERCHANT.id}/token/${token}`;

interface Gateway { child: Child; port: number; startMs: number; workload: Workload; pool: string[]; ledger: Ledger }

/** spawn → the start-up block, on the store at `path`. */
async function start(options: GrowthOptions, path: string, merchantsFile: string, timeoutMs: number): Promise<{ child: Child; port: number; ms: number }> {
  const child = startChild([join(buildDir(options.root), 'server.js')], {
    HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', MERCHANTS_FILE: merchantsFile, EVENT_STORE: `sqlite:${path}`,
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
async function ready(options: GrowthOptions, path: string, merchantsFile: string, round: number): Promise<Gateway> {
  const { child, port, ms } = await start(options, path, merchantsFile, 120_000);
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

/** One scenario on both gateways, in slices taking turns; each one's stats and CPU per response. */
async function sideBySide(options: GrowthOptions, here: Gateway, empty: Gateway, name: GrowthScenario): Promise<GrowthPoint['scenarios'][number]> {
  const taken: Record<'here' | 'empty', Slice[]> = { here: [], empty: [] };
  for (let slice = 0; slice < options.slices; slice++) {
    for (const which of slice % 2 === 0 ? ['here', 'empty'] as const : ['empty', 'here'] as const) {
      const gateway = which === 'here' ? here : empty;
      await sleep(300);
      const from = treeCpuMsOf(gateway.child.pid);
      const result = await fireSlice(gateway.port, requests(gateway, name), options.duration / options.slices, options.connections);
      taken[which].push({ ...result, serverCpuMs: treeCpuDelta(from, treeCpuMsOf(gateway.child.pid)) });
    }
  }
  const runOf = (slices: Slice[]): GrowthRun => mergeSlices(slices, options.connections);
  const h = runOf(taken.here);
  const e = runOf(taken.empty);
  return {
    name, here: h, empty: e, ratio: e.rps > 0 ? round(h.rps / e.rps, 2) : 0,
    cpuRatio: h.cpuUsPerRequest !== undefined && e.cpuUsPerRequest ? round(h.cpuUsPerRequest / e.cpuUsPerRequest, 2) : undefined,
  };
}

export async function runGrowth(options: GrowthOptions): Promise<GrowthResult> {
  const { log } = options;
  mkdirSync(options.workDir, { recursive: true });
  const merchantsFile = join(options.workDir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify({ merchants: [MERCHANT] }));
  const path = join(options.workDir, 'grown.db');
  const empty = await ready(options, join(options.workDir, 'empty.db'), merchantsFile, 0);
  log(`growth: a gateway on an empty store, pid ${empty.child.pid}`);
  const points: GrowthPoint[] = [];
  let events = 0;
  let tokens = 0;
  try {
    await fire(empty.port, requests(empty, 'pay'), 1, options.connections);
    for (const size of options.sizes) {
      log(`growth: filling the store to ${size.toLocaleString('en')} events`);
      // The fixture's orders and tokens are its own: the measured requests make theirs beside them.
      const fill = size > events ? await writeEvents(path, size - events, log, { merchantId: MERCHANT.id, repositoryId: MERCHANT.repository.id, firstToken: tokens, orderBase: 50_000_000_000 }) : undefined;
      events = size;
      tokens += fill?.tokens ?? 0;
      const first = await start(options, path, merchantsFile, 60 * 60_000);
      log(`  the first start after the fill: ${first.ms} ms; waiting for its background work`);
      await settled(first.child, 10 * 60_000);
      await first.child.stop();
      // The fill's and the catch-up's gigabytes written back to the disk before anything is timed:
      // else the restart's syncs wait behind them, and the first scenario measures the disk.
      spawnSync('sync');
      const here = await ready(options, path, merchantsFile, points.length);
      const startHwmMB = memoryOf(here.child.pid)?.hwmMB ?? 0;
      log(`  a restart: ${here.startMs} ms (peak RSS ${startHwmMB} MB)`);
      try {
        // Warmed up as the empty store's gateway was by the sizes before (its code compiled by V8).
        await fire(here.port, here.workload.requests('mixed', here.ledger), 3, options.connections);
        const scenarios: GrowthPoint['scenarios'] = [];
        for (const name of GROWTH_SCENARIOS) {
          const s = await sideBySide(options, here, empty, name);
          scenarios.push(s);
          log(`  ${name}: ${s.here.rps} req/s (${s.here.cpuUsPerRequest ?? '?'} µs) beside ${s.empty.rps} (${s.empty.cpuUsPerRequest ?? '?'} µs) on the empty store: ×${s.ratio}, CPU ×${s.cpuRatio ?? '?'}` +
            (s.here.non2xx + s.empty.non2xx > 0 ? `; NOT 2xx: ${s.here.non2xx} here, ${s.empty.non2xx} on the empty store` : ''));
        }
        points.push({
          events: size, tokens, fill: { seconds: fill?.seconds ?? 0, eventsPerSecond: fill?.eventsPerSecond ?? 0 },
          firstStartMs: first.ms, startMs: here.startMs, startHwmMB, fileBytes: statSync(path).size, scenarios,
        });
      } finally {
        await here.child.stop();
      }
    }
  } finally {
    await empty.child.stop();
  }
  return { emptyStartMs: empty.startMs, points };
}
