// Check Gateway (GET /api/rest/version/{version}/information), as the real gateway has it: no
// authentication, and whether the gateway can process requests. `status` is OPERATING, or
// SHUTDOWN while a store cannot write: until a restart after a failed sync or checkpoint, an I/O
// error, a read-only or corrupt file (store/storage-fault.ts); until a write succeeds again after
// a full disk; while PostgreSQL cannot be reached (store/postgres/health.ts: from the first
// connection error to the first statement that succeeds after it); and once closing. Meanwhile
// writes are refused with 503 SERVER_BUSY (and, PostgreSQL away, reads too). Containers and CI can
// use it as a health check. Answered from what the stores last saw: no query of its own.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { VERSION } from '../lib/version.js';
import { Pattern, StringEnum } from '../schemas/common.js';
import { errorResponses } from '../schemas/responses.js';

/** gatewayVersion: ASCII, 5-32 characters. */
export const GATEWAY_VERSION = `tokengate-${VERSION}`;

const Params = Type.Object({
  version: Pattern(1, 3, '^([1-9][0-9]?|100)$', 'an API version from 1 to 100'),
}, { additionalProperties: false });

export const Information = Type.Object({
  gatewayVersion: Type.String({ description: 'the version of tokengate' }),
  status: StringEnum(['OPERATING', 'SHUTDOWN'] as const, 'OPERATING: requests are processed; SHUTDOWN: a store cannot write (until a restart; a full disk: until a write succeeds again) or PostgreSQL cannot be reached (until it answers again), writes are refused with 503 SERVER_BUSY'),
});

const information: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/api/rest/version/:version/information', {
    schema: {
      summary: 'Check Gateway',
      description: 'Whether the gateway is processing requests. No authentication.',
      tags: ['gateway'],
      params: Params,
      response: { 200: Information, ...errorResponses },
    },
  }, async () => ({ gatewayVersion: GATEWAY_VERSION, status: app.gateway.status() }));
};

export default information;
