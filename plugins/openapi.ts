// The OpenAPI 3 document, generated from the route schemas (@fastify/swagger), served at
// /openapi.json with a browsable reference at /documentation (@fastify/swagger-ui, assets from
// the package: nothing is fetched from the network). Route schemas document; lib/json.ts
// serializes (every body with sorted keys, as the real gateway writes them).
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { sortedJson } from '../lib/json.js';
import { ErrorBody } from '../schemas/responses.js';

async function openapi(app: FastifyInstance) {
  app.addSchema(ErrorBody);
  app.setSerializerCompiler(() => (data) => sortedJson(data));
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'tokengate: Mastercard Gateway card-token API sandbox',
        version: '1.0.0',
        description: 'Pay with token (version 3) and Create or Update Token (version 100), with the real gateway\'s paths, authentication, fields and error bodies. Outcomes follow the test acquirer\'s rules (see the README).',
      },
      components: {
        securitySchemes: {
          basicAuth: { type: 'http', scheme: 'basic', description: 'Pay: blank user id and the API password. Create token: user merchant.<merchantId> and the API password.' },
          adminAuth: { type: 'http', scheme: 'basic', description: 'User admin, password ADMIN_PASSWORD' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });
  await app.register(swaggerUi, { routePrefix: '/documentation' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapi, { name: 'openapi', fastify: '5.x' });
