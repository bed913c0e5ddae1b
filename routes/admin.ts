// The debugging timeline: an API of events by stream, category, correlation id or merchant,
// paged by position, with live updates as server-sent events; token and order history with
// time travel; and a page that shows it all. Behind credentials of their own (user `admin`,
// password ADMIN_PASSWORD, or on a loopback HOST one generated at start: admin-access.ts),
// never a merchant's. The password must be long enough
// (ADMIN_PASSWORD_MIN_LENGTH), and wrong ones lock the admin credential like a merchant's
// (plugins/auth-failures.ts, AUTH_FAILURE_LIMIT a minute, then 429 REQUEST_REJECTED).
import { createHash, timingSafeEqual } from 'node:crypto';
import basicAuth from '@fastify/basic-auth';
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { adminPasswordProblem } from '../admin-access.js';
import { ConfigError } from '../config.js';
import { AuthenticationFailed, InvalidRequest } from '../domain/errors.js';
import { orderHistory, tokenHistory, type AsOf } from '../services/queries/history.js';
import { maskCardNumbers } from '../lib/mask.js';
import { streamHistory } from '../services/queries/stream-history.js';
import { searchStreams } from '../services/queries/stream-search.js';
import type { LookupDoc } from '../projections/lookup.js';
import { matches, timelinePage, timelinePageBackward, toTimelineEvent, type TimelineFilter } from '../services/queries/timeline.js';
import { Opt, Pattern, Str } from '../schemas/common.js';
import { refuseIfLocked } from '../plugins/auth-failures.js';
import { errorBody } from '../plugins/errors.js';
import { metricsRoute } from '../plugins/metrics.js';
import { adminHeaders, guardAdmin } from './admin-guard.js';
import { loadPage, pageRoutes } from './admin-pages.js';
import adminRequests from './admin-requests.js';
import testControl from './admin-control.js';

export interface AdminOptions {
  password: string | undefined;
  /** Host names the admin answers besides IP addresses and localhost (HOST when a name, ADMIN_HOSTS): routes/admin-guard.ts. */
  hosts?: readonly string[] | undefined;
  /** TEST_CONTROL: the test-control API answers (routes/admin-control.ts); off, 404. */
  testControl?: boolean | undefined;
}

const Filter = {
  stream: Opt(Str(1, 300)),
  category: Opt(Pattern(1, 50, '^[0-9A-Za-z_$]+$', 'a stream category such as token or order')),
  correlationId: Opt(Str(1, 100)),
  merchantId: Opt(Pattern(1, 40, '^[0-9A-Za-z_-]+$', "characters 0-9 a-z A-Z '-' '_'")),
};
const Position = () => Pattern(1, 16, '^[0-9]+$', 'a position in the log (a whole number)');
const EventsQuery = Type.Object({
  ...Filter, after: Opt(Position()), before: Opt(Position()), order: Opt(Pattern(3, 4, '^(asc|desc)$', 'asc (oldest first, after a position) or desc (newest first, before one)')),
  limit: Opt(Pattern(1, 3, '^[0-9]+$', 'a whole number from 1 to 500')),
}, { additionalProperties: false });
const AsOfQuery = Type.Object({
  asOfRevision: Opt(Pattern(1, 16, '^[0-9]+$', 'a stream revision (0-based)')),
  asOf: Opt(Str(1, 40, 'an ISO 8601 instant')),
}, { additionalProperties: false });

const HistoryQuery = Type.Object({
  stream: Str(1, 300),
  asOfRevision: Opt(Pattern(1, 16, '^[0-9]+$', 'a stream revision (0-based)')),
  relatedAfter: Opt(Position()),
}, { additionalProperties: false });
const SearchQuery = Type.Object({ q: Str(1, 300, 'an order id, token, session id, transaction id, correlation id or stream name') }, { additionalProperties: false });

