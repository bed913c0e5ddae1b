// Retrieve Order and Retrieve Transaction (version 3, the pay operation's authentication: blank
// user id or merchant.<merchantId>, and the API password). Answered from the order's events.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { PayParams } from '../schemas/pay.js';
import { documented, errorResponses, PayResponse } from '../schemas/responses.js';
import { retrieveOrder, retrieveTransaction } from '../services/queries/retrieval.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';

const OrderParams = Type.Pick(PayParams, ['merchantid', 'orderid'], { additionalProperties: false });
const TransactionParams = Type.Pick(PayParams, ['merchantid', 'orderid', 'transactionid'], { additionalProperties: false });

const orders: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'pay', 'merchantid');
  app.get('/api/rest/version/3/merchant/:merchantid/order/:orderid', {
    schema: {
      summary: 'Retrieve Order',
      description: 'The order, its totals and every transaction with its final outcome.',
      tags: ['pay'],
      security: [{ basicAuth: [] }],
      params: OrderParams,
      response: { 200: documented(Type.Object({ transaction: Type.Array(PayResponse) }, { additionalProperties: true })), ...errorResponses },
    },
  }, async (request) => {
    return retrieveOrder(app.gateway, merchantOf(request), request.params.orderid);
  });
  app.get('/api/rest/version/3/merchant/:merchantid/order/:orderid/transaction/:transactionid', {
    schema: {
      summary: 'Retrieve Transaction',
      description: 'A transaction as recorded; a payment answered UNKNOWN shows its final outcome once resolved.',
      tags: ['pay'],
      security: [{ basicAuth: [] }],
      params: TransactionParams,
      response: { 200: documented(PayResponse), ...errorResponses },
    },
  }, async (request) => {
    return retrieveTransaction(app.gateway, merchantOf(request), request.params.orderid, request.params.transactionid);
  });
};

export default orders;
