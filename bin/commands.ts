// The commands of bin/tokengate.ts. Each opens the store named by --store or EVENT_STORE, through
// the composition root (root.ts).
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import type { Opened } from '../root.js';
import type { AsOf, HistoryEntry } from '../services/queries/history.js';
import type { RecordedEvent } from '../store/event-store.js';
import { renamedStream, streams } from '../domain/events.js';
import { DEMO_MERCHANTS_FILE, loadEventStore, loadGatewaySettings } from '../config.js';
import { fold } from '../services/aggregates.js';

export interface OptionSpec { type: 'string' | 'boolean'; value?: string; help: string }
type Values = Record<string, string | boolean | undefined>;
export interface Command {
  summary: string;
  args: string;
  options: Record<string, OptionSpec>;
  example?: string;
  run(positionals: string[], values: Values): Promise<number>;
}

class UsageError extends Error {}

/**
 * The modules a command's work needs (the stores, the queries, the merchants file's parser),
 * imported once a command runs: `--help` and a mistyped option start without them.
 */
async function work() {
  const [root, history, merchants, delivery] = await Promise.all([
    import('../root.js'), import('../services/queries/history.js'), import('../merchants.js'), import('../services/notification/delivery.js'),
  ]);
  return {
    openStores: root.openStores, PROJECTIONS: root.PROJECTIONS,
    orderHistory: history.orderHistory, recordedAt: history.recordedAt, repositoriesOfToken: history.repositoriesOfToken, tokenHistory: history.tokenHistory,
    loadMerchants: merchants.loadMerchants,
    attemptDelivery: delivery.attemptDelivery, notificationAggregate: delivery.notificationAggregate,
  };
}
type Work = Awaited<ReturnType<typeof work>>;

async function withStores<T>(values: Values, task: (opened: Opened, modules: Work) => Promise<T>): Promise<T> {
  const modules = await work();
  const opened = modules.openStores(loadEventStore(process.env, typeof values.store === 'string' ? values.store : undefined));
  try {
    return await task(opened, modules);
  } finally {
    await opened.close();
  }
}

function instant(value: unknown, flag: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new UsageError(`--${flag} '${String(value)}' is not an ISO 8601 instant`);
  return date;
}

function integer(value: unknown, flag: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(String(value))) throw new UsageError(`--${flag} '${String(value)}' is not a whole number`);
  return BigInt(String(value));
}

const asOfOptions: Record<string, OptionSpec> = {
  'as-of-revision': { type: 'string', value: 'N', help: 'state as of this revision of the stream (0-based)' },
  'as-of': { type: 'string', value: 'instant', help: 'state as of this instant (ISO 8601), e.g. 2026-11-21T10:00:00Z' },
  json: { type: 'boolean', help: 'print JSON instead of text' },
};

function asOf(values: Values): AsOf {
  const revision = integer(values['as-of-revision'], 'as-of-revision');
  const time = instant(values['as-of'], 'as-of');
  return { ...(revision !== undefined ? { revision } : {}), ...(time ? { time } : {}) };
}

const show = (v: unknown) => (v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v));

export function formatHistory(title: string, entries: HistoryEntry[], doc: unknown): string {
  const lines = [title, ''];
  for (const e of entries) {
    lines.push(`#${e.position}  ${e.recordedAt}  ${e.type}  ${e.stream}@${e.revision}`);
    lines.push(`    merchant ${e.merchantId ?? '-'}  request ${e.requestId ?? '-'}  correlation ${e.correlationId ?? '-'}`);
    for (const c of e.changes) lines.push(`    ${c.path}: ${show(c.before)} → ${show(c.after)}`);
  }
  lines.push('', 'State:', JSON.stringify(doc ?? null, null, 2));
  return `${lines.join('\n')}\n`;
}

function printHistory(values: Values, title: string, result: { entries: HistoryEntry[]; doc: unknown }): number {
  if (values.json) process.stdout.write(`${JSON.stringify({ events: result.entries, state: result.doc ?? null }, null, 2)}\n`);
  else process.stdout.write(formatHistory(title, result.entries, result.doc));
  return 0;
}

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

