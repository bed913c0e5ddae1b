// A request's route options read once: Fastify's request.routeOptions is a getter that makes a
// new object (a dozen members, and a look at the router's constraints) at every read, and the
// hooks of several plugins read it on every request (limits, request-values, observe). The
// options of a request never change (a 404 or an error answer gets a request of its own).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyRequest {
    /** request.routeOptions, once read (routeOptionsOf). */
    routeOptionsMemo: FastifyRequest['routeOptions'] | null;
  }
}

/** The request's route options, read once. */
export function routeOptionsOf(request: FastifyRequest): FastifyRequest['routeOptions'] {
  return request.routeOptionsMemo ??= request.routeOptions;
}

async function routeOptionsPlugin(app: FastifyInstance) {
  app.decorateRequest('routeOptionsMemo', null);
}

export default fp(routeOptionsPlugin, { name: 'route-options', fastify: '5.x' });
