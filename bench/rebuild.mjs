// Child process of the replay benchmark, so its memory is measured alone: open a SQLite store
// with the compiled core (dist/, or the build TOKENGATE_DIST names), then
//   rebuild: reset every projection of root.ts PROJECTIONS, then time ReadModels.rebuild() (it
//            replays the live read models only), then time the first read of the orders model
//            (apply: 'onRead': checkpoint('orders') applies the whole log to it, synchronously);
//   reset:   only reset them (so the next server start builds the read models itself).
// Prints one JSON line: { events, ms, rssMB, hwmMB, heapUsedMB } (memory after the rebuild), and
// in rebuild mode { ordersMs, ordersPosition, ordersRssMB, ordersHwmMB } (after the orders read).
// Usage: node bench/rebuild.mjs rebuild|reset <path of the SQLite file>
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

// dist/, or the build the benchmark driver was told to run (the tests run it on a build of their own).
const dist = pathToFileURL(`${resolve(process.env.TOKENGATE_DIST ?? new URL('../dist', import.meta.url).pathname)}/`);
const { SqliteEventStore, SqliteReadModelTables } = await import(new URL('store/sqlite.js', dist).href);
const { ReadModels } = await import(new URL('projections/read-models.js', dist).href);
const { PROJECTIONS } = await import(new URL('root.js', dist).href);

const [mode, path] = process.argv.slice(2);
if ((mode !== 'rebuild' && mode !== 'reset') || !path) {
  process.stderr.write('usage: node bench/rebuild.mjs rebuild|reset <sqlite file>\n');
  process.exit(2);
}

const memory = () => {
  const status = readFileSync('/proc/self/status', 'utf8');
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: Math.round(kb('VmRSS') / 102.4) / 10, hwmMB: Math.round(kb('VmHWM') / 102.4) / 10 };
};

const store = new SqliteEventStore(path);
// As root.ts opens them: the store's own speed-ups (read ahead, projection reads) as the feed.
const readModels = new ReadModels(new SqliteReadModelTables(store.db), store, PROJECTIONS, { feed: store });
for (const projection of PROJECTIONS) readModels.reset(projection);
let ms = 0;
if (mode === 'rebuild') {
  // rebuild() resets again (nothing left to drop) and replays the log (read ahead on a worker
  // thread) into the live read models; the orders model ('onRead') is left empty.
  const started = performance.now();
  await readModels.rebuild();
  ms = performance.now() - started;
}
const events = Number(await store.headPosition());
const after = memory();
const heapUsedMB = Math.round(process.memoryUsage().heapUsed / 104857.6) / 10;
let orders = {};
if (mode === 'rebuild') {
  // The first read of the orders model brings it up: the log from its checkpoint (0) on, in
  // pages, on this connection. checkpoint() reads no document (all('orders') would load them all).
  const started = performance.now();
  const position = readModels.checkpoint('orders');
  const ordersMs = performance.now() - started;
  const { rssMB: ordersRssMB, hwmMB: ordersHwmMB } = memory();
  orders = { ordersMs: Math.round(ordersMs * 10) / 10, ordersPosition: Number(position), ordersRssMB, ordersHwmMB };
}
await store.close();
process.stdout.write(`${JSON.stringify({ events, ms: Math.round(ms), ...after, heapUsedMB, ...orders })}\n`);
