// The application is itself a plugin tree: errors, the gateway's stores, one plugin per operation.
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EventStoreConfig, GatewaySettings } from './config.js';
import type { Merchants } from './merchants.js';
import errors, { renderError } from './plugins/errors.js';
import jsonBody from './plugins/json-body.js';
import { authGuard } from './plugins/auth.js';
import { AUTH_FAILURE_WINDOW_MS } from './plugins/auth-failures.js';
import gateway from './plugins/gateway.js';
import { clientErrorHandler, serverFactory } from './http-server.js';
import { openGateway } from './root.js';
import { asStoreError } from './store/storage-fault.js';
import pay from './routes/pay.js';
import token from './routes/token.js';
import session from './routes/session.js';
import hostedCheckoutPages from './routes/hosted-checkout-pages.js';
import hostedSession from './routes/hosted-session.js';
import checkout from './routes/checkout.js';
import orders from './routes/orders.js';
import transactions from './routes/transactions.js';
import nvp from './routes/nvp.js';
import acs from './routes/acs.js';
import information from './routes/information.js';
import paymentOptions from './routes/payment-options.js';
import admin from './routes/admin.js';
import openapi from './plugins/openapi.js';
import limits from './plugins/limits.js';
import encoding from './plugins/encoding.js';
import observe, { RequestLogController } from './plugins/observe.js';
import journal, { type JournalPluginOptions } from './plugins/journal.js';
import requestValues from './plugins/request-values.js';
import routeOptions from './plugins/route-options.js';
import { maskCardNumbers } from './lib/mask.js';
import { nextRequestId } from './lib/request-ids.js';
import pino from 'pino';
import { DEFAULT_LIMITS, type Limits } from './config.js';

export interface AppOptions {
  eventStore: EventStoreConfig;
  merchants: Merchants;
  /** The rest of what the gateway opens with (the Config's); default: from the environment (config.ts). */
  settings?: GatewaySettings | undefined;
  logger?: FastifyServerOptions['logger'];
  /** ADMIN_PASSWORD: enables the timeline API and page under /admin. */
  adminPassword?: string | undefined;
  /** Host names the admin pages answer besides IP addresses and localhost (HOST when a name, ADMIN_HOSTS). */
  adminHosts?: readonly string[] | undefined;
  /** TEST_CONTROL: the test-control API under /admin/api/ answers (default: off). */
  testControl?: boolean | undefined;
  limits?: Partial<Limits>;
  /** The request journal: JOURNAL_SIZE (0: off) and JOURNAL_MAX_AGE_MS; default 10,000 entries, an hour. */
  journal?: JournalPluginOptions | undefined;
  /** Serve HTTPS; with `clientCa`, accept client certificates signed by it (certificate authentication). */
  tls?: { cert: Buffer; key: Buffer; clientCa?: Buffer | undefined } | undefined;
}

/**
 * pino options: JSON lines, credentials and card data redacted wherever they might appear; a card
 * number sent in a URL (in place of a token id) is masked in the logged URL (lib/mask.ts), and in
 * a logged error's message and stack.
 */
export function loggerOptions(level: string) {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.number', '*.securityCode', '*.bankAccountNumber', '*.apiPassword'],
      censor: '[redacted]',
    },
    serializers: {
      // Fastify's own request serializer, with the URL masked.
      req: (req: { method: string; url: string; headers?: Record<string, string | string[] | undefined>; host?: string; ip?: string; socket?: { remotePort?: number } }) => ({
        method: req.method,
        url: maskCardNumbers(String(req.url)),
        version: req.headers?.['accept-version'] as string | undefined,
        host: req.host,
        remoteAddress: req.ip,
        remotePort: req.socket?.remotePort,
      }),
      err: (error: Error) => {
        const serialized = pino.stdSerializers.err(error);
        serialized.message = maskCardNumbers(String(serialized.message));
        serialized.stack = maskCardNumbers(String(serialized.stack));
        return serialized;
      },
    },
  };
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];

/**
 * A request's logger, made when it first logs a line at an enabled level (or is asked for its
 * own child or level). pino's child() writes its bindings out through the redaction (it showed in
 * the pay benchmark's profile); at LOG_LEVEL=warn a request that goes well logs nothing, so that was
 * spent for nothing. The lines it logs are those of pino's own child.
 */
