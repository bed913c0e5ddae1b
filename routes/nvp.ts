// The gateway's NVP protocol (name-value pairs), the older integrations' and the sample code's:
// `POST /api/nvp/version/{version}`, a form of dotted fields (`apiOperation=PAY&merchant=...&
// order.id=...&transaction.id=...&sourceOfFunds.token=...`), credentials in `apiUsername` /
// `apiPassword` (or Basic, or a client certificate: plugins/nvp-auth.ts), the answer the same
// pairs (`result=SUCCESS&...`; an error `result=ERROR&error.cause=...&error.explanation=...`).
// One operation layer, two wire formats: each apiOperation is the REST operation of the same name
// (routes/nvp-operations.ts: its schemas, version rule, service call and answer), its path
// parameters taken from fields (`order.id` is {orderId}); only the decoding and encoding are
// NVP's. Also Check Gateway: `GET|POST /api/nvp/version/{version}/information`, no credentials.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import { InvalidRequest } from '../domain/errors.js';
import { encodeNvp, flatten, nested, NvpShapeError, parseForm, typedBySchema, type NvpFields } from '../lib/nvp.js';
import { errorBody, fromValidation, renderError, type ErrorWriter } from '../plugins/errors.js';
import { authenticateNvp } from '../plugins/nvp-auth.js';
import { valuesProblem } from '../plugins/request-values.js';
import { Pattern, Strict } from '../schemas/common.js';
import { NVP_MEDIA_TYPE, NvpAnswer, nvpErrorResponses, nvpRequestForm } from '../schemas/nvp.js';
import { checkVersion, VersionParam } from '../schemas/versions.js';
import { originOf } from './transactions.js';
import { GATEWAY_VERSION, Information } from './information.js';
import { NVP_FIELD_OF_PARAM, NVP_OPERATIONS, TOKENIZE_GENERATED, type NvpOperation } from './nvp-operations.js';

/** The answer's type: the pairs are a form, as the request's. */
const NVP_TYPE = 'application/x-www-form-urlencoded; charset=utf-8';
/** Fields of every NVP request that are not the operation's own. */
const PROTOCOL_FIELDS = ['apiOperation', 'apiUsername', 'apiPassword', 'merchant'];

/**
 * The route in the API reference only (@fastify/swagger's per-route transform): its form and its
 * answers. The route reads the form itself, so Fastify is given no body schema to validate with,
 * and it writes its answers as text, so no response schema to serialize with.
 */
const documented = (extra: FastifySchema) => ({
  swaggerTransform: ({ schema, url }: { schema: FastifySchema; url: string }) => ({ schema: { ...schema, ...extra }, url }),
});

const answer = (reply: FastifyReply, status: number, value: unknown) => reply.code(status).type(NVP_TYPE).send(encodeNvp(flatten(value)));

/** Errors as pairs; a REST path parameter named as the NVP field it is (orderId is order.id). */
const writeNvp: ErrorWriter = (reply, status, body) => {
  const field = body.error.field;
  return answer(reply, status, field !== undefined && Object.hasOwn(NVP_FIELD_OF_PARAM, field) ? errorBody(body.error.cause, { ...body.error, field: NVP_FIELD_OF_PARAM[field] }) : body);
};

function operationOf(fields: NvpFields): NvpOperation {
  const name = fields.apiOperation;
  if (name === undefined) throw new InvalidRequest('Missing parameter', 'apiOperation', 'MISSING');
  if (name === 'TOKENIZE' && fields.token === undefined) return TOKENIZE_GENERATED;
  if (!Object.hasOwn(NVP_OPERATIONS, name)) {
    throw new InvalidRequest(`Value '${name.slice(0, 40)}' is invalid. Expected one of ${Object.keys(NVP_OPERATIONS).join(', ')}`, 'apiOperation');
  }
  return NVP_OPERATIONS[name]!;
}

/** The value checked by the schema as REST checks it (the same compiled validator), or its 400. */
function validated(request: FastifyRequest, schema: TSchema, value: unknown, context: 'params' | 'body'): void {
  const validate = request.compileValidationSchema(schema);
  if (!validate(value)) {
    const first = validate.errors?.[0];
    if (first) throw fromValidation(first as unknown as Parameters<typeof fromValidation>[0], context, value);
  }
}

/** The operation's REST parameters and body, from the fields (not yet checked). */
function decode(fields: NvpFields, operation: NvpOperation, version: string, merchantId: string) {
  const params: Record<string, string> = { version, merchantId };
  const rest: NvpFields = { ...fields };
  for (const name of PROTOCOL_FIELDS) if (name !== 'apiOperation' || !operation.keepsApiOperation) delete rest[name];
  for (const [field, param] of Object.entries(operation.params)) {
    if (rest[field] !== undefined) params[param] = rest[field];
    delete rest[field];
  }
  return { params, body: typedBySchema(operation.bodySchema, nested(rest)) };
}

