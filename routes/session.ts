// POST /api/rest/version/{18-100}/merchant/{merchantId}/session (Create Session), PUT and GET
// .../session/{sessionId} (Update and Retrieve Session): card fields held for a later token request or payment.
// Thin: schema → service → reply. Authenticate as merchant.<merchantId>, as for tokens.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest, FastifySchema } from 'fastify';
import type { Gateway } from '../services/gateway.js';
import { CreateSessionBody, SessionBody, SessionIdParams, SessionParams } from '../schemas/session.js';
import { documented, errorResponses } from '../schemas/responses.js';
import { operationSerializer } from '../plugins/openapi.js';
import { createSession, retrieveSession, updateSession } from '../services/session/sessions.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';
import { authenticateBySession, checkPayerData, presentsSession } from '../plugins/session-auth.js';
import { checkVersion, SESSIONS } from '../schemas/versions.js';
import { CheckoutBody } from '../schemas/checkout.js';
import { initiateCheckout, readIntegerDigits } from '../services/session/checkout-initiate.js';
import { originOf } from './transactions.js';
import { noBodyAsEmpty } from './no-body.js';

const SessionResponse = Type.Object({
  correlationId: Type.Optional(Type.String()),
  merchant: Type.String(),
  order: Type.Optional(Type.Object({ amount: Type.Optional(Type.String()), currency: Type.Optional(Type.String()) })),
  result: Type.String(),
  session: Type.Object({
    authenticationLimit: Type.Optional(Type.Integer()),
    id: Type.String({ description: '31 characters' }), updateStatus: Type.String(), version: Type.String({ description: '10 characters; changes on every update' }),
  }),
  sourceOfFunds: Type.Optional(Type.Unknown()),
  version: Type.Optional(Type.String({ description: 'the API version of the request' })),
}, { description: 'The session, card number masked, security code shown as xxx' });

const CheckoutResponse = Type.Object({
  checkoutMode: Type.Optional(Type.String()),
  correlationId: Type.Optional(Type.String()),
  merchant: Type.String(),
  paymentLink: Type.Optional(Type.Object({ expiryDateTime: Type.String(), id: Type.String(), numberOfAllowedAttempts: Type.Integer(), url: Type.String() })),
  result: Type.String(),
  session: Type.Optional(Type.Object({ id: Type.String(), updateStatus: Type.String(), version: Type.String() })),
  successIndicator: Type.String({ description: '16 hexadecimal characters: the payer comes back with resultIndicator equal to it when the payment succeeded' }),
}, { description: 'Initiate Checkout (Create Checkout Session): the checkout session, and the successIndicator' });

/** The body as its apiOperation reads it: none, Create Session; INITIATE_CHECKOUT or CREATE_CHECKOUT_SESSION, a checkout. */
const isCheckout = (body: unknown): body is { apiOperation: unknown } => body !== null && typeof body === 'object' && 'apiOperation' in body;
/** The schema the body is read with: the request values' walk (plugins/request-values.ts) and the check below. */
const bodySchemaOf = (body: unknown) => (isCheckout(body) ? CheckoutBody : CreateSessionBody);

/**
 * Create Session, or Initiate Checkout when the body names its apiOperation: the body checked
 * against that operation's schema (the route's own check of it was attached, not thrown).
 */
async function createOrInitiate(gateway: Gateway, request: FastifyRequest): Promise<{ checkout: boolean; answer: unknown }> {
  const { version } = request.params as { version: string };
  const refused = request.validationError as (Error & { validationContext?: string }) | undefined;
  if (refused && refused.validationContext !== 'body') throw refused;
  checkVersion(version, SESSIONS);
  const checkout = isCheckout(request.body);
  if (checkout) readIntegerDigits(request);
  const validate = request.compileValidationSchema(bodySchemaOf(request.body));
  if (!validate(request.body)) throw Object.assign(new Error('body'), { validation: validate.errors, validationContext: 'body' });
  if (checkout) return { checkout, answer: await initiateCheckout(gateway, merchantOf(request), version, request.body as CheckoutBody, request.meta(), originOf(request)) };
  return { checkout, answer: await createSession(gateway, merchantOf(request), request.body as CreateSessionBody, request.meta()) };
}

const CREATE = '/api/rest/version/:version/merchant/:merchantId/session';

