// The application is itself a plugin tree: errors, the gateway's stores, one plugin per operation.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EventStoreConfig } from './config.js';
import type { Merchants } from './merchants.js';
import errors, { renderError } from './plugins/errors.js';
import { authGuard } from './plugins/auth.js';
import gateway from './plugins/gateway.js';
import pay from './plugins/pay.js';
import token from './plugins/token.js';
import session from './plugins/session.js';
import orders from './plugins/orders.js';
import information from './plugins/information.js';
import admin from './plugins/admin.js';
import openapi from './plugins/openapi.js';
import limits from './plugins/limits.js';
import { sortedJson } from './lib/json.js';
import { DEFAULT_LIMITS, type Limits } from './config.js';

export interface AppOptions {
  eventStore: EventStoreConfig;
  merchants: Merchants;
  logger?: FastifyServerOptions['logger'];
  /** ADMIN_PASSWORD: enables the timeline API and page under /admin. */
  adminPassword?: string | undefined;
  limits?: Partial<Limits>;
  /** Serve HTTPS; with `clientCa`, accept client certificates signed by it (certificate authentication). */
  tls?: { cert: Buffer; key: Buffer; clientCa?: Buffer | undefined } | undefined;
}

/** What Node's HTTP parser refused (malformed, too slow, headers too large), in the gateway's shape. */
function clientErrorResponse(code: string | undefined): string {
  const [status, reason, explanation] =
    code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request Timeout', 'The request was not received in time (REQUEST_TIMEOUT_MS)']
    : code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
    : [400, 'Bad Request', 'Malformed HTTP request'];
  const body = sortedJson({ error: { cause: 'INVALID_REQUEST', explanation }, result: 'ERROR' });
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/** pino options: JSON lines, credentials and card data redacted wherever they might appear. */
export function loggerOptions(level: string) {
  return {
    level,
    redact: {
      paths: ['req.headers.authorization', 'headers.authorization', '*.number', '*.securityCode', '*.bankAccountNumber', '*.apiPassword'],
      censor: '[redacted]',
    },
  };
}

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const limitsInForce = { ...DEFAULT_LIMITS, ...options.limits };
  const app = Fastify({
    logger: options.logger ?? false,
    // The gateway plugin builds the read models before the server listens: on a large store
    // after a projection's version changed that takes as long as the rebuild (no time limit).
    pluginTimeout: 0,
    genReqId: () => randomUUID(),
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
      return tls
        ? createHttpsServer({ ...timeouts, cert: tls.cert, key: tls.key, ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}) }, handler)
        : createServer(timeouts, handler);
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
      if (!socket.writable) return socket.destroy(error);
      socket.end(clientErrorResponse((error as NodeJS.ErrnoException).code));
    },
    ajv: {
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false, verbose: true },
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  await app.register(errors);
  await app.register(limits, limitsInForce);
  await app.register(authGuard, { limit: limitsInForce.authFailureLimit, windowMs: 60_000 });
  await app.register(openapi);
  await app.register(gateway, { eventStore: options.eventStore, merchants: options.merchants });
  await app.register(pay);
  await app.register(token);
  await app.register(session);
  await app.register(orders);
  await app.register(information);
  await app.register(admin, { password: options.adminPassword });
  return app;
}
