// One place that turns every failure into the gateway's error body and status
// (../shared/guide/gateway-facts.md, "HTTP status codes and error bodies"). The gateway's own
// refusals and failures are coded errors (domain/errors.ts): each carries its cause, status, body
// members and log line, and is rendered the same way; the store adapters translate their errors
// into them (store/storage-fault.ts, store/kurrentdb-mapping.ts). Here Fastify's own errors
// (schema validation, Basic authentication, the router, body limits) become coded errors too, and
// anything else is a 500 SERVER_FAILED with a support code, or the store's fault while the store
// cannot write. Explanations quote the offending value, except for card data, which is never
// echoed. The 404 body lists the gateway's operations, collected from the routes as registered.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { GatewayError, InvalidRequest, AuthenticationFailed, StorageFault, StoreUnreachable, type ErrorMembers } from '../domain/errors.js';
import { sortedJson } from '../lib/json.js';
import { SENSITIVE_FIELD } from '../schemas/common.js';
import { maskCardNumbersInGroups } from '../lib/mask.js';

interface AjvError {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  data?: unknown;
  parentSchema?: { description?: string; enum?: unknown[]; maxLength?: number; minLength?: number; maxItems?: number; minItems?: number };
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
  ({ error: { cause, ...fields } as { cause: string; field?: string | undefined } & Record<string, string | undefined>, result: 'ERROR' });

/** Field names and explanations stay within the spec's 1-1000 characters. */
const clip = (text: string, max = 200): string => ([...text].length > max ? `${[...text].slice(0, max).join('')}...` : text);

/** A scalar is quoted (shortened); a group or array never is: it may hold card data, and be huge. */
const quoted = (value: unknown): string | undefined => {
  if (value !== null && typeof value === 'object') return undefined;
  const text = typeof value === 'string' ? value : String(value);
  return clip(text, 100);
};

const items = (value: unknown): number => (Array.isArray(value) ? value.length : 0);

const TYPE_NAMES: Record<string, string> = {
  string: 'a string', boolean: 'true or false', object: 'a JSON object', number: 'a number', integer: 'an integer', array: 'an array',
};

/**
 * The field at a validation error's path, as the gateway names it: members dotted, list items
 * `name[i]` (`interaction.tokens[0]`, `a[0].b[1].c`). The value validated tells an item of a list
 * from a member of a group named with digits, which the path alone does not.
 */
function fieldAt(path: readonly string[], validated: unknown): string {
  let field = '';
  let at = validated;
  for (const step of path) {
    field += Array.isArray(at) ? `[${step}]` : field === '' ? step : `.${step}`;
    at = at !== null && typeof at === 'object' && Object.hasOwn(at, step) ? (at as Record<string, unknown>)[step] : undefined;
  }
  return field;
}

/** The first schema violation as the gateway's field-level INVALID_REQUEST; `validated`: the value checked. */
export function fromValidation(error: AjvError, context: string, validated: unknown): InvalidRequest {
  const path = error.instancePath.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const where = fieldAt(path, validated);
  const at = (member?: unknown) => (member === undefined ? where : where === '' ? String(member) : `${where}.${String(member)}`);
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
    case 'maxItems':
      return new InvalidRequest(`Value is invalid. The list has ${items(error.data)} items, but must have less than ${Number(schema.maxItems) + 1}`, field);
    case 'minItems':
      return new InvalidRequest(`Value is invalid. The list has ${items(error.data)} items, but must have at least ${Number(schema.minItems)}`, field);
    case 'enum':
      return new InvalidRequest(`${value} is invalid. Expected one of ${(schema.enum ?? []).join(', ')}`, field);
    case 'pattern':
      return new InvalidRequest(`${value} is invalid. Expected ${schema.description ?? 'another format'}`, field);
    default:
      return new InvalidRequest(`${value} is invalid.`, field);
  }
}

/**
 * A refusal of Fastify itself (a malformed URL, a body too large, a wrong Content-Length, any
 * other 4xx of the framework): INVALID_REQUEST with the framework's status.
 */