/**
 * The operation's REST parameters and body, checked as REST's are: the request values
 * (plugins/request-values.ts: the same rules, on the decoded members), then the schemas.
 */
function checkedCall(request: FastifyRequest, fields: NvpFields, operation: NvpOperation, version: string, merchantId: string) {
  let decoded: ReturnType<typeof decode>;
  try {
    decoded = decode(fields, operation, version, merchantId);
  } catch (error) {
    if (error instanceof NvpShapeError) throw new InvalidRequest(error.message, error.field, error.validationType);
    throw error;
  }
  const problem = valuesProblem(decoded.params, undefined, decoded.body, operation.bodySchema);
  if (problem) throw problem;
  validated(request, operation.paramsSchema, decoded.params, 'params');
  validated(request, operation.bodySchema, decoded.body, 'body');
  return decoded;
}

/** Bodies here are forms whatever the Content-Type says (as REST's are JSON); errors are pairs. */
function formsAndPairs(app: FastifyInstance) {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, text, done) => {
    if (request.is404) return done(null, undefined);
    try {
      done(null, parseForm(String(text)));
    } catch (error) {
      if (!(error instanceof NvpShapeError)) throw error;
      done(new InvalidRequest(error.message, error.field, error.validationType), undefined);
    }
  });
  app.setErrorHandler((error, request, reply) => renderError(error as Error, request, reply, writeNvp));
}

const nvp: FastifyPluginAsync = async (app) => {
  formsAndPairs(app);

  app.post('/api/nvp/version/:version', {
    schema: {
      summary: 'NVP: every operation, chosen by apiOperation',
      description: 'A form of dotted fields (apiOperation, merchant, apiUsername merchant.<merchantId>, apiPassword, order.id, ...; list items numbered from 0: interaction.tokens[0], ...); the answer is the same pairs. See docs/operations.md, "NVP".',
      tags: ['nvp'],
      params: Strict({ version: VersionParam }),
    },
    config: {
      // The request values are checked on the body the handler decodes, not on the form's names.
      decodesBody: true,
      ...documented({
        consumes: [NVP_MEDIA_TYPE], produces: [NVP_MEDIA_TYPE],
        body: nvpRequestForm([...Object.keys(NVP_OPERATIONS)]),
        response: {
          201: { ...NvpAnswer, description: 'A transaction (PAY, AUTHORIZE, CAPTURE, REFUND, VOID, VERIFY), CREATE_SESSION, INITIATE_CHECKOUT (CREATE_CHECKOUT_SESSION) or TOKENIZE: the REST answer as pairs' },
          200: { ...NvpAnswer, description: 'RETRIEVE_ORDER, RETRIEVE_TRANSACTION, UPDATE_SESSION, RETRIEVE_SESSION, RETRIEVE_TOKEN or DELETE_TOKEN: the REST answer as pairs' },
          ...nvpErrorResponses(),
        },
      }),
    },
  }, async (request, reply) => {
    const fields = (request.body ?? {}) as NvpFields;
    const { version } = request.params as { version: string };
    const merchant = authenticateNvp(request, app.gateway.merchants, app.authFailures, fields);
    const operation = operationOf(fields);
    // The fields are decoded and checked only now: credentials first, as on every operation.
    const decoded = checkedCall(request, fields, operation, version, merchant.id);
    checkVersion(version, operation.versionRule);
    const result = await operation.run({ gateway: app.gateway, merchant, ...decoded, meta: request.meta(), authMethod: request.authMethod, origin: originOf(request) });
    return answer(reply, operation.status, result);
  });

  for (const method of ['GET', 'POST'] as const) {
    app.route({
      method, url: '/api/nvp/version/:version/information',
      schema: {
        summary: 'NVP: Check Gateway', tags: ['nvp'], hide: method === 'POST',
        params: Strict({ version: Pattern(1, 3, '^([1-9][0-9]?|100)$', 'an API version from 1 to 100') }),
      },
      config: documented({
        description: "Whether the gateway is processing requests, as pairs (REST's Check Gateway). No credentials; POST answers the same.",
        produces: [NVP_MEDIA_TYPE],
        response: { 200: { ...Information, description: 'gatewayVersion and status as pairs' }, 400: nvpErrorResponses()[400]! },
      }),
      handler: async (_request, reply) => answer(reply, 200, { gatewayVersion: GATEWAY_VERSION, status: app.gateway.status() }),
    });
  }
};

export default nvp;
