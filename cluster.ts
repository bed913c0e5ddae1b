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
// AUTH_FAILURE_LIMIT they share through the primary: a worker tells it of each wrong password, it
// tells the other workers (and a worker started later, the last two minutes' worth), so N workers
// allow the guesses one process does and a lock holds in all of them. MAX_IN_FLIGHT is per worker.
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loggerOptions } from './app.js';
import type { AuthFailures, SharedFailure } from './plugins/auth.js';

/** The message that carries wrong passwords between the workers and the primary. */
const AUTH_FAILURES = 'tokengate:auth-failures';
interface AuthFailuresMessage { type: typeof AUTH_FAILURES; failures: SharedFailure[] }

function authFailuresOf(message: unknown): SharedFailure[] | undefined {
  if (typeof message !== 'object' || message === null || (message as { type?: unknown }).type !== AUTH_FAILURES) return undefined;
  const failures = (message as { failures?: unknown }).failures;
  if (!Array.isArray(failures)) return undefined;
  return failures.filter((f): f is SharedFailure => typeof f === 'object' && f !== null &&
    typeof (f as SharedFailure).credential === 'string' && typeof (f as SharedFailure).exists === 'boolean' && Number.isFinite((f as SharedFailure).at));
}

/**
 * A worker's side: tell the primary of each wrong password recorded here, and count those the
 * other workers saw (relayed by the primary). A message that cannot be sent (the primary is gone:
 * the worker is closing) is dropped.
 */
export function shareAuthFailures(failures: AuthFailures, channel: NodeJS.Process = process): void {
  failures.onFailure = (failure) => {
    if (!channel.connected || !channel.send) return;
    const message: AuthFailuresMessage = { type: AUTH_FAILURES, failures: [failure] };
    channel.send(message, undefined, {}, () => undefined);
  };
  channel.on('message', (message: unknown) => {
    for (const failure of authFailuresOf(message) ?? []) failures.shared(failure);
  });
}

/**
 * The primary's memory of the workers' wrong passwords, for a worker that starts later: those of
 * the last `keptMs` (a lock lasts a minute after the failures of the minute before it: two
 * minutes hold every lock still in force), at most `max` of them (the oldest dropped first).
 */
export class AuthFailureHistory {
  private failures: SharedFailure[] = [];
  private head = 0;
  constructor(private readonly keptMs = 120_000, private readonly max = 100_000) {}

  add(failure: SharedFailure, now = Date.now()): void {
    this.failures.push(failure);
    this.prune(now);
  }

  /** The failures a worker starting now should count, oldest first. */
  recent(now = Date.now()): SharedFailure[] {
    this.prune(now);
    return this.failures.slice(this.head);
  }

  private prune(now: number): void {
    while (this.head < this.failures.length && (this.failures.length - this.head > this.max || now - this.failures[this.head]!.at > this.keptMs)) this.head += 1;
    // Compacted now and then, not at every failure dropped.
    if (this.head > 1024 && this.head * 2 > this.failures.length) {
      this.failures = this.failures.slice(this.head);
      this.head = 0;
    }
  }
}

export interface PrimaryOptions {
  workers: number;
  logLevel: string;
  /** Added to each worker's environment (the admin password the primary chose). */
  env: Record<string, string>;
  /** Once every worker listens, the first time: the port they share. */
  onReady(port: number): void;
}

/** A restart waits this long after a death, doubled for each death in a row, up to RESTART_MAX_MS. */
export const RESTART_MIN_MS = 100;
export const RESTART_MAX_MS = 10_000;
/** A worker that served this long before dying was healthy: the next restart waits RESTART_MIN_MS again. */
const HEALTHY_AFTER_MS = 10_000;
/** A worker's own graceful close gives up after 10 s (server.ts); past this it is killed. */
const SHUTDOWN_KILL_MS = 15_000;

export function restartDelay(deathsInARow: number): number {
  return Math.min(RESTART_MAX_MS, RESTART_MIN_MS * 2 ** Math.min(deathsInARow, 20));
}

