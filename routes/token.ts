// POST /api/rest/version/{1-100}/merchant/{merchantId}/token
// (spec: "Create or Update Token (system-generated token)"), PUT .../token/{tokenid} (Tokenize:
// Create or Update Token with the merchant's token id), GET .../token/{tokenid} (Retrieve Token)
// and DELETE (Delete Token). Thin: schema → service → reply.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { RetrieveTokenParams, TokenBody, TokenizeParams, TokenParams } from '../schemas/token.js';
import { documented, errorResponses, TokenResponse } from '../schemas/responses.js';
import { Type } from '@sinclair/typebox';
import { createToken, deleteToken, tokenize } from '../services/token/tokens.js';
import { retrieveToken } from '../services/queries/retrieval.js';
import { merchantOf, requireMerchant } from '../plugins/auth.js';
import { checkVersion } from '../schemas/versions.js';

type TokenApp = Parameters<FastifyPluginAsyncTypebox>[0];

const CREATE_TOKEN = '/api/rest/version/:version/merchant/:merchantId/token';

/** Create or Update Token: with a generated token id (POST), or the one in the path (PUT). */
function writes(app: TokenApp): void {
  // A trailing slash (.../token/) is the same operation, documented once: Mastercard's Magento
  // module has created its tokens on that path since 2016.
  for (const url of [CREATE_TOKEN, `${CREATE_TOKEN}/`]) {
    app.post(url, {
      schema: {
        ...(url.endsWith('/') ? { hide: true } : {}),
        summary: 'Create or Update Token (system-generated token)',
        description: 'Stores a payment instrument against a token id the gateway generates. Authenticate as merchant.<merchantId> with the API password.',
        tags: ['token'],
        security: [{ basicAuth: [] }],
        params: TokenParams,
        body: TokenBody,
        response: { 201: documented(TokenResponse), ...errorResponses },
      },
    }, async (request, reply) => {
      const merchant = merchantOf(request);
      checkVersion(request.params.version);
      const response = await createToken(app.gateway, merchant, request.body, request.meta(), request.authMethod);
      return reply.code(201).send(response);
    });
  }

  app.put('/api/rest/version/:version/merchant/:merchantId/token/:tokenid', {
    schema: {
      summary: 'Create or Update Token (Tokenize)',
      description: 'Stores a payment instrument against the token id in the path: creates the token in a repository with merchant-supplied token ids (MERCHANT_SUPPLIED), updates an existing token in any repository ' +
        "(the id 'generated' asks a repository that generates its ids for a new one). The body and the answer are Create or Update Token's; an identical repeat changes nothing. " +
        'Authenticate as merchant.<merchantId> with the API password.',
      tags: ['token'],
      security: [{ basicAuth: [] }],
      params: TokenizeParams,
      body: TokenBody,
      response: { 201: documented(TokenResponse), ...errorResponses },
    },
  }, async (request, reply) => {
    const merchant = merchantOf(request);
    checkVersion(request.params.version);
    const response = await tokenize(app.gateway, merchant, request.params.tokenid, request.body, request.meta(), request.authMethod);
    return reply.code(201).send(response);
  });
}

/** Retrieve Token and Delete Token. */
function readAndDelete(app: TokenApp): void {
  app.get('/api/rest/version/:version/merchant/:merchantId/token/:tokenid', {
    schema: {
      summary: 'Retrieve Token',
      description: 'The stored token, card number masked. Authenticate as merchant.<merchantId> with the API password.',
      tags: ['token'],
      security: [{ basicAuth: [] }],
      params: RetrieveTokenParams,
      response: { 200: documented(TokenResponse), ...errorResponses },
    },
  }, async (request) => {
    const merchant = merchantOf(request);
    checkVersion(request.params.version);
    return retrieveToken(app.gateway, merchant, request.params.tokenid);
  });

  app.delete('/api/rest/version/:version/merchant/:merchantId/token/:tokenid', {
    schema: {
      summary: 'Delete Token',
      description: 'Deletes the token: it can no longer pay or be retrieved, and its card number is forgotten for good (its key is destroyed). Its history stays, masked.',
      tags: ['token'],
      security: [{ basicAuth: [] }],
      params: RetrieveTokenParams,
      response: { 200: documented(Type.Object({ result: Type.Literal('SUCCESS') })), ...errorResponses },
    },
  }, async (request) => {
    const merchant = merchantOf(request);
    checkVersion(request.params.version);
    return deleteToken(app.gateway, merchant, request.params.tokenid, request.meta());
  });
}

const token: FastifyPluginAsyncTypebox = async (app) => {
  await requireMerchant(app, app.gateway.merchants, 'token', 'merchantId');
  writes(app);
  readAndDelete(app);
};

export default token;
