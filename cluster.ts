// WORKERS=N (or `tokengate serve --workers N`): N gateway processes on one port, with node:cluster.
// The primary serves nothing itself: it forks the workers (each runs server.ts serve(), which
// opens the store and listens; the primary holds the port and hands each new connection to the
// next worker in turn, round-robin), prints the start-up block once all are listening, restarts a
// worker that dies (after a growing delay, logged), and on SIGTERM/SIGINT sends every worker
// SIGTERM, on which it closes as one process does (finishes the requests in flight, closes the
// store); then it exits: 0 when every worker closed cleanly.
//
// The first worker starts alone and the others once it listens: a store that cannot be opened is
// then told once (by that worker, one line on stderr) and the primary exits 1, as one process
// would; and a new SQLite file gets its schema from one process, not N at once.
//
// The workers share what the store shares: with SQLite the file, as several processes on one
// file always could (docs/stores.md, "Scaling out"). The failed-password counts of
// AUTH_FAILURE_LIMIT they share through the primary, which counts them too: before it listens a
// worker asks the primary for its counts and locks and takes them; from then on it tells the
// primary of each wrong password and the primary tells the other workers. So N workers allow the
// guesses one process does, and a lock holds in all of them, a worker started later included.
// MAX_IN_FLIGHT is per worker. Each worker journals the requests it answers; a journal query is
// put to all of them through the primary (journal-cluster.ts).
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loggerOptions } from './app.js';
import { AUTH_FAILURE_WINDOW_MS, AuthFailures, type FailureState, type SharedFailure } from './plugins/auth-failures.js';
import { JournalRelay } from './journal-cluster.js';

/** Wrong passwords (a worker's to the primary, the primary's relay to the others). */
const FAILURES = 'tokengate:auth-failures';
/** A worker starting asks for the counts and locks so far; the primary answers with STATE. */
const HELLO = 'tokengate:auth-hello';
const STATE = 'tokengate:auth-state';
/** How long a worker waits for the primary's counts before it listens anyway (ms). */
const STATE_WAIT_MS = 5_000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
/** An item naming a credential (and whether it exists), as both messages' items do. */
const namesCredential = (f: unknown): f is Record<string, unknown> =>
  isRecord(f) && typeof f.credential === 'string' && typeof f.exists === 'boolean';
const isFailure = (f: unknown): f is SharedFailure => namesCredential(f) && Number.isFinite(f.at);
const isState = (f: unknown): f is FailureState =>
  namesCredential(f) && Number.isFinite(f.count) && Number.isFinite(f.since) && Number.isFinite(f.lockedUntil);

/** The message's items of `type` that pass `valid` (undefined: not such a message). */
function itemsOf<T>(message: unknown, type: string, valid: (item: unknown) => item is T): T[] | undefined {
  if (!isRecord(message) || message.type !== type || !Array.isArray(message.items)) return undefined;
  return message.items.filter(valid);
}

/**
 * A worker's side, before it listens: ask the primary for the counts and locks so far and take
 * them (resolves then, or after STATE_WAIT_MS without an answer), count the wrong passwords the
 * other workers see (relayed by the primary), and tell the primary of each recorded here. A
 * message that cannot be sent (the primary is gone: the worker is closing) is dropped.
 */
export function shareAuthFailures(failures: AuthFailures, channel: NodeJS.Process = process): Promise<void> {
  const send = (message: { type: string; items: unknown[] }) => {
    if (channel.connected && channel.send) channel.send(message, undefined, {}, () => undefined);
  };
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, STATE_WAIT_MS);
    timer.unref();
    channel.on('message', (message: unknown) => {
      const state = itemsOf(message, STATE, isState);
      if (state !== undefined) {
        failures.restore(state);
        clearTimeout(timer);
        resolve();
        return;
      }
      for (const failure of itemsOf(message, FAILURES, isFailure) ?? []) failures.shared(failure);
    });
    failures.onFailure = (failure) => send({ type: FAILURES, items: [failure] });
    send({ type: HELLO, items: [] });
    if (!channel.connected || !channel.send) resolve();
  });
}

export interface PrimaryOptions {
  workers: number;
  /** AUTH_FAILURE_LIMIT: the primary counts the workers' wrong passwords as each of them does. */
  authFailureLimit: number;
  logLevel: string;
  /** Added to each worker's environment (the admin password the primary chose). */
  env: Record<string, string>;
  /** Once every worker listens, the first time: the port they share. */
  onReady(port: number): void;
}

/** A restart waits this long after a death, doubled for each death in a row, up to RESTART_MAX_MS. */
const RESTART_MIN_MS = 100;
const RESTART_MAX_MS = 10_000;
/** A worker that served this long before dying was healthy: the next restart waits RESTART_MIN_MS again. */
const HEALTHY_AFTER_MS = 10_000;
/** A worker's own graceful close gives up after 10 s (server.ts); past this it is killed. */
const SHUTDOWN_KILL_MS = 15_000;

function restartDelay(deathsInARow: number): number {
  return Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** Math.min(deathsInARow, 20));
}

