// The request journal's cost on the pay path: `npm run bench:journal [-- options]`.
//
// Three servers side by side, each on a fresh store: the durable floor (bench/floor.mjs),
// tokengate with the journal (JOURNAL_SIZE 10,000, its default) and tokengate without it
// (JOURNAL_SIZE=0: no hook at all). Each is set up as `npm run bench` sets tokengate up (a pool
// of tokens made through the API), warmed up with the mixed scenario, then the pay scenario runs
// in slices, the three taking turns in a rotating order, so that a loaded machine's swings fall
// on all three alike. Printed: req/s, CPU µs per pay and p99 of each; pay ÷ floor with the journal
// on and off, and on ÷ off. The JSON goes to bench/results/journal-<timestamp>.json.
//
//   --duration S      seconds of pay per server (default 30)
//   --slices N        slices of it, the servers taking turns (default 15; none under 1 s)
//   --connections N   autocannon connections (default 50)
//   --warmup S        mixed scenario on each before measuring (default 3)
//   --out DIR         where the JSON goes (default bench/results)
//   --size N          JOURNAL_SIZE of the server with the journal (default 10,000, the default;
//                     0 compares two servers without it: the method's own noise)
//   --off-first       start the server without the journal first (default: the one with it)
// After the slices each tokengate's journal is asked for its last pay: the one with the journal
// must have it, the other none (else the run is not what it says, and fails).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { call, createToken, fire, fireSlice, Ledger, mergeSlices, MERCHANT, PAY_BODY, PAY_HEADERS, payPath, POOL_SIZE, sliceCount, TOKEN_BODY, TOKEN_HEADERS, TOKEN_PATH, Workload, type Slice } from './http.js';
import { buildDir, projectRoot, round, sleep, startChild, table, waitListening, type Child } from './lib.js';

type Target = 'floor' | 'journal on' | 'journal off';
const TARGETS: readonly Target[] = ['floor', 'journal on', 'journal off'];
const SETTLE_MS = 300;
const ADMIN_PASSWORD = 'bench-admin-password-0123456789';
const ADMIN = { authorization: `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}` };

export interface JournalBenchOptions { duration: number; slices: number; connections: number; warmup: number; out: string; silent?: boolean; size?: number; offFirst?: boolean }

export function parseJournalArgs(args: readonly string[], root = projectRoot()): JournalBenchOptions {
  const outAt = args.indexOf('--out');
  return {
    duration: option(args, '--duration', 30), slices: option(args, '--slices', 15), connections: option(args, '--connections', 50), warmup: option(args, '--warmup', 3),
    out: outAt >= 0 ? resolve(args[outAt + 1] ?? '') : join(root, 'bench', 'results'), silent: args.includes('--silent'),
    ...(args.includes('--size') ? { size: option(args, '--size', 10_000, 0) } : {}),
    ...(args.includes('--off-first') ? { offFirst: true } : {}),
  };
}

function option(args: readonly string[], name: string, fallback: number, least = Number.MIN_VALUE): number {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isFinite(value) || value < least) throw new Error(`bench: ${name} '${args[at + 1]}' is not a ${least === 0 ? 'number from 0' : 'positive number'}`);
  return value;
}

interface Server { child: Child; port: number; workload: Workload; ledger: Ledger; pool: readonly string[] }

/** A tokengate on a fresh store, with its pool of tokens and its seed payment (as bench/http.ts). */
async function tokengate(root: string, dir: string, merchantsFile: string, journalSize: number): Promise<Server> {
  mkdirSync(dir, { recursive: true });
  const child = startChild([join(buildDir(root), 'server.js')], {
    HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ADMIN_PASSWORD, EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: merchantsFile, JOURNAL_SIZE: String(journalSize),
  }, dir);
  const { port } = await waitListening(child, 60_000);
  const pool: string[] = [];
  for (let i = 0; i < POOL_SIZE; i++) {
    pool.push((await createToken(port)).token);
  }
  const seed = { orderId: '10000000000', token: pool[0] ?? '', body: '' };
  const paid = await call(port, 'PUT', payPath(seed.token, seed.orderId), PAY_HEADERS, PAY_BODY);
  if (paid.status !== 201) throw new Error(`bench: the seed payment failed: ${paid.status} ${paid.text}`);
  seed.body = paid.text;
  writeFileSync(join(dir, 'pay-body.json'), paid.text);
  writeFileSync(join(dir, 'token-body.json'), (await call(port, 'POST', TOKEN_PATH, TOKEN_HEADERS, TOKEN_BODY)).text);
  return { child, port, workload: new Workload(pool, seed), ledger: new Ledger(), pool };
}

/** The floor, answering the shapes of `bodies`' captured answers, paying with `pool`'s ids (as bench/http.ts starts it). */
async function floor(root: string, dir: string, merchantsFile: string, bodies: string, pool: readonly string[]): Promise<Server> {
  mkdirSync(dir, { recursive: true });
  const child = startChild([join(root, 'bench', 'floor.mjs')], {
    FLOOR_DB: join(dir, 'floor.db'), FLOOR_MERCHANTS_FILE: merchantsFile,
    FLOOR_PAY_BODY: join(bodies, 'pay-body.json'), FLOOR_TOKEN_BODY: join(bodies, 'token-body.json'),
  }, dir);
  const { port } = await waitListening(child, 60_000);
  return { child, port, workload: new Workload(pool, { orderId: '10000000000', token: pool[0] ?? '', body: '' }), ledger: new Ledger(), pool };
}

