// POST /api/rest/version/100/merchant/{merchantId}/token
// (spec: "Create or Update Token (system-generated token)"). Thin: schema → service → 201.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TokenBody, TokenParams } from '../schemas/token.js';
import { documented, errorResponses, TokenResponse } from '../schemas/responses.js';
import { createToken } from '../services/tokens.js';
import { requireMerchant } from './auth.js';

const token: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'token', 'merchantId');
  app.post('/api/rest/version/100/merchant/:merchantId/token', {
    schema: {
      summary: 'Create or Update Token (system-generated token)',
      description: 'Stores a payment instrument against a token id the gateway generates. Authenticate as merchant.<merchantId> with the API password.',
      tags: ['token'],
      security: [{ basicAuth: [] }],
      params: TokenParams,
      body: TokenBody,
      response: { 201: documented(TokenResponse), ...errorResponses },
    },
  }, async (request, reply) => {
    const merchant = request.merchant;
    if (!merchant) throw new Error('authenticated route without a merchant');
    const response = await createToken(app.gateway, merchant, request.body, request.meta());
    return reply.code(201).send(response);
  });
};

export default token;