/** The primary: forks the workers, relays their wrong passwords, restarts the dead, stops them all. */
class Primary {
  private readonly log;
  private readonly live = new Set<Worker>();
  /** Workers told of the others' wrong passwords: each from its hello on (the counts so far sent then). */
  private readonly sharing = new Set<Worker>();
  private readonly authFailures: AuthFailures;
  /** Journal queries put to every worker (journal-cluster.ts). */
  private readonly journal = new JournalRelay();
  private readonly restarts = new Set<NodeJS.Timeout>();
  private ready = false;
  private listening = 0;
  private stopping = false;
  private failedExit = false;
  private deathsInARow = 0;

  constructor(private readonly options: PrimaryOptions) {
    this.log = pino(loggerOptions(options.logLevel));
    this.authFailures = new AuthFailures(options.authFailureLimit, AUTH_FAILURE_WINDOW_MS);
  }

  private finish(): void {
    if (this.live.size > 0) return;
    this.log.info({ clean: !this.failedExit }, 'closed');
    process.exit(this.failedExit ? 1 : 0);
  }

  fork(): void {
    const worker = cluster.fork(this.options.env);
    this.live.add(worker);
    const started = { listenedAt: undefined as number | undefined };
    this.log.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker started');
    // A message that cannot be sent, a process that cannot be signalled: told; its 'exit' decides.
    worker.on('error', (err) => this.log.warn({ worker: worker.id, err }, 'worker error'));
    worker.on('message', (message: unknown) => this.message(worker, message));
    worker.on('listening', (address) => {
      if (started.listenedAt !== undefined) return;
      started.listenedAt = Date.now();
      this.listened(worker, address.port);
    });
    worker.on('exit', (code, signal) => this.exited(worker, started.listenedAt, code, signal));
  }

  /** A journal query, a worker's hello (it gets the counts so far) or its wrong passwords (the others get them). */
  private message(worker: Worker, message: unknown): void {
    if (this.journal.handle(worker, message, this.live)) return;
    if (itemsOf(message, HELLO, isRecord) !== undefined) {
      if (worker.isConnected()) worker.send({ type: STATE, items: this.authFailures.snapshot() }, undefined, () => undefined);
      this.sharing.add(worker);
      return;
    }
    const failures = itemsOf(message, FAILURES, isFailure);
    if (failures === undefined || failures.length === 0) return;
    for (const failure of failures) this.authFailures.shared(failure);
    for (const other of this.sharing) if (other !== worker && other.isConnected()) other.send({ type: FAILURES, items: failures }, undefined, () => undefined);
  }

  /** The first worker listens alone; then the others start; once all listen, the gateway is ready. */
  private listened(worker: Worker, port: number): void {
    this.log.info({ worker: worker.id, workerPid: worker.process.pid, port }, 'worker listening');
    if (this.ready) return;
    this.listening += 1;
    if (this.listening === 1) for (let i = 1; i < this.options.workers; i++) this.fork();
    if (this.listening === this.options.workers) {
      this.ready = true;
      this.log.info({ workers: this.options.workers, port }, 'tokengate ready');
      this.options.onReady(port);
    }
  }

  private exited(worker: Worker, listenedAt: number | undefined, code: number, signal: string): void {
    this.live.delete(worker);
    this.sharing.delete(worker);
    const fields = { worker: worker.id, workerPid: worker.process.pid, code, signal };
    if (this.stopping) {
      if (code !== 0) this.failedExit = true;
      this.log.info(fields, 'worker closed');
      this.finish();
      return;
    }
    if (!this.ready) {
      // A worker that could not start (it said why on stderr): the gateway cannot either.
      this.log.error(fields, 'a worker could not start: stopping');
      this.failedExit = true;
      this.stop({ reason: 'a worker could not start' });
      return;
    }
    if (listenedAt !== undefined && Date.now() - listenedAt >= HEALTHY_AFTER_MS) this.deathsInARow = 0;
    const restartInMs = restartDelay(this.deathsInARow);
    this.deathsInARow += 1;
    this.log.warn({ ...fields, restartInMs }, 'worker exited unexpectedly: restarting it');
    const timer = setTimeout(() => { this.restarts.delete(timer); if (!this.stopping) this.fork(); }, restartInMs);
    this.restarts.add(timer);
  }

  private stop(why: { signal: string } | { reason: string }): void {
    this.stopping = true;
    for (const timer of this.restarts) clearTimeout(timer);
    this.restarts.clear();
    // SIGTERM whatever the primary got: a worker ignores SIGINT (server.ts), which Ctrl-C sends
    // to the whole process group; one that is still starting simply ends.
    this.log.info({ ...why, workers: this.live.size }, 'closing');
    for (const worker of this.live) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of this.live) worker.process.kill('SIGKILL');
    }, SHUTDOWN_KILL_MS).unref();
    this.finish();
  }

  signal(signal: NodeJS.Signals): void {
    if (this.stopping) {
      // A second signal while closing: as close-with-grace does for one process, stop now.
      this.log.error({ signal }, `second ${signal}: workers killed`);
      for (const worker of this.live) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    this.stop({ signal });
  }
}

export function runPrimary(options: PrimaryOptions): void {
  // Workers run dist/server.js whatever started the primary (npm start, or bin/tokengate.js serve).
  cluster.setupPrimary({ exec: fileURLToPath(new URL('./server.js', import.meta.url)), args: [] });
  const primary = new Primary(options);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, (received) => primary.signal(received));
  primary.fork();
}
