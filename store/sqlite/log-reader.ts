// Reading a long stretch of the log on a worker thread, for replays (a rebuild of the read models,
// a first start on a large store): the worker's own read-only connection reads the next pages
// while the caller folds the current one. The caller still parses each event's JSON: a
// structured clone of parsed events would cost the receiving thread more than the parse. What it
// parses is cut: given the members of each event type's data the replay reads (`dataReader`, from
// a DataShape), SQLite's JSON functions on the worker's thread pick them (a payment's 1 KB becomes
// ≈ 90 B), and an event of a type no one reads arrives with `{}`: the caller's parse and the text's
// copy between the threads shrink with it (the figures: bench/README.md, "What was tried").
//
// When the caller finishes, stops early or the read fails, the worker closes its connection and
// ends before the iteration does: a replay leaves no thread or connection behind.
import { createRequire } from 'node:module';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { DataShape } from '../projection-feed.js';

/** position, stream, revision, type, data (JSON text), created. */
export type LogRow = [number, string, number, string, string, string];

export interface ReadAheadOptions {
  /** Read events after this position ... */
  from: bigint;
  /** ... up to this one, inclusive (the head when the replay began). */
  until: bigint;
  /** Events per page. */
  page: number;
  /** Pages read ahead of the caller (default 3). */
  ahead?: number;
  /** The SQL of the data column (dataReader(shape).column; default: the stored text). */
  dataColumn?: string | undefined;
}

