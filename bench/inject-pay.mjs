// CPU per Pay with token in-process (app.inject, a SQLite store in a temporary directory): many
// pays on a pool of 20 tokens, each on a new order, 50 at a time (the pay scenario of bench/http.ts
// without the network). Compares built trees taking turns, each run in a fresh process:
//
//   node bench/inject-pay.mjs [--runs 6] [--pays 6000] [--warmup N] <tree>[@journalSize] [...]
//
// A tree is a checkout built with `npm run build` (its dist/ is loaded); `@N` runs it with a
// request journal of N entries (JOURNAL_SIZE; default its default), `--warmup N` pays first
// (default half of --pays; more than the journal's size to measure it full). Prints each run as it
// ends (with the 1-minute load average) and the median per tree. CPU time, not wall time, is
// compared: on a shared machine it is the steadier figure. A profile of one tree's measured pays:
//
//   INJECT_PAY_PROFILE=/tmp/pay.cpuprofile node bench/inject-pay.mjs --child <tree>[@size] 6000 [warmup]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
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

async function child(spec, pays, warmup) {
  const [tree, journalSize] = spec.split('@');
  const { buildApp } = await import(join(tree, 'dist/app.js'));
  const { parseMerchants } = await import(join(tree, 'dist/merchants.js'));
  const dir = mkdtempSync(join(tmpdir(), 'inject-pay-'));
  const app = await buildApp({
    eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') },
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
    const cpu0 = process.cpuUsage();
    await Promise.all(Array.from({ length: 50 }, async () => {
      while (next++ < n) if ((await pay()).statusCode !== 201) refused++;
    }));
    const cpu = process.cpuUsage(cpu0);
    return { cpuUs: (cpu.user + cpu.system) / n, refused };
  };
  await run(warmup);
  const profiler = process.env.INJECT_PAY_PROFILE ? await startProfile() : undefined;
  const measured = await run(pays);
  if (profiler) await profiler.stop(process.env.INJECT_PAY_PROFILE);
  await app.close();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(JSON.stringify(measured));
}

function main(args) {
  let runs = 6;
  let pays = 6000;
  let warmup;
  const trees = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--runs') runs = Number(args[++i]);
    else if (args[i] === '--pays') pays = Number(args[++i]);
    else if (args[i] === '--warmup') warmup = Number(args[++i]);
    else trees.push(resolve(args[i]));
  }
  if (trees.length === 0) throw new Error('usage: node bench/inject-pay.mjs [--runs 6] [--pays 6000] <tree> [<tree>...]');
  const results = new Map(trees.map((t) => [t, []]));
  const self = fileURLToPath(import.meta.url);
  for (let r = 0; r < runs; r++) {
    // Each round in the other order than the one before, so no tree always follows another.
    const order = r % 2 === 0 ? trees : [...trees].reverse();
    for (const tree of order) {
      const load = loadavg()[0];
      const out = spawnSync(process.execPath, [self, '--child', tree, String(pays), String(warmup ?? Math.ceil(pays / 2))], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`run of ${tree} failed: ${out.stderr}`);
      const { cpuUs, refused } = JSON.parse(out.stdout);
      results.get(tree).push(cpuUs);
      console.log(`${tree}\trun ${r + 1}\tload ${load.toFixed(1)}\t${cpuUs.toFixed(0)} µs CPU per pay${refused ? `\t${refused} not 201` : ''}`);
    }
  }
  for (const [tree, figures] of results) {
    const sorted = [...figures].sort((a, b) => a - b);
    const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    console.log(`${tree}\tmedian ${median.toFixed(0)} µs (${sorted[0].toFixed(0)}–${sorted.at(-1).toFixed(0)}) over ${figures.length} runs`);
  }
}

if (process.argv[2] === '--child') await child(process.argv[3], Number(process.argv[4]), Number(process.argv[5] ?? Math.ceil(Number(process.argv[4]) / 2)));
else main(process.argv.slice(2));
