// Records every answered API request in the request journal (services/journal/journal.ts):
// accepted or refused (401, 400, 404, 409, 413, 415, 503...), REST and NVP, with the operation,
// the merchant (the one its path or form names when it did not authenticate), the correlation id,
// the order, transaction and token it names, its masked body and its answer. Not recorded: the
// admin pages and API, /metrics and the API reference (the tools' own traffic), and what Node
// refuses before Fastify sees a request (a malformed request line or header, a request timeout:
// http-server.ts). With JOURNAL_SIZE=0 nothing is recorded and no hook is added.
import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendHookHandler, preParsingHookHandler, RequestPayload, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import { announcesBody } from '../lib/body-follows.js';
import { maskCardNumbersInGroups } from '../lib/mask.js';
import { maskedBodyText } from '../lib/mask-body.js';
import { flat } from '../lib/flat.js';
import { isOwnRequestId } from '../lib/request-ids.js';
import { DEFAULT_JOURNAL, Journal, mayBeOwnEvent, type JournalEntry, type JournalSettings } from '../services/journal/journal.js';
import { maskedAnswer } from '../services/journal/views.js';
import { requestCorrelationId, requestPath } from './gateway.js';
import { namedMerchantOf } from './observe.js';

declare module 'fastify' {
  interface FastifyInstance {
    journal: Journal;
  }
}

export interface JournalPluginOptions extends Partial<JournalSettings> {
  /** The journal's clock (tests move it to see entries age); default Date.now. */
  now?: (() => number) | undefined;
}

/** A route's operation: a name, or the body's apiOperation (`name` when it has none). */
interface RouteOperation { name: string | null; fromBody: boolean; nvp: boolean }

const BODY: Omit<RouteOperation, 'name'> = { fromBody: true, nvp: false };
const NAMED: Omit<RouteOperation, 'name'> = { fromBody: false, nvp: false };

/** By method and the path's last resource (`/id`: followed by a parameter). */
const OPERATIONS: Readonly<Record<string, RouteOperation>> = {
  'GET information': { name: 'CHECK_GATEWAY', ...NAMED },
  'POST information': { name: 'CHECK_GATEWAY', ...NAMED },
  'PUT transaction/id': { name: null, ...BODY },
  'GET transaction/id': { name: 'RETRIEVE_TRANSACTION', ...NAMED },
  'GET order/id': { name: 'RETRIEVE_ORDER', ...NAMED },
  'POST token': { name: 'CREATE_TOKEN', ...NAMED },
  'PUT token/id': { name: 'TOKENIZE', ...NAMED },
  'GET token/id': { name: 'RETRIEVE_TOKEN', ...NAMED },
  'DELETE token/id': { name: 'DELETE_TOKEN', ...NAMED },
  'POST session': { name: 'CREATE_SESSION', ...NAMED },
  'PUT session/id': { name: 'UPDATE_SESSION', ...NAMED },
  'GET session/id': { name: 'RETRIEVE_SESSION', ...NAMED },
  'POST paymentOptionsInquiry': { name: 'PAYMENT_OPTIONS_INQUIRY', ...NAMED },
  'GET paymentOptionsInquiry': { name: 'PAYMENT_OPTIONS_INQUIRY', ...NAMED },
};

const NVP_PATH = '/api/nvp/version/:version';
const LAST_RESOURCE = /\/([A-Za-z]+)(\/:[A-Za-z]+)?\/?$/;

/** The operation of a route of the gateway's API (undefined: not one). */
function routeOperation(method: string, url: string): RouteOperation | undefined {
  if (!url.startsWith('/api/')) return undefined;
  if (url === NVP_PATH && method === 'POST') return { name: null, fromBody: true, nvp: true };
  const last = LAST_RESOURCE.exec(url);
  const found = last ? OPERATIONS[`${method} ${last[1] as string}${last[2] ? '/id' : ''}`] : undefined;
  // Pay with token (version 3) is a PAY whatever its body says.
  if (found?.fromBody && url.includes('/token/')) return { ...found, name: 'PAY' };
  return found ?? { name: null, ...NAMED };
}

/** Bodies and answers larger than this are not kept (their size is). */
const BODY_MAX = 16_384;
const OPERATION_NAME = /^[A-Z_]{1,40}$/;

const idOf = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? maskCardNumbersInGroups(value).slice(0, 100) : null);
const omitted = (what: string, bytes: number) => `[${what} of ${bytes} bytes: not kept]`;

type Fields = Record<string, unknown>;
const fieldsOf = (value: unknown): Fields | undefined => (value !== null && typeof value === 'object' ? value as Fields : undefined);