/** How many pays a tokengate's journal holds (at most 1): the check that on is on and off is off. */
async function journaled(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/admin/api/requests?operation=PAY&limit=1`, { headers: ADMIN });
  if (res.status !== 200) throw new Error(`bench: the journal answered ${res.status}`);
  return ((await res.json()) as { requests: unknown[] }).requests.length;
}

export async function runJournalBench(options: JournalBenchOptions) {
  const { duration, connections, warmup } = options;
  const slices = sliceCount(duration, options.slices);
  const say = (line: string) => { if (!options.silent) console.error(line); };
  const root = projectRoot();
  const work = mkdtempSync(join(tmpdir(), 'tokengate-bench-journal-'));
  const children: Child[] = [];
  try {
    const merchantsFile = join(work, 'merchants.json');
    writeFileSync(merchantsFile, JSON.stringify({ merchants: [MERCHANT] }));
    // Which starts first is the caller's choice (--off-first): with the same server in both places
    // (--size 0), the one started first took a few % more CPU per pay on this VM.
    const started: Server[] = [];
    for (const [name, size] of options.offFirst ? [['off', 0], ['on', options.size ?? 10_000]] as const : [['on', options.size ?? 10_000], ['off', 0]] as const) {
      started.push(await tokengate(root, join(work, name), merchantsFile, size));
      children.push(started.at(-1)!.child);
    }
    const [on, off] = (options.offFirst ? [started[1], started[0]] : started) as [Server, Server];
    const fl = await floor(root, join(work, 'floor'), merchantsFile, join(work, 'on'), on.pool);
    children.push(fl.child);
    const servers: Record<Target, Server> = { floor: fl, 'journal on': on, 'journal off': off };
    say(`warm-up: mixed for ${warmup} s on each`);
    for (const target of TARGETS) await fire(servers[target].port, servers[target].workload.requests('mixed', servers[target].ledger), warmup, connections);
    const load = loadavg().map((l) => round(l, 1));
    const taken: Record<Target, Slice[]> = { floor: [], 'journal on': [], 'journal off': [] };
    const sliceSec = duration / slices;
    say(`pay: ${duration} s × ${connections} connections on each, in ${slices} slices of ${round(sliceSec, 2)} s taking turns (load ${load.join(' ')})`);
    for (let slice = 0; slice < slices; slice++) {
      for (let i = 0; i < TARGETS.length; i++) {
        const target = TARGETS[(slice + i) % TARGETS.length] as Target;
        const server = servers[target];
        await sleep(SETTLE_MS);
        taken[target].push(await fireSlice(server.port, server.workload.requests('pay', server.ledger), sliceSec, connections, server.child.pid));
      }
    }
    const journals = { on: await journaled(on.port), off: await journaled(off.port) };
    const expected = (options.size ?? 10_000) > 0 ? 1 : 0;
    if (journals.on !== expected || journals.off !== 0) throw new Error(`bench: the journals hold ${journals.on} and ${journals.off} pays, not ${expected} and 0`);
    const stats = Object.fromEntries(TARGETS.map((t) => [t, mergeSlices(taken[t], connections)])) as Record<Target, ReturnType<typeof mergeSlices>>;
    const ratio = (a: number, b: number) => (b > 0 ? round(a / b, 3) : 0);
    const result = {
      at: new Date().toISOString(), journalSize: options.size ?? 10_000, offFirst: options.offFirst === true, duration, slices, connections, loadBefore: load, loadAfter: loadavg().map((l) => round(l, 1)), stats,
      onFloor: ratio(stats['journal on'].rps, stats.floor.rps), offFloor: ratio(stats['journal off'].rps, stats.floor.rps),
      onOff: ratio(stats['journal on'].rps, stats['journal off'].rps),
      cpuOnOff: ratio(stats['journal on'].cpuUsPerRequest ?? 0, stats['journal off'].cpuUsPerRequest ?? 0),
    };
    mkdirSync(options.out, { recursive: true });
    const file = join(options.out, `journal-${result.at.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, JSON.stringify(result, null, 2));
    if (!options.silent) {
      console.log(table([
        ['target', 'req/s', 'CPU µs/pay', 'p99 ms', 'non2xx', '÷ floor'],
        ...TARGETS.map((t) => [t, stats[t].rps, stats[t].cpuUsPerRequest ?? '-', stats[t].latencyMs.p99, stats[t].non2xx, t === 'floor' ? '' : ratio(stats[t].rps, stats.floor.rps)]),
      ]));
      console.log(`journal on ÷ off: req/s ${result.onOff}, CPU per pay ${result.cpuOnOff}; load average ${result.loadBefore.join(' ')} before, ${result.loadAfter.join(' ')} after`);
      console.log(`result: ${file}`);
    }
    return { ...result, file };
  } finally {
    for (const child of children) await child.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  runJournalBench(parseJournalArgs(process.argv.slice(2))).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