// Create Session answers the same with a trailing slash (POST .../session/), and an empty body
// (none at all, with or without a Content-Type) is taken as {}: some clients send nothing.
const createSchema = {
  summary: 'Create Session',
  description: 'A session to hold card fields for a later Create or Update Token (session.id, session.version). The body is optional: none is taken as {}. A trailing slash (.../session/) is accepted. With apiOperation INITIATE_CHECKOUT (CREATE_CHECKOUT_SESSION before version 63), Initiate Checkout: a session for the gateway\'s payment page, answered with its successIndicator.',
  tags: ['session'], security: [{ basicAuth: [] }],
  params: SessionParams,
  // With apiOperation INITIATE_CHECKOUT or CREATE_CHECKOUT_SESSION, the body is Initiate Checkout's (checked in the handler).
  body: Type.Union([CreateSessionBody, CheckoutBody]),
  response: { 201: documented(SessionResponse), ...errorResponses },
};
// The API reference shows both answers.
const bothAnswers = documented(Type.Union([SessionResponse, CheckoutResponse]));
const withBothAnswers = ({ schema, url }: { schema: FastifySchema; url: string }) => ({ schema: { ...schema, response: { ...(schema.response as object), 201: bothAnswers } }, url });

const session: FastifyPluginAsyncTypebox = async (app) => {
  // Update Session may also be authenticated by the session itself (the mobile SDKs): checked once its body is read.
  await requireMerchant(app, app.gateway.merchants, 'token', 'merchantId', presentsSession);
  // Both operations answer 201, each with its own schema: the route's 201 is Create Session's (as
  // it was before Initiate Checkout shared the path), Initiate Checkout's is written by its own.
  const writeCheckout = operationSerializer(app, `POST ${CREATE} 201 INITIATE_CHECKOUT`, documented(CheckoutResponse));
  for (const url of [CREATE, `${CREATE}/`]) {
    app.post(url, {
      // The slash variant is the same operation: documented once.
      schema: url.endsWith('/') ? { ...createSchema, hide: true } : createSchema,
      // A member sent as null counts as not sent (plugins/request-values.ts), as on Update Session.
      config: {
        bodySchemaOf,
        nullAsNotSent: true,
        swaggerTransform: withBothAnswers,
      },
      // The body is checked against the schema its apiOperation names, in the handler: one schema's
      // refusal, not the union's (the union is what the OpenAPI document shows).
      attachValidation: true,
      preValidation: noBodyAsEmpty,
    }, async (request, reply) => {
      const { checkout, answer } = await createOrInitiate(app.gateway, request);
      if (!checkout) return reply.code(201).send(answer);
      return reply.code(201).type('application/json; charset=utf-8').send(writeCheckout(answer));
    });
  }

  app.put('/api/rest/version/:version/merchant/:merchantId/session/:sessionId', {
    schema: {
      summary: 'Update Session',
      description: 'Stores card fields (sourceOfFunds.provided.card.*) and order.amount / order.currency in the session; its version changes. Authenticate as merchant.<merchantId> with the API password, or (the payer\'s data only) with the session id as the password from version 50, or with no credentials and apiOperation UPDATE_PAYER_DATA before 50.',
      tags: ['session'], security: [{ basicAuth: [] }],
      params: SessionIdParams, body: SessionBody,
      response: { 200: documented(SessionResponse), ...errorResponses },
    },
    // A member sent as null counts as not sent (plugins/request-values.ts), as on the order API.
    config: { nullAsNotSent: true },
    preValidation: async (request) => authenticateBySession(app.gateway, request),
  }, async (request) => {
    checkVersion(request.params.version, SESSIONS);
    if (request.authMethod === 'session') checkPayerData(request.body);
    return updateSession(app.gateway, merchantOf(request), request.params.sessionId, request.body, request.meta(), request.params.version);
  });

  app.get('/api/rest/version/:version/merchant/:merchantId/session/:sessionId', {
    schema: {
      summary: 'Retrieve Session',
      description: 'What the session holds: card number masked, security code shown as xxx, order amount and currency. An expired session is unknown.',
      tags: ['session'], security: [{ basicAuth: [] }],
      params: SessionIdParams,
      response: { 200: documented(SessionResponse), ...errorResponses },
    },
  }, async (request) => {
    checkVersion(request.params.version, SESSIONS);
    return retrieveSession(app.gateway, merchantOf(request), request.params.sessionId, request.params.version);
  });
};

export default session;
