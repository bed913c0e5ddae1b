// PUT /api/rest/version/3/merchant/{merchantid}/token/{tokenid}/order/{orderid}/transaction/{transactionid}
// (spec: "Pay with token"). Thin: schema → the order's command (services/order) → 201.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PayBody, PayParams } from '../schemas/pay.js';
import { documented, errorResponses, PayResponse } from '../schemas/responses.js';
import { payWithTokenText, RecentAnswers, type PaymentIds } from '../services/order/recent-answers.js';
import { PayableCards } from '../services/order/payable-cards.js';
import type { PayResponse as PayAnswer } from '../services/order/responses.js';
import { sortedJson } from '../lib/json.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';
import { parseJsonBody } from '../plugins/json-body.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const pay: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'pay', 'merchantid');
  // Identical repeats answered with the answer before them (services/order/recent-answers.ts):
  // the body text is kept on the request, and a kept repeat's text is not parsed again (the
  // merchant is known: authentication runs before the body is read).
  const recent = new RecentAnswers(app.gateway);
  const cards = new PayableCards(app.gateway);
  app.decorateRequest('payText', '');
  app.removeAllContentTypeParsers();
  const parse: typeof parseJsonBody = (request, text, done) => {
    const body = String(text);
    request.payText = body;
    const kept = request.merchant ? recent.body(request.merchant.id, request.params as Omit<PaymentIds, 'merchantId'>, body) : undefined;
    if (kept === undefined) return parseJsonBody.call(app, request, body, done);
    done(null, kept);
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
    // Written with the route's compiled serializer (what Fastify would write from the object), so
    // a kept repeat's text is those bytes. (Not async: a kept text is sent without a promise.)
    const serialize = (reply.getSerializationFunction('201') as ((response: PayAnswer) => string) | undefined) ?? sortedJson;
    const answer = payWithTokenText(app.gateway, { recent, cards }, merchantOf(request), request.params, request.body, request.payText, serialize, () => request.meta());
    return typeof answer === 'string' ? reply.code(201).type(JSON_TYPE).send(answer) : answer.then((text) => reply.code(201).type(JSON_TYPE).send(text));
  });
};

declare module 'fastify' {
  interface FastifyRequest {
    /** Pay with token's body as received ('' without one). */
    payText: string;
  }
}

export default pay;
