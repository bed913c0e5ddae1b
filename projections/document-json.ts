// A read-model document's text, written by a serializer compiled from the document's schema
// (fast-json-stringify) instead of JSON.stringify: about half the time for an order document
// (bench/README.md, "What was tried"), on every payment and for each order document of a rebuild.
//
// It writes exactly what JSON.stringify writes for a document of the schema whose objects hold
// their properties in the schema's order (the projection builds them so): the compiled schema has
// the properties in that order, none required (fast-json-stringify writes required ones first and
// a missing one as an error), every value nullable (null stays null), string literals as strings,
// integers as numbers.
// A value the compiled serializer refuses falls back to JSON.stringify. A schema construct it
// cannot write exactly (unions, records, values of any shape) throws when the module loads.
import fastJsonStringify from 'fast-json-stringify';
import { Kind, type TSchema } from '@sinclair/typebox';

type JsonSchema = Record<string, unknown>;

/** The schema fast-json-stringify compiles: properties in declared order, none required, all nullable. */
export function documentSchema(schema: TSchema, path = ''): JsonSchema {
  const where = path || '/';
  switch (schema[Kind]) {
    case 'String':
      return { type: 'string', nullable: true };
    case 'Literal':
      if (typeof schema.const !== 'string') throw new Error(`${where}: a literal other than a string`);
      return { type: 'string', nullable: true };
    case 'Number':
    case 'Integer': // as a number: fast-json-stringify would truncate a fraction, JSON.stringify does not
      return { type: 'number', nullable: true };
    case 'Boolean':
      return { type: 'boolean', nullable: true };
    case 'Array':
      return { type: 'array', items: documentSchema(schema.items as TSchema, `${path}/items`), nullable: true };
    case 'Object': {
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) throw new Error(`${where}: additional properties`);
      const properties: JsonSchema = {};
      for (const [name, property] of Object.entries(schema.properties as Record<string, TSchema>)) {
        properties[name] = documentSchema(property, `${path}/${name}`);
      }
      return { type: 'object', properties, nullable: true };
    }
    default:
      throw new Error(`${where}: ${String(schema[Kind])} cannot be written exactly as JSON.stringify writes it`);
  }
}

/** `JSON.stringify(doc)` for documents of `schema` (see above), compiled. */
export function documentSerializer<Doc>(schema: TSchema): (doc: Doc) => string {
  const compiled = fastJsonStringify(documentSchema(schema) as unknown as fastJsonStringify.Schema) as (doc: unknown) => string;
  return (doc) => {
    try {
      return compiled(doc);
    } catch {
      return JSON.stringify(doc);
    }
  };
}
