// Shared by the end-to-end tests of a PostgreSQL outage under load (postgres-outage.test.ts: one
// process; postgres-outage-workers.test.ts: WORKERS=2). Named *.fixture.ts so tap does not run it as a test file.
import { join } from 'node:path';
import type { Test } from 'tap';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { SERVER, startGateway } from '../helpers/gateway-process.js';
import type { HaltMode, RunningPostgres } from '../helpers/postgres.js';
import { exchange, parseResponse, rawRequest } from '../helpers/raw.js';
import { call } from '../helpers/server.js';
import { alive, workerPids } from './workers.fixture.js';
import { sleep, waitFor } from '../helpers/poll.js';
import { budget } from '../helpers/slowdown.js';

const MODES: HaltMode[] = ['fast', 'immediate', 'kill'];
/** Clients paying throughout: many appends in flight when the server goes (a gateway without an 'error' listener on its connections then died in most outages). */
const CLIENTS = 8;

/** Polls `ready` until it holds; fails at once when a process of the gateway (`pids`) has died. */
const until = async (ready: () => boolean | Promise<boolean>, what: string, pids: number[], timeoutMs = 20_000) => {
  await waitFor(async () => {
    if (await ready()) return true;
    const dead = pids.filter((pid) => !alive(pid));
    if (dead.length > 0) throw new Error(`${what}: the gateway's process ${dead.join(', ')} died`);
    return false;
  }, what, { timeoutMs, intervalMs: 20 });
};

/** A pay of a new order; a refused or dropped connection, or no answer within 15 s (scaled by the load), is the error text. */
async function pay(url: string, token: string, order: string): Promise<{ status: number; text: string }> {
  try {
    const res = await fetch(url + payPath(M1.id, token, order, '1'), {
      method: 'PUT', headers: { authorization: payAuth(M1), 'content-type': 'application/json' },
      body: JSON.stringify({ apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } }), signal: AbortSignal.timeout(budget(15_000)),
    });
    return { status: res.status, text: await res.text() };
  } catch (error) {
    return { status: 0, text: `no answer: ${String((error as { cause?: unknown }).cause ?? error)}` };
  }
}

/** Check Gateway's status, on a connection of its own (with WORKERS, each new connection goes to the next worker). */
async function status(url: string): Promise<string> {
  const { port } = new URL(url);
  const text = await exchange(Number(port), rawRequest('GET', '/api/rest/version/100/information', {})).catch((error: unknown) => `no answer: ${String(error)}`);
  const reply = parseResponse(text);
  if (Number.isNaN(reply.status)) return text;
  return reply.status === 200 ? (JSON.parse(reply.body) as { status: string }).status : `HTTP ${reply.status}`;
}

/** `times` answers in a row of `expected` (so every worker has said so). */
async function statusHolds(url: string, expected: string, times: number): Promise<boolean> {
  for (let i = 0; i < times; i++) if (await status(url) !== expected) return false;
  return true;
}

interface Load {
  /** Orders whose pay was answered 201. */
  acknowledged: string[];
  /** 503s, each with the gateway's SERVER_BUSY body (else in `wrong`). */
  busy: number;
  /** Anything else: another status, a 503 without the body, a refused or dropped connection. */
  wrong: string[];
  /** One pay of a new order, its answer counted as the clients' are. */
  send(): Promise<{ status: number; text: string }>;
  stop(): Promise<void>;
}

/** `CLIENTS` clients paying new orders one after another until stopped (a short pause after a refusal). */
function payLoad(url: string, token: string): Load {
  let stopped = false;
  let next = 0;
  const send = async () => {
    const order = String(50000000000 + next++);
    const reply = await pay(url, token, order);
    const error = reply.status === 503 ? (JSON.parse(reply.text) as { result?: string; error?: { cause?: string; explanation?: unknown } }) : undefined;
    if (reply.status === 201) load.acknowledged.push(order);
    else if (error?.result === 'ERROR' && error.error?.cause === 'SERVER_BUSY' && typeof error.error.explanation === 'string') load.busy++;
    else load.wrong.push(`${reply.status} ${reply.text.slice(0, 200)}`);
    return reply;
  };
  const client = async () => {
    while (!stopped) {
      if ((await send()).status !== 201) await sleep(50); // a client backs off after a refusal, as a real one does
    }
  };
  const load: Omit<Load, 'stop'> = { acknowledged: [], busy: 0, wrong: [], send };
  const clients = Array.from({ length: CLIENTS }, client);
  return Object.assign(load, { stop: async () => { stopped = true; await Promise.all(clients); } });
}

