// PUT /api/rest/version/3/merchant/{merchantid}/token/{tokenid}/order/{orderid}/transaction/{transactionid}
// (spec: "Pay with token"). Thin: schema → the order's command (services/order) → 201.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PayBody, PayParams } from '../schemas/pay.js';
import { documented, errorResponses, PayResponse } from '../schemas/responses.js';
import { handleOrderCommand } from '../services/order/order-service.js';
import { payRequest } from '../services/order/pay-request.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';

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
    const answer = await handleOrderCommand(app.gateway, await payRequest(app.gateway, merchantOf(request), request.params, request.body), request.meta());
    return reply.code(201).send(answer);
  });
};

export default pay;
