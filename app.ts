// The application is itself a plugin tree: errors, the gateway's stores, one plugin per operation.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { createServer as createHttpsServer } from 'node:https';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EventStoreConfig, GatewaySettings } from './config.js';
import type { Merchants } from './merchants.js';
import errors, { renderError } from './plugins/errors.js';
import { AUTH_FAILURE_WINDOW_MS, authGuard } from './plugins/auth.js';
import gateway from './plugins/gateway.js';
import { openGateway } from './root.js';
import pay from './routes/pay.js';
import token from './routes/token.js';
import session from './routes/session.js';
import orders from './routes/orders.js';
import transactions from './routes/transactions.js';
import nvp from './routes/nvp.js';
import acs from './routes/acs.js';
import information from './routes/information.js';
import admin from './routes/admin.js';
import openapi from './plugins/openapi.js';
import limits from './plugins/limits.js';
import encoding from './plugins/encoding.js';
import observe, { RequestLogController } from './plugins/observe.js';
import { sortedJson } from './lib/json.js';
import { maskCardNumbers } from './lib/mask.js';
import pino from 'pino';
import { DEFAULT_LIMITS, type Limits } from './config.js';

/**
 * Request ids (the x-request-id header, a 500's support code, the events' requestId and default
 * correlation id): a random prefix drawn once per process, then a counter. Unique across processes
 * and restarts as a UUID is, at a string's cost: a UUID per request cost ≈ 0.7 µs with its
 * entropy refills (issue 17).
 */
const REQUEST_ID_PREFIX = randomBytes(12).toString('base64url');
let requestCount = 0;
const nextRequestId = () => `${REQUEST_ID_PREFIX}-${(++requestCount).toString(36)}`;

export interface AppOptions {
  eventStore: EventStoreConfig;
  merchants: Merchants;
  /** The rest of what the gateway opens with (the Config's); default: from the environment (config.ts). */
  settings?: GatewaySettings | undefined;
  logger?: FastifyServerOptions['logger'];
  /** ADMIN_PASSWORD: enables the timeline API and page under /admin. */
  adminPassword?: string | undefined;
  limits?: Partial<Limits>;
  /** Serve HTTPS; with `clientCa`, accept client certificates signed by it (certificate authentication). */
  tls?: { cert: Buffer; key: Buffer; clientCa?: Buffer | undefined } | undefined;
}

/** The gateway's INVALID_REQUEST body. */
const invalidRequestBody = (explanation: string) => sortedJson({ error: { cause: 'INVALID_REQUEST', explanation }, result: 'ERROR' });

/**
 * What Node's HTTP parser refused (malformed, too slow, headers too large), in the gateway's shape.
 * A response to HEAD has no body (RFC 9110, 9.3.2): its Content-Length is the one GET would get.
 */
function clientErrorResponse(code: string | undefined, head = false): string {
  const [status, reason, explanation] =
    code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', 'The request was not received in time (REQUEST_TIMEOUT_MS)']
    : code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
    : code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? [413, 'Content Too Large', 'The chunk extensions of the request body are too large']
    : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = invalidRequestBody(explanation);
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${head ? '' : body}`;
}

/** A request line's start: a method, one space, and the start of a target (no header line looks so). */
const REQUEST_LINE = /(?:^|\n)([!#$%&'*+.^_`|~0-9A-Za-z-]+) [^\s]/g;

/**
 * The method of the request that the client will take a refusal of Node's parser to answer, so
 * that HEAD gets no body. A client matches responses to its requests in order: while an earlier
 * request on the connection is unanswered (or the refused one's headers were complete: a 408 while
 * its body is slow), that is the socket's pending response's request. Otherwise it is the refused
 * request, whose request line is looked for in the packet the parser was reading (`rawPacket`, up
 * to `bytesParsed`, where it stopped): the last request line there is its own, since earlier
 * pipelined requests come before it, what follows the error point is not looked at, and no valid
 * header line (`name: value`; folded lines start with a space) reads as a request line. When the
 * packet does not hold it (its request line came in an earlier packet), the method is unknown and
 * the body is sent, as for every method but HEAD.
 */
function refusedMethod(error: Error & { rawPacket?: unknown; bytesParsed?: unknown }, socket: Socket): string | undefined {
  const pending = (socket as Socket & { _httpMessage?: { req?: IncomingMessage } | null })._httpMessage;
  if (pending) return pending.req?.method;
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return undefined;
  const end = typeof error.bytesParsed === 'number' ? Math.min(Math.max(error.bytesParsed, 0), packet.length) : packet.length;
  let method: string | undefined;
  for (const match of packet.subarray(0, end).toString('latin1').matchAll(REQUEST_LINE)) method = match[1];
  return method;
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
 * own child or level). pino's child() writes its bindings out through the redaction (≈ 5-7 µs a
 * request in a profile); at LOG_LEVEL=warn a request that goes well logs nothing, so that was
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
    // Node's own timers answer a request that is not received in time (408, clientErrorHandler).
    serverFactory: (handler) => {
      const timeouts = {
        requestTimeout: limitsInForce.requestTimeoutMs,
        headersTimeout: limitsInForce.requestTimeoutMs,
        connectionsCheckingInterval: Math.min(1000, limitsInForce.requestTimeoutMs),
      };
      const tls = options.tls;
      // HTTPS asks for a client certificate but does not demand one: Basic authentication
      // still works over it; plugins/auth.ts honours a certificate only when the CA signed it.
      const server = tls
        ? createHttpsServer({ ...timeouts, cert: tls.cert, key: tls.key, ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}) }, handler)
        : createServer(timeouts, handler);
      // An Expect other than 100-continue: Node would answer a bare 417 with an empty body; the
      // gateway's shape instead (RFC 9110, 10.1.1: a server MAY answer 417). The body that may
      // follow is not read: the connection closes. Node sends no body to HEAD.
      server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
        const body = invalidRequestBody('The Expect header is not supported: only 100-continue is');
        response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
        response.end(body);
      });
      return server;
    },
    // Parameters of any length reach the route, whose schema names the one too long (a 400 with
    // its field); Node's header limit (16 KiB) bounds the URL anyway.
    routerOptions: { maxParamLength: 16_384 },
    // Router-level refusals (bad percent-encoding, overlong parameters) get the gateway's body too.
    frameworkErrors: (error, request, reply) => renderError(error, request, reply),
    // Only so that Fastify names the listening address https:// (the server is the factory's).
    ...(options.tls ? { https: {} as Record<string, never> } : {}),
    // plugins/limits.ts answers requests that arrive while closing, in the gateway's shape.
    return503OnClosing: false,
    clientErrorHandler: (error, socket) => {
      // Nothing is written over a response already under way (it would corrupt it), as Node does.
      const underWay = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage?.headersSent;
      if (!socket.writable || underWay) return socket.destroy(error);
      socket.end(clientErrorResponse((error as NodeJS.ErrnoException).code, refusedMethod(error, socket) === 'HEAD'));
    },
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(errors);
  await app.register(encoding);
  await app.register(limits, limitsInForce);
  await app.register(authGuard, { limit: limitsInForce.authFailureLimit, windowMs: AUTH_FAILURE_WINDOW_MS });
  await app.register(openapi);
  await app.register(gateway, { gateway: await openGateway(options.eventStore, options.merchants, options.settings, app.log) });
  await app.register(observe);
  await app.register(pay);
  await app.register(token);
  await app.register(session);
  await app.register(orders);
  await app.register(transactions);
  await app.register(nvp);
  await app.register(acs);
  await app.register(information);
  await app.register(admin, { password: options.adminPassword });
  return app;
}
