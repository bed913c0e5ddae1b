// The OpenAPI document, generated from the route schemas (@fastify/swagger), served at
// /openapi.json with a browsable reference at /documentation (@fastify/swagger-ui, assets from
// the package: nothing is fetched from the network). Route response schemas also serialize: each
// is compiled with fast-json-stringify, its properties sorted (every body with sorted keys, as
// the real gateway writes them), when that writes exactly what lib/json.ts sortedJson writes.
import type { FastifyInstance, preSerializationHookHandler, RouteOptions } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import fastJsonStringify from 'fast-json-stringify';
import { sortedJson } from '../lib/json.js';
import { NvpErrorAnswer } from '../schemas/nvp.js';
import { ErrorBody } from '../schemas/responses.js';
import { VERSION } from '../lib/version.js';
import { DESCRIPTION, finishDocument, tagAdminRoute, TAGS } from './openapi-document.js';

type JsonSchema = Record<string, unknown>;
export type Serializer = (data: unknown) => string;

/** A schema construct the compiled serializer cannot render exactly like sortedJson. */
class Unrenderable extends Error {}

const isSchema = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A string const, an enum of strings, or a string: whatever the value, written as sortedJson writes a string. */
function isStringChoice(schema: JsonSchema): boolean {
  if (schema.const !== undefined) return typeof schema.const === 'string' && (schema.type === undefined || schema.type === 'string');
  if (Array.isArray(schema.enum)) return schema.enum.every((v) => typeof v === 'string') && (schema.type === undefined || schema.type === 'string');
  return schema.type === 'string' && Object.keys(schema).every((k) => !['anyOf', 'oneOf', 'allOf', 'not', 'if'].includes(k));
}

const UNSUPPORTED = ['allOf', 'not', 'if', 'then', 'else', 'patternProperties', 'dependencies', 'dependentSchemas', 'prefixItems', 'additionalItems', 'contains', 'propertyNames', 'unevaluatedProperties'];

/**
 * The schema reduced to what fast-json-stringify needs to write a value exactly as sortedJson does:
 * object properties in alphabetical order and all optional (a `required` member would be written
 * first), no const or enum (fast-json-stringify writes the constant whatever the value), every
 * value nullable (null is written `null`, not `""` or `{}`). Throws Unrenderable for what it
 * cannot write exactly: values of any shape (Type.Unknown), unions other than of strings, objects
 * with additional or pattern properties (written after the declared ones, unsorted), type lists.
 */
export function sortedSchema(schema: unknown, resolve: (id: string) => unknown, path = '', refs: ReadonlySet<string> = new Set()): JsonSchema {
  if (!isSchema(schema)) throw new Unrenderable(`${path || '/'}: not a schema object`);
  if (typeof schema.$ref === 'string') {
    const id = schema.$ref.replace(/#$/, '');
    const target = refs.has(id) ? undefined : resolve(id);
    if (target === undefined) throw new Unrenderable(`${path || '/'}: $ref ${schema.$ref} unresolved or recursive`);
    return sortedSchema(target, resolve, path, new Set([...refs, id]));
  }
  for (const keyword of UNSUPPORTED) {
    if (schema[keyword] !== undefined) throw new Unrenderable(`${path || '/'}: ${keyword}`);
  }
  const union = schema.anyOf ?? schema.oneOf;
  if (union !== undefined) {
    if (Array.isArray(union) && union.length > 0 && union.every((branch) => isSchema(branch) && isStringChoice(branch))) {
      return { type: 'string', nullable: true };
    }
    throw new Unrenderable(`${path || '/'}: a union other than of strings`);
  }
  if ((schema.const !== undefined || schema.enum !== undefined) && !isStringChoice(schema)) {
    throw new Unrenderable(`${path || '/'}: a const or enum other than of strings`);
  }
  switch (schema.type) {
    case 'string':
    case 'number':
    case 'integer':
    case 'boolean':
      return { type: schema.type, nullable: true };
    case undefined:
      if (isStringChoice(schema)) return { type: 'string', nullable: true };
      throw new Unrenderable(`${path || '/'}: a value of any type`);
    case 'array': {
      if (!isSchema(schema.items)) throw new Unrenderable(`${path || '/'}: an array without one items schema`);
      return { type: 'array', items: sortedSchema(schema.items, resolve, `${path}/items`, refs), nullable: true };
    }
    case 'object': {
      const properties = isSchema(schema.properties) ? schema.properties : {};
      const names = Object.keys(properties).sort();
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
        throw new Unrenderable(`${path || '/'}: additionalProperties`);
      }
      if (names.length === 0) throw new Unrenderable(`${path || '/'}: an object without properties`);
      const sorted: JsonSchema = {};
      for (const name of names) sorted[name] = sortedSchema(properties[name], resolve, `${path}/${name}`, refs);
      return { type: 'object', properties: sorted, nullable: true };
    }
    default:
      throw new Unrenderable(`${path || '/'}: type ${JSON.stringify(schema.type)}`);
  }
}

/** sortedJson as a route's serializer; text (see below) is already the body. */
const sortedFallback: Serializer = (data) => (typeof data === 'string' ? data : sortedJson(data));

