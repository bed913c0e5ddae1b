// Decorates the app with the gateway (opened by the composition root, root.ts) and closes it when
// the app closes; request metadata for the events.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Gateway } from '../services/gateway.js';
import type { RequestMeta } from '../services/context.js';
import { holdsCardNumber, maskCardNumbers, maskCardNumbersInGroups } from '../lib/mask.js';

declare module 'fastify' {
  interface FastifyInstance {
    gateway: Gateway;
  }
  interface FastifyRequest {
    /** Request id, correlation id and merchant for event metadata. */
    meta(): RequestMeta;
    /** maskedPath of the request's url, once made (requestPath). */
    maskedPathMemo: string | null;
    /** correlationIdOf the request, once made (requestCorrelationId). */
    correlationIdMemo: string | null;
  }
}

export interface GatewayPluginOptions {
  gateway: Gateway;
}

const CORRELATION_ID = /^[\x21-\x7e]{1,100}$/;
const SESSION_ID = /^SESSION[0-9]{24}$/;

const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replaceAll('%20', ' ');
  }
};

/**
 * A path segment with card numbers masked: a run of digits that could be one (maskCardNumbers), and
 * a card number among other digit groups, as the refusal of ids finds it (12-4111111111111111,
 * 12%204111111111111111: every digit but the first 6 and the last 4, of the segment as decoded).
 */
function maskedSegment(segment: string): string {
  if (SESSION_ID.test(segment)) return segment;
  const text = segment.includes('%') ? decoded(segment) : segment;
  return holdsCardNumber(text) ? maskCardNumbersInGroups(text) : maskCardNumbers(segment);
}

/** A request's path for its events: no query string, card numbers masked (a segment at a time: '/' ends a run of digits), session ids kept. */
export function maskedPath(url: string): string {
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  // Nearly every path holds nothing to mask, nor a session id: the whole path is looked at once.
  const whole = path.includes('%') ? decoded(path) : path;
  const masked = path.includes('SESSION') || holdsCardNumber(whole) ? path.split('/').map(maskedSegment).join('/') : maskCardNumbers(path);
  return masked.length > 300 ? masked.slice(0, 300) : masked;
}

/** The X-Correlation-Id header (a card number in it masked), else the request id. */
export function correlationIdOf(request: FastifyRequest): string {
  const header = request.headers['x-correlation-id'];
  return typeof header === 'string' && CORRELATION_ID.test(header) ? maskCardNumbersInGroups(header) : String(request.id);
}

/** The request's masked path, made once (meta() and the request journal both want it). */
export function requestPath(request: FastifyRequest): string {
  return request.maskedPathMemo ??= maskedPath(request.url);
}

/** The request's correlation id, made once. */
export function requestCorrelationId(request: FastifyRequest): string {
  return request.correlationIdMemo ??= correlationIdOf(request);
}

async function gatewayPlugin(app: FastifyInstance, options: GatewayPluginOptions) {
  const { gateway } = options;
  app.decorate('gateway', gateway);
  app.decorateRequest('maskedPathMemo', null);
  app.decorateRequest('correlationIdMemo', null);
  app.decorateRequest('meta', function meta() {
    return {
      requestId: String(this.id),
      // A card number sent as a correlation id is stored masked, as everywhere else.
      correlationId: requestCorrelationId(this),
      merchantId: this.merchant?.id ?? '',
      method: this.method,
      // The path only (a query string may hold anything), each segment masked where it could be a
      // card number, but for a session id (drawn by the gateway: SESSION and 24 digits), stored
      // only for a write that found it.
      path: requestPath(this),
    };
  });
  // Hooks on every request take `done` rather than being async: no promise and no extra turn of
  // the microtask queue per hook and request.
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', String(request.id));
    done(null, payload);
  });
  app.addHook('onClose', async () => gateway.close());
}

export default fp(gatewayPlugin, { name: 'gateway', fastify: '5.x' });