/**
 * A local webhook receiver for a first session (and for trying an integration's handler against):
 * answers 200 to each POST whose X-Notification-Secret is the merchant's (401 otherwise) and
 * prints one line per notification. On 127.0.0.1 unless --host names another address (a container
 * of docker-compose.yml: 0.0.0.0). Runs until interrupted.
 */
async function receiveNotifications(merchantId: string | undefined, portValue: string | boolean | undefined, host = '127.0.0.1'): Promise<number> {
  const { loadMerchants } = await work();
  const merchants = loadMerchants(process.env.MERCHANTS_FILE ?? DEMO_MERCHANTS_FILE);
  const merchant = merchantId ? merchants.get(merchantId) : merchants.list.find((m) => m.notifications !== undefined);
  if (!merchant?.notifications) {
    throw new UsageError(merchantId ? `merchant ${merchantId} has no notifications in the merchants file` : 'no merchant of the merchants file has notifications');
  }
  const port = portValue === undefined ? 8081 : Number(integer(portValue, 'port'));
  if (!(port >= 0 && port < 65536)) throw new UsageError(`--port '${String(portValue)}' is not a port`);
  const { secret } = merchant.notifications;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const header = request.headers['x-notification-secret'];
      const given = Buffer.from(typeof header === 'string' ? header : '');
      const ok = given.length === Buffer.byteLength(secret) && timingSafeEqual(given, Buffer.from(secret));
      response.writeHead(ok ? 200 : 401).end();
      let summary = '';
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { order?: { id?: unknown; status?: unknown }; transaction?: { id?: unknown; type?: unknown }; response?: { gatewayCode?: unknown }; result?: unknown };
        summary = `order ${String(body.order?.id)} ${String(body.order?.status)}  transaction ${String(body.transaction?.id)} ${String(body.transaction?.type)}  ${String(body.result)} ${String(body.response?.gatewayCode)}`;
      } catch {
        summary = 'a body that is not JSON';
      }
      process.stdout.write(`${new Date().toISOString()}  ${request.method} ${request.url}  id ${String(request.headers['x-notification-id'])}  attempt ${String(request.headers['x-notification-attempt'])}  ${ok ? '200' : '401 (wrong secret)'}  ${summary}\n`);
    });
  });
  server.listen(port, host);
  await once(server, 'listening');
  const address = server.address();
  process.stderr.write(`receiving ${merchant.id}'s notifications on http://${host}:${typeof address === 'object' && address ? address.port : port}/ (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => server.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

export const commands: Record<string, Command> = {
  replay: {
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
  },
  token: {
    summary: "audit a token's full history: every event, when, by which merchant and request, what changed",
    args: '<token> [options]',
    options: { repository: { type: 'string', value: 'id', help: 'the token repository (needed only when several hold this token id)' }, ...asOfOptions },
    example: 'tokengate token 9001683317748856 --as-of 2026-11-21T10:00:00Z',
    async run([token], values) {
      if (!token) throw new UsageError('name the token: tokengate token <token>');
      return withStores(values, async ({ store }, { repositoriesOfToken, tokenHistory }) => {
        let repositoryId = typeof values.repository === 'string' ? values.repository : undefined;
        if (!repositoryId) {
          const found = await repositoriesOfToken(store, token);
          if (found.length > 1) throw new UsageError(`token ${token} exists in repositories ${found.join(', ')}: choose one with --repository`);
          repositoryId = found[0];
        }
        const result = repositoryId ? await tokenHistory(store, repositoryId, token, asOf(values)) : { entries: [], doc: undefined };
        if (result.entries.length === 0) {
          process.stderr.write(`tokengate token: no token ${token}${repositoryId ? ` in repository ${repositoryId}` : ''}\n`);
          return 1;
        }
        return printHistory(values, `Token ${token} (repository ${repositoryId})`, result);
      });
    },
  },
  order: {
    summary: 'the timeline of one order: its events with what changed, and its state',
    args: '<merchantId> <orderId> [options]',
    options: asOfOptions,
    example: 'tokengate order TESTMERCHANT01 10000000001 --as-of-revision 0',
    async run([merchantId, orderId], values) {
      if (!merchantId || !orderId) throw new UsageError('name the order: tokengate order <merchantId> <orderId>');
      return withStores(values, async ({ store }, { orderHistory }) => {
        const result = await orderHistory(store, merchantId, orderId, asOf(values));
        if (result.entries.length === 0) {
          process.stderr.write(`tokengate order: no order ${orderId} of merchant ${merchantId}${values['as-of'] || values['as-of-revision'] ? ' at that point' : ''}\n`);
          return 1;
        }
        return printHistory(values, `Order ${orderId} of merchant ${merchantId}`, result);
      });
    },
  },
  export: {
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
  },
  notifications: {
    summary: "an order's webhook notifications (list), one sent again on purpose (redeliver), or a local receiver that prints them (receive)",
    args: 'list <merchantId> <orderId> | redeliver <merchantId> <notificationId> | receive [<merchantId>]',
    options: {
      port: { type: 'string', value: 'N', help: 'receive: the port to listen on, on 127.0.0.1 (default 8081, the demo merchant\'s notification URL; 0: any free port)' },
      host: { type: 'string', value: 'address', help: 'receive: the address to listen on (default 127.0.0.1; 0.0.0.0 in a container)' },
    },
    example: 'tokengate notifications receive TESTMERCHANT01',
    async run([action, merchantId, id], values) {
      if (action === 'receive') return receiveNotifications(merchantId, values.port, typeof values.host === 'string' ? values.host : undefined);
      if ((action !== 'list' && action !== 'redeliver') || !merchantId || !id) {
        throw new UsageError('tokengate notifications list <merchantId> <orderId> | redeliver <merchantId> <notificationId> | receive [<merchantId>]');
      }
      return withStores(values, async ({ store }, { loadMerchants, attemptDelivery, notificationAggregate }) => {
        if (action === 'list') {
          // A notification is named after the order event that caused it.
          const rows: string[] = [];
          for (const cause of await store.readStream(streams.order(merchantId, id))) {
            const events = await store.readStream(streams.notification(merchantId, cause.id));
            const state = fold(notificationAggregate, events);
            if (!state.exists) continue;
            const last = [...events].reverse().find((e) => e.type === 'NotificationDelivered' || e.type === 'NotificationFailed')?.data as { status?: number; error?: string } | undefined;
            const answer = last === undefined ? '-' : last.status !== undefined ? String(last.status) : `error: ${last.error}`;
            rows.push(`${cause.id}  ${cause.type}  transaction ${state.ref.transactionId}  ${state.status}  attempts ${state.attempts}  last answer ${answer}  ${state.url}`);
          }
          if (rows.length === 0) {
            process.stderr.write(`tokengate notifications: no notification for order ${id} of merchant ${merchantId}\n`);
            return 1;
          }
          process.stdout.write(`${rows.join('\n')}\n`);
          return 0;
        }
        // The secret and the URLs the merchant allows come from the merchants file, as the gateway's.
        const merchants = loadMerchants(process.env.MERCHANTS_FILE ?? DEMO_MERCHANTS_FILE);
        const stream = streams.notification(merchantId, id);
        const deps = { store, merchants, policy: loadGatewaySettings().notifications, actor: { command: 'notifications redeliver' } };
        const result = await attemptDelivery(deps, stream, 'REDELIVERY');
        if (!result) {
          const state = fold(notificationAggregate, await store.readStream(stream));
          process.stderr.write(state.exists
            ? `tokengate notifications: not sent: attempt ${state.open?.attempt ?? state.attempts} is under way\n`
            : `tokengate notifications: no notification ${id} of merchant ${merchantId}\n`);
          return 1;
        }
        const { answer, attempt } = result;
        const delivered = 'status' in answer && answer.status >= 200 && answer.status < 300;
        process.stdout.write(`notification ${id}: attempt ${attempt}: ${'status' in answer ? `answered ${answer.status}` : answer.error}${delivered ? ' (delivered)' : ''}\n`);
        return delivered ? 0 : 1;
      });
    },
  },
  import: {
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
  },
};

// Usage errors print the message and exit 2; anything else is a failure of the tool.
for (const command of Object.values(commands)) {
  const run = command.run.bind(command);
  command.run = async (positionals, values) => {
    try {
      return await run(positionals, values);
    } catch (error) {
      if (error instanceof UsageError) { process.stderr.write(`tokengate: ${error.message}\n`); return 2; }
      throw error;
    }
  };
}