/**
 * The request's body as one string, its masked JSON text (lib/mask-body.ts): the text as sent when
 * nothing in it needs masking (pay with token keeps it: routes/pay.ts), else the masked copy's.
 *
 * Masked now, on the request's path, not when the entry is read: the body as sent holds the
 * security code (and may hold a card number), which nothing may keep once the payment is decided.
 * A reference kept until a read would keep it in the process for as long as the entry lives (an
 * hour by default, unread most of the time), in reach of a heap snapshot or a core dump, and past
 * a Delete Token that shreds the card everywhere else (docs/guarantees.md). The common body (a Pay
 * with token's) is masked by a scan of its characters and a replacement of its security code.
 */
function requestBody(request: FastifyRequest, counted: CountedBodies): string | null {
  // As sent: with the members sent as null that the checks took out (plugins/request-values.ts).
  const body = request.bodyAsSent ?? request.body;
  if (body === undefined || body === null) return null;
  // Its size: counted as it was read when no header gives it (bodySize), else its Content-Length.
  const size = counted.get(request)?.bytes ?? Number(request.headers['content-length'] ?? 0);
  if (size > BODY_MAX) return JSON.stringify(omitted('a body', size));
  const sent = request.payText;
  return maskedBodyText(body, typeof sent === 'string' && sent !== '' ? sent : undefined);
}

/**
 * The answer as sent: its text, kept as it is (the gateway's answers mask card numbers and bank
 * accounts themselves, so a reference costs nothing), but for an answer asked unmasked
 * (responseControls.sensitiveData), masked now: the journal keeps no clear number.
 */
function answerOf(payload: unknown, nvp: boolean, unmasked: boolean): JournalEntry['response'] {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return null;
  if (payload.length > BODY_MAX) return omitted('an answer', payload.length);
  return unmasked ? maskedAnswer(String(payload), nvp) as object : payload;
}

/**
 * Counts the bytes of a body as the parser reads them: the size of a body whose Content-Length
 * does not give it, sent chunked (none) or with a Content-Encoding (its size encoded, which may
 * decode to far more). Counted on the stream rather than measured on the parsed body: no copy of
 * a body as large as BODY_LIMIT made to learn that it is not kept.
 */
class BodyCounter extends Transform {
  bytes = 0;
  constructor(private readonly source: RequestPayload) {
    super();
    // Fastify listens for the failures of the stream it reads (an aborted request, a body
    // refused while decoding: plugins/encoding.ts); a pipe does not pass them on.
    source.on('error', (error) => this.destroy(error));
    // One that comes after Fastify stopped reading (it refused the body first) is no uncaught error.
    this.on('error', () => {});
  }

  /** The encoded bytes the decoding counted (Fastify compares them with Content-Length and the limit). */
  get receivedEncodedLength(): number | undefined { return this.source.receivedEncodedLength; }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.bytes += chunk.length;
    callback(null, chunk);
  }
}

/** The counters of the bodies being read or answered (only those a header does not measure). */
type CountedBodies = WeakMap<FastifyRequest, BodyCounter>;

/**
 * A route's hook (after plugins/encoding.ts's, which decodes the body): a body whose size the
 * header gives as it is parsed passes as it is; another is counted. Only a body Fastify reads
 * next: none of GET and HEAD, none without a length or chunks (a stream read by nobody would
 * hold the connection).
 */
const bodySize = (counted: CountedBodies): preParsingHookHandler => (request, _reply, payload, done) => {
  const read = request.method !== 'GET' && request.method !== 'HEAD' && announcesBody(request.headers);
  if (!read || (request.headers['content-length'] !== undefined && request.headers['content-encoding'] === undefined)) return done(null, payload);
  const counter = new BodyCounter(payload);
  counted.set(request, counter);
  done(null, payload.pipe(counter));
};

/** The ids an NVP form names, and its operation. */
function fromForm(entry: JournalEntry, fields: Fields): void {
  entry.merchant ??= idOf(fields.merchant);
  entry.order = idOf(fields['order.id']);
  entry.transaction = idOf(fields['transaction.id']);
  entry.token = idOf(fields.token) ?? idOf(fields['sourceOfFunds.token']);
  const name = fields.apiOperation;
  if (typeof name === 'string' && OPERATION_NAME.test(name)) entry.operation = name === 'TOKENIZE' && fields.token === undefined ? 'CREATE_TOKEN' : name;
}

