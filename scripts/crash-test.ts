// Crash consistency (issue 8, item 2). Starts the real server (dist/server.js) on a SQLite file,
// puts it under concurrent load (creating tokens, paying with them, identical retries sent at
// the same time, more transactions on recorded orders, repeats of recorded payments), kills it
// with SIGKILL at a random moment, and checks the crash image and the restarted server:
//
// - every request answered 201 before the kill is there after the restart: the token pays again;
//   an identical repeat of a payment answers the recorded body byte for byte but for
//   correlationId; the orders read model holds the transaction exactly once;
// - nothing is half applied: every PaymentRecorded references a token created before it, stream
//   revisions are contiguous, read-model checkpoints are not beyond the log head, every recorded
//   transaction up to the orders checkpoint is in its order document exactly once (and none
//   beyond it), every card reservation of a unique-card repository has its token once the card
//   is stored again; scheme-token work cut by a kill (SCHEME_TOKEN_DELAY_MS after the request)
//   resumes and finishes after the restart;
// - the read models equal a rebuild: on a copy of the files, ReadModels.hash() before and after
//   ReadModels.rebuild(); and `tokengate replay` on another copy prints the live hash.
//
// Usage: npm run crash-test -- [--rounds 20] [--workers 12] [--seed N] [--kill-min-ms 150]
//        [--kill-max-ms 1200] [--dir DIR] [--keep] [--time-limit-s 900]
// Every loop is bounded (rounds, per-round deadlines, per-request time-outs, an overall time
// limit) and talks only to 127.0.0.1. Exit status 1 when a problem is found.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { openStores } from '../root.js';

// ---------------------------------------------------------------------------------------------
// Where things are

/** The project folder, from scripts/ (run from source) or dist/scripts/ (compiled). */
function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('package.json not found above scripts/crash-test');
}
const ROOT = projectRoot();
/** The compiled gateway it runs: dist/, or the test run's own build (TOKENGATE_DIST, scripts/test.mjs). */
const BUILD = process.env.TOKENGATE_DIST ?? join(ROOT, 'dist');
const SERVER = join(BUILD, 'server.js');
const CLI = join(BUILD, 'bin', 'tokengate.js');

// ---------------------------------------------------------------------------------------------
// Options and report

export interface CrashOptions {
  rounds: number;
  /** Concurrent client loops during the load. */
  workers: number;
  /** A kill comes this long after the server is ready (uniform in [min, max] ms). */
  killMinMs: number;
  killMaxMs: number;
  /** Share of rounds (after the first) killed while the server starts (within the time the last start took). */
  earlyKillRate: number;
  /** Instead of the rate: exactly these rounds are killed while the server starts. */
  earlyKillRounds?: readonly number[];
  seed: number;
  /** Working folder (a new temporary one when absent). */
  dir?: string;
  /** Keep the working folder. */
  keep: boolean;
  /** The whole run stops (and reports) after this long. */
  timeLimitMs: number;
  log: (line: string) => void;
}

export const DEFAULTS: CrashOptions = {
  rounds: 20, workers: 12, killMinMs: 150, killMaxMs: 1200, earlyKillRate: 0.2, seed: 0, keep: false, timeLimitMs: 15 * 60_000,
  log: (line) => process.stdout.write(`${line}\n`),
};

export interface RoundStats { round: number; killed: 'under load' | 'while starting'; killedAfterMs: number; requests: number; acknowledged: number; inFlightAtKill: number; events: number }

export interface CrashReport {
  seed: number;
  dir: string;
  rounds: RoundStats[];
  tokens: number;
  payments: number;
  requests: number;
  problems: string[];
  liveHash?: string;
  rebuiltHash?: string;
  replayHash?: string;
  durationMs: number;
}

// ---------------------------------------------------------------------------------------------
// Deterministic randomness (the timing is not, but the choices are)

