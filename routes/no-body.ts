// A POST without a body taken as an empty object, for the operations whose members are all
// optional: the content-type parser gives undefined for an empty body; JSON null stays refused.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** A route's preValidation: no body at all is {}. */
export function noBodyAsEmpty(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
  if (request.body === undefined) request.body = {};
  done();
}
