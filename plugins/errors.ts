// One place that turns every failure into the gateway's error body and status
// (../shared/guide/gateway-facts.md, "HTTP status codes and error bodies"): field-level 400s with
// `field` and `validationType`, 400 for malformed JSON, 401 for credentials, 404 for unknown
// paths, 503 SERVER_BUSY, and 500 SERVER_FAILED with a support code for anything unexpected.
// Explanations quote the offending value, except for card data, which is never echoed.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { InvalidRequest } from '../domain/errors.js';
import { sortedJson } from '../lib/json.js';
import { jsonSyntaxProblem } from '../lib/json-syntax.js';
import { SENSITIVE_FIELD } from '../schemas/common.js';
import { Busy } from '../services/context.js';
import { SimulatedFault } from '../services/faults.js';
import { asStorageFault } from '../store/storage-fault.js';
import { maskCardNumbers } from '../lib/mask.js';

export class AuthenticationFailed extends Error {
  override name = 'AuthenticationFailed';
  readonly statusCode = 401;
  constructor(explanation = 'Invalid credentials.') { super(explanation); }
}

/**
 * error.cause REQUEST_REJECTED (HTTP 429): the credential tried (a merchant id, or the admin)
 * failed too often and is locked; Retry-After says in how many seconds it may be tried again.
 */
export class RequestRejected extends Error {
  override name = 'RequestRejected';
  readonly statusCode = 429;
  constructor(readonly retryAfterSeconds = 60) { super('too many failed authentications of this credential'); }
}

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  parentSchema?: { description?: string; enum?: unknown[]; maxLength?: number; minLength?: number };
}