/**
 * The gateway (one process, or WORKERS=2) under `CLIENTS` paying clients, PostgreSQL stopped fast,
 * stopped immediately and killed (SIGKILL of the postmaster) in turn, each time started again on
 * the same data and port: the gateway's processes stay up; every pay is answered 201, or 503 with
 * the SERVER_BUSY body (never a refused connection); Check Gateway says SHUTDOWN while PostgreSQL
 * is away and OPERATING within seconds of its return; every pay answered 201 is retrieved after.
 */
export async function outagesUnderLoad(t: Test, pg: RunningPostgres, workers: 1 | 2): Promise<void> {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const url = await pg.createDatabase(`e2e_outage_load_${workers}`);
  const gateway = await startGateway([SERVER], { EVENT_STORE: url, MERCHANTS_FILE: join(dir, 'merchants.json'), ...(workers > 1 ? { WORKERS: String(workers) } : {}) });
  t.teardown(() => gateway.stop('SIGKILL'));
  if (workers > 1) await gateway.until(() => workerPids(gateway).length === workers, 'the workers started');
  // The primary and its workers (WORKERS=2), or the one process.
  const pids = [gateway.child.pid!, ...(workers > 1 ? workerPids(gateway) : [])];
  const created = await call(gateway.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
  t.equal(created.status, 201, created.text);
  const token = created.json().token as string;
  const load = payLoad(gateway.url, token);
  try {
    for (const mode of MODES) {
      const what = `PostgreSQL stopped (${mode})`;
      const before = load.acknowledged.length;
      await until(() => load.acknowledged.length >= before + 4 * CLIENTS, `${what}: pays answered before the stop`, pids);
      const busy = load.busy;
      await pg.halt(mode);
      try {
        await until(() => statusHolds(gateway.url, 'SHUTDOWN', 2 * workers), `${what}: Check Gateway SHUTDOWN while PostgreSQL is down`, pids);
        await until(() => load.busy > busy + CLIENTS, `${what}: pays answered 503 while PostgreSQL is down`, pids);
        t.ok(await statusHolds(gateway.url, 'SHUTDOWN', 2 * workers), `${what}: Check Gateway says SHUTDOWN while PostgreSQL is down`);
      } finally {
        // Up again for what follows, this test's checks or the next test's, whatever happened.
        await pg.resume();
      }
      const resumed = Date.now();
      await until(async () => (await load.send()).status === 201 && await statusHolds(gateway.url, 'OPERATING', 2 * workers), `${what}: serving again`, pids);
      t.pass(`${what}: 503 SERVER_BUSY and SHUTDOWN while down; serving again ${Date.now() - resumed} ms after PostgreSQL started`);
      const after = load.acknowledged.length;
      await until(() => load.acknowledged.length >= after + CLIENTS, `${what}: the load paid again`, pids);
    }
  } finally {
    await load.stop();
  }
  t.same(load.wrong, [], 'every pay answered 201, or 503 with the SERVER_BUSY body: no other answer, no refused connection');
  t.same(pids.filter((pid) => !alive(pid)), [], `the gateway's ${workers === 1 ? 'process' : 'primary and workers'} stayed up`);
  t.notMatch(gateway.stdout(), 'worker exited unexpectedly', 'no worker restarted');

  // The read models (Retrieve Token), the key store (a new token) and every acknowledged payment
  // (Retrieve Order), after the outages.
  const retrieved = await call(gateway.url, 'GET', `/api/rest/version/100/merchant/${M1.id}/token/${token}`, tokenAuth(M1));
  t.equal(retrieved.status, 200, retrieved.text);
  const another = await call(gateway.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '2', '39'));
  t.equal(another.status, 201, another.text);
  const missing: string[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (next < load.acknowledged.length) {
      const order = load.acknowledged[next++]!;
      const reply = await call(gateway.url, 'GET', `/api/rest/version/3/merchant/${M1.id}/order/${order}`, payAuth(M1));
      if (reply.status !== 200 || reply.json().transaction?.[0]?.result !== 'SUCCESS') missing.push(`${order}: ${reply.status} ${reply.text.slice(0, 200)}`);
    }
  }));
  t.same(missing, [], `all ${load.acknowledged.length} pays answered 201 are retrieved afterwards (${load.busy} answered 503)`);
  t.notMatch(gateway.stdout() + gateway.stderr(), pg.password, 'the password never reaches the logs');
  t.equal(await gateway.stop(), 0, 'SIGTERM: a clean exit');
}

