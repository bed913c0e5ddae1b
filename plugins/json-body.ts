// Request bodies: JSON whatever the Content-Type says (curl -d sends a form type), with the parse
// error in the gateway's words (a position, never a quote: a body may hold a card number). Routes
// with bodies of their own replace these parsers in their scope: NVP's forms (routes/nvp.ts), the
// pay route's repeats (routes/pay.ts, which keeps the text an identical repeat is recognised by).
import type { FastifyBodyParser, FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { InvalidRequest } from '../domain/errors.js';
import { keepNumberLiterals } from '../lib/json-literals.js';
import { jsonSyntaxProblem } from '../lib/json-syntax.js';

/** The parse problem and its position, never a quote of the body (it may hold a card number). */
function jsonParseExplanation(body: string): string {
  const found = jsonSyntaxProblem(body);
  return found
    ? `Request body is not valid JSON: ${found.problem} at position ${found.position}`
    : 'Request body is not valid JSON';
}

/** Members whose number text is checked as the client wrote it (amounts: services/order/pay-request.ts). */
const CHECKED_AS_WRITTEN: ReadonlySet<string> = new Set(['amount']);

/** Every body's parser: JSON, or the gateway's 400 in its words. */
export const parseJsonBody: FastifyBodyParser<string> = (request, text, done) => {
  // A path that names no operation is a 404 whatever its body: nothing there reads it.
  if (request.is404) return done(null, undefined);
  const body = String(text);
  // (A blank body is rare: the trim, a copy of the body, only when it could be one.)
  if (body.length === 0 || (/^\s/.test(body) && body.trim() === '')) return done(null, undefined);
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return done(new InvalidRequest(jsonParseExplanation(body)), undefined);
  }
  keepNumberLiterals(body, parsed, CHECKED_AS_WRITTEN);
  done(null, parsed);
};

async function jsonBody(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  // application/json too, by name: Fastify remembers the parser of a Content-Type it found by
  // name, while the catch-all is looked for again, its header parsed, on every request.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseJsonBody);
}

export default fp(jsonBody, { name: 'json-body', fastify: '5.x' });
