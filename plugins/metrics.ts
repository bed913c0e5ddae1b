// Prometheus metrics (prom-client), served at GET /metrics in the text format, behind the admin
// credentials as /admin is (routes/admin.ts registers the route inside its authentication):
//
//   tokengate_http_requests_total{operation,status}         every answered request
//   tokengate_http_request_duration_seconds{operation}      from its arrival to its answer (histogram)
//   tokengate_events_total{type}                            events the log gained since this process started
//   tokengate_notification_outcomes_total{outcome}          webhook attempts: delivered, failed; abandoned
//   tokengate_log_head_position                             the log's last position
//   tokengate_read_model_lag_events                         head minus the position the read models are written through
//   tokengate_in_flight_requests                            requests holding a MAX_IN_FLIGHT slot
//   tokengate_build_info{version}                           1
//   process_*, nodejs_*                                     Node's own (prom-client's default metrics)
//
// `operation` is the route's summary as the API reference names it (its "(versions 1-100)" left
// out), `METHOD /path` for a route without one, `unknown path` for a 404 that matched none.
// Events are counted as the reactors' one subscription to the log hands them over
// (Gateway.observeLog): no read of its own; every instance sees every instance's events.
// With WORKERS > 1 each worker keeps its own counts, and a scrape gets the worker that answered it.
import type { FastifyPluginAsync } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Gateway } from '../services/gateway.js';
import { VERSION } from '../lib/version.js';

/** An event of the log, as the services hand it over (Gateway.observeLog). */
type LoggedEvent = Parameters<Parameters<Gateway['observeLog']>[0]>[0];

/** Latency buckets (seconds): a durable pay answers in a few ms, a busy one in tens; timeouts at 10 s. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const NOTIFICATION_OUTCOMES: Readonly<Record<string, string>> = {
  NotificationDelivered: 'delivered',
  NotificationFailed: 'failed',
  NotificationAbandoned: 'abandoned',
};

/**
 * Node's process metrics, one registry per process (each app's registry would add its own
 * event-loop monitor and GC observer, and tests build many apps in one process).
 */