export class FrameworkRefusal extends GatewayError {
  override name = 'FrameworkRefusal';
  readonly gatewayCause = 'INVALID_REQUEST';
  readonly logMessage = 'request refused';
  constructor(readonly statusCode: number, explanation: string, readonly code: string | undefined) { super(explanation); }
  members(): ErrorMembers {
    return { explanation: this.message };
  }
  override logFields(): Record<string, unknown> {
    return { cause: this.gatewayCause, code: this.code, status: this.statusCode };
  }
}

/** The part of a request each validation context of Fastify checks. */
const VALIDATED: Record<string, (request: FastifyRequest) => unknown> = {
  body: (request) => request.body, params: (request) => request.params, querystring: (request) => request.query, headers: (request) => request.headers,
};

/** Fastify's own errors as the gateway's coded errors; undefined for anything else. */
function fromFramework(error: FastifyError & { validation?: AjvError[]; validationContext?: string }, request: FastifyRequest): GatewayError | undefined {
  if (error.validation && error.validation[0]) {
    const context = error.validationContext ?? 'body';
    return fromValidation(error.validation[0], context, VALIDATED[context]?.(request));
  }
  if (error.code?.startsWith('FST_BASIC_AUTH')) return new AuthenticationFailed();
  const framework = FRAMEWORK_ERRORS[error.code ?? ''];
  if (framework) return new FrameworkRefusal(framework[0], framework[1], error.code);
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  // Fastify's other client errors: their messages hold no request data.
  if (status >= 400 && status < 500) return new FrameworkRefusal(status, error.message, error.code);
  return undefined;
}

/** How an error body reaches the client: compact sorted JSON here; NVP's pairs on its path (routes/nvp.ts). */
export type ErrorWriter = (reply: FastifyReply, status: number, body: ReturnType<typeof errorBody>) => FastifyReply;

const send: ErrorWriter = (reply, status, body) => reply.code(status).type('application/json; charset=utf-8').send(sortedJson(body));

/** The challenge of every 401 of the gateway API. */
const REALM = 'Basic realm="tokengate"';

/** A coded error as the gateway's body, its headers and its log line. */
function render(coded: GatewayError, error: unknown, request: FastifyRequest, reply: FastifyReply, write: ErrorWriter) {
  const facts = { id: String(request.id), ip: request.ip };
  const fields = coded.logFields(facts);
  // A card number sent where another value belongs (a token id, a merchant id, a member's name) is
  // never quoted: not in the explanation, not in the field, not in the log line.
  if (typeof fields.field === 'string') fields.field = maskCardNumbersInGroups(fields.field);
  request.log[coded.logLevel](coded.logLevel === 'error' ? { ...fields, err: error } : fields, coded.logMessage);
  const members = coded.members(facts);
  if (members.explanation !== undefined) members.explanation = maskCardNumbersInGroups(members.explanation);
  if (members.field !== undefined) members.field = maskCardNumbersInGroups(members.field);
  for (const [name, value] of Object.entries(coded.headers())) reply.header(name, value);
  // Every 401 challenges (although the real gateway sends no WWW-Authenticate, see
  // ../shared/guide/gateway-facts.md): some clients send credentials only after one. The admin
  // API's own challenge (its realm, set by @fastify/basic-auth) is kept.
  if (coded.statusCode === 401 && !reply.hasHeader('www-authenticate')) reply.header('www-authenticate', REALM);
  return write(reply, coded.statusCode, errorBody(coded.gatewayCause, { ...members }));
}

