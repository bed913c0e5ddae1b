// The order API of versions 50-100 (issue 15): PUT .../order/{orderId}/transaction/{transactionId}
// with apiOperation PAY, AUTHORIZE, CAPTURE, REFUND, VOID or VERIFY; Retrieve Transaction; Retrieve
// Order. Basic `merchant.<merchantId>` with the API password, or a client certificate. Thin:
// schema → service → reply. The version 3 paths (routes/pay.ts, routes/orders.ts) are apart.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { documented, errorResponses } from '../schemas/responses.js';
import { OrderApiParams, TransactionApiParams, TransactionBody } from '../schemas/transaction.js';
import { orderTransaction, retrieveOrderApi, retrieveOrderTransaction } from '../services/order/order-transactions.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';
import { requestedNotificationUrl } from '../services/notification/body.js';

const PATH = '/api/rest/version/:version/merchant/:merchantId/order/:orderId';
const Answer = Type.Object({}, { additionalProperties: true, description: 'The transaction as recorded (see docs/operations.md, "Order API")' });

const transactions: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'token', 'merchantId');
  app.put(`${PATH}/transaction/:transactionId`, {
    schema: {
      summary: 'Pay, Authorize, Capture, Refund, Void or Verify (versions 50-100)',
      description: 'One transaction on the order, chosen by apiOperation; an identical repeat returns the recorded outcome. Authenticate as merchant.<merchantId> with the API password.',
      tags: ['order'],
      security: [{ basicAuth: [] }],
      params: TransactionApiParams,
      body: TransactionBody,
      response: { 201: documented(Answer), ...errorResponses },
    },
  }, async (request, reply) => {
    const merchant = merchantOf(request);
    // The URL is kept in the events' metadata; the API version names the notifications' shape.
    const notificationUrl = request.body.order?.notificationUrl;
    const meta = {
      ...request.meta(), apiVersion: Number(request.params.version),
      ...(notificationUrl !== undefined ? { notificationUrl: requestedNotificationUrl(merchant, notificationUrl) } : {}),
    };
    const response = await orderTransaction(app.gateway, merchant, request.params, request.body, meta);
    return reply.code(201).send(response);
  });

  app.get(`${PATH}/transaction/:transactionId`, {
    schema: {
      summary: 'Retrieve Transaction (versions 50-100)',
      description: 'The transaction as recorded.',
      tags: ['order'],
      security: [{ basicAuth: [] }],
      params: TransactionApiParams,
      response: { 200: documented(Answer), ...errorResponses },
    },
  }, async (request) => retrieveOrderTransaction(app.gateway, merchantOf(request), request.params));

  app.get(PATH, {
    schema: {
      summary: 'Retrieve Order (versions 50-100)',
      description: 'The order, its totals and every transaction.',
      tags: ['order'],
      security: [{ basicAuth: [] }],
      params: OrderApiParams,
      response: { 200: documented(Answer), ...errorResponses },
    },
  }, async (request) => retrieveOrderApi(app.gateway, merchantOf(request), request.params));
};

export default transactions;
