// Overload protection: beyond MAX_IN_FLIGHT requests in progress, or an event-loop delay beyond
// MAX_EVENT_LOOP_DELAY_MS (@fastify/under-pressure), new requests are answered at once with
// 503 SERVER_BUSY in the gateway's shape, instead of everyone slowing down. A client repeats the
// identical request later: payments are idempotent.
//
// What a slot of MAX_IN_FLIGHT covers (issue 19):
// - A request takes its slot only once its whole body has arrived (the preValidation hook, the
//   first after body parsing), not when its headers do. MAX_IN_FLIGHT protects the work the
//   gateway does (validation, the store, the read models); a body still in transit costs a socket
//   and at most BODY_LIMIT bytes, and Node's REQUEST_TIMEOUT_MS already bounds how long it may
//   take (408). Counting it from its headers let a few clients that dribble their bodies hold every
//   slot for REQUEST_TIMEOUT_MS, again and again, and refuse everyone else. The price: a busy
//   gateway reads a body before refusing it (no bigger than BODY_LIMIT, and friendlier to HTTP
//   clients than a refusal in the middle of their upload).
// - The slot is released exactly once, by whichever comes first: the response sent (onResponse;
//   the response's 'close'), the request aborted before it was complete (onRequestAbort), the
//   connection closed (the response's or the socket's 'close', also for pipelined requests whose
//   response had not started). Before, a client that closed its connection after sending a whole
//   request and before the reply (a client time-out) kept its slot forever: Fastify runs neither
//   onResponse nor onRequestAbort then, and the gateway answered 503 to everyone until a restart.
//   The request's work still runs to its end (a payment is recorded, its repetition answered from
//   the store); its slot is free as soon as nobody waits for the answer.
// - Check Gateway (GET .../information) takes no slot and is never refused for MAX_IN_FLIGHT: it
//   reads a flag and touches no store, and a health check that said "busy" while the gateway is
//   processing requests at full capacity would get a healthy instance restarted under load. It is
//   still refused while the gateway shuts down and beyond MAX_EVENT_LOOP_DELAY_MS (truly saturated).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import underPressure from '@fastify/under-pressure';
import { sortedJson } from '../lib/json.js';
import type { Limits } from '../config.js';
import { errorBody } from './errors.js';

/** Routes that take no in-flight slot (see above). */
const NO_SLOT = new Set(['/api/rest/version/:version/information']);

const busy = (reply: FastifyReply, explanation: string) =>
  reply.code(503).header('retry-after', '1').type('application/json; charset=utf-8')
    .send(sortedJson(errorBody('SERVER_BUSY', { explanation })));

async function limits(app: FastifyInstance, options: Pick<Limits, 'maxInFlight' | 'maxEventLoopDelayMs'>) {
  let inFlight = 0;
  /** The release of each request holding a slot; a release runs once, whoever calls it. */
  const slots = new WeakMap<FastifyRequest, () => void>();
  const release = (request: FastifyRequest) => slots.get(request)?.();

  /** The releases of the requests holding a slot on each connection: one 'close' listener per socket, however many pipelined requests. */
  const bySocket = new WeakMap<object, Set<() => void>>();
  const take = (request: FastifyRequest, reply: FastifyReply) => {
    inFlight++;
    const res = reply.raw;
    // light-my-request (app.inject) gives a stand-in socket; a real one is an EventEmitter.
    const socket = request.raw.socket as (typeof request.raw.socket | null | undefined);
    let onSocket = socket ? bySocket.get(socket) : undefined;
    if (socket && !onSocket && typeof socket.once === 'function') {
      const frees = new Set<() => void>();
      onSocket = frees;
      bySocket.set(socket, frees);
      socket.once('close', () => { for (const free of [...frees]) free(); bySocket.delete(socket); });
    }
    const free = () => {
      if (slots.get(request) !== free) return;
      slots.delete(request);
      inFlight--;
      res.removeListener('close', free);
      onSocket?.delete(free);
    };
    slots.set(request, free);
    res.once('close', free);
    onSocket?.add(free);
    // Closed already (between the body and this hook): nothing will emit 'close' again.
    if (socket?.destroyed || res.destroyed) free();
  };

  // While closing, requests in flight finish; new ones on kept-alive connections are told to retry.
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      return busy(reply, 'The gateway is shutting down: repeat the identical request once it is back');
    }
  });
  // After the body has arrived (and been parsed), before validation and the handler.
  app.addHook('preValidation', async (request, reply) => {
    if (NO_SLOT.has(request.routeOptions.url ?? '')) return;
    if (inFlight >= options.maxInFlight) {
      request.log.warn({ cause: 'SERVER_BUSY', inFlight }, 'too many requests in progress');
      return busy(reply, `The gateway has ${inFlight} requests in progress (MAX_IN_FLIGHT ${options.maxInFlight}): repeat the identical request later`);
    }
    take(request, reply);
  });
  app.addHook('onResponse', async (request) => release(request));
  app.addHook('onRequestAbort', async (request) => release(request));
  app.decorate('inFlight', () => inFlight);

  if (options.maxEventLoopDelayMs > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs,
      pressureHandler: (request, reply, type, value) => {
        request.log.warn({ cause: 'SERVER_BUSY', type, value }, 'under pressure');
        void busy(reply, `The gateway is overloaded (${type} ${Math.round(Number(value))}): repeat the identical request later`);
      },
    });
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Requests holding an in-flight slot now (MAX_IN_FLIGHT); for tests and diagnostics. */
    inFlight(): number;
  }
}

export default fp(limits, { name: 'limits', fastify: '5.x' });
