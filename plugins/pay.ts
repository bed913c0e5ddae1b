// PUT /api/rest/version/3/merchant/{merchantid}/token/{tokenid}/order/{orderid}/transaction/{transactionid}
// (spec: "Pay with token"). Thin: schema → service → 201.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { PayBody, PayParams } from '../schemas/pay.js';
import { payWithToken } from '../services/payments.js';
import { requireMerchant } from './auth.js';

const pay: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'pay', 'merchantid');
  app.put('/api/rest/version/3/merchant/:merchantid/token/:tokenid/order/:orderid/transaction/:transactionid', {
    schema: { params: PayParams, body: PayBody },
  }, async (request, reply) => {
    const merchant = request.merchant;
    if (!merchant) throw new Error('authenticated route without a merchant');
    const response = await payWithToken(app.gateway, merchant, request.params, request.body, request.meta());
    return reply.code(201).send(response);
  });
};

export default pay;