class LazyRequestLogger {
  private made: FastifyBaseLogger | undefined;
  constructor(private readonly parent: FastifyBaseLogger, private readonly bindings: Record<string, unknown>, private readonly options: ChildOptions) {}
  private get real(): FastifyBaseLogger {
    return (this.made ??= this.parent.child(this.bindings, this.options));
  }
  get level(): string { return this.made?.level ?? this.parent.level; }
  set level(level: string) { this.real.level = level; }
  child(bindings: Record<string, unknown>, options?: ChildOptions): FastifyBaseLogger { return this.real.child(bindings, options); }
  private write(level: Level, args: unknown[]): void {
    if (this.made === undefined && !(this.parent as FastifyBaseLogger & { isLevelEnabled(level: string): boolean }).isLevelEnabled(level)) return;
    (this.real[level] as (...a: unknown[]) => void)(...args);
  }
  fatal(...args: unknown[]): void { this.write('fatal', args); }
  error(...args: unknown[]): void { this.write('error', args); }
  warn(...args: unknown[]): void { this.write('warn', args); }
  info(...args: unknown[]): void { this.write('info', args); }
  debug(...args: unknown[]): void { this.write('debug', args); }
  trace(...args: unknown[]): void { this.write('trace', args); }
  silent(): void { /* pino's silent level logs nothing */ }
}

/** Fastify's childLoggerFactory: a lazy child (a route with a level of its own gets pino's at once). */
function lazyChildLogger(logger: FastifyBaseLogger, bindings: Record<string, unknown>, options: ChildOptions): FastifyBaseLogger {
  if (options?.level !== undefined || typeof (logger as { isLevelEnabled?: unknown }).isLevelEnabled !== 'function') return logger.child(bindings, options);
  return new LazyRequestLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const limitsInForce = { ...DEFAULT_LIMITS, ...options.limits };
  const app = Fastify({
    logger: options.logger ?? false,
    ...(options.logger ? { childLoggerFactory: lazyChildLogger, logController: new RequestLogController() } : {}),
    // The gateway plugin builds the read models before the server listens: on a large store
    // after a projection's version changed that takes as long as the rebuild (no time limit).
    pluginTimeout: 0,
    genReqId: nextRequestId,
    bodyLimit: limitsInForce.bodyLimit,
    serverFactory: serverFactory(limitsInForce, options.tls),
    // Parameters of any length reach the route, whose schema names the one too long (a 400 with
    // its field); Node's header limit (16 KiB) bounds the URL anyway.
    routerOptions: { maxParamLength: 16_384 },
    // Router-level refusals (bad percent-encoding, overlong parameters) get the gateway's body too.
    frameworkErrors: (error, request, reply) => renderError(error, request, reply),
    // Only so that Fastify names the listening address https:// (the server is the factory's).
    ...(options.tls ? { https: {} as Record<string, never> } : {}),
    // plugins/limits.ts answers requests that arrive while closing, in the gateway's shape.
    return503OnClosing: false,
    clientErrorHandler,
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  await registerPlugins(app, options, limitsInForce);
  return app;
}

/** The plugin tree: infrastructure first, the gateway, then one plugin per operation. */
async function registerPlugins(app: FastifyInstance, options: AppOptions, limitsInForce: Limits): Promise<void> {
  await app.register(errors, { storeErrors: asStoreError });
  await app.register(routeOptions);
  await app.register(jsonBody);
  await app.register(encoding);
  await app.register(limits, limitsInForce);
  await app.register(requestValues);
  await app.register(authGuard, { limit: limitsInForce.authFailureLimit, windowMs: AUTH_FAILURE_WINDOW_MS });
  await app.register(openapi);
  await app.register(gateway, { gateway: await openGateway(options.eventStore, options.merchants, options.settings, app.log) });
  await app.register(observe);
  await app.register(journal, options.journal ?? {});
  await app.register(pay);
  await app.register(token);
  await app.register(session);
  await app.register(hostedSession);
  await app.register(checkout);
  await app.register(hostedCheckoutPages);
  await app.register(orders);
  await app.register(transactions);
  await app.register(paymentOptions);
  await app.register(nvp);
  await app.register(acs);
  await app.register(information);
  await app.register(admin, { password: options.adminPassword, hosts: options.adminHosts, testControl: options.testControl === true });
}
