// Overload protection: beyond MAX_IN_FLIGHT requests in progress, or an event-loop delay beyond
// MAX_EVENT_LOOP_DELAY_MS (@fastify/under-pressure), new requests are answered at once with
// 503 SERVER_BUSY in the gateway's shape, instead of everyone slowing down. A client repeats the
// identical request later: payments are idempotent.
//
// What a slot of MAX_IN_FLIGHT covers:
// - A request takes its slot only once its whole body has arrived (the preValidation hook, the
//   first after body parsing), not when its headers do. MAX_IN_FLIGHT protects the work the
//   gateway does (validation, the store, the read models); a body still in transit costs a socket
//   and at most BODY_LIMIT bytes, and Node's REQUEST_TIMEOUT_MS already bounds how long it may
//   take (408). Counting it from its headers let a few clients that dribble their bodies hold every
//   slot for REQUEST_TIMEOUT_MS, again and again, and refuse everyone else. The price: a busy
//   gateway reads a body before refusing it (no bigger than BODY_LIMIT, and friendlier to HTTP
//   clients than a refusal in the middle of their upload).
// - The slot is held while the gateway works for the request, and released exactly once, when
//   the answer is ready (onSend, which Fastify runs when the handler or the error handler has
//   replied, whether or not the client is still there; onResponse if an earlier onSend hook
//   failed), or when the connection of a reply handed to the route itself (the timeline's live
//   stream) closes. A request aborted before its body was complete never took one. Before, a
//   client that closed its connection after sending a whole request and before the reply (a
//   client time-out) kept its slot forever: Fastify runs neither onResponse nor onRequestAbort
//   then, and the gateway answered 503 to everyone until a restart. A dropped request's slot is not freed before its work is done either: clients that
//   give up must not let more work run at once than MAX_IN_FLIGHT (the work of a dropped payment
//   still completes; its repetition is answered from the store).
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
import { routeOptionsOf } from './route-options.js';

/** Routes that take no in-flight slot (see above). */
const NO_SLOT = new Set(['/api/rest/version/:version/information', '/api/nvp/version/:version/information']);

const busy = (reply: FastifyReply, explanation: string) =>
  reply.code(503).header('retry-after', '1').type('application/json; charset=utf-8')
    .send(sortedJson(errorBody('SERVER_BUSY', { explanation })));

/** MAX_IN_FLIGHT: a slot per request from its body's arrival to its answer. */
function inFlightSlots(app: FastifyInstance, maxInFlight: number): void {
  let inFlight = 0;
  // Whether a request holds a slot is its own member (no WeakMap entry for the garbage collector
  // to trace per request); a slot is freed once, whoever frees it.
  const release = (request: FastifyRequest) => {
    if (!request.inFlightSlot) return;
    request.inFlightSlot = false;
    inFlight--;
  };
  app.decorateRequest('inFlightSlot', false);
  // A reply the route takes over (reply.hijack(): the timeline's live stream) is never sent, so
  // neither onSend nor onResponse runs for it: its slot is freed when its connection closes. Only
  // such a route asks (a 'close' listener on every request cost each one its add and remove).
  app.decorate('releaseSlotOnClose', (request: FastifyRequest, reply: FastifyReply) => {
    if (!request.inFlightSlot) return;
    if (reply.raw.destroyed || request.raw.socket?.destroyed !== false) release(request);
    else reply.raw.once('close', () => release(request));
  });

  // Hooks with `done` (they run on every request): an answer sent from one is not followed by done().
  // After the body has arrived (and been parsed), before validation and the handler.
  app.addHook('preValidation', (request, reply, done) => {
    if (NO_SLOT.has(routeOptionsOf(request).url ?? '')) {
      done();
      return;
    }
    if (inFlight >= maxInFlight) {
      request.log.warn({ cause: 'SERVER_BUSY', inFlight }, 'too many requests in progress');
      busy(reply, `The gateway has ${inFlight} requests in progress (MAX_IN_FLIGHT ${maxInFlight}): repeat the identical request later`);
      return;
    }
    inFlight++;
    request.inFlightSlot = true;
    done();
  });
  app.addHook('onSend', (request, _reply, payload, done) => { release(request); done(null, payload); });
  app.addHook('onResponse', (request, _reply, done) => { release(request); done(); });
  // No onRequestAbort hook: a request aborted before its body was complete never reached
  // preValidation, so it holds no slot (and the hook cost a 'close' listener on every request).
  app.decorate('inFlight', () => inFlight);
}

/** While closing, requests in flight finish; new ones on kept-alive connections are told to retry. */
function refuseWhileClosing(app: FastifyInstance): void {
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!closing) {
      done();
      return;
    }
    reply.header('connection', 'close');
    busy(reply, 'The gateway is shutting down: repeat the identical request once it is back');
  });
}

async function limits(app: FastifyInstance, options: Pick<Limits, 'maxInFlight' | 'maxEventLoopDelayMs'>) {
  refuseWhileClosing(app);
  inFlightSlots(app, options.maxInFlight);
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
  interface FastifyRequest {
    /** Whether this request holds an in-flight slot (MAX_IN_FLIGHT). */
    inFlightSlot: boolean;
  }
  interface FastifyInstance {
    /** Requests holding an in-flight slot now (MAX_IN_FLIGHT); for tests and diagnostics. */
    inFlight(): number;
    /** For a route that hijacks its reply: the request's slot is freed when its connection closes. */
    releaseSlotOnClose(request: FastifyRequest, reply: FastifyReply): void;
  }
}

export default fp(limits, { name: 'limits', fastify: '5.x' });
