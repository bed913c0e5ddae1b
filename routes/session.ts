// POST /api/rest/version/{18-100}/merchant/{merchantId}/session (Create Session), PUT and GET
// .../session/{sessionId} (Update and Retrieve Session): card fields held for a later token request or payment.
// Thin: schema → service → reply. Authenticate as merchant.<merchantId>, as for tokens.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { CreateSessionBody, SessionBody, SessionIdParams, SessionParams } from '../schemas/session.js';
import { documented, errorResponses } from '../schemas/responses.js';
import { createSession, retrieveSession, updateSession } from '../services/session/sessions.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';
import { checkVersion, SESSIONS } from '../schemas/versions.js';

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

const session: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'token', 'merchantId');
  // Create Session answers the same with a trailing slash (POST .../session/), and an empty body
  // (none at all, with or without a Content-Type) is taken as {}: some clients send nothing.
  const createSchema = {
    summary: 'Create Session',
    description: 'A session to hold card fields for a later Create or Update Token (session.id, session.version). The body is optional: none is taken as {}. A trailing slash (.../session/) is accepted.',
    tags: ['session'], security: [{ basicAuth: [] }],
    params: SessionParams, body: CreateSessionBody,
    response: { 201: documented(SessionResponse), ...errorResponses },
  };
  for (const url of ['/api/rest/version/:version/merchant/:merchantId/session', '/api/rest/version/:version/merchant/:merchantId/session/']) {
    app.post(url, {
      // The slash variant is the same operation: documented once.
      schema: url.endsWith('/') ? { ...createSchema, hide: true } : createSchema,
      preValidation: async (request) => {
        // No body at all (the content-type parser gives undefined for an empty one); JSON null stays refused.
        if (request.body === undefined) request.body = {};
      },
    }, async (request, reply) => {
      checkVersion(request.params.version, SESSIONS);
      return reply.code(201).send(await createSession(app.gateway, merchantOf(request), request.body, request.meta()));
    });
  }

  app.put('/api/rest/version/:version/merchant/:merchantId/session/:sessionId', {
    schema: {
      summary: 'Update Session',
      description: 'Stores card fields (sourceOfFunds.provided.card.*) and order.amount / order.currency in the session; its version changes.',
      tags: ['session'], security: [{ basicAuth: [] }],
      params: SessionIdParams, body: SessionBody,
      response: { 200: documented(SessionResponse), ...errorResponses },
    },
  }, async (request) => {
    checkVersion(request.params.version, SESSIONS);
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