/** Fastify's own refusals, in words that quote nothing of the request. */
const FRAMEWORK_ERRORS: Record<string, [number, string]> = {
  FST_ERR_BAD_URL: [400, 'Malformed URL: a percent-encoded sequence is not valid'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'A URL parameter is too long'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [400, 'Unsupported Content-Type: send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'The Content-Length does not match the body'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'The request body is larger than BODY_LIMIT'],
};

export const errorBody = (cause: string, fields: Record<string, string | undefined>) =>
  ({ error: { cause, ...fields }, result: 'ERROR' });

/** Field names and explanations stay within the spec's 1-1000 characters. */
const clip = (text: string, max = 200): string => ([...text].length > max ? `${[...text].slice(0, max).join('')}...` : text);

/** A scalar is quoted (shortened); a group or array never is: it may hold card data, and be huge. */
const quoted = (value: unknown): string | undefined => {
  if (value !== null && typeof value === 'object') return undefined;
  const text = typeof value === 'string' ? value : String(value);
  return clip(text, 100);
};

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', boolean: 'true or false', object: 'a JSON object', number: 'a number', integer: 'an integer', array: 'an array',
};

/** The first schema violation as the gateway's field-level INVALID_REQUEST. */
export function fromValidation(error: AjvError, context: string): InvalidRequest {
  const path = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const at = (member?: unknown) => [...path, ...(member === undefined ? [] : [String(member)])].join('.');
  if (error.keyword === 'required') {
    return new InvalidRequest('Missing parameter', at(error.params.missingProperty), 'MISSING');
  }
  if (error.keyword === 'additionalProperties') {
    const field = clip(at(error.params.additionalProperty));
    return new InvalidRequest(`Unexpected parameter '${field}'`, field, 'UNSUPPORTED');
  }
  const field = at();
  const schema = error.parentSchema ?? {};
  if (field === '') {
    return new InvalidRequest(error.data === undefined ? 'Request body is missing: expected a JSON object' : `The request ${context} must be a JSON object`);
  }
  // A value is quoted only where the spec expects a scalar and the field is not card data: a
  // group sent as text, or any group, may hold a card number.
  const expectsScalar = ['string', 'number', 'integer', 'boolean'].includes(String((schema as { type?: unknown }).type));
  const shown = SENSITIVE_FIELD.test(field) || !expectsScalar ? undefined : quoted(error.data);
  const value = shown === undefined ? 'Value' : `Value '${shown}'`;
  const length = typeof error.data === 'string' ? [...error.data].length : 0;
  switch (error.keyword) {
    case 'type':
      return new InvalidRequest(`${value} is invalid. Expected ${TYPE_NAMES[String(error.params.type)] ?? String(error.params.type)}`, field);
    case 'maxLength':
      return new InvalidRequest(`${value} is invalid. Length is ${length} characters, but must be less than ${Number(schema.maxLength) + 1}`, field);
    case 'minLength':
      return new InvalidRequest(`${value} is invalid. Length is ${length} characters, but must be at least ${Number(schema.minLength)}`, field);
    case 'enum':
      return new InvalidRequest(`${value} is invalid. Expected one of ${(schema.enum ?? []).join(', ')}`, field);
    case 'pattern':
      return new InvalidRequest(`${value} is invalid. Expected ${schema.description ?? 'another format'}`, field);
    default:
      return new InvalidRequest(`${value} is invalid.`, field);
  }
}

/** The parse problem and its position, never a quote of the body (it may hold a card number). */
export function jsonParseExplanation(body: string): string {
  const found = jsonSyntaxProblem(body);
  return found
    ? `Request body is not valid JSON: ${found.problem} at position ${found.position}`
    : 'Request body is not valid JSON';
}

function send(reply: FastifyReply, status: number, body: unknown) {
  return reply.code(status).type('application/json; charset=utf-8').send(sortedJson(body));
}

export function renderError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply) {
  const err = error as FastifyError & { validation?: AjvError[]; validationContext?: string };
  let refusal: InvalidRequest | undefined;
  if (error instanceof InvalidRequest) refusal = error;
  else if (err.validation && err.validation[0]) refusal = fromValidation(err.validation[0], err.validationContext ?? 'body');
  if (refusal) {
    request.log.info({ cause: 'INVALID_REQUEST', field: refusal.field, validationType: refusal.validationType }, 'request refused');
    // A card number sent where another value belongs (a token id, a merchant id) is never quoted.
    return send(reply, 400, errorBody('INVALID_REQUEST', {
      explanation: maskCardNumbers(refusal.message), field: refusal.field, validationType: refusal.validationType,
    }));
  }
  if (error instanceof AuthenticationFailed || err.code?.startsWith('FST_BASIC_AUTH')) {
    request.log.info({ cause: 'INVALID_REQUEST', status: 401 }, 'authentication failed');
    const explanation = error instanceof AuthenticationFailed ? error.message : 'Invalid credentials.';
    return send(reply, 401, errorBody('INVALID_REQUEST', { explanation }));
  }
  if (error instanceof SimulatedFault) {
    // A merchant rule asked for it: rendered exactly like the real fault.
    request.log.info({ cause: error.fault }, 'simulated fault (merchant rule)');
    return error.fault === 'SERVER_BUSY'
      ? send(reply, 503, errorBody('SERVER_BUSY', { explanation: error.message }))
      : send(reply, 500, errorBody('SERVER_FAILED', { supportCode: String(request.id) }));
  }
  if (error instanceof RequestRejected) {
    request.log.warn({ cause: 'REQUEST_REJECTED', client: request.ip, retryAfter: error.retryAfterSeconds }, 'credential locked after too many failed authentications');
    return send(reply.header('retry-after', String(error.retryAfterSeconds)), 429, errorBody('REQUEST_REJECTED', { supportCode: String(request.id) }));
  }
  if (error instanceof Busy || err.code === 'SQLITE_BUSY') {
    request.log.warn({ cause: 'SERVER_BUSY', code: err.code }, 'busy');
    return send(reply, 503, errorBody('SERVER_BUSY', { explanation: 'The gateway is busy: repeat the identical request later' }));
  }
  const framework = FRAMEWORK_ERRORS[err.code ?? ''];
  if (framework) {
    request.log.info({ cause: 'INVALID_REQUEST', code: err.code, status: framework[0] }, 'request refused');
    return send(reply, framework[0], errorBody('INVALID_REQUEST', { explanation: framework[1] }));
  }
  const status = typeof err.statusCode === 'number' ? err.statusCode : 500;
  if (status >= 400 && status < 500) {
    // Fastify's own client errors (body too large, malformed URL, ...): their messages hold no request data.
    request.log.info({ cause: 'INVALID_REQUEST', code: err.code, status }, 'request refused');
    return send(reply, status, errorBody('INVALID_REQUEST', { explanation: maskCardNumbers(error.message) }));
  }
  // A store that cannot write (full disk, read-only or corrupt file, I/O error, failed sync):
  // Check Gateway says SHUTDOWN, and every write is refused with this body until it is OPERATING.
  const gateway = (request.server as { gateway?: { fault?: () => Error | undefined } }).gateway;
  const fault = asStorageFault(error, 'the event store') ?? asStorageFault(gateway?.fault?.(), 'the event store');
  if (fault) {
    request.log.error({ cause: 'SERVER_BUSY', code: fault.code, fault: fault.message, err: error }, 'the store cannot write: request refused');
    return send(reply, 503, errorBody('SERVER_BUSY', { explanation: storageFaultExplanation(fault.reason, fault.heals) }));
  }
  if ((error as { type?: unknown }).type === 'unavailable') {
    // A KurrentDB node that cannot be reached (store/kurrentdb-mapping.ts): it may come back.
    request.log.error({ cause: 'SERVER_BUSY', err: error }, 'the event store cannot be reached: request refused');
    return send(reply, 503, errorBody('SERVER_BUSY', { explanation: 'The gateway cannot reach its event store. The request may not have been recorded; repeat the identical request later' }));
  }
  request.log.error({ err: error }, 'internal failure');
  return send(reply, 500, errorBody('SERVER_FAILED', { supportCode: String(request.id) }));
}

