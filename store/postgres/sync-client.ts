// Synchronous PostgreSQL statements for the key store (store/postgres/key-store.ts): a `pg` client
// runs in a worker thread, and the calling thread waits for its answer with Atomics.wait, then
// takes it with receiveMessageOnPort. This is what better-sqlite3 does for the SQLite key store (the
// event loop waits for the database), so the KeyStore port and its callers (store/sealing.ts, the
// token and session services) stay synchronous, and every guarantee they rely on holds as it is:
// a key is committed when put() returns, before any event that references it is appended; a
// reservation's winner is known when reserve() returns; a destroyed key is gone when destroy()
// returns. The price is one round trip to the server during which this process does nothing else
// (≈ 0.1-1 ms on a local server), on the key store's few statements per request only. A write no
// caller needs to see done (the shredder's checkpoint) is posted instead: sent, not waited for.
// Not synckit (which does the same): it loads its worker from a file, and the tests run the
// TypeScript sources directly; this worker is a few lines of JavaScript, evaluated as is.
import { createRequire } from 'node:module';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';

const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
const { Client } = require(workerData.pg);
const signal = new Int32Array(workerData.signal);
const port = workerData.port;
let client;
let connecting;
// One connection, whichever statements ask first: a posted statement and the next one may both
// wait for it, and run on it in the order they came.
function connect() {
  if (client) return Promise.resolve(client);
  if (connecting) return connecting;
  const c = new Client({ connectionString: workerData.url, application_name: 'tokengate-keys', connectionTimeoutMillis: 5000, keepAlive: true,
    // A key statement waits at most this long for a lock (the scrub's rewrite), or runs at most this long.
    options: '-c lock_timeout=10000 -c statement_timeout=12000 -c idle_in_transaction_session_timeout=10000' });
  c.on('error', () => { if (client === c) client = undefined; });
  connecting = c.connect().then(() => { client = c; return c; }).finally(() => { connecting = undefined; });
  return connecting;
}
const toBuffer = (v) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v);
port.on('message', async ({ id, statements }) => {
  let answer;
  try {
    const c = await connect();
    const results = [];
    for (const { text, values } of statements) {
      const r = await c.query({ text, values: (values || []).map(toBuffer) });
      results.push({ rows: r.rows, rowCount: r.rowCount });
    }
    answer = { id, results };
  } catch (error) {
    // A batch that opened a transaction (the schema's) must not leave it open and aborted.
    if (client) await client.query('ROLLBACK').catch(() => undefined);
    if (client && (error.code === undefined || String(error.code).startsWith('08') || String(error.code).startsWith('57P'))) {
      const c = client; client = undefined; c.end().catch(() => undefined);
    }
    answer = { id, error: { message: String(error && error.message || error), code: error && error.code } };
  }
  port.postMessage(answer);
  Atomics.store(signal, 0, id);
  Atomics.notify(signal, 0);
});
port.on('close', () => { if (client) client.end().catch(() => undefined); });
`;

export interface Statement { text: string; values?: readonly unknown[] }
export interface SyncResult<Row> { rows: Row[]; rowCount: number | null }

/** A failed statement, with PostgreSQL's SQLSTATE (`code`) when the server gave one. */
export class SyncQueryError extends Error {
  constructor(message: string, readonly code?: string) {
    super(message);
  }
}

/** How long a statement may keep this process waiting before it fails (the server unreachable). */
const TIMEOUT_MS = 15_000;

export class SyncPgClient {
  private worker!: Worker;
  private port!: MessagePort;
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private nextId = 1;
  private closed = false;
  /** A statement was posted (post) and no statement waited for since. */
  private posted = false;
  /** Why the worker stopped (an error it did not catch): the next statement starts another. */
  private stopped: Error | undefined;

  constructor(private readonly url: string) {
    this.spawn();
  }

  private spawn(): void {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const pg = createRequire(import.meta.url).resolve('pg');
    this.worker = new Worker(WORKER, { eval: true, workerData: { url: this.url, pg, signal: this.signal.buffer, port: port2 }, transferList: [port2] });
    // Without a listener, a worker's uncaught error would end this process.
    this.worker.on('error', (error) => { this.stopped = error; });
    // The worker idles on its port; it must not keep the process alive on its own.
    this.worker.unref();
    this.port.unref();
  }

  private respawnIfStopped(): void {
    if (!this.stopped) return;
    this.stopped = undefined;
    this.port.close();
    this.spawn();
  }

  /** Run `statements` in turn on the worker's connection; each one's rows (bytea as Buffer). */
  run<Row = Record<string, unknown>>(...statements: Statement[]): Array<SyncResult<Row>> {
    if (this.closed) throw new SyncQueryError('the key store is closed');
    this.respawnIfStopped();
    const id = this.newId();
    this.posted = false;
    this.port.postMessage({ id, statements });
    const deadline = Date.now() + TIMEOUT_MS;
    for (;;) {
      // Read before looking for the answer: the worker posts it, then changes the signal, so a
      // wait from this value returns at once if the answer came in between.
      const seen = Atomics.load(this.signal, 0);
      const answer = this.take(id);
      if (answer) {
        if (answer.error) throw new SyncQueryError(answer.error.message, answer.error.code);
        return answer.results!.map((r) => ({ rowCount: r.rowCount, rows: r.rows.map(buffers) as Row[] }));
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new SyncQueryError(`the key store's server did not answer within ${TIMEOUT_MS / 1000} s`, '57014');
      Atomics.wait(this.signal, 0, seen, Math.min(left, 1000));
    }
  }

  /**
   * Send `statements` to run after those sent before, without waiting for them: their answer, or
   * their failure, is dropped. For a write whose loss costs nothing but its repetition (the
   * shredder's checkpoint); close() waits for it. Each statement on its own: the next batch's
   * statements may run between a posted batch's (no transaction across them).
   */
  post(...statements: Statement[]): void {
    if (this.closed) return;
    this.respawnIfStopped();
    this.posted = true;
    this.port.postMessage({ id: this.newId(), statements });
  }

  private newId(): number {
    const id = this.nextId++;
    // (2^31 ids before wrapping: one per statement batch.)
    if (this.nextId > 0x7fff_fff0) this.nextId = 1;
    return id;
  }

  /** The answer to `id`, if it arrived; answers to earlier statements (timed out, or posted) are dropped. */
  private take(id: number): Answer | undefined {
    for (;;) {
      const message = receiveMessageOnPort(this.port)?.message as Answer | undefined;
      if (message === undefined) return undefined;
      if (message.id === id) return message;
    }
  }

  close(): Promise<number> {
    if (this.closed) return Promise.resolve(0);
    // A statement posted since the last one waited for: done before the connection goes (a
    // statement runs after those sent before it, on the one connection).
    if (this.posted) {
      try { this.run({ text: 'SELECT 1' }); } catch { /* the server gone: the posted one with it */ }
    }
    this.closed = true;
    this.port.close();
    return this.worker.terminate();
  }
}

interface Answer {
  id: number;
  results?: Array<{ rows: Array<Record<string, unknown>>; rowCount: number | null }>;
  error?: { message: string; code?: string };
}

/** Structured cloning turns a Buffer into a Uint8Array: back to Buffer (the key store's bytea). */
function buffers(row: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(row)) {
    if (v instanceof Uint8Array && !Buffer.isBuffer(v)) row[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  return row;
}
