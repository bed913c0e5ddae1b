// CPU per Pay with token in-process (app.inject, a SQLite store in a temporary directory): many
// pays on a pool of 20 tokens, each on a new order, 50 at a time (the pay scenario of bench/http.ts
// without the network; `--concurrency N` for another number, fewer making the stores' batches
// smaller). Compares built trees taking turns, each run in a fresh process:
//
//   node bench/inject-pay.mjs [--runs 6] [--pays 6000] [--warmup N] [--concurrency 50] [--store postgres] <tree>[@journalSize] [...]
//
// A tree is a checkout built with `npm run build` (its dist/ is loaded); `@N` runs it with a
// request journal of N entries (JOURNAL_SIZE; default its default), `--warmup N` pays first
// (default half of --pays; more than the journal's size to measure it full). Prints each run as it
// ends (with the 1-minute load average and the bytes allocated per pay) and the median per tree. CPU time, not wall time, is
// compared: on a shared machine it is the steadier figure. A profile of one tree's measured pays:
//
//   INJECT_PAY_PROFILE=/tmp/pay.cpuprofile node bench/inject-pay.mjs --child <tree>[@size] 6000 [warmup]
//
// and of the bytes they allocate: INJECT_PAY_HEAP=/tmp/pay.heapprofile (a sampling heap profile,
// one sample per 512 bytes on average, objects collected since counted; the sampled bytes per pay
// are printed to stderr; bench/heap-sites.mjs sums the file per function and per call path).
//
// `--store postgres` runs every tree on PostgreSQL instead: one throwaway server for the whole run
// (scripts/postgres-server.ts, built into this checkout's dist/ by `tsc -p bench/tsconfig.json`),
// a fresh database per run; each run also prints the server's CPU (postmaster and backends, from
// /proc) per pay. A profile on PostgreSQL: INJECT_PAY_POSTGRES=<database url> with --child.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { GCProfiler, getHeapStatistics } from 'node:v8';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const MERCHANT = {
  id: 'BENCHMERCHANT01', apiPassword: 'bench-api-password-0123456789abcdef',
  repository: { id: 'BENCHREPO01', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
};
const basic = (user, password) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const PAY_HEADERS = { authorization: basic('', MERCHANT.apiPassword), 'content-type': 'application/json' };
const TOKEN_HEADERS = { authorization: basic(`merchant.${MERCHANT.id}`, MERCHANT.apiPassword), 'content-type': 'application/json' };
const PAY_BODY = JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' }, card: { securityCode: '100' } });
const TOKEN_BODY = JSON.stringify({ sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } });

/** A CPU profile of the measured pays only, written to `path` (INJECT_PAY_PROFILE=path). */
async function startProfile() {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop(path) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(path, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** A sampling heap profile of the measured pays, collected objects included (INJECT_PAY_HEAP=path). */
async function startHeapSampling() {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  return {
    async stop(path, pays) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(path, JSON.stringify(profile));
      session.disconnect();
      const bytes = profile.samples.reduce((sum, s) => sum + s.size, 0);
      process.stderr.write(`${(bytes / pays / 1024).toFixed(1)} KB allocated per pay (${profile.samples.length} samples)\n`);
    },
  };
}

/** CPU ms of a process and its children (the PostgreSQL server and its backends), from /proc. */
function treeCpuMs(pid) {
  const stat = (p) => {
    const text = readFileSync(`/proc/${p}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  };
  const pids = new Map();
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const fields = stat(p);
      if (p === String(pid) || fields[1] === String(pid)) pids.set(p, (Number(fields[11]) + Number(fields[12])) * 10);
    } catch { /* gone meanwhile */ }
  }
  return pids;
}
const treeCpuDelta = (from, to) => [...to].reduce((sum, [p, ms]) => sum + ms - (from.get(p) ?? 0), 0);

async function child(spec, pays, warmup) {
  const [tree, journalSize] = spec.split('@');
  const { buildApp } = await import(join(tree, 'dist/app.js'));
  const { parseMerchants } = await import(join(tree, 'dist/merchants.js'));
  const dir = mkdtempSync(join(tmpdir(), 'inject-pay-'));
  const app = await buildApp({
    eventStore: process.env.INJECT_PAY_POSTGRES ? { kind: 'postgres', url: process.env.INJECT_PAY_POSTGRES } : { kind: 'sqlite', path: join(dir, 'gateway.db') },
    merchants: parseMerchants({ merchants: [MERCHANT] }, 'bench'),
    limits: { authFailureLimit: 1e9 },
    ...(journalSize === undefined ? {} : { journal: { size: Number(journalSize) } }),
  });
  await app.ready();
  const tokens = [];
  for (let i = 0; i < 20; i++) {
    const created = await app.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${MERCHANT.id}/token`, headers: TOKEN_HEADERS, payload: TOKEN_BODY });
    tokens.push(JSON.parse(created.body).token);
  }
  let order = 0;
  const pay = () => {
    const orderId = String(30000000000 + order++);
    return app.inject({ method: 'PUT', url: `/api/rest/version/3/merchant/${MERCHANT.id}/token/${tokens[order % 20]}/order/${orderId}/transaction/1`, headers: PAY_HEADERS, payload: PAY_BODY });
  };
  const run = async (n) => {
    let next = 0;
    let refused = 0;
    const serverPid = process.env.INJECT_PAY_PG_PID;
    const server0 = serverPid ? treeCpuMs(serverPid) : undefined;
    const gcs = new GCProfiler();
    const used0 = getHeapStatistics().used_heap_size;
    gcs.start();
    const cpu0 = process.cpuUsage();
    await Promise.all(Array.from({ length: Number(process.env.INJECT_PAY_CONCURRENCY ?? 50) }, async () => {
      while (next++ < n) if ((await pay()).statusCode !== 201) refused++;
    }));
    const cpu = process.cpuUsage(cpu0);
    // Bytes allocated: the heap's growth plus what each collection freed.
    const freed = gcs.stop().statistics.reduce((sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize, 0);
    const allocated = getHeapStatistics().used_heap_size - used0 + freed;
    const serverUs = server0 ? treeCpuDelta(server0, treeCpuMs(serverPid)) * 1000 / n : undefined;
    return { cpuUs: (cpu.user + cpu.system) / n, systemUs: cpu.system / n, serverUs, kbAllocated: allocated / n / 1024, refused };
  };
  await run(warmup);
  const profiler = process.env.INJECT_PAY_PROFILE ? await startProfile() : undefined;
  const heap = process.env.INJECT_PAY_HEAP ? await startHeapSampling() : undefined;
  const measured = await run(pays);
  if (profiler) await profiler.stop(process.env.INJECT_PAY_PROFILE);
  if (heap) await heap.stop(process.env.INJECT_PAY_HEAP, pays);
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify(measured));
}