/** The 503 explanation of a store that cannot write (the same for every request while it lasts). */
export const storageFaultExplanation = (reason: string, heals: boolean) =>
  `The gateway cannot write to its store: ${reason}. The request may not have been recorded; ` +
  (heals ? 'repeat the identical request later' : 'repeat the identical request once Check Gateway reports OPERATING again (after a restart)');

export const OPERATIONS = [
  'PUT /api/rest/version/3/merchant/{merchantid}/token/{tokenid}/order/{orderid}/transaction/{transactionid}',
  'POST /api/rest/version/100/merchant/{merchantId}/token',
  'GET /api/rest/version/100/merchant/{merchantId}/token/{tokenid}',
  'DELETE /api/rest/version/100/merchant/{merchantId}/token/{tokenid}',
  'GET /api/rest/version/3/merchant/{merchantid}/order/{orderid}',
  'GET /api/rest/version/3/merchant/{merchantid}/order/{orderid}/transaction/{transactionid}',
  'GET /api/rest/version/{version}/information',
];

async function errorsPlugin(app: FastifyInstance) {
  app.setErrorHandler(renderError);
  app.setNotFoundHandler((request, reply) => {
    request.log.info({ cause: 'INVALID_REQUEST', status: 404 }, 'unknown path');
    return send(reply, 404, errorBody('INVALID_REQUEST', {
      explanation: `No operation for ${request.method} on this path. Expected one of: ${OPERATIONS.join('; ')}`,
    }));
  });
  // Replies of routes without a response schema (admin API, /openapi.json); a route with one
  // writes with the serializer compiled from it (plugins/openapi.ts), the same text.
  app.setReplySerializer((payload) => sortedJson(payload));

  // Bodies are JSON whatever the Content-Type says (curl -d sends a form type); the parse error
  // is reported in the gateway's words.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, text, done) => {
    const body = String(text);
    if (body.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(body));
    } catch {
      done(new InvalidRequest(jsonParseExplanation(body)), undefined);
    }
  });
}

export default fp(errorsPlugin, { name: 'errors', fastify: '5.x' });
