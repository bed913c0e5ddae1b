// The notifications command: an order's webhook notifications (list), one sent again on purpose
// (redeliver), or a local receiver that prints them (receive).
import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { streams } from '../domain/events.js';
import { DEMO_MERCHANTS_FILE, loadGatewaySettings } from '../config.js';
import { fold } from '../services/aggregates.js';
import type { Opened } from '../root.js';
import { integer, UsageError, withStores, work, type Command, type Work } from './command-kit.js';

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

/** The notifications of an order: a notification is named after the order event that caused it. */
async function list({ store }: Opened, { notificationAggregate }: Work, merchantId: string, orderId: string): Promise<number> {
  const rows: string[] = [];
  for (const cause of await store.readStream(streams.order(merchantId, orderId))) {
    const events = await store.readStream(streams.notification(merchantId, cause.id));
    const state = fold(notificationAggregate, events);
    if (!state.exists) continue;
    const last = [...events].reverse().find((e) => e.type === 'NotificationDelivered' || e.type === 'NotificationFailed')?.data as { status?: number; error?: string } | undefined;
    const answer = last === undefined ? '-' : last.status !== undefined ? String(last.status) : `error: ${last.error}`;
    rows.push(`${cause.id}  ${cause.type}  transaction ${state.ref.transactionId}  ${state.status}  attempts ${state.attempts}  last answer ${answer}  ${state.url}`);
  }
  if (rows.length === 0) {
    process.stderr.write(`tokengate notifications: no notification for order ${orderId} of merchant ${merchantId}\n`);
    return 1;
  }
  process.stdout.write(`${rows.join('\n')}\n`);
  return 0;
}

/** One notification sent again on purpose; 0 when the receiver answered 2xx. */
async function redeliver({ store }: Opened, { loadMerchants, attemptDelivery, notificationAggregate }: Work, merchantId: string, id: string): Promise<number> {
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
}

export const notifications: Command = {
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
    return withStores(values, (opened, modules) => (action === 'list' ? list(opened, modules, merchantId, id) : redeliver(opened, modules, merchantId, id)));
  },
};