export function renderError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply, write: ErrorWriter = send) {
  // An error of the store that no adapter translated (a statement the read models run on the event
  // store's connection) is translated by the store's own function, which app.ts hands in.
  const coded = error instanceof GatewayError ? error : fromFramework(error as FastifyError, request) ?? request.server.storeErrors?.(error);
  // An unreachable store says less than a store that cannot write: the fault, while it lasts, wins.
  if (coded && !(coded instanceof StoreUnreachable)) return render(coded, error, request, reply, write);
  // A store that cannot write (full disk, read-only or corrupt file, I/O error, failed sync):
  // Check Gateway says SHUTDOWN, and any failure is answered with its 503 until it is OPERATING.
  const fault = (request.server as { gateway?: { fault?: () => Error | undefined } }).gateway?.fault?.();
  if (fault instanceof StorageFault) return render(fault, error, request, reply, write);
  if (coded) return render(coded, error, request, reply, write);
  request.log.error({ err: error }, 'internal failure');
  return write(reply, 500, errorBody('SERVER_FAILED', { supportCode: String(request.id) }));
}

/** Routes of the gateway API, listed in the 404 body. */
const API_PREFIX = '/api/rest/';

/** `:param` (with or without a pattern) in the gateway's `{param}` notation. */
const operationPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)(\([^)]*\))?/g, '{$1}');

/**
 * The operations grouped by path ("GET, DELETE /api/rest/.../token/{tokenid}"), in the order their
 * paths were first registered: the explanation stays within the spec's 1000 characters.
 */
function byPath(operations: readonly string[]): string {
  const methods = new Map<string, string[]>();
  for (const operation of operations) {
    const space = operation.indexOf(' ');
    const path = operation.slice(space + 1);
    methods.set(path, [...(methods.get(path) ?? []), operation.slice(0, space)]);
  }
  // The paths under the merchant's prefix of the versions from 4 on are written after it, once, so
  // that the list stays within the 1000 characters an explanation has.
  const other: string[] = [];
  const relative: string[] = [];
  for (const [path, verbs] of methods) {
    if (path.startsWith(`${MERCHANT_PREFIX}/`)) relative.push(`${verbs.join(', ')} ${path.slice(MERCHANT_PREFIX.length)}`);
    else other.push(`${verbs.join(', ')} ${path}`);
  }
  if (relative.length === 0) return other.join('; ');
  return `${other.join('; ')}; and under ${MERCHANT_PREFIX}: ${relative.join('; ')}`;
}
const MERCHANT_PREFIX = '/api/rest/version/{version}/merchant/{merchantId}';

/** The store's errors as coded ones (or undefined): the plugins know no store, the app hands it in. */
export type StoreErrors = (error: unknown) => GatewayError | undefined;

async function errorsPlugin(app: FastifyInstance, options: { storeErrors?: StoreErrors }) {
  app.decorate('storeErrors', options.storeErrors);
  app.setErrorHandler(renderError);
  // The operations of the gateway API, as registered (in registration order; HEAD, which Fastify
  // adds to every GET, is not one of them): the 404 body names them.
  const operations: string[] = [];
  app.addHook('onRoute', (route: RouteOptions) => {
    if (!route.url.startsWith(API_PREFIX)) return;
    for (const method of [route.method].flat()) {
      const operation = `${method} ${operationPath(route.url)}`;
      if (method !== 'HEAD' && !operations.includes(operation)) operations.push(operation);
    }
  });
  app.decorate('operations', operations);
  app.setNotFoundHandler((request, reply) => {
    request.log.info({ cause: 'INVALID_REQUEST', status: 404 }, 'unknown path');
    return send(reply, 404, errorBody('INVALID_REQUEST', {
      explanation: `No operation for ${request.method} on this path. Expected one of: ${byPath(operations)}`,
    }));
  });
  // Replies of routes without a response schema (admin API, /openapi.json); a route with one
  // writes with the serializer compiled from it (plugins/openapi.ts), the same text.
  app.setReplySerializer((payload) => sortedJson(payload));
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The gateway API's operations (`METHOD /api/rest/...{param}`), as the 404 body lists them. */
    readonly operations: readonly string[];
    /** The store's translation of its own errors (app.ts: store/storage-fault.ts), if any. */
    readonly storeErrors: StoreErrors | undefined;
  }
}

export default fp(errorsPlugin, { name: 'errors', fastify: '5.x' });
