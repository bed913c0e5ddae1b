// Overload protection: beyond MAX_IN_FLIGHT requests in progress, or an event-loop delay beyond
// MAX_EVENT_LOOP_DELAY_MS (@fastify/under-pressure), new requests are answered at once with
// 503 SERVER_BUSY in the gateway's shape, instead of everyone slowing down. A client repeats the
// identical request later: payments are idempotent.
import type { FastifyInstance, FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import underPressure from '@fastify/under-pressure';
import { sortedJson } from '../lib/json.js';
import type { Limits } from '../config.js';
import { errorBody } from './errors.js';

const busy = (reply: FastifyReply, explanation: string) =>
  reply.code(503).header('retry-after', '1').type('application/json; charset=utf-8')
    .send(sortedJson(errorBody('SERVER_BUSY', { explanation })));

async function limits(app: FastifyInstance, options: Pick<Limits, 'maxInFlight' | 'maxEventLoopDelayMs'>) {
  let inFlight = 0;
  const counted = new WeakSet<object>();
  const release = (request: object) => {
    if (counted.delete(request)) inFlight--;
  };
  // While closing, requests in flight finish; new ones on kept-alive connections are told to retry.
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('connection', 'close');
      return busy(reply, 'The gateway is shutting down: repeat the identical request once it is back');
    }
    if (inFlight >= options.maxInFlight) {
      request.log.warn({ cause: 'SERVER_BUSY', inFlight }, 'too many requests in progress');
      return busy(reply, `The gateway has ${inFlight} requests in progress (MAX_IN_FLIGHT ${options.maxInFlight}): repeat the identical request later`);
    }
    inFlight++;
    counted.add(request);
  });
  app.addHook('onResponse', async (request) => release(request));
  app.addHook('onRequestAbort', async (request) => release(request));

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

export default fp(limits, { name: 'limits', fastify: '5.x' });