function asOfFrom(query: { asOfRevision?: string | undefined; asOf?: string | undefined }): AsOf {
  const asOf: AsOf = {};
  if (query.asOfRevision !== undefined) asOf.revision = BigInt(query.asOfRevision);
  if (query.asOf !== undefined) {
    const time = new Date(query.asOf);
    if (Number.isNaN(time.getTime())) throw new InvalidRequest(`Value '${query.asOf}' is invalid. Expected an ISO 8601 instant`, 'asOf');
    asOf.time = time;
  }
  return asOf;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** The admin's key in the failure registry (a merchant's is `merchant.<id>`: no clash). */
const ADMIN_CREDENTIAL = 'admin';

type AdminApp = Parameters<FastifyPluginAsyncTypebox>[0];

/** Basic authentication of user `admin`, its password counted and locked like a merchant's. */
async function adminAuthentication(app: AdminApp, password: string | undefined): Promise<void> {
  // Passed to buildApp directly (not through loadConfig), a short password is refused too.
  const problem = password === undefined ? undefined : adminPasswordProblem(password);
  if (problem) throw new ConfigError(problem);
  if (!app.hasDecorator('authFailures')) throw new Error('the admin plugin needs the auth-guard plugin (plugins/auth.ts) registered first');
  const failures = app.authFailures;
  const expected = password === undefined ? undefined : digest(password);
  await app.register(basicAuth, {
    authenticate: { realm: 'tokengate admin' },
    async validate(username, password) {
      if (!expected) throw new AuthenticationFailed('The admin API is disabled: start tokengate with ADMIN_PASSWORD set (on a loopback HOST one is generated at start and printed)');
      // Only user `admin` can ever succeed: another user id guesses nothing and counts nothing.
      if (username !== 'admin') throw new AuthenticationFailed();
      // Locked: refused before the password is looked at, the right one too, so that a guesser
      // cannot tell when it found it. Anyone can lock the admin out this way for a minute; a
      // sandbox accepts that (the merchants' API is not affected).
      refuseIfLocked(failures, ADMIN_CREDENTIAL);
      if (!timingSafeEqual(digest(password), expected)) {
        failures.record(ADMIN_CREDENTIAL, true);
        throw new AuthenticationFailed();
      }
    },
  });
  app.addHook('onRequest', app.basicAuth);
}

/** A stream's history, and the search for one. */
function historyRoutes(app: AdminApp): void {
  // One stream's history: steps with the state after each, and what they caused (services/queries/stream-history.ts).
  app.get('/admin/api/history', { schema: { querystring: HistoryQuery } }, async (request, reply) => {
    const { stream, asOfRevision, relatedAfter } = request.query;
    const history = await streamHistory(app.gateway.store, stream, {
      ...(asOfRevision !== undefined ? { asOfRevision: BigInt(asOfRevision) } : {}),
      ...(relatedAfter !== undefined ? { relatedAfter: BigInt(relatedAfter) } : {}),
    });
    if (!history) return reply.code(404).send(errorBody('INVALID_REQUEST', { explanation: 'No such stream at that revision', field: 'stream' }));
    return history;
  });

  app.get('/admin/api/search', { schema: { querystring: SearchQuery } }, async (request, reply) => {
    const { q } = request.query;
    const results = await searchStreams(app.gateway.store, app.gateway.merchants, (key) => app.gateway.readModels.get<LookupDoc>('lookup', key), q.trim());
    if (results.length === 0) return reply.code(404).send(errorBody('INVALID_REQUEST', { explanation: 'No order, token, session, transaction or correlation id found', field: 'q' }));
    return { query: maskCardNumbers(q.trim()), results };
  });
}

