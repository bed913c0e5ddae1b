// Replay and scale: write N realistic events into a fresh SQLite store (prepared INSERTs on the
// store's own table, ~10,000 per transaction), then measure
//   - the rebuild of the read models (bench/rebuild.mjs in a child: reset, ReadModels.rebuild()) → events/s:
//     the live models only; then, in the same child, the first read of the orders model
//     (apply: 'onRead', which rebuild() leaves empty), which applies the whole log to it → events/s;
//   - the server's start-up on that store (spawn → "Server listening"), read models current;
//   - the start-up when the read models must be built first (cold: after a projection reset);
//   - the file size per event (events only, then with the read models), and the memory of each.
// The events are bench/fixture.ts's: the real deciders' (1 TokenCreated : 9 PaymentRecorded).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '../store/sqlite.js';
import { EVENTS_PER_TOKEN, fixtureTokens, TOKENS_PER_BATCH, type FixtureOwner } from './fixture.js';
import { buildDir, memoryOf, round, startChild, waitListening } from './lib.js';

export interface ReplayOptions {
  root: string;
  workDir: string;
  events: number;
  /** Also time a start-up that must build the read models (as long as a rebuild). */
  coldStart: boolean;
  /** Rebuilds, each in a fresh child process: the VM's speed moves from one to the next, the median counts (default 1). */
  rebuildRuns?: number;
  /** Directory for --cpu-prof of the rebuild child, when profiling. */
  profileDir: string | undefined;
  log: (line: string) => void;
}

export interface ReplayResult {
  events: number;
  write: { method: string; seconds: number; eventsPerSecond: number; batchEvents: number };
  /**
   * The median run (by the rebuild's time), and the events/s of every run in the order they ran.
   * The rebuild replays the live read models only; `ordersOnRead` is the first read of the orders
   * model after it (readModels.checkpoint('orders')), which applies the whole log to that model.
   */
  rebuild: {
    seconds: number; eventsPerSecond: number; rssMB: number; hwmMB: number; heapUsedMB: number; runs: number[];
    /** Of the same median run; `runs`: events/s of every run; `hwmMB`: the child's peak after it, of every run. */
    ordersOnRead: { seconds: number; eventsPerSecond: number; rssMB: number; hwmMB: number; runs: number[] };
  };
  startup: {
    /** Read models current (a normal restart): spawn → "Server listening". */
    warmMs: number;
    warmHwmMB: number;
    /** Read models reset: the server catches up every event before it listens. */
    coldMs: number | undefined;
    coldHwmMB: number | undefined;
  };
  size: { eventsOnlyBytes: number; bytesPerEvent: number; withReadModelsBytes: number; bytesPerEventWithReadModels: number };
  /** The rebuild child's .cpuprofile, when profiling. */
  profileFile: string | undefined;
}