export function runPrimary(options: PrimaryOptions): void {
  const log = pino(loggerOptions(options.logLevel));
  // Workers run dist/server.js whatever started the primary (npm start, or bin/tokengate.js serve).
  cluster.setupPrimary({ exec: fileURLToPath(new URL('./server.js', import.meta.url)), args: [] });
  const live = new Set<Worker>();
  // Workers told of the others' wrong passwords: each from when it listens (its history sent then).
  const sharing = new Set<Worker>();
  const authFailures = new AuthFailureHistory();
  const restarts = new Set<NodeJS.Timeout>();
  let ready = false;
  let listening = 0;
  let stopping = false;
  let failedExit = false;
  let deathsInARow = 0;

  const finish = () => {
    if (live.size > 0) return;
    log.info({ clean: !failedExit }, 'closed');
    process.exit(failedExit ? 1 : 0);
  };

  const fork = () => {
    const worker = cluster.fork(options.env);
    live.add(worker);
    let listenedAt: number | undefined;
    log.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker started');
    // A message that cannot be sent, a process that cannot be signalled: told; its 'exit' decides.
    worker.on('error', (err) => log.warn({ worker: worker.id, err }, 'worker error'));
    worker.on('message', (message: unknown) => {
      const failures = authFailuresOf(message);
      if (failures === undefined || failures.length === 0) return;
      for (const failure of failures) authFailures.add(failure);
      const relayed: AuthFailuresMessage = { type: AUTH_FAILURES, failures };
      for (const other of sharing) if (other !== worker && other.isConnected()) other.send(relayed, undefined, () => undefined);
    });
    worker.on('listening', (address) => {
      if (listenedAt !== undefined) return;
      listenedAt = Date.now();
      const history: AuthFailuresMessage = { type: AUTH_FAILURES, failures: authFailures.recent() };
      if (history.failures.length > 0 && worker.isConnected()) worker.send(history, undefined, () => undefined);
      sharing.add(worker);
      log.info({ worker: worker.id, workerPid: worker.process.pid, port: address.port }, 'worker listening');
      if (ready) return;
      listening += 1;
      if (listening === 1) for (let i = 1; i < options.workers; i++) fork();
      if (listening === options.workers) {
        ready = true;
        log.info({ workers: options.workers, port: address.port }, 'tokengate ready');
        options.onReady(address.port);
      }
    });
    worker.on('exit', (code, signal) => {
      live.delete(worker);
      sharing.delete(worker);
      const fields = { worker: worker.id, workerPid: worker.process.pid, code, signal };
      if (stopping) {
        if (code !== 0) failedExit = true;
        log.info(fields, 'worker closed');
        finish();
        return;
      }
      if (!ready) {
        // A worker that could not start (it said why on stderr): the gateway cannot either.
        log.error(fields, 'a worker could not start: stopping');
        failedExit = true;
        stop({ reason: 'a worker could not start' });
        return;
      }
      if (listenedAt !== undefined && Date.now() - listenedAt >= HEALTHY_AFTER_MS) deathsInARow = 0;
      const restartInMs = restartDelay(deathsInARow);
      deathsInARow += 1;
      log.warn({ ...fields, restartInMs }, 'worker exited unexpectedly: restarting it');
      const timer = setTimeout(() => { restarts.delete(timer); if (!stopping) fork(); }, restartInMs);
      restarts.add(timer);
    });
  };

  const stop = (why: { signal: string } | { reason: string }) => {
    stopping = true;
    for (const timer of restarts) clearTimeout(timer);
    restarts.clear();
    // SIGTERM whatever the primary got: a worker ignores SIGINT (server.ts), which Ctrl-C sends
    // to the whole process group; one that is still starting simply ends.
    log.info({ ...why, workers: live.size }, 'closing');
    for (const worker of live) worker.process.kill('SIGTERM');
    setTimeout(() => {
      for (const worker of live) worker.process.kill('SIGKILL');
    }, SHUTDOWN_KILL_MS).unref();
    finish();
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal while closing: as close-with-grace does for one process, stop now.
      log.error({ signal }, `second ${signal}: workers killed`);
      for (const worker of live) worker.process.kill('SIGKILL');
      process.exit(1);
    }
    stop({ signal });
  };
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, onSignal);
  fork();
}