/** Compiled serializers by sorted schema: every test app compiles the same few. */
const compiledBySchema = new Map<string, Serializer>();

/**
 * The serializer of a response schema: compiled with fast-json-stringify from sortedSchema, or,
 * when the schema holds what it cannot write exactly, sortedJson (with the reason).
 */
export function responseSerializer(schema: unknown, resolve: (id: string) => unknown): { serialize: Serializer; compiled: boolean; reason?: string } {
  let sorted: JsonSchema;
  try {
    sorted = sortedSchema(schema, resolve);
  } catch (error) {
    if (error instanceof Unrenderable) return { serialize: sortedFallback, compiled: false, reason: error.message };
    throw error;
  }
  const key = JSON.stringify(sorted);
  let serialize = compiledBySchema.get(key);
  if (serialize === undefined) {
    const compiled = fastJsonStringify(sorted as unknown as fastJsonStringify.Schema) as Serializer;
    serialize = (data: unknown): string => {
      // A serializer set for one reply (below) is also given the text an error handler sends
      // after it, if a later step fails: that text is already the body.
      if (typeof data === 'string') return data;
      try {
        return compiled(data);
      } catch {
        // A value the schema does not describe (NaN, a missing object): as sortedJson writes it.
        return sortedJson(data);
      }
    };
    compiledBySchema.set(key, serialize);
  }
  return { serialize, compiled: true };
}

/** What the serializer compiler decided, by "METHOD url status": "compiled", or why sortedJson. */
export const serializerDecisions = new Map<string, string>();

/**
 * The serializer of one operation's answer on a route that answers two operations with the same
 * status (POST .../session: Create Session, or Initiate Checkout by the body's apiOperation), each
 * with its own schema: compiled as the route's own are, its decision recorded under `name`.
 */
export function operationSerializer(app: FastifyInstance, name: string, schema: unknown): Serializer {
  const { serialize, compiled, reason } = responseSerializer(schema, (id) => (app.getSchemas() as Record<string, unknown>)[id]);
  serializerDecisions.set(name, compiled ? 'compiled' : `sortedJson (${reason ?? ''})`);
  return serialize;
}

/**
 * The reply serializer (plugins/errors.ts: sortedJson, for routes without a response schema) has
 * priority over the serializers compiled from response schemas; a route with a response schema
 * therefore names its own for the reply's status code.
 */
const useResponseSchemaSerializer: preSerializationHookHandler = function (_request, reply, payload, done) {
  const serialize = reply.getSerializationFunction(String(reply.statusCode));
  if (serialize !== undefined) reply.serializer(serialize);
  done(null, payload);
};

const inDocumentOrder: preSerializationHookHandler = function (_request, reply, payload, done) {
  reply.serializer((document) => JSON.stringify(document));
  done(null, payload);
};

async function openapi(app: FastifyInstance) {
  app.addSchema(ErrorBody);
  app.addSchema(NvpErrorAnswer);
  const resolve = (id: string): unknown => (app.getSchemas() as Record<string, unknown>)[id];
  app.setSerializerCompiler(({ schema, method, url, httpStatus }) => {
    const { serialize, compiled, reason } = responseSerializer(schema, resolve);
    const route = `${String(method)} ${String(url)} ${String(httpStatus)}`;
    serializerDecisions.set(route, compiled ? 'compiled' : `sortedJson (${reason ?? ''})`);
    if (!compiled) app.log.debug({ route, reason }, 'response schema not compiled: serialized with sortedJson');
    return serialize;
  });
  // Before the document's own hook (registered with swagger below) reads the route.
  app.addHook('onRoute', tagAdminRoute);
  // The document in its own order (tags, then paths by tag): not the replies' sorted keys.
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.url !== '/openapi.json' && route.url !== '/documentation/json') return;
    const own = route.preSerialization;
    route.preSerialization = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), inDocumentOrder];
  });
  app.addHook('onRoute', (route: RouteOptions) => {
    if (route.schema?.response === undefined) return;
    const own = route.preSerialization;
    route.preSerialization = [...(own === undefined ? [] : Array.isArray(own) ? own : [own]), useResponseSchemaSerializer];
  });
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'tokengate: Mastercard Gateway card-token and order API sandbox',
        version: VERSION,
        description: DESCRIPTION,
      },
      tags: TAGS,
      components: {
        securitySchemes: {
          basicAuth: { type: 'http', scheme: 'basic', description: 'User `merchant.<merchantId>` and the API password; Pay with token (version 3) and its retrievals: a blank user id and the API password.' },
          adminAuth: { type: 'http', scheme: 'basic', description: 'User admin, password ADMIN_PASSWORD' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (object) => finishDocument(object),
  });
  // No framework logo: the base layout has no top bar, and no logo is injected.
  await app.register(swaggerUi, {
    routePrefix: '/documentation',
    uiConfig: { layout: 'BaseLayout', defaultModelsExpandDepth: 0 },
    theme: { title: 'tokengate API reference' },
    logo: null as unknown as undefined,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapi, { name: 'openapi', fastify: '5.x' });
