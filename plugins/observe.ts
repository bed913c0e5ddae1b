// Every answered request, once: one log line (level info) with its merchant, correlation id,
// status and duration, and its count and latency in the metrics (plugins/metrics.ts). Fastify's
// own two lines per request ("incoming request", "request completed") are off
// (RequestLogController): they named neither merchant nor correlation id, and cost a second line.
// Nothing secret is logged: the path has card numbers masked and no query string, a correlation id
// that looks like a card number is masked (plugins/gateway.ts meta), no header is logged.
import { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { maskCardNumbersInGroups } from '../lib/mask.js';
import { Metrics } from './metrics.js';
import { routeOptionsOf } from './route-options.js';

/** Fastify's request logging without its per-request lines; its error lines stay. */
export class RequestLogController extends LogController {
  override incomingRequest(): void { /* the line is written once the request is answered (plugins/observe.ts) */ }
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply, metadata?: Record<string, unknown>): void {
    if (error) super.requestCompleted(error, request, reply, metadata);
  }
}

/** A route's operation as the API reference names it (without "(versions 1-100)"), else METHOD /path. */
function operationOf(route: Pick<RouteOptions, 'method' | 'url' | 'schema'>): string {
  const summary = route.schema?.summary;
  if (typeof summary === 'string' && summary !== '') return summary.replace(/\s*\(versions? [^)]*\)$/, '');
  return `${[route.method].flat().join(',')} ${route.url}`;
}

const UNKNOWN_PATH = 'unknown path';

/** The merchant the request authenticated as, else the one its path names (a refused request's; anything may be there: masked). */
export function namedMerchantOf(request: FastifyRequest): string | undefined {
  if (request.merchant) return request.merchant.id;
  const params = request.params as Record<string, unknown> | undefined;
  const named = params?.merchantId ?? params?.merchantid;
  return typeof named === 'string' ? maskCardNumbersInGroups(named).slice(0, 100) : undefined;
}

function logAnswered(log: FastifyBaseLogger, request: FastifyRequest, status: number, durationMs: number, operation: string): void {
  const meta = request.meta();
  log.info({
    reqId: request.id,
    merchant: namedMerchantOf(request),
    correlationId: meta.correlationId,
    operation,
    method: request.method,
    path: meta.path,
    status,
    durationMs: Math.round(durationMs * 100) / 100,
  }, 'request');
}

async function observe(app: FastifyInstance) {
  const metrics = new Metrics(app.gateway, () => (app.hasDecorator('inFlight') ? app.inFlight() : 0));
  app.decorate('metrics', metrics);
  app.addHook('onRoute', (route: RouteOptions) => {
    route.config = { ...route.config, operation: operationOf(route) };
  });
  const log = app.log as FastifyBaseLogger & { isLevelEnabled?(level: string): boolean };
  // With `done` rather than async (it runs on every request): no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOptionsOf(request);
    // (Routes registered before this plugin, the API reference's, are named by their path.)
    const operation = route.config.operation ?? (route.url === undefined ? UNKNOWN_PATH : `${request.method} ${route.url}`);
    const durationMs = reply.elapsedTime;
    metrics.request(operation, reply.statusCode, durationMs / 1000);
    if (log.isLevelEnabled?.('info')) logAnswered(log, request, reply.statusCode, durationMs, operation);
    done();
  });
  // Events are counted from the log's head at start on (the reactors replay older ones).
  await metrics.startCounting(app.gateway.store);
  const stop = app.gateway.observeLog((event) => metrics.event(event));
  app.addHook('onClose', async () => { stop(); });
}

export default fp(observe, { name: 'observe', fastify: '5.x', dependencies: ['gateway'] });

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's name in the metrics and the request log line (operationOf). */
    operation?: string;
  }
}
