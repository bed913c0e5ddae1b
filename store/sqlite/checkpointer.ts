// WAL checkpoints of the event store's SQLite file, on a worker thread. SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold, on the committing connection:
// the event loop copied pages from the WAL into the database file and waited for two fsyncs
// (bench/README.md: +15–40% pay and create without it). Here the store's connection has
// wal_autocheckpoint = 0, and a connection of its own on a worker thread runs
// `PRAGMA wal_checkpoint(PASSIVE)` (never waits for readers or writers) at most every
// `intervalMs` while commits come. The worker starts once the WAL has grown past `startBytes`,
// so a small store never starts one.
//
// A checkpoint that fails (an fsync of the database file, a full disk) is not retried: a later
// fsync could report success without the pages an earlier one lost, and the WAL would then be
// reset over them. The store is told (`onFailure`) and refuses appends until a restart, as it
// does for a failed sync of its WAL; SQLite's recovery then replays the WAL, which is intact.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface CheckpointerOptions {
  /** Start the worker when the WAL file is larger than this (default 4 MiB, SQLite's own 1,000 pages). */
  startBytes?: number;
  /** Checkpoints start at most this often (default 100 ms). */
  intervalMs?: number;
  /** The statement the worker runs (default `PRAGMA wal_checkpoint(PASSIVE)`; a test makes it fail). */
  statement?: string;
}

export interface CheckpointResult { busy: number; log: number; checkpointed: number }

// CommonJS, evaluated: no loader or compiled file needed, from source (tests) or dist/.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const statement = db.prepare(workerData.statement);
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [result] = statement.all();
    parentPort.postMessage({ ok: true, result });
  } catch (error) {
    parentPort.postMessage({ ok: false, code: error && error.code, message: String(error && error.message || error) });
  }
});
`;

const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');

export class Checkpointer {
  private worker: Worker | undefined;
  private running = false;
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private lastStart = 0;
  private stopped = false;
  private readonly startBytes: number;
  private readonly intervalMs: number;
  private readonly statement: string;
  /** Checkpoints completed (for tests and diagnostics). */
  completed = 0;
  last: CheckpointResult | undefined;

  constructor(
    private readonly file: string,
    private readonly walBytes: () => number,
    private readonly onFailure: (error: Error) => void,
    options: CheckpointerOptions = {},
  ) {
    this.startBytes = options.startBytes ?? 4 * 1024 * 1024;
    this.intervalMs = options.intervalMs ?? 100;
    this.statement = options.statement ?? 'PRAGMA wal_checkpoint(PASSIVE)';
  }

  /** Whether the worker thread runs (the WAL grew past startBytes). */
  get started(): boolean { return this.worker !== undefined; }

  /** After each commit of the store's connection. */
  committed(): void {
    if (this.stopped) return;
    if (this.running) {
      this.pending = true;
      return;
    }
    if (this.timer !== undefined) return;
    if (this.worker === undefined) {
      if (this.walBytes() <= this.startBytes) return;
      this.start();
    }
    const wait = this.lastStart + this.intervalMs - performance.now();
    if (wait <= 0) this.run();
    else this.timer = setTimeout(() => { this.timer = undefined; this.run(); }, wait).unref();
  }

  private start(): void {
    const worker = new Worker(WORKER, { eval: true, workerData: { module: betterSqlite3, file: this.file, statement: this.statement } });
    worker.unref();
    worker.on('message', (message: { ok: true; result: CheckpointResult } | { ok: false; code?: string; message: string }) => {
      this.running = false;
      if (!message.ok) {
        this.fail(new Error(`WAL checkpoint failed (${message.code ?? message.message})`));
        return;
      }
      this.completed++;
      this.last = message.result;
      if (this.pending) {
        this.pending = false;
        this.committed();
      }
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      if (!this.stopped) this.fail(new Error('the WAL checkpoint worker exited'));
    });
    this.worker = worker;
  }

  private run(): void {
    if (this.stopped || this.running || this.worker === undefined) return;
    this.running = true;
    this.lastStart = performance.now();
    this.worker.postMessage('checkpoint');
  }

  private fail(error: Error): void {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    void this.worker?.terminate();
    this.onFailure(error);
  }

  /** Let a checkpoint in flight finish, close the worker's connection, end the thread. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    const worker = this.worker;
    if (worker === undefined) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Unreferenced while it works (it never holds a process open); referenced while this waits.
    worker.ref();
    worker.postMessage('close');
    await exited;
  }
}
