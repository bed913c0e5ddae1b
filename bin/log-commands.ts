// The commands over the event log as a whole: replay (rebuild the read models), export (the log
// as NDJSON) and import (an export into an empty store).
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { RecordedEvent } from '../store/event-store.js';
import { renamedStream } from '../domain/events.js';
import { instant, integer, UsageError, withStores, type Command, type Values, type Work } from './command-kit.js';

function progressBar(events: number, position: bigint, head: bigint): void {
  const ratio = head > 0n ? Number(position) / Number(head) : 1;
  const width = 30;
  const done = Math.round(ratio * width);
  const line = `[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${(ratio * 100).toFixed(0).padStart(3)}%  ${events} events`;
  process.stderr.write(process.stderr.isTTY ? `\r${line}` : `${line}\n`);
}

function matchesExport(recordedAt: Work['recordedAt'], e: RecordedEvent, values: Values, since?: Date, until?: Date): boolean {
  if (typeof values.stream === 'string' && e.stream !== values.stream) return false;
  if (typeof values.category === 'string' && !e.stream.startsWith(`${values.category}-`)) return false;
  if (typeof values.merchant === 'string') {
    const d = e.data as { merchantId?: string };
    if (e.metadata.merchantId !== values.merchant && d.merchantId !== values.merchant) return false;
  }
  const at = recordedAt(e);
  if (since && at < since.toISOString()) return false;
  if (until && at > until.toISOString()) return false;
  return true;
}

export const replay: Command = {
  summary: 'rebuild the read models from the events (optionally only up to a position or an instant)',
  args: '[options]',
  options: {
    'until-position': { type: 'string', value: 'N', help: 'stop after the event at this $all position' },
    'until-time': { type: 'string', value: 'instant', help: 'stop before the first event recorded after this instant' },
  },
  example: 'tokengate replay --until-time 2026-11-21T10:00:00Z',
  async run(_positionals, values) {
    const untilPosition = integer(values['until-position'], 'until-position');
    const untilTime = instant(values['until-time'], 'until-time');
    return withStores(values, async ({ readModels }, { PROJECTIONS }) => {
      const result = await readModels.rebuild({
        everyModel: true,
        ...(untilPosition !== undefined ? { untilPosition } : {}),
        ...(untilTime ? { untilTime } : {}),
        onProgress: progressBar,
      });
      if (process.stderr.isTTY) process.stderr.write('\n');
      process.stdout.write(
        `rebuilt ${PROJECTIONS.map((p) => `${p.name} v${p.version}`).join(', ')} from ${result.events} events ` +
        `(up to position ${result.position}) in ${result.seconds.toFixed(2)} s: ${Math.round(result.eventsPerSecond)} events/s\n` +
        `read models hash ${await readModels.hash()}\n`);
      return 0;
    });
  },
};

export const exportLog: Command = {
  summary: 'write the event log as NDJSON (one event a line), optionally filtered',
  args: '[options]',
  options: {
    stream: { type: 'string', value: 'name', help: 'only this stream' },
    category: { type: 'string', value: 'name', help: 'only streams of this category (token, order, accountref, ...)' },
    merchant: { type: 'string', value: 'id', help: "only this merchant's events" },
    since: { type: 'string', value: 'instant', help: 'only events recorded at or after this instant' },
    until: { type: 'string', value: 'instant', help: 'only events recorded at or before this instant' },
    out: { type: 'string', value: 'file', help: 'write to this file instead of standard output' },
  },
  example: 'tokengate export --merchant TESTMERCHANT01 --out events.ndjson',
  async run(_positionals, values) {
    const since = instant(values.since, 'since');
    const until = instant(values.until, 'until');
    return withStores(values, async ({ store }, { recordedAt }) => {
      const out = typeof values.out === 'string' ? createWriteStream(values.out) : process.stdout;
      let count = 0;
      for (let from = 0n; ;) {
        const page = await store.readAll({ fromPosition: from, maxCount: 5000 });
        for (const e of page) {
          if (!matchesExport(recordedAt, e, values, since, until)) continue;
          const line = JSON.stringify({ position: Number(e.position), stream: e.stream, revision: Number(e.revision), id: e.id, type: e.type, data: e.data, metadata: e.metadata, created: e.created });
          if (!out.write(`${line}\n`)) await once(out, 'drain');
          count++;
        }
        if (page.length < 5000) break;
        from = page.at(-1)!.position;
      }
      if (out !== process.stdout) await new Promise<void>((resolve) => (out as NodeJS.WritableStream).end(resolve));
      process.stderr.write(`exported ${count} events\n`);
      return 0;
    });
  },
};

export const importLog: Command = {
  summary: 'append the events of an NDJSON export to an empty store, then rebuild the read models',
  args: '<file> [options]',
  options: {},
  example: 'EVENT_STORE=sqlite:./copy.db tokengate import events.ndjson',
  async run([file], values) {
    if (!file) throw new UsageError('name the export file: tokengate import <file>');
    return withStores(values, async ({ store, readModels }) => {
      if ((await store.headPosition()) !== 0n) throw new UsageError('the target store is not empty: import only into an empty store');
      let count = 0;
      let pending: Array<Promise<unknown>> = [];
      // An export of an earlier tokengate names streams `<category>-<owner>-<id>`: renamed as it is read.
      const renamed = new Map<string, string>();
      const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
      for await (const line of lines) {
        if (line.trim() === '') continue;
        const e = JSON.parse(line) as { stream: string; id: string; type: string; data: unknown; metadata: RecordedEvent['metadata'] };
        const stream = renamed.get(e.stream) ?? renamedStream(e.stream, e.data) ?? e.stream;
        renamed.set(e.stream, stream);
        // Appended in file order; 'any' because a filtered export may start a stream mid-way.
        pending.push(store.append(stream, [{ id: e.id, type: e.type, data: e.data, metadata: e.metadata }], { expectedRevision: 'any' }));
        count++;
        if (pending.length >= 1000) { await Promise.all(pending); pending = []; }
      }
      await Promise.all(pending);
      const result = await readModels.rebuild();
      process.stdout.write(`imported ${count} events; read models rebuilt from ${result.events} events\n`);
      return 0;
    });
  },
};