/** The timeline: a page of events, and the live ones as server-sent events. */
function eventRoutes(app: AdminApp, headers: Record<string, string>): void {
  app.get('/admin/api/events', { schema: { querystring: EventsQuery } }, async (request) => {
    const { after, before, order, limit, ...filter } = request.query;
    const count = limit === undefined ? 100 : Number(limit);
    if (count < 1 || count > 500) throw new InvalidRequest(`Value '${limit}' is invalid. Expected a whole number from 1 to 500`, 'limit');
    if (order === 'desc') return timelinePageBackward(app.gateway.store, filter, before === undefined ? undefined : BigInt(before), count);
    return timelinePage(app.gateway.store, filter, BigInt(after ?? '0'), count);
  });

  // Open live streams end before the server closes, or closing would wait for them forever.
  const live = new Set<() => void>();
  app.addHook('preClose', async () => { for (const stop of [...live]) stop(); });
  // Server-sent events: every matching event after `after` (default: the head of the log).
  app.get('/admin/api/events/live', { schema: { querystring: EventsQuery } }, async (request, reply) => {
    const { after, limit: _limit, before: _before, order: _order, ...filter } = request.query as TimelineFilter & { after?: string; limit?: string; before?: string; order?: string };
    const from = after === undefined ? await app.gateway.store.headPosition() : BigInt(after);
    reply.hijack();
    app.releaseSlotOnClose(request, reply);
    const raw = reply.raw;
    raw.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': String(request.id) });
    raw.write(`: live from position ${from}\n\n`);
    const subscription = app.gateway.store.subscribeAll({ fromPosition: from }, {
      onEvent(e) {
        if (matches(filter, e)) raw.write(`id: ${e.position}\nevent: event\ndata: ${JSON.stringify(toTimelineEvent(e))}\n\n`);
      },
      onError(error) { request.log.warn({ err: error }, 'live timeline subscription failed'); raw.end(); },
    });
    const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), 15_000);
    const stop = () => {
      clearInterval(heartbeat);
      void subscription.close();
      live.delete(stop);
      if (!raw.writableEnded) raw.end();
    };
    live.add(stop);
    raw.on('close', stop);
  });
}

/** The histories of a token and of an order, as of a revision or an instant. */
function asOfRoutes(app: AdminApp): void {
  app.get('/admin/api/tokens/:repositoryId/:token', {
    schema: { params: Type.Object({ repositoryId: Str(1, 16), token: Pattern(1, 40, '^[0-9A-Za-z]+$', 'characters 0-9 a-z A-Z') }), querystring: AsOfQuery },
  }, async (request, reply) => {
    const result = await tokenHistory(app.gateway.store, request.params.repositoryId, request.params.token, asOfFrom(request.query));
    if (result.entries.length === 0) return reply.code(404).send(errorBody('INVALID_REQUEST', { explanation: 'No such token at that point' }));
    return { events: result.entries, state: result.doc ?? null };
  });

  app.get('/admin/api/orders/:merchantId/:orderId', {
    schema: { params: Type.Object({ merchantId: Str(1, 40), orderId: Pattern(1, 16, '^[0-9]+$', 'an order id') }), querystring: AsOfQuery },
  }, async (request, reply) => {
    const result = await orderHistory(app.gateway.store, request.params.merchantId, request.params.orderId, asOfFrom(request.query));
    if (result.entries.length === 0) return reply.code(404).send(errorBody('INVALID_REQUEST', { explanation: 'No such order at that point' }));
    return { events: result.entries, state: result.doc ?? null };
  });
}

const admin: FastifyPluginAsyncTypebox<AdminOptions> = async (app, options) => {
  const pages = { timeline: loadPage('timeline'), history: loadPage('history') };
  // Before the password is looked at: the security headers, and the Host check.
  const headers = adminHeaders(Object.values(pages));
  guardAdmin(app, headers, options.hosts ?? []);
  await adminAuthentication(app, options.password);
  // Prometheus metrics, behind the same credentials.
  await app.register(metricsRoute);
  pageRoutes(app, pages);
  historyRoutes(app);
  eventRoutes(app, headers);
  asOfRoutes(app);
  // The request journal (routes/admin-requests.ts), behind the same guard and credentials.
  await app.register(adminRequests);
  // Behind the same guard and credentials (its own hook answers 404 while TEST_CONTROL is off).
  await app.register(testControl, { enabled: options.testControl === true });
};

export default admin;
