// Hosted Checkout's JSON for the gateway's payment page (/checkout/pay/{sessionId}, served apart):
// GET /checkout/api/{sessionId} (the checkout as the page shows it), POST .../pay (the payment:
// the card the hosted fields put into the session, or a stored token), POST .../acs-return (the
// ACS's form post after a 3-D Secure challenge: a 303 on to the merchant or back to the page; for
// the embedded page, to /checkout/entry/{sessionId}/return in the challenge's frame), POST
// .../cancel; and GET /pbl/{paymentLinkId}, a payment link's address (302 to its page, or to its
// errorUrl once used up or expired). No
// credentials, as on the real gateway: the session id the merchant handed the payer's browser is
// what the page holds. An unknown session is 404 with the gateway's error body; a request another
// site's page sends is refused (Sec-Fetch-Site), and nothing here is cached.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { errorBody } from '../plugins/errors.js';
import { AcsReturnQuery, CheckoutCancelBody, CheckoutParams, CheckoutPayBody, LinkParams } from '../schemas/checkout.js';
import { findCheckout, sessionOfLink } from '../services/session/checkout-lookup.js';
import { cancelCheckout, linkDestination, showCheckout } from '../services/session/checkout-page.js';
import { checkoutAcsReturn, payCheckout, type PayerContext } from '../services/session/checkout-payment.js';
import { fromElsewhere } from './hosted-session.js';
import { originOf } from './transactions.js';
import { noBodyAsEmpty } from './no-body.js';

const API = '/checkout/api/:sessionId';

const notFound = (reply: FastifyReply, what: string, field: string) => reply.code(404).header('cache-control', 'no-store')
  .send(errorBody('INVALID_REQUEST', { explanation: `Value is invalid. No such ${what}`, field, validationType: 'INVALID' }));

const refuseElsewhere = (request: FastifyRequest, reply: FastifyReply) => {
  if (!fromElsewhere(request)) return undefined;
  return reply.code(403).header('cache-control', 'no-store').send(errorBody('INVALID_REQUEST', { explanation: 'Only the gateway\'s own payment page acts on a checkout from a browser' }));
};

const payerOf = (request: FastifyRequest, embedded = false): PayerContext => {
  const agent = request.headers['user-agent'];
  return { origin: originOf(request), meta: request.meta(), embedded, ...(typeof agent === 'string' && agent !== '' ? { browser: agent } : {}) };
};

const checkout: FastifyPluginAsyncTypebox = async (app) => {
  app.get(API, { schema: { hide: true, summary: 'Hosted Checkout: the checkout as the payment page shows it', params: CheckoutParams } }, async (request, reply) => {
    const view = await showCheckout(app.gateway, request.params.sessionId, request.meta());
    if (!view) return notFound(reply, 'checkout session', 'sessionId');
    return reply.header('cache-control', 'no-store').send(view);
  });

  app.post(`${API}/pay`, {
    schema: { hide: true, summary: 'Hosted Checkout: pay', params: CheckoutParams, body: Type.Optional(CheckoutPayBody) },
  }, async (request, reply) => {
    if (refuseElsewhere(request, reply)) return reply;
    const next = await payCheckout(app.gateway, request.params.sessionId, request.body ?? {}, payerOf(request, request.body?.embedded === true));
    if (!next) return notFound(reply, 'checkout session', 'sessionId');
    return reply.header('cache-control', 'no-store').send(next);
  });

  app.post(`${API}/cancel`, {
    schema: { hide: true, summary: 'Hosted Checkout: the payer cancels', params: CheckoutParams, body: CheckoutCancelBody },
    // The page's cancel says nothing: no body is {}.
    preValidation: noBodyAsEmpty,
  }, async (request, reply) => {
    if (refuseElsewhere(request, reply)) return reply;
    const answer = await cancelCheckout(app.gateway, request.params.sessionId, request.meta());
    if (!answer) return notFound(reply, 'checkout session', 'sessionId');
    return reply.header('cache-control', 'no-store').send(answer);
  });

  // The ACS posts a form (order.id, transaction.id, result, ...): read from the checkout, not from it.
  await app.register(async (forms) => {
    forms.removeAllContentTypeParsers();
    forms.addContentTypeParser('*', { parseAs: 'string', bodyLimit: 16_384 }, (_request, _text, done) => done(null, {}));
    forms.post(`${API}/acs-return`, {
      schema: { hide: true, summary: 'Hosted Checkout: back from the 3-D Secure challenge', params: CheckoutParams, querystring: AcsReturnQuery },
    }, async (request, reply) => {
      const { sessionId } = request.params as { sessionId: string };
      const url = await checkoutAcsReturn(app.gateway, sessionId, payerOf(request));
      if (url === undefined) return notFound(reply, 'checkout session', 'sessionId');
      // The embedded page's challenge ends in its frame: a page there tells the embedded page, which tells the merchant's.
      const embedded = (request.query as { page?: string }).page === 'entry';
      const next = embedded ? `/checkout/entry/${encodeURIComponent(sessionId)}/return` : url;
      return reply.code(303).header('location', next).header('cache-control', 'no-store').send();
    });
  });

  app.get('/pbl/:paymentLinkId', { schema: { hide: true, summary: 'Hosted Checkout: a payment link', params: LinkParams } }, async (request, reply) => {
    const sessionId = sessionOfLink(request.params.paymentLinkId);
    const found = sessionId === undefined ? undefined : await findCheckout(app.gateway, sessionId);
    if (!found?.state.checkout.paymentLink) return notFound(reply, 'payment link', 'paymentLinkId');
    return reply.code(302).header('location', linkDestination(app.gateway, found)).header('cache-control', 'no-store').send();
  });
};

export default checkout;