async function main(args) {
  let runs = 6;
  let postgres;
  let pays = 6000;
  let warmup;
  const trees = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--runs') runs = Number(args[++i]);
    else if (args[i] === '--pays') pays = Number(args[++i]);
    else if (args[i] === '--warmup') warmup = Number(args[++i]);
    else if (args[i] === '--concurrency') process.env.INJECT_PAY_CONCURRENCY = args[++i];
    else if (args[i] === '--store') {
      const store = args[++i];
      if (store !== 'postgres' && store !== 'sqlite') throw new Error(`--store: sqlite (the default) or postgres, not ${store}`);
      postgres = store === 'postgres';
    }
    else trees.push(resolve(args[i]));
  }
  if (trees.length === 0) throw new Error('usage: node bench/inject-pay.mjs [--runs 6] [--pays 6000] <tree> [<tree>...]');
  const results = new Map(trees.map((t) => [t, []]));
  const self = fileURLToPath(import.meta.url);
  const server = postgres ? await (await import(join(self, '../../dist/scripts/postgres-server.js'))).startPostgres() : undefined;
  for (let r = 0; r < runs; r++) {
    // Each round in the other order than the one before, so no tree always follows another.
    const order = r % 2 === 0 ? trees : [...trees].reverse();
    for (const tree of order) {
      const load = loadavg()[0];
      const env = server ? { INJECT_PAY_POSTGRES: await server.createDatabase('pay'), INJECT_PAY_PG_PID: String(server.serverPid()) } : {};
      const out = spawnSync(process.execPath, [self, '--child', tree, String(pays), String(warmup ?? Math.ceil(pays / 2))], { encoding: 'utf8', env: { ...process.env, ...env } });
      if (out.status !== 0) throw new Error(`run of ${tree} failed: ${out.stderr}`);
      const { cpuUs, serverUs, kbAllocated, refused } = JSON.parse(out.stdout);
      results.get(tree).push(cpuUs);
      const serverText = serverUs === undefined ? '' : ` (+ ${serverUs.toFixed(0)} µs of the server's)`;
      console.log(`${tree}\trun ${r + 1}\tload ${load.toFixed(1)}\t${cpuUs.toFixed(0)} µs CPU per pay${serverText}\t${kbAllocated.toFixed(1)} KB allocated${refused ? `\t${refused} not 201` : ''}`);
    }
  }
  for (const [tree, figures] of results) {
    const sorted = [...figures].sort((a, b) => a - b);
    const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    console.log(`${tree}\tmedian ${median.toFixed(0)} µs (${sorted[0].toFixed(0)}–${sorted.at(-1).toFixed(0)}) over ${figures.length} runs`);
  }
  await server?.stop();
}

if (process.argv[2] === '--child') await child(process.argv[3], Number(process.argv[4]), Number(process.argv[5] ?? Math.ceil(Number(process.argv[4]) / 2)));
else await main(process.argv.slice(2));
