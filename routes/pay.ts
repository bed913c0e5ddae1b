// PUT /api/rest/version/3/merchant/{merchantid}/token/{tokenid}/order/{orderid}/transaction/{transactionid}
// (spec: "Pay with token"). Thin: schema → service → 201.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PayBody, PayParams } from '../schemas/pay.js';
import { documented, errorResponses, PayResponse } from '../schemas/responses.js';
import { payWithToken } from '../services/order/payments.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';

/** Each answer's text, while the answer object lives (see the handler). */
const texts = new WeakMap<object, string>();
const JSON_TYPE = 'application/json; charset=utf-8';

const pay: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'pay', 'merchantid');
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
  }, async (request, reply) => {
    const merchant = merchantOf(request);
    const response = await payWithToken(app.gateway, merchant, request.params, request.body, () => request.meta(), request.bodyText);
    // Written here with the route's serializer (what Fastify would write), and kept with the
    // answer: an identical repeat answered from the recent answers gets the same object, and its
    // text is not written again (issue 17).
    let text = texts.get(response);
    if (text === undefined) {
      const serialize = reply.code(201).getSerializationFunction('201');
      if (serialize === undefined) return reply.code(201).send(response);
      text = serialize(response);
      texts.set(response, text);
    }
    return reply.code(201).type(JSON_TYPE).send(text);
  });
};

export default pay;