let processRegistry: Registry | undefined;
function processMetrics(): Registry {
  if (processRegistry === undefined) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

type Observe = (seconds: number) => void;

/** A label set's count not yet handed to its prom-client counter. */
interface Pending<L extends string> { labels: Partial<Record<L, string>>; count: number }

/**
 * Counts kept here and added to the prom-client counter when it is read (a scrape: its collect):
 * prom-client's inc hashes and checks the labels on every call, even a labelled child's, and
 * these count every request and every event. The label sets reach prom-client in the order they
 * were first counted, as they did when each was counted at once.
 */
class LazyCounts<L extends string> {
  private readonly pending: Array<Pending<L>> = [];

  /** A label set's pending count, made at its first count. */
  entry(labels: Partial<Record<L, string>>): Pending<L> {
    const entry = { labels, count: 0 };
    this.pending.push(entry);
    return entry;
  }

  /** Hand the counts over (collect), in first-counted order. */
  flush(counter: Counter<L>): void {
    for (const entry of this.pending) {
      if (entry.count > 0) counter.inc(entry.labels, entry.count);
      entry.count = 0;
    }
  }
}

export class Metrics {
  private readonly registry = new Registry();
  private readonly latency: Histogram<'operation'>;
  private readonly notifications: Counter<'outcome'>;
  /** Requests counted, by operation and status, and events, by type (LazyCounts). */
  private readonly requestCounts = new LazyCounts<'operation' | 'status'>();
  private readonly counted = new Map<string, Map<number, Pending<'operation' | 'status'>>>();
  private readonly eventCounts = new LazyCounts<'type'>();
  private readonly eventsCounted = new Map<string, Pending<'type'>>();
  /** The histogram's labelled children, by operation. */
  private readonly timed = new Map<string, Observe>();
  /** Events at or before this position were in the log when counting began. */
  private countFrom: bigint | undefined;

  constructor(gateway: Pick<Gateway, 'store' | 'readModels'>, inFlight: () => number) {
    const registers = [this.registry];
    const requestCounts = this.requestCounts;
    const eventCounts = this.eventCounts;
    new Counter({
      name: 'tokengate_http_requests_total', help: 'Requests answered, by operation and HTTP status', labelNames: ['operation', 'status'], registers,
      collect() { requestCounts.flush(this); },
    });
    this.latency = new Histogram({ name: 'tokengate_http_request_duration_seconds', help: 'Time from a request\'s arrival to its answer, by operation', labelNames: ['operation'], buckets: BUCKETS, registers });
    new Counter({
      name: 'tokengate_events_total', help: 'Events the log gained since this process started, by type (appended by any instance)', labelNames: ['type'], registers,
      collect() { eventCounts.flush(this); },
    });
    this.notifications = new Counter({ name: 'tokengate_notification_outcomes_total', help: 'Webhook notification attempts delivered or failed, and notifications abandoned', labelNames: ['outcome'], registers });
    new Gauge({ name: 'tokengate_build_info', help: 'The version of tokengate', labelNames: ['version'], registers }).set({ version: VERSION }, 1);
    new Gauge({ name: 'tokengate_in_flight_requests', help: 'Requests holding a MAX_IN_FLIGHT slot', registers, collect() { this.set(inFlight()); } });
    const head = new Gauge({ name: 'tokengate_log_head_position', help: 'The position of the last event of the log', registers });
    const lag = new Gauge({ name: 'tokengate_read_model_lag_events', help: 'Events of the log the read models kept current are not yet written through (held ones count as written)', registers });
    // One read of the head per scrape, for both gauges.
    this.collectHead = async () => {
      const position = await gateway.store.headPosition();
      head.set(Number(position));
      const through = gateway.readModels.appliedThrough?.();
      if (through !== undefined) lag.set(Math.max(0, Number(position - through)));
    };
  }

  private readonly collectHead: () => Promise<void>;

  /** Count from the log's head now: what the reactors replay at start is not new. */
  async startCounting(store: Pick<Gateway['store'], 'headPosition'>): Promise<void> {
    this.countFrom = await store.headPosition();
  }

  /** One answered request. */
  request(operation: string, status: number, seconds: number): void {
    let byStatus = this.counted.get(operation);
    if (byStatus === undefined) {
      byStatus = new Map();
      this.counted.set(operation, byStatus);
    }
    let entry = byStatus.get(status);
    if (entry === undefined) {
      entry = this.requestCounts.entry({ operation, status: String(status) });
      byStatus.set(status, entry);
    }
    entry.count += 1;
    let observe = this.timed.get(operation);
    if (observe === undefined) {
      const child = this.latency.labels({ operation });
      observe = (value) => child.observe(value);
      this.timed.set(operation, observe);
    }
    observe(seconds);
  }

  /** An event of the log (Gateway.observeLog). */
  event(event: LoggedEvent): void {
    if (this.countFrom === undefined || event.position <= this.countFrom) return;
    let entry = this.eventsCounted.get(event.type);
    if (entry === undefined) {
      entry = this.eventCounts.entry({ type: event.type });
      this.eventsCounted.set(event.type, entry);
    }
    entry.count += 1;
    const outcome = NOTIFICATION_OUTCOMES[event.type];
    if (outcome !== undefined) this.notifications.inc({ outcome });
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;

  /** The exposition text: this app's metrics, then the process's. */
  async text(): Promise<string> {
    await this.collectHead();
    return `${await this.registry.metrics()}\n${await processMetrics().metrics()}`;
  }
}

/** GET /metrics, registered where the admin authentication applies (routes/admin.ts). */
export const metricsRoute: FastifyPluginAsync = async (app) => {
  app.get('/metrics', {
    schema: {
      summary: 'Prometheus metrics',
      description: 'Requests by operation and status, latency histograms, events appended, the read models\' lag, notification outcomes and Node\'s process metrics, in Prometheus\' text format. User `admin`, password ADMIN_PASSWORD.',
      tags: ['admin'],
      security: [{ adminAuth: [] }],
    },
  }, async (_request, reply) => reply.type(app.metrics.contentType).send(await app.metrics.text()));
};

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}
