// Child process of the replay benchmark, so its memory is measured alone: open a SQLite store
// with the compiled core (dist/), then
//   rebuild: reset every projection of root.ts PROJECTIONS, then time ReadModels.rebuild();
//   reset:   only reset them (so the next server start builds the read models itself).
// Prints one JSON line: { events, ms, rssMB, hwmMB, heapUsedMB }.
// Usage: node bench/rebuild.mjs rebuild|reset <path of the SQLite file>
import { readFileSync } from 'node:fs';
import { SqliteEventStore } from '../dist/store/sqlite.js';
import { ReadModels } from '../dist/projections/read-models.js';
import { PROJECTIONS } from '../dist/root.js';

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
const readModels = new ReadModels(store.db, store, PROJECTIONS, { feed: store });
for (const projection of PROJECTIONS) readModels.reset(projection);
let ms = 0;
if (mode === 'rebuild') {
  // rebuild() resets again (nothing left to drop) and replays the log (read ahead on a worker thread).
  const started = performance.now();
  await readModels.rebuild();
  ms = performance.now() - started;
}
const events = Number(await store.headPosition());
const after = memory();
const heapUsedMB = Math.round(process.memoryUsage().heapUsed / 104857.6) / 10;
await store.close();
process.stdout.write(`${JSON.stringify({ events, ms: Math.round(ms), ...after, heapUsedMB })}\n`);
