// The order API (versions 1-100, schemas/versions.ts): PUT .../order/{orderId}/transaction/{transactionId}
// with apiOperation PAY, AUTHORIZE, CAPTURE, REFUND, VOID or VERIFY; Retrieve Transaction; Retrieve
// Order. Basic `merchant.<merchantId>` with the API password (on version 1 a blank user id too), or
// a client certificate. Thin: schema → the order's command or a retrieval (services/order) →
// reply. The version 3 paths of Pay with token (routes/pay.ts, routes/orders.ts) are apart.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { documented, errorResponses } from '../schemas/responses.js';
import { OrderApiParams, TransactionApiParams, TransactionBody } from '../schemas/transaction.js';
import { DEFAULT_ORIGIN, orderApiRequest, readExpiryMonthNumber, retrieveOrderApi, retrieveOrderTransaction } from '../services/order/order-api.js';
import { handleOrderCommand } from '../services/order/order-service.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';
import { requestedNotificationUrl } from '../services/notification/body.js';
import { checkVersion, RETRIEVE_ORDER } from '../schemas/versions.js';
import type { MerchantProfile } from '../merchants.js';
import type { RequestMeta } from '../services/context.js';
import { InvalidRequest } from '../domain/errors.js';

const PATH = '/api/rest/version/:version/merchant/:merchantId/order/:orderId';
const Answer = Type.Object({}, { additionalProperties: true, description: 'The transaction as recorded (see docs/operations.md, "Order API")' });

const transactions: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'order', 'merchantId');
  app.put(`${PATH}/transaction/:transactionId`, {
    schema: {
      summary: 'Pay, Authorize, Capture, Refund, Void, Verify (versions 1-100), Initiate Authentication or Authenticate Payer (50-100)',
      description: 'One transaction on the order, chosen by apiOperation (3-D Secure: INITIATE_AUTHENTICATION, AUTHENTICATE_PAYER); an identical repeat returns the recorded outcome. Authenticate as merchant.<merchantId> with the API password.',
      tags: ['order'],
      security: [{ basicAuth: [] }],
      params: TransactionApiParams,
      body: TransactionBody,
      response: { 201: documented(Answer), ...errorResponses },
    },
    // A member sent as null counts as not sent (plugins/request-values.ts).
    config: { nullAsNotSent: true },
    // The card's expiry month as a JSON integer, as Omnipay's drivers send it, is read as its digits.
    preValidation: (request, _reply, done) => { readExpiryMonthNumber(request); done(); },
  }, async (request, reply) => {
    const merchant = merchantOf(request);
    checkVersion(request.params.version, request.body.apiOperation);
    const meta = transactionMeta(merchant, request.meta(), request.params.version, request.body);
    const response = await handleOrderCommand(app.gateway, await orderApiRequest(app.gateway, merchant, request.params, request.body, originOf(request)), meta);
    return reply.code(201).send(response);
  });

  app.get(`${PATH}/transaction/:transactionId`, {
    schema: {
      summary: 'Retrieve Transaction (versions 1-100)',
      description: 'The transaction as recorded.',
      tags: ['order'],
      security: [{ basicAuth: [] }],
      params: TransactionApiParams,
      response: { 200: documented(Answer), ...errorResponses },
    },
  }, async (request) => {
    checkVersion(request.params.version);
    return retrieveOrderTransaction(app.gateway, merchantOf(request), request.params, originOf(request));
  });

  app.get(PATH, {
    schema: {
      summary: 'Retrieve Order (versions 11-100)',
      description: 'The order, its totals and every transaction.',
      tags: ['order'],
      security: [{ basicAuth: [] }],
      params: OrderApiParams,
      response: { 200: documented(Answer), ...errorResponses },
    },
  }, async (request) => {
    checkVersion(request.params.version, RETRIEVE_ORDER);
    return retrieveOrderApi(app.gateway, merchantOf(request), request.params, originOf(request));
  });
};

/** A host name or address with an optional port: what a Host header must be to be written into HTML. */
const HOST = /^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$/;

/** The gateway's address as the client reached it (3-D Secure's pages are named under it). */
export function originOf(request: FastifyRequest): string {
  const host = request.host;
  return HOST.test(host) ? `${request.protocol}://${host}` : DEFAULT_ORIGIN;
}

/**
 * A transaction's event metadata: the API version names its notifications' shape; order.notificationUrl
 * (if allowed) where they go. An authentication's notifications go where its Initiate
 * Authentication said: Authenticate Payer does not take the field.
 */
export function transactionMeta(
  merchant: MerchantProfile, meta: RequestMeta, version: string, body: { apiOperation?: string; order?: { notificationUrl?: string } },
): RequestMeta {
  const notificationUrl = body.order?.notificationUrl;
  if (notificationUrl !== undefined && body.apiOperation === 'AUTHENTICATE_PAYER') {
    throw new InvalidRequest('Value is invalid. AUTHENTICATE_PAYER does not take order.notificationUrl: send it with INITIATE_AUTHENTICATION', 'order.notificationUrl', 'UNSUPPORTED');
  }
  return {
    ...meta, apiVersion: Number(version),
    ...(notificationUrl !== undefined ? { notificationUrl: requestedNotificationUrl(merchant, notificationUrl) } : {}),
  };
}

export default transactions;
