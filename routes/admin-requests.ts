// The request journal's API (services/journal/), behind the admin plugin's guard and credentials
// (routes/admin.ts registers it): GET /admin/api/requests, the requests answered (with WORKERS >
// 1, by any worker: journal-cluster.ts), newest first, filtered; GET /admin/api/requests/{id}, one of them by its request id (the
// X-Request-Id of its answer, the metadata.requestId of the events it appended).
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { InvalidRequest } from '../domain/errors.js';
import { errorBody } from '../plugins/errors.js';
import { Opt, Pattern, Str } from '../schemas/common.js';
import type { Merchants } from '../merchants.js';
import { findEverywhere, requestView, streamConcern, type RequestFilter } from '../services/journal/views.js';

const RequestsQuery = Type.Object({
  merchant: Opt(Str(1, 100)),
  status: Opt(Pattern(3, 3, '^[1-5]([0-9][0-9]|xx)$', 'an HTTP status such as 400, or a class such as 4xx')),
  operation: Opt(Pattern(1, 40, '^[A-Za-z_]+$', 'an operation such as PAY, REFUND, CREATE_TOKEN or RETRIEVE_ORDER')),
  path: Opt(Str(1, 300, 'a part of the path')),
  correlationId: Opt(Str(1, 100)),
  order: Opt(Str(1, 100, 'an order id')),
  transaction: Opt(Str(1, 100, 'a transaction id')),
  token: Opt(Str(1, 100, 'a token id')),
  stream: Opt(Str(1, 300, 'a stream, such as order-TESTMERCHANT01:10000000001 or token-REPO01:9007136675895052')),
  since: Opt(Str(1, 40, 'an ISO 8601 instant')),
  limit: Opt(Pattern(1, 4, '^[0-9]+$', 'a whole number from 1 to 1000')),
}, { additionalProperties: false });
type RequestsQuery = typeof RequestsQuery.static;

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

function filterOf(query: RequestsQuery, merchants: Merchants): RequestFilter {
  const { status, operation, since, stream, limit: _limit, ...exact } = query;
  const filter: RequestFilter = { ...exact };
  if (stream !== undefined) filter.stream = streamConcern(stream, (repository) => merchants.list.filter((m) => m.repository.id === repository).map((m) => m.id));
  if (status !== undefined) filter.status = status.endsWith('xx') ? { class: Number(status[0]) } : { exact: Number(status) };
  if (operation !== undefined) filter.operation = operation.toUpperCase();
  if (since !== undefined) {
    const time = Date.parse(since);
    if (Number.isNaN(time)) throw new InvalidRequest(`Value '${since}' is invalid. Expected an ISO 8601 instant`, 'since');
    filter.sinceMs = time;
  }
  return filter;
}

const adminRequests: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/admin/api/requests', {
    schema: { summary: 'The request journal: API requests answered, newest first', querystring: RequestsQuery },
  }, async (request) => {
    const { limit } = request.query;
    const count = limit === undefined ? DEFAULT_LIMIT : Number(limit);
    if (count < 1 || count > MAX_LIMIT) throw new InvalidRequest(`Value '${limit}' is invalid. Expected a whole number from 1 to ${MAX_LIMIT}`, 'limit');
    return { requests: await findEverywhere(app.journal, filterOf(request.query, app.gateway.merchants), count) };
  });

  app.get('/admin/api/requests/:id', {
    schema: { summary: 'One request of the journal, by its request id', params: Type.Object({ id: Str(1, 100, 'a request id (X-Request-Id)') }) },
  }, async (request, reply) => {
    const entry = app.journal.get(request.params.id);
    if (entry) return requestView(entry, app.journal);
    // With WORKERS > 1, another worker may have answered it.
    const [found] = await findEverywhere(app.journal, { id: request.params.id }, 1);
    if (!found) return reply.code(404).send(errorBody('INVALID_REQUEST', { explanation: 'No such request in the journal (it keeps the last JOURNAL_SIZE requests, none older than JOURNAL_MAX_AGE_MS)', field: 'id' }));
    return found;
  });
};

export default adminRequests;