// CommonJS, evaluated: no loader or compiled file needed, from source (tests) or dist/.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
let db;
let read;
let from = workerData.from;
let ahead = 0;
let done = false;
try {
  const Database = require(workerData.module);
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  read = db.prepare(workerData.sql).raw(true);
} catch (error) {
  done = true;
  parentPort.postMessage({ error: String(error && error.message || error) });
}
function pump() {
  while (!done && ahead < workerData.ahead) {
    let rows;
    try {
      rows = read.all(from, workerData.until, workerData.page);
    } catch (error) {
      done = true;
      parentPort.postMessage({ error: String(error && error.message || error) });
      return;
    }
    ahead += 1;
    done = rows.length < workerData.page;
    if (rows.length > 0) from = rows[rows.length - 1][0];
    parentPort.postMessage({ rows, done });
  }
}
parentPort.on('message', (message) => {
  if (message === 'close') {
    if (db) db.close();
    parentPort.close();
    return;
  }
  ahead -= 1;
  pump();
});
pump();
`;

const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');

/** A member name as SQLite's JSON paths and this file's SQL take it unquoted (never __proto__). */
const MEMBER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** Members (dotted paths) as a tree: a leaf is true (the whole member), a branch names its members. */
type PathTree = Map<string, PathTree | true>;

function treeOf(paths: readonly string[]): PathTree {
  const tree: PathTree = new Map();
  for (const path of paths) {
    const names = path.split('.');
    if (!names.every((name) => MEMBER.test(name) && name !== '__proto__')) throw new Error(`not a data member path: ${JSON.stringify(path)}`);
    let node = tree;
    for (const [i, name] of names.entries()) {
      const had = node.get(name);
      if (had === true) break; // the whole member is read already
      if (i === names.length - 1) {
        node.set(name, true);
        break;
      }
      const next: PathTree = had ?? new Map();
      node.set(name, next);
      node = next;
    }
  }
  return tree;
}

/** A type's members cut: the leaves (read whole) and the branches (objects some leaves are in, parents first). */
interface Cut { leaves: string[][]; branches: string[][] }

function cutOf(tree: PathTree, prefix: string[] = [], cut: Cut = { leaves: [], branches: [] }): Cut {
  for (const [name, sub] of tree) {
    const path = [...prefix, name];
    if (sub === true) {
      cut.leaves.push(path);
    } else {
      cut.branches.push(path);
      cutOf(sub, path, cut);
    }
  }
  return cut;
}

const jsonPath = (path: readonly string[]) => `'$.${path.join('.')}'`;

/**
 * SQL of a cut type's data: `[[leaf values...], type of each branch...]`: the leaves' JSON as
 * stored (null where not there), each branch's json_type (decodeCut makes it an object only when
 * it is one). SQLite parses the text once per row for all of them (building the same object with
 * json_object and json_patch cost twice as much: bench/README.md, "What was tried").
 */
function cutColumn(cut: Cut): string {
  const leaves = cut.leaves.length === 1 ? `json_array(data->${jsonPath(cut.leaves[0]!)})` : `json_extract(data, ${cut.leaves.map(jsonPath).join(', ')})`;
  return `json_array(${[leaves, ...cut.branches.map((b) => `json_type(data, ${jsonPath(b)})`)].join(', ')})`;
}

/** Follow `path` but its last name from `data`: the object the last name goes into, if there is one. */
function parentIn(data: Record<string, unknown>, path: readonly string[]): Record<string, unknown> | undefined {
  let node: Record<string, unknown> | undefined = data;
  for (let i = 0; i < path.length - 1 && node !== undefined; i++) node = node[path[i]!] as Record<string, unknown> | undefined;
  return node;
}

/** The data object of a cut type's parsed column: a leaf that was not there (or JSON null) absent, a branch there only where it is an object. */
function decodeCut(cut: Cut, [values, ...types]: [unknown[], ...unknown[]]): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  cut.branches.forEach((branch, i) => {
    const parent = types[i] === 'object' ? parentIn(data, branch) : undefined;
    if (parent !== undefined) parent[branch.at(-1)!] = {};
  });
  cut.leaves.forEach((leaf, i) => {
    const value = values[i];
    const parent = value === null ? undefined : parentIn(data, leaf);
    if (parent !== undefined) parent[leaf.at(-1)!] = value;
  });
  return data;
}

/**
 * How to read the `data` column for `shape`: `column`, the SQL; `parse`, its text as the event's
 * data. A type read whole is its stored text; a type cut to its members, SQLite's JSON functions
 * on the worker's thread pick them (a member that is not there, holds JSON null, or goes into a
 * member that is not an object, reads as absent); any other type is `{}`.
 */
export function dataReader(shape: DataShape | undefined): { column: string; parse: (type: string, text: string) => unknown } {
  const whole = (_type: string, text: string): unknown => JSON.parse(text);
  if (shape === undefined) return { column: 'data', parse: whole };
  const cuts = new Map<string, Cut>();
  const cases = [...shape].map(([type, members]) => {
    if (members === 'all') return `WHEN ${literal(type)} THEN data`;
    const cut = cutOf(treeOf(members));
    if (cut.leaves.length === 0) return `WHEN ${literal(type)} THEN '{}'`;
    cuts.set(type, cut);
    return `WHEN ${literal(type)} THEN ${cutColumn(cut)}`;
  });
  return {
    column: cases.length === 0 ? "'{}'" : `CASE type ${cases.join(' ')} ELSE '{}' END`,
    parse: (type, text) => {
      const cut = cuts.get(type);
      return cut === undefined ? JSON.parse(text) : decodeCut(cut, JSON.parse(text) as [unknown[], ...unknown[]]);
    },
  };
}

type Message = { rows: LogRow[]; done: boolean; error?: undefined } | { error: string };

/** Pages of raw rows of the events table in `(from, until]`, in position order, read ahead on a worker thread. */
export async function* readLogAhead(file: string, options: ReadAheadOptions): AsyncGenerator<LogRow[], void, undefined> {
  if (options.until <= options.from) return;
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      module: betterSqlite3, file, from: Number(options.from), until: Number(options.until), page: options.page, ahead: options.ahead ?? 3,
      sql: `SELECT position, stream, revision, type, ${options.dataColumn ?? 'data'}, created FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?`,
    },
  });
  const exited = once(worker, 'exit');
  const queue: Message[] = [];
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const ready = () => { wake?.(); wake = undefined; };
  worker.on('message', (message: Message) => { queue.push(message); ready(); });
  worker.on('error', (error: Error) => { failure ??= error; ready(); });
  worker.on('exit', (code) => { failure ??= new Error(`the log reader stopped (exit code ${code})`); ready(); });
  try {
    for (;;) {
      while (queue.length === 0 && failure === undefined) await new Promise<void>((resolve) => { wake = resolve; });
      const message = queue.shift();
      if (message === undefined) throw failure ?? new Error('the log reader stopped');
      if (message.error !== undefined) throw new Error(`reading the log failed: ${message.error}`);
      worker.postMessage('next');
      if (message.rows.length > 0) yield message.rows;
      if (message.done) return;
    }
  } finally {
    worker.postMessage('close');
    await exited;
  }
}