/** The ids a REST path (and an order API body) names. */
function fromPath(entry: JournalEntry, params: Fields | undefined, body: Fields | undefined): void {
  if (params) {
    entry.order = idOf(params.orderId ?? params.orderid);
    entry.transaction = idOf(params.transactionId ?? params.transactionid);
    entry.token = idOf(params.tokenid);
  }
  entry.token ??= idOf(fieldsOf(body?.sourceOfFunds)?.token);
}

/** A created token's id, from its answer. */
function createdToken(payload: JournalEntry['response'], nvp: boolean): string | null {
  if (typeof payload !== 'string') return null;
  const found = nvp ? /(?:^|&)token=([0-9A-Za-z]{1,40})(?:&|$)/.exec(payload) : /"token":"([0-9A-Za-z]{1,40})"/.exec(payload);
  return found ? found[1] as string : null;
}

function entryOf(request: FastifyRequest, reply: FastifyReply, payload: unknown, rule: RouteOperation | undefined, now: number, counted: CountedBodies): JournalEntry {
  const nvp = rule?.nvp === true;
  const body = fieldsOf(request.body);
  const unmasked = body !== undefined && (nvp ? body['responseControls.sensitiveData'] : body.responseControls) !== undefined;
  const elapsed = reply.elapsedTime;
  const entry: JournalEntry = {
    id: flat(String(request.id)), atMs: now - elapsed, method: request.method, path: requestPath(request),
    operation: rule?.name ?? null, status: reply.statusCode, durationMs: elapsed,
    merchant: namedMerchantOf(request) ?? null, correlationId: requestCorrelationId(request),
    order: null, transaction: null, token: null,
    request: requestBody(request, counted), response: answerOf(payload, nvp, unmasked), nvp, events: '', answerAt: -1, answerBytes: 0, requestBytes: 0,
  };
  if (nvp) {
    if (body) fromForm(entry, body);
  } else {
    fromPath(entry, fieldsOf(request.params), body);
    const name = rule?.fromBody ? body?.apiOperation : undefined;
    if (typeof name === 'string' && OPERATION_NAME.test(name)) entry.operation = name;
  }
  if (entry.operation === 'CREATE_TOKEN' && entry.token === null && reply.statusCode < 300) entry.token = createdToken(entry.response, nvp);
  return entry;
}

/** The tools' own paths: not journaled when no route matched them either. */
const TOOLS = /^\/(?:admin|documentation|metrics|openapi)/;

async function journalPlugin(app: FastifyInstance, options: JournalPluginOptions) {
  const settings = { size: options.size ?? DEFAULT_JOURNAL.size, maxAgeMs: options.maxAgeMs ?? DEFAULT_JOURNAL.maxAgeMs };
  const now = options.now ?? Date.now;
  const journal = new Journal(settings, isOwnRequestId, now);
  app.decorate('journal', journal);
  if (!journal.enabled) return;
  const counted: CountedBodies = new WeakMap();
  const countBody = bodySize(counted);
  const record = (request: FastifyRequest, reply: FastifyReply, payload: unknown, rule: RouteOperation | undefined): void => {
    try {
      journal.record(entryOf(request, reply, payload, rule, now(), counted));
    } catch (error) {
      // The journal is for debugging: a request it cannot record is answered all the same.
      request.log.warn({ err: error }, 'request journal: the request could not be recorded');
    }
  };
  // A hook on each route of the API, knowing its operation (nothing to look up per request), with
  // `done` rather than async (it runs on every request): no promise per request.
  app.addHook('onRoute', (route: RouteOptions) => {
    const rule = routeOperation([route.method].flat()[0] as string, route.url);
    if (rule === undefined) return;
    const hook: onSendHookHandler = (request, reply, payload, done) => {
      record(request, reply, payload, rule);
      done(null, payload);
    };
    route.onSend = [...[route.onSend ?? []].flat(), hook];
    route.preParsing = [...[route.preParsing ?? []].flat(), countBody];
  });
  // And the requests no route matched (a wrong path), but for the tools' own.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.is404 && !TOOLS.test(request.url)) record(request, reply, payload, undefined);
    done(null, payload);
  });
  // Another instance's events (on PostgreSQL) belong to no entry here: their metadata not parsed.
  const stop = app.gateway.observeLog((event) => {
    if (mayBeOwnEvent(event)) journal.eventAppended(event);
  });
  const timer = setInterval(() => journal.prune(), Math.min(settings.maxAgeMs, 60_000));
  timer.unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    stop();
  });
}

export default fp(journalPlugin, { name: 'journal', fastify: '5.x', dependencies: ['gateway'] });
