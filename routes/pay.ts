// PUT /api/rest/version/3/merchant/{merchantid}/token/{tokenid}/order/{orderid}/transaction/{transactionid}
// (spec: "Pay with token"). Thin: schema → service → 201.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PayBody, PayParams } from '../schemas/pay.js';
import { documented, errorResponses, PayResponse } from '../schemas/responses.js';
import { payWithTokenText, repeatedBody, type PayResponse as PayAnswer } from '../services/order/payments.js';
import { sortedJson } from '../lib/json.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';
import { parseJsonBody } from '../plugins/json-body.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const pay: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'pay', 'merchantid');
  // The body of an identical repeat answered from the recent answers is the one parsed at its
  // first repeat, not parsed again; any other is parsed as every route's is. (The
  // merchant is known: authentication runs before the body is read.)
  app.removeAllContentTypeParsers();
  const parse: typeof parseJsonBody = (request, text, done) => {
    const body = String(text);
    const repeated = request.merchant ? repeatedBody(app.gateway, request.merchant, request.params as Record<string, string | undefined>, body) : undefined;
    if (repeated === undefined) return parseJsonBody.call(app, request, body, done);
    request.bodyText = body;
    done(null, repeated);
  };
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  app.addContentTypeParser('*', { parseAs: 'string' }, parse);
  app.put('/api/rest/version/3/merchant/:merchantid/token/:tokenid/order/:orderid/transaction/:transactionid', {
    schema: {
      summary: 'Pay with token',
      description: 'Moves funds in one step using the card stored under the token. Authenticate with a blank user id and the API password. An identical repeat returns the recorded outcome.',
      tags: ['pay'],
      security: [{ basicAuth: [] }],
      params: PayParams,
      body: PayBody,
      response: { 201: documented(PayResponse), ...errorResponses },
    },
  }, (request, reply) => {
    const merchant = merchantOf(request);
    // Written with the route's serializer (what Fastify would write from the object): an identical
    // repeat answered from the recent answers gets the same text, not written again.
    // (Always compiled from the route's schema; sortedJson is what the app writes without one.)
    const serialize = (reply.getSerializationFunction('201') as ((response: PayAnswer) => string) | undefined) ?? sortedJson;
    const answer = payWithTokenText(app.gateway, merchant, request.params, request.body, () => request.meta(), request.bodyText, serialize);
    // Not async: an identical repeat's text comes at once and is sent without a promise or a turn
    // of the microtask queue.
    return typeof answer === 'string' ? reply.code(201).type(JSON_TYPE).send(answer) : answer.then((text) => reply.code(201).type(JSON_TYPE).send(text));
  });
};

export default pay;