const MERCHANT_ID = 'REPLAYMERCHANT01';
const REPOSITORY_ID = 'REPLAYREPO01';
const MERCHANTS = { merchants: [{
  id: MERCHANT_ID, apiPassword: 'replay-api-password-0123456789abcdef',
  repository: { id: REPOSITORY_ID, tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
}] };
const REPLAY_OWNER: FixtureOwner = { merchantId: MERCHANT_ID, repositoryId: REPOSITORY_ID, firstToken: 0, orderBase: 10_000_000_000 };
const fileSize = (path: string) => { try { return statSync(path).size; } catch { return 0; } };

const INSERT_COLUMNS = ['event_id', 'stream', 'revision', 'type', 'data', 'metadata', 'created'];

/**
 * Load the events: one prepared INSERT per event, ~10,000 per transaction, on the table the
 * SqliteEventStore created (the columns its own append writes). The loading connection runs with
 * synchronous=OFF and a large page cache: this is a fixture, not a measured write; the measured
 * processes open the file afresh with the store's own pragmas. Should the table no longer have
 * these columns, the store's append() is used instead (slower, same result).
 */
export async function writeEvents(path: string, total: number, log: (line: string) => void, owner: FixtureOwner = REPLAY_OWNER) {
  const store = new SqliteEventStore(path);
  store.db.pragma('synchronous = OFF');
  store.db.pragma('cache_size = -262144');
  const columns = store.db.prepare<[], { name: string; notnull: number; dflt_value: unknown; pk: number }>("SELECT name, \"notnull\", dflt_value, pk FROM pragma_table_info('events')").all();
  const direct = INSERT_COLUMNS.every((c) => columns.some((col) => col.name === c)) &&
    columns.every((col) => INSERT_COLUMNS.includes(col.name) || col.pk === 1 || col.notnull === 0 || col.dflt_value !== null);
  const insert = direct ? store.db.prepare(`INSERT INTO events (${INSERT_COLUMNS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?, ?)`) : undefined;
  const tokens = fixtureTokens(total, owner);
  let written = 0;
  let tokenCount = 0;
  /** The next token's streams (undefined: `total` events given). */
  const nextToken = () => {
    const next = tokens.next();
    if (next.done) return undefined;
    tokenCount++;
    return next.value;
  };
  // Generated and inserted token by token inside the transaction: the objects die young.
  const insertBatch = store.db.transaction(() => {
    const created = new Date().toISOString();
    for (let k = 0; k < TOKENS_PER_BATCH; k++) {
      for (const { stream, events } of nextToken() ?? []) {
        events.forEach((e, revision) => insert?.run(e.id, stream, revision, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata), created));
        written += events.length;
      }
    }
  });
  const started = performance.now();
  let lastLog = started;
  try {
    while (written < total) {
      if (insert) {
        insertBatch.immediate();
      } else {
        const appends: Array<Promise<unknown>> = [];
        for (let k = 0; k < TOKENS_PER_BATCH; k++) {
          for (const { stream, events } of nextToken() ?? []) {
            appends.push(store.append(stream, events, { expectedRevision: 'no_stream' }));
            written += events.length;
          }
        }
        await Promise.all(appends); // one flush: one transaction
      }
      if (performance.now() - lastLog > 5000) {
        lastLog = performance.now();
        log(`  written ${written.toLocaleString('en')} / ${total.toLocaleString('en')} events`);
      }
    }
  } finally {
    await store.close(); // the last connection: SQLite checkpoints and removes the WAL
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    method: insert ? 'prepared INSERT, one transaction per batch' : 'SqliteEventStore.append, one flush per batch',
    seconds: round(seconds, 2), eventsPerSecond: round(written / seconds, 0), batchEvents: TOKENS_PER_BATCH * EVENTS_PER_TOKEN,
    tokens: tokenCount,
  };
}

function runChild(root: string, mode: 'rebuild' | 'reset', path: string, profileDir?: string) {
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const out = execFileSync(process.execPath, [...profile, join(root, 'bench', 'rebuild.mjs'), mode, path], { encoding: 'utf8', timeout: 30 * 60_000 });
  return JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as ChildResult;
}

/** The child's JSON line; the orders fields in rebuild mode only. */
interface ChildResult {
  events: number; ms: number; rssMB: number; hwmMB: number; heapUsedMB: number;
  ordersMs?: number; ordersPosition?: number; ordersRssMB?: number; ordersHwmMB?: number;
}

async function timeStartup(root: string, dir: string, path: string, merchantsFile: string) {
  const server = startChild([join(buildDir(root), 'server.js')], {
    HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', EVENT_STORE: `sqlite:${path}`, MERCHANTS_FILE: merchantsFile,
  }, dir);
  try {
    const { ms } = await waitListening(server, 30 * 60_000);
    const hwmMB = memoryOf(server.pid)?.hwmMB ?? 0;
    return { ms: round(ms, 0), hwmMB };
  } finally {
    await server.stop();
  }
}