function mulberry32(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// Merchants, cards, requests

interface Merchant {
  id: string;
  apiPassword: string;
  repository: { id: string; tokenGeneration: string; tokenManagement: string; schemeTokenization?: boolean; schemeTokenProvisioningMode?: string };
}

const MERCHANTS: Merchant[] = [
  { id: 'CRASH01', apiPassword: 'crash-test-password-random-0123456789', repository: { id: 'CRASHREPO1', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN' } },
  { id: 'CRASH02', apiPassword: 'crash-test-password-preserve-01234567', repository: { id: 'CRASHREPO2', tokenGeneration: 'PRESERVE_6_4', tokenManagement: 'UNIQUE_TOKEN' } },
  { id: 'CRASH03', apiPassword: 'crash-test-password-uniquecard-012345', repository: { id: 'CRASHREPO3', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_CARD' } },
  // Scheme tokens requested after the response: the reactor's pending work is cut by kills too.
  {
    id: 'CRASH04', apiPassword: 'crash-test-password-schemetoken-0123',
    repository: { id: 'CRASHREPO4', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: true, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
  },
];
/** How long the scheme-token reactor waits before finishing a scheme token (SCHEME_TOKEN_DELAY_MS). */
const SCHEME_TOKEN_DELAY_MS = 150;

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const tokenPath = (m: Merchant) => `/api/rest/version/100/merchant/${m.id}/token`;
const payPath = (m: Merchant, token: string, orderId: string, transactionId: string) =>
  `/api/rest/version/3/merchant/${m.id}/token/${token}/order/${orderId}/transaction/${encodeURIComponent(transactionId)}`;

function luhnDigit(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

interface TokenRequest { merchant: Merchant; number: string; month: string; year: string }
interface AckToken { merchant: Merchant; token: string; number: string; round: number }

interface PayRequest {
  merchant: Merchant;
  token: string;
  orderId: string;
  transactionId: string;
  /** The request body without correlationId (the fingerprint ignores it). */
  body: { apiOperation: 'PAY'; transaction: { amount: string; currency: 'USD' }; card?: { securityCode: string } };
}
interface AckPayment { request: PayRequest; text: string; round: number }

const payKey = (p: PayRequest) => `${p.merchant.id}/${p.orderId}/${p.transactionId}`;

/** The answer without its correlationId (the one member allowed to differ between repeats). */
const withoutCorrelationId = (text: string) => text.replace(/"correlationId":"(?:[^"\\]|\\.)*",?/, '').replace(/,}/g, '}');

// ---------------------------------------------------------------------------------------------
// The server process

interface Server { url: string; child: ChildProcess; output: () => string }

interface Spawned { child: ChildProcess; ready: Promise<string>; output: () => string }

function spawnServer(dbPath: string, merchantsFile: string): Spawned {
  const child = spawn(process.execPath, [SERVER], {
    env: {
      ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', EVENT_STORE: `sqlite:${dbPath}`, MERCHANTS_FILE: merchantsFile,
      // The load is the point here: do not shed it.
      MAX_IN_FLIGHT: '100000', MAX_EVENT_LOOP_DELAY_MS: '0', SCHEME_TOKEN_DELAY_MS: String(SCHEME_TOKEN_DELAY_MS),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Keep the start (where the port is) and the last 64 kB of output (for a failure report).
  let head = '';
  let tail = '';
  const take = (chunk: Buffer) => {
    const text = String(chunk);
    if (head.length < 16_384) head += text;
    tail = (tail + text).slice(-65_536);
  };
  child.stdout?.on('data', take);
  child.stderr?.on('data', take);
  const ready = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start within 30 s:\n${tail}`)), 30_000);
    const check = () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(head);
      if (match?.[1]) { clearTimeout(timer); resolve(match[1]); }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code, signal) => { clearTimeout(timer); reject(new Error(`the server exited (${code ?? signal}) while starting:\n${tail}`)); });
  });
  ready.catch(() => {}); // a server killed on purpose while starting
  return { child, ready, output: () => tail };
}

async function startServer(dbPath: string, merchantsFile: string): Promise<Server> {
  const spawned = spawnServer(dbPath, merchantsFile);
  try {
    return { url: await spawned.ready, child: spawned.child, output: spawned.output };
  } catch (error) {
    spawned.child.kill('SIGKILL');
    throw error;
  }
}

async function stopServer(server: Server, signal: NodeJS.Signals): Promise<number | string | null> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return server.child.exitCode ?? server.child.signalCode;
  const exited = once(server.child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  server.child.kill(signal);
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  const [code, sig] = await exited;
  clearTimeout(timer);
  return code ?? sig;
}

interface Answer { status: number; text: string }

async function call(url: string, method: string, path: string, authorization: string, body: unknown, timeoutMs = 10_000): Promise<Answer | { error: string }> {
  try {
    const res = await fetch(url + path, {
      method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, text: await res.text() };
  } catch (error) {
    return { error: (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message };
  }
}

// ---------------------------------------------------------------------------------------------
// The crash image, read with better-sqlite3

interface EventRow { position: number; stream: string; revision: number; type: string; data: string }

/** Copy the event file (with its WAL) and the key store to `to` (the process must be stopped). */
function copyFiles(dbPath: string, to: string): string {
  mkdirSync(to, { recursive: true });
  const target = join(to, 'gateway.db');
  for (const suffix of ['', '-wal', '.keys', '.keys-wal']) {
    if (existsSync(dbPath + suffix)) copyFileSync(dbPath + suffix, target + suffix);
  }
  return target;
}

interface Expectations { tokens: readonly AckToken[]; payments: readonly AckPayment[]; reservationsComplete: boolean }

/** Everything that must hold in a crash image (or the final file), opened read-only. */
export function inspect(dbPath: string, expected: Expectations): { problems: string[]; events: number; head: number } {
  const problems: string[] = [];
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    const events = db.prepare('SELECT position, stream, revision, type, data FROM events ORDER BY position').all() as EventRow[];
    const head = events.at(-1)?.position ?? 0;
    // Streams: revisions 0..n-1 in position order.
    const nextRevision = new Map<string, number>();
    for (const e of events) {
      const expectedRevision = nextRevision.get(e.stream) ?? 0;
      if (e.revision !== expectedRevision) problems.push(`stream ${e.stream}: revision ${e.revision} at position ${e.position}, expected ${expectedRevision}`);
      nextRevision.set(e.stream, e.revision + 1);
    }
    // Tokens, reservations, payments.
    const tokenCreated = new Map<string, number>();
    const reservations: Array<{ repositoryId: string; token: string; position: number }> = [];
    const recorded = new Map<string, { position: number; count: number }>();
    const byOrder = new Map<string, Array<{ transactionId: string; position: number }>>();
    for (const e of events) {
      const d = JSON.parse(e.data) as Record<string, string>;
      if (e.type === 'TokenCreated') tokenCreated.set(`${d.repositoryId}/${d.token}`, e.position);
      if (e.type === 'AccountIdentifierReserved') reservations.push({ repositoryId: String(d.repositoryId), token: String(d.token), position: e.position });
      if (e.type === 'PaymentRecorded') {
        const created = tokenCreated.get(`${d.repositoryId}/${d.token}`);
        if (created === undefined) problems.push(`PaymentRecorded at ${e.position} (${d.merchantId}/${d.orderId}/${d.transactionId}) references token ${d.repositoryId}/${d.token}, which has no TokenCreated before it`);
        const key = `${d.merchantId}/${d.orderId}/${d.transactionId}`;
        const seen = recorded.get(key);
        recorded.set(key, { position: seen?.position ?? e.position, count: (seen?.count ?? 0) + 1 });
        const orderKey = `${d.merchantId}/${d.orderId}`;
        byOrder.set(orderKey, [...(byOrder.get(orderKey) ?? []), { transactionId: String(d.transactionId), position: e.position }]);
      }
    }
    for (const [key, { count }] of recorded) if (count > 1) problems.push(`transaction ${key} recorded ${count} times`);
    for (const r of reservations) {
      if (expected.reservationsComplete && !tokenCreated.has(`${r.repositoryId}/${r.token}`)) {
        problems.push(`card reservation at ${r.position} for token ${r.repositoryId}/${r.token} has no TokenCreated although the card was stored again`);
      }
    }
    // What was acknowledged is there.
    for (const t of expected.tokens) {
      if (!tokenCreated.has(`${t.merchant.repository.id}/${t.token}`)) problems.push(`token ${t.token} of ${t.merchant.id} (201 in round ${t.round}) has no TokenCreated`);
    }
    for (const p of expected.payments) {
      const seen = recorded.get(payKey(p.request));
      if (!seen) problems.push(`payment ${payKey(p.request)} (201 in round ${p.round}) has no PaymentRecorded`);
    }
    // Read models: checkpoints within the log; documents exactly as far as their checkpoint.
    const checkpoints = new Map((db.prepare('SELECT name, position FROM projection_checkpoints').all() as Array<{ name: string; position: number }>).map((r) => [r.name, r.position]));
    for (const [name, position] of checkpoints) if (position > head) problems.push(`read model ${name}: checkpoint ${position} beyond the log head ${head}`);
    const ordersAt = checkpoints.get('orders');
    const tokensAt = checkpoints.get('tokens');
    const docs = (projection: string) => new Map((db.prepare('SELECT key, doc FROM read_models WHERE projection = ?').all(projection) as Array<{ key: string; doc: string }>).map((r) => [r.key, JSON.parse(r.doc) as Record<string, unknown>]));
    if (ordersAt !== undefined) {
      const orders = docs('orders');
      for (const [orderKey, transactions] of byOrder) {
        const applied = transactions.filter((t) => t.position <= ordersAt).map((t) => t.transactionId);
        const doc = orders.get(orderKey) as { transactions?: Array<{ id: string }> } | undefined;
        const inDoc = (doc?.transactions ?? []).map((t) => t.id);
        if (applied.length > 0 && !doc) problems.push(`order ${orderKey}: ${applied.length} transaction(s) up to the checkpoint ${ordersAt}, no order document`);
        for (const id of new Set([...applied, ...inDoc])) {
          const want = applied.includes(id) ? 1 : 0;
          const have = inDoc.filter((x) => x === id).length;
          if (have !== want) problems.push(`order ${orderKey}: transaction ${id} is ${have} time(s) in the read model, expected ${want} (orders checkpoint ${ordersAt})`);
        }
      }
      for (const key of orders.keys()) if (!byOrder.has(key)) problems.push(`order document ${key} without a recorded payment`);
    }
    if (tokensAt !== undefined) {
      const tokens = docs('tokens');
      for (const [key, position] of tokenCreated) {
        if (position <= tokensAt && !tokens.has(key)) problems.push(`token ${key} created at ${position} (tokens checkpoint ${tokensAt}) has no token document`);
      }
    }
    return { problems, events: events.length, head };
  } finally {
    db.close();
  }
}

/** ReadModels on a copy: catch up (a crash may leave them behind the log), hash, rebuild, hash. */
async function liveAndRebuiltHash(copy: string): Promise<{ live: string; rebuilt: string }> {
  const opened = openStores({ kind: 'sqlite', path: copy });
  try {
    const models = opened.readModels;
    await models.catchUp();
    const live = await models.hash();
    await models.rebuild();
    return { live, rebuilt: await models.hash() };
  } finally {
    await opened.close();
  }
}

/**
 * The order documents are written when read ('onRead'), not by the serving gateway: bring them up
 * on a file the gateway no longer writes (a crash image, the stopped file), as the CLI's first read
 * does, so that inspect checks them against the log.
 */
async function readOrders(path: string): Promise<void> {
  const opened = openStores({ kind: 'sqlite', path });
  try {
    await opened.readModels.checkpoint('orders');
  } finally {
    await opened.close();
  }
}

/** The live read models' hash of a copy, as they are (no catch-up): the final, cleanly stopped file. */
async function hashAsIs(copy: string): Promise<{ live: string; rebuilt: string }> {
  const opened = openStores({ kind: 'sqlite', path: copy });
  try {
    const models = opened.readModels;
    const live = await models.hash();
    await models.rebuild();
    return { live, rebuilt: await models.hash() };
  } finally {
    await opened.close();
  }
}

/** Tokens whose read model still shows pending scheme-token work, polled (read-only) until none or the deadline. */
async function waitForSchemeTokens(dbPath: string, until: number): Promise<number> {
  for (;;) {
    const db = new Database(dbPath, { readonly: true, fileMustExist: true });
    let pending: number;
    try {
      pending = (db.prepare(`SELECT COUNT(*) AS n FROM read_models WHERE projection = 'tokens' AND doc LIKE '%"nextActionAt"%'`).get() as { n: number }).n;
    } finally {
      db.close();
    }
    if (pending === 0 || Date.now() >= until) return pending;
    await sleep(100);
  }
}

async function replayHash(copy: string): Promise<string> {
  const child = spawn(process.execPath, [CLI, 'replay', '--store', `sqlite:${copy}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => { out += String(c); });
  child.stderr.on('data', () => {});
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  const match = /read models hash ([0-9a-f]{64})/.exec(out);
  if (code !== 0 || !match?.[1]) throw new Error(`tokengate replay exited ${code}:\n${out}`);
  return match[1];
}

// ---------------------------------------------------------------------------------------------
// The run

export async function runCrashTest(partial: Partial<CrashOptions> = {}): Promise<CrashReport> {
  const options: CrashOptions = { ...DEFAULTS, ...partial };
  const seed = options.seed || (Date.now() % 2 ** 31);
  const random = mulberry32(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const started = Date.now();
  const deadline = started + options.timeLimitMs;
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'tokengate-crash-'));
  mkdirSync(dir, { recursive: true });
  const dbPath = join(dir, 'data', 'gateway.db');
  const merchantsFile = join(dir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify({ merchants: MERCHANTS }));
  const log = options.log;
  log(`crash test: ${options.rounds} rounds, ${options.workers} workers, kill after ${options.killMinMs}-${options.killMaxMs} ms, seed ${seed}, files in ${dir}`);

  const problems: string[] = [];
  const problem = (text: string) => { if (problems.length < 500) problems.push(text); };
  const tokens: AckToken[] = [];
  const payments = new Map<string, AckPayment>();
  /** Sent, no 201 seen (killed in flight, or refused as busy): repeated after the restart. */
  const pendingPays = new Map<string, PayRequest>();
  /** Unique-card creations sent without a 201 seen: stored again after the restart. */
  const pendingUniqueCards: TokenRequest[] = [];
  const uniqueCardToken = new Map<string, string>();
  const rounds: RoundStats[] = [];
  let requests = 0;
  // At most 12 digits: a numeric id of 13 to 19 passing the Luhn check (one in ten) reads as a card
  // number and is refused (docs/guarantees.md); 100,000,000,000 + up to 99,999,999,000 stays below.
  let nextOrder = 100_000_000_000 + Math.floor(random() * 1e8) * 1000;
  const uniqueCards = Array.from({ length: 24 }, () => { const p = `51${Array.from({ length: 13 }, () => Math.floor(random() * 10)).join('')}`; return p + luhnDigit(p); });
  const correlation = () => `c-${Math.floor(random() * 1e9).toString(36)}`;

  const acknowledgeToken = (req: TokenRequest, answer: Answer, round: number) => {
    const body = JSON.parse(answer.text) as { token: string; sourceOfFunds?: { provided?: { card?: { number?: string } } } };
    tokens.push({ merchant: req.merchant, token: body.token, number: req.number, round });
    if (answer.text.includes(req.number)) problem(`the create answer echoes the card number: ${answer.text}`);
    if (req.merchant.repository.tokenManagement === 'UNIQUE_CARD') {
      const known = uniqueCardToken.get(req.number);
      if (known && known !== body.token) problem(`unique-card repository gave token ${body.token} for a card stored as ${known}`);
      uniqueCardToken.set(req.number, known ?? body.token);
    }
  };

  const acknowledgePayment = (req: PayRequest, answer: Answer, round: number) => {
    const key = payKey(req);
    const known = payments.get(key);
    if (known && withoutCorrelationId(known.text) !== withoutCorrelationId(answer.text)) {
      problem(`payment ${key} answered differently:\nfirst: ${known.text}\nnow:   ${answer.text}`);
    }
    if (!known) payments.set(key, { request: req, text: answer.text, round });
    pendingPays.delete(key);
  };

  const createToken = async (url: string, req: TokenRequest, round: number, alive: () => boolean) => {
    requests++;
    const answer = await call(url, 'POST', tokenPath(req.merchant), basic(`merchant.${req.merchant.id}`, req.merchant.apiPassword),
      { sourceOfFunds: { type: 'CARD', provided: { card: { number: req.number, expiry: { month: req.month, year: req.year } } } }, correlationId: correlation() });
    if ('error' in answer || answer.status === 503) {
      if ('error' in answer && alive()) problem(`create token failed while the server was up: ${answer.error}`);
      if (req.merchant.repository.tokenManagement === 'UNIQUE_CARD') pendingUniqueCards.push(req);
      return;
    }
    if (answer.status !== 201) { problem(`create token answered ${answer.status}: ${answer.text}`); return; }
    acknowledgeToken(req, answer, round);
  };

  /** Send a payment `copies` times at once; every 201 must say the same. */
  const pay = async (url: string, req: PayRequest, copies: number, round: number, alive: () => boolean) => {
    pendingPays.set(payKey(req), req);
    requests += copies;
    const cid = correlation();
    const answers = await Promise.all(Array.from({ length: copies }, () =>
      call(url, 'PUT', payPath(req.merchant, req.token, req.orderId, req.transactionId), basic('', req.merchant.apiPassword), { ...req.body, correlationId: cid })));
    const ok = answers.filter((a): a is Answer => !('error' in a) && a.status === 201);
    for (const a of answers) {
      if ('error' in a) { if (alive()) problem(`payment ${payKey(req)} failed while the server was up: ${a.error}`); continue; }
      if (a.status !== 201 && a.status !== 503) problem(`payment ${payKey(req)} answered ${a.status}: ${a.text}`);
    }
    for (const a of ok.slice(1)) if (a.text !== ok[0]?.text) problem(`identical concurrent payments ${payKey(req)} answered differently:\n${ok[0]?.text}\n${a.text}`);
    if (ok[0]) acknowledgePayment(req, ok[0], round);
  };

  const newPayment = (t: AckToken): PayRequest => ({
    merchant: t.merchant, token: t.token, orderId: String(nextOrder++), transactionId: pick(['1', 'txn-1', 'a/b ü', '\u{1F600}']),
    body: { apiOperation: 'PAY', transaction: { amount: `${1 + Math.floor(random() * 5000)}.${String(Math.floor(random() * 100)).padStart(2, '0')}`, currency: 'USD' }, ...(random() < 0.5 ? { card: { securityCode: pick(['100', '101', '102', '999']) } } : {}) },
  });

  /** Everything acknowledged before the kill is there, and what was in flight settles. */
  /**
   * After a restart: what was in flight settles (repeated), what was acknowledged in the round
   * before (everything with `all`) is there. Runs alongside the next load, so the next kill may
   * interrupt it: an error while the server is down is not a problem, the final pass checks all.
   */
  const verifyAfterRestart = async (url: string, round: number, all: boolean, alive: () => boolean) => {
    const queue: Array<() => Promise<void>> = [];
    const failed = (answer: Answer | { error: string }) => 'error' in answer || answer.status !== 201;
    const describeAnswer = (answer: Answer | { error: string }) => ('error' in answer ? answer.error : `${answer.status} ${answer.text}`);
    for (const req of [...pendingPays.values()]) {
      queue.push(async () => {
        const answer = await call(url, 'PUT', payPath(req.merchant, req.token, req.orderId, req.transactionId), basic('', req.merchant.apiPassword), { ...req.body, correlationId: correlation() });
        requests++;
        if (failed(answer)) { if (alive() || !('error' in answer)) problem(`after restart ${round}: the repeat of in-flight payment ${payKey(req)} answered ${describeAnswer(answer)}`); return; }
        acknowledgePayment(req, answer as Answer, round);
      });
    }
    // A creation the queue never starts (the next kill stops it) stays pending: its card, perhaps
    // reserved by the request the kill cut, must still be stored again.
    const retries = pendingUniqueCards.splice(0);
    const started = new Set<TokenRequest>();
    for (const req of retries) queue.push(() => { started.add(req); return createToken(url, req, round, alive); });
    for (const p of payments.values()) {
      if (!all && p.round !== round - 1) continue;
      queue.push(async () => {
        const answer = await call(url, 'PUT', payPath(p.request.merchant, p.request.token, p.request.orderId, p.request.transactionId), basic('', p.request.merchant.apiPassword), { ...p.request.body, correlationId: correlation() });
        requests++;
        if (failed(answer)) { if (alive() || !('error' in answer)) problem(`after restart ${round}: the repeat of payment ${payKey(p.request)} (201 in round ${p.round}) answered ${describeAnswer(answer)}`); return; }
        if (withoutCorrelationId((answer as Answer).text) !== withoutCorrelationId(p.text)) problem(`after restart ${round}: payment ${payKey(p.request)} (201 in round ${p.round}) answers differently:\nthen: ${p.text}\nnow:  ${(answer as Answer).text}`);
      });
    }
    for (const t of tokens) {
      if (!all && t.round !== round - 1) continue;
      queue.push(async () => {
        const req = newPayment(t);
        await pay(url, req, 1, round, alive);
        if (!payments.has(payKey(req)) && alive()) problem(`after restart ${round}: token ${t.token} of ${t.merchant.id} (201 in round ${t.round}) does not pay`);
      });
    }
    await runQueue(queue, options.workers, deadline, alive);
    pendingUniqueCards.push(...retries.filter((req) => !started.has(req)));
    if (all) await verifyOrders(url, round);
  };

  /** Retrieve Order: every order holds each of its acknowledged transactions exactly once, and no other. */
  const verifyOrders = async (url: string, round: number) => {
    const orders = new Map<string, { merchant: Merchant; orderId: string; ids: string[] }>();
    for (const p of payments.values()) {
      const key = `${p.request.merchant.id}/${p.request.orderId}`;
      const entry = orders.get(key) ?? { merchant: p.request.merchant, orderId: p.request.orderId, ids: [] };
      entry.ids.push(p.request.transactionId);
      orders.set(key, entry);
    }
    await runQueue([...orders.values()].map((o) => async () => {
      requests++;
      let answer: Answer | { error: string };
      try {
        const res = await fetch(`${url}/api/rest/version/3/merchant/${o.merchant.id}/order/${o.orderId}`, {
          headers: { authorization: basic('', o.merchant.apiPassword) }, signal: AbortSignal.timeout(10_000),
        });
        answer = { status: res.status, text: await res.text() };
      } catch (error) {
        answer = { error: (error as Error).message };
      }
      if ('error' in answer || answer.status !== 200) { problem(`after restart ${round}: Retrieve Order ${o.merchant.id}/${o.orderId} answered ${'error' in answer ? answer.error : `${answer.status} ${answer.text}`}`); return; }
      const held = ((JSON.parse(answer.text) as { transaction?: Array<{ transaction?: { id?: string } }> }).transaction ?? []).map((t) => String(t.transaction?.id));
      const want = [...o.ids].sort();
      if (JSON.stringify([...held].sort()) !== JSON.stringify(want)) problem(`after restart ${round}: order ${o.merchant.id}/${o.orderId} holds transactions ${JSON.stringify(held)}, acknowledged ${JSON.stringify(want)}`);
    }), options.workers, deadline);
  };

  let server: Server | undefined;
  let lastStartMs = 400;
  try {
    for (let round = 1; round <= options.rounds && Date.now() < deadline; round++) {
      const before = requests;
      const acknowledgedBefore = tokens.length + payments.size;
      let killAfter: number;
      let when: string;
      const early = options.earlyKillRounds ? options.earlyKillRounds.includes(round) : random() < options.earlyKillRate;
      if (round > 1 && early) {
        // Killed while starting: opening the file, catching the read models up, or just listening
        // (somewhere in the time the last start took, or a little after).
        killAfter = Math.floor(random() * (lastStartMs + 100));
        const spawned = spawnServer(dbPath, merchantsFile);
        const listening = spawned.ready.then(() => true, () => false);
        await sleep(killAfter);
        spawned.child.kill('SIGKILL');
        if (spawned.child.exitCode === null && spawned.child.signalCode === null) await once(spawned.child, 'exit');
        when = (await listening) ? `${killAfter} ms after the spawn, once it listened` : `${killAfter} ms after the spawn, while it started`;
      } else {
        const spawnedAt = Date.now();
        server = await startServer(dbPath, merchantsFile);
        lastStartMs = Date.now() - spawnedAt;
        const url = server.url;
        // Load (with the checks of what the last kill interrupted) until the kill.
        let up = true;
        const alive = () => up;
        killAfter = options.killMinMs + Math.floor(random() * (options.killMaxMs - options.killMinMs));
        let roundDeadline = Date.now() + killAfter + 5_000;
        const worker = async () => {
          while (up && Date.now() < roundDeadline) {
            const choice = random();
            const usable = tokens.length > 0;
            if (choice < 0.3 || !usable) {
              const merchant = pick(MERCHANTS);
              const number = merchant.repository.tokenManagement === 'UNIQUE_CARD'
                ? pick(uniqueCards)
                : (() => { const p = `4${Array.from({ length: 14 }, () => Math.floor(random() * 10)).join('')}`; return p + luhnDigit(p); })();
              await createToken(url, { merchant, number, month: pick(['1', '5']), year: '39' }, round, alive);
            } else if (choice < 0.75) {
              await pay(url, newPayment(pick(tokens)), 1 + Math.floor(random() * 3), round, alive);
            } else if (choice < 0.9 && payments.size > 0) {
              // Another transaction on a recorded order (same token, same currency).
              const base = pick([...payments.values()]).request;
              await pay(url, { ...base, transactionId: `more-${Math.floor(random() * 1e9)}`, body: { ...base.body, transaction: { ...base.body.transaction, amount: '1.00' } } }, 1 + Math.floor(random() * 2), round, alive);
            } else if (payments.size > 0) {
              // An identical repeat of a recorded payment.
              const p = pick([...payments.values()]);
              await pay(url, p.request, 1, round, alive);
            }
          }
        };
        const work = Promise.all([
          ...(round > 1 ? [verifyAfterRestart(url, round, false, alive)] : []),
          ...Array.from({ length: options.workers }, worker),
        ]);
        // The kill delay counts from the round's first acknowledged request (waited for at most
        // 5 s): on a busy machine the first answers can take longer than the shortest delay, and a
        // kill under load is meant to find acknowledged work of its round.
        const firstAnswer = Date.now() + 5_000;
        while (tokens.length + payments.size === acknowledgedBefore && Date.now() < firstAnswer) await sleep(10);
        roundDeadline = Date.now() + killAfter + 5_000;
        await sleep(killAfter);
        up = false;
        server.child.kill('SIGKILL');
        await once(server.child, 'exit');
        server = undefined;
        await work;
        when = `after ${killAfter} ms of load (from its first answer)`;
      }
      const inFlight = pendingPays.size;
      // The crash image: consistent as it is, and its read models, once caught up, equal a rebuild.
      const copy = copyFiles(dbPath, join(dir, `round-${round}`));
      await readOrders(copy);
      const found = inspect(copy, { tokens, payments: [...payments.values()], reservationsComplete: false });
      for (const p of found.problems) problem(`round ${round} crash image: ${p}`);
      const { live, rebuilt } = await liveAndRebuiltHash(copy);
      if (live !== rebuilt) problem(`round ${round} crash image: read models after catch-up ${live} differ from a rebuild ${rebuilt}`);
      rmSync(join(dir, `round-${round}`), { recursive: true, force: true });
      const stats: RoundStats = { round, killed: when.includes('load') ? 'under load' : 'while starting', killedAfterMs: killAfter, requests: requests - before, acknowledged: tokens.length + payments.size - acknowledgedBefore, inFlightAtKill: inFlight, events: found.events };
      rounds.push(stats);
      log(`round ${round}: killed ${when}, ${stats.requests} requests, ${stats.acknowledged} acknowledged, ${stats.inFlightAtKill} payments unsettled, ${stats.events} events, ${problems.length} problem(s) so far`);
    }
    // Final: restart, settle and check everything over HTTP, stop cleanly, check the file.
    server = await startServer(dbPath, merchantsFile);
    await verifyAfterRestart(server.url, rounds.length + 1, true, () => true);
    // The scheme-token work cut by the kills resumes after the restart and finishes.
    const pending = await waitForSchemeTokens(dbPath, Math.min(deadline, Date.now() + 20_000));
    if (pending > 0) problem(`${pending} token(s) still have scheme-token work pending (nextActionAt) 20 s after the final restart: the reactor did not resume it`);
    const code = await stopServer(server, 'SIGTERM');
    if (code !== 0) problem(`the final SIGTERM stop exited with ${code}`);
    server = undefined;
    await readOrders(dbPath);
    const final = inspect(dbPath, { tokens, payments: [...payments.values()], reservationsComplete: true });
    for (const p of final.problems) problem(`final file: ${p}`);
    if (pendingPays.size > 0) problem(`${pendingPays.size} payment(s) never settled`);
    const lowest = (() => {
      const db = new Database(dbPath, { readonly: true, fileMustExist: true });
      try { return db.prepare('SELECT MIN(position) AS p FROM projection_checkpoints').get() as { p: number | null }; } finally { db.close(); }
    })();
    if ((lowest.p ?? -1) !== final.head) problem(`final file: read models checkpoint ${lowest.p} is not the log head ${final.head} after a clean stop`);
    const hashCopy = copyFiles(dbPath, join(dir, 'final-hash'));
    const { live, rebuilt } = await hashAsIs(hashCopy);
    if (live !== rebuilt) problem(`final file: live read models ${live} differ from a rebuild ${rebuilt}`);
    const replayCopy = copyFiles(dbPath, join(dir, 'final-replay'));
    const replayed = await replayHash(replayCopy);
    if (replayed !== live) problem(`final file: tokengate replay prints ${replayed}, the live read models hash ${live}`);
    const report: CrashReport = {
      seed, dir, rounds, tokens: tokens.length, payments: payments.size, requests, problems, liveHash: live, rebuiltHash: rebuilt, replayHash: replayed, durationMs: Date.now() - started,
    };
    log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${rounds.length} kills, ${requests} requests, ${tokens.length} tokens and ${payments.size} payments acknowledged, ${final.events} events; read models hash ${live} (rebuild ${rebuilt}, replay ${replayed}); ${problems.length} problem(s)`);
    return report;
  } finally {
    if (server) await stopServer(server, 'SIGKILL');
    if (!options.keep && !options.dir) rmSync(dir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Run tasks with at most `width` at a time, none started after the deadline or once `alive` is false. */
async function runQueue(tasks: Array<() => Promise<void>>, width: number, deadline: number, alive: () => boolean = () => true): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < tasks.length && Date.now() < deadline && alive()) {
      const task = tasks[next++];
      if (task) await task();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, width) }, lane));
}

// ---------------------------------------------------------------------------------------------
// Command line

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string' }, workers: { type: 'string' }, seed: { type: 'string' }, 'kill-min-ms': { type: 'string' },
      'kill-max-ms': { type: 'string' }, dir: { type: 'string' }, keep: { type: 'boolean' }, 'time-limit-s': { type: 'string' }, help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write('npm run crash-test -- [--rounds 20] [--workers 12] [--seed N] [--kill-min-ms 150] [--kill-max-ms 1200] [--dir DIR] [--keep] [--time-limit-s 900]\n');
    return 0;
  }
  const int = (name: string, value: string | undefined, fallback: number, min = 0) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} '${value}' is not a whole number of at least ${min}`);
    return n;
  };
  if (!existsSync(SERVER) || !existsSync(CLI)) throw new Error(`${SERVER} or ${CLI} is missing: run npm run build first`);
  const report = await runCrashTest({
    rounds: int('rounds', values.rounds, DEFAULTS.rounds, 1),
    workers: int('workers', values.workers, DEFAULTS.workers, 1),
    seed: int('seed', values.seed, 0),
    killMinMs: int('kill-min-ms', values['kill-min-ms'], DEFAULTS.killMinMs),
    killMaxMs: int('kill-max-ms', values['kill-max-ms'], DEFAULTS.killMaxMs, 1),
    timeLimitMs: int('time-limit-s', values['time-limit-s'], DEFAULTS.timeLimitMs / 1000, 1) * 1000,
    keep: values.keep === true,
    ...(values.dir ? { dir: values.dir } : {}),
  });
  for (const p of report.problems) process.stdout.write(`PROBLEM ${p}\n`);
  return report.problems.length === 0 ? 0 : 1;
}

const invokedDirectly = process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1];
if (invokedDirectly) {
  main().then((code) => process.exit(code), (error: unknown) => {
    process.stderr.write(`crash-test: ${(error as Error).stack ?? String(error)}\n`);
    process.exit(2);
  });
}