export async function runReplay(options: ReplayOptions): Promise<ReplayResult> {
  const { root, log } = options;
  const dir = join(options.workDir, 'replay');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'gateway.db');
  const merchantsFile = join(dir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify(MERCHANTS));

  log(`replay: writing ${options.events.toLocaleString('en')} events to ${path}`);
  const write = await writeEvents(path, options.events, log);
  const eventsOnlyBytes = fileSize(path) + fileSize(`${path}-wal`);
  log(`  ${write.eventsPerSecond.toLocaleString('en')} events/s written; ${(eventsOnlyBytes / 1e6).toFixed(1)} MB`);

  const runs = Math.max(1, options.rebuildRuns ?? 1);
  const perSecond = (r: { events: number; ms: number }) => round(r.events / Math.max(r.ms / 1000, 1e-3), 0);
  const ordersPerSecond = (r: ChildResult) => perSecond({ events: r.events, ms: r.ordersMs ?? 0 });
  const rebuilds = [];
  for (let run = 1; run <= runs; run++) {
    log(`replay: rebuilding the read models (reset, ReadModels.rebuild()) in a child process (${run} of ${runs})`);
    // Only the first run is profiled.
    const rebuilt = runChild(root, 'rebuild', path, run === 1 ? options.profileDir : undefined);
    if (rebuilt.events !== options.events) throw new Error(`bench: the store holds ${rebuilt.events} events, expected ${options.events}`);
    if (rebuilt.ordersPosition !== options.events || rebuilt.ordersMs === undefined) {
      throw new Error(`bench: the first read of the orders model brought it to ${rebuilt.ordersPosition}, expected ${options.events}`);
    }
    rebuilds.push(rebuilt);
    log(`  ${perSecond(rebuilt).toLocaleString('en')} events/s (${round(rebuilt.ms / 1000, 2)} s), RSS ${rebuilt.rssMB} MB; ` +
      `orders model by its first read ${ordersPerSecond(rebuilt).toLocaleString('en')} events/s (${round(rebuilt.ordersMs / 1000, 2)} s)`);
  }
  const profileFile = options.profileDir
    ? readdirSync(options.profileDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(options.profileDir ?? '', f))[0]
    : undefined;
  const median = [...rebuilds].sort((a, b) => a.ms - b.ms)[Math.floor((rebuilds.length - 1) / 2)]!;
  const rebuild = {
    seconds: round(median.ms / 1000, 2),
    eventsPerSecond: perSecond(median),
    rssMB: median.rssMB, hwmMB: Math.max(...rebuilds.map((r) => r.hwmMB)), heapUsedMB: median.heapUsedMB,
    runs: rebuilds.map(perSecond),
    ordersOnRead: {
      seconds: round((median.ordersMs ?? 0) / 1000, 3),
      eventsPerSecond: ordersPerSecond(median),
      rssMB: median.ordersRssMB ?? 0, hwmMB: Math.max(...rebuilds.map((r) => r.ordersHwmMB ?? 0)),
      runs: rebuilds.map(ordersPerSecond),
    },
  };
  const withReadModelsBytes = fileSize(path) + fileSize(`${path}-wal`);
  if (runs > 1) {
    log(`  median ${rebuild.eventsPerSecond.toLocaleString('en')} events/s (${rebuild.seconds} s); orders model by its first read, ` +
      `same run: ${rebuild.ordersOnRead.eventsPerSecond.toLocaleString('en')} events/s (${rebuild.ordersOnRead.seconds} s)`);
  }

  log('replay: server start-up, read models current');
  const warm = await timeStartup(root, dir, path, merchantsFile);
  let cold: { ms: number; hwmMB: number } | undefined;
  if (options.coldStart) {
    log('replay: server start-up after a projection reset (builds the read models before listening)');
    runChild(root, 'reset', path);
    cold = await timeStartup(root, dir, path, merchantsFile);
  }
  return {
    events: options.events,
    write,
    rebuild,
    startup: { warmMs: warm.ms, warmHwmMB: warm.hwmMB, coldMs: cold?.ms, coldHwmMB: cold?.hwmMB },
    size: {
      eventsOnlyBytes, bytesPerEvent: round(eventsOnlyBytes / options.events, 0),
      withReadModelsBytes, bytesPerEventWithReadModels: round(withReadModelsBytes / options.events, 0),
    },
    profileFile,
  };
}
