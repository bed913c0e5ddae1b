// Checks of every request's values that no route schema can make, before the schemas and the
// handler see them (an open body, the order API's, takes members no schema lists):
//   - objects and arrays nested more than MAX_NESTING levels deep are refused: the services walk
//     bodies recursively (the request fingerprint, the copies kept of a payment), and a body of a
//     few KB nested thousands deep would overflow the stack (a 500);
//   - a NUL character (U+0000) in a path or query parameter, or in a body member that names a
//     stream (session.id, ...), is refused: PostgreSQL cannot hold one in text (error 22021).
//     Free text may hold any character (the gateway's rule for its strings), a NUL too: it is
//     stored escaped, in JSON.
//   - a card number in a path parameter (an id), or in any string of the body other than the
//     fields meant for one, is refused (docs/guarantees.md, "Card numbers in other fields"): ids
//     and free text are stored and shown as sent (stream names, events, export, timeline,
//     notifications, CLI), where a card number must never be.
//   - a null item of a list the route's schema does not describe (the open groups' lists:
//     `order.item[0]`), as the schema refuses one of a list it describes; named `name[i]`.
// Before them, on the routes whose config says nullAsNotSent (the order API, the session
// operations), a member sent as null is taken out of the body: it counts as not sent (shops send
// their blanks so), for the checks, the schema (a required one is then MISSING) and the service
// alike, and is neither stored nor echoed. A null list item stays, and is refused as above. The
// body as sent, its nulls too, is kept for the request journal (request.bodyAsSent): a client
// debugging a MISSING answer sees the null it sent.
// Each is a 400 INVALID_REQUEST naming the field, in the gateway's shape (plugins/errors.ts).
// NVP's form (routes/nvp.ts) is checked once decoded: its dotted names become the REST body's
// members (and path parameters), which these rules then see as they see REST's.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { InvalidRequest } from '../domain/errors.js';
import { holdsCardNumber } from '../lib/mask.js';
import { SENSITIVE_FIELD } from '../schemas/common.js';
import { routeOptionsOf } from './route-options.js';
import { keepBodyAsSent } from '../lib/body-as-sent.js';

/** The deepest nesting of objects and arrays a body may have (the body itself is level 1). */
export const MAX_NESTING = 32;

const NUL = 'Value is invalid. The NUL character (\\u0000) is not allowed';
const TOO_DEEP = `Value is invalid. Objects and arrays nest more than ${MAX_NESTING} levels deep (the gateway accepts at most ${MAX_NESTING})`;
const CARD_NUMBER = 'Value is invalid. The field must not hold a card number (13 to 19 digits passing the Luhn check)';
const NULL_ITEM = "Value 'null' is invalid. A list item must not be null";

/**
 * A telephone number in international notation: '+' and digits, in groups apart by single spaces
 * (ITU-T E.123), at most 15 digits in all (E.164's most).
 */
const INTERNATIONAL_PHONE = /^\+[0-9]+( [0-9]+)*$/;
const internationalPhone = (value: string) => INTERNATIONAL_PHONE.test(value) && value.replace(/ /g, '').length <= 16;

/**
 * Whether a string is not scanned for card numbers: one of the members meant for card and bank
 * account numbers (never stored in the clear: sealed or masked), or a telephone number in
 * international notation (an international number of 13-15 digits would pass Luhn one time in
 * ten; the order API's payments keep their telephone numbers as sent, in their events, so one of
 * 16 digits or more, or holding anything else, is scanned like any text). An amount is no free
 * text either: its own rule (digits and '.', at most 14 characters, at most 1000000000000) refuses
 * every card number, with the same answer whether it came as a string or a JSON number.
 */
export const notFreeText = (name: string, value: string) =>
  SENSITIVE_FIELD.test(name) || name === 'amount' || ((name === 'phone' || name === 'mobilePhone') && internationalPhone(value));

/** Body members (group, member) whose value names a stream that is read: ids, as a path's are (Initiate Checkout's order.id names the order its page pays). */
const STREAM_IDS: ReadonlyArray<readonly [string | undefined, string]> = [['session', 'id'], [undefined, 'referenceOrderId'], ['sourceOfFunds', 'token'], ['order', 'id']];

/** What the walk needs of a JSON schema: the type, the members and items it describes. */
interface Described { type?: unknown; properties?: Record<string, Described>; additionalProperties?: unknown; items?: Described }

/**
 * A value nested too deep, or a string holding a card number: the path to it (innermost first,
 * pushed while the walk unwinds), and the index in it of the outermost step the route's schema
 * does not describe (a member it does not list, or a member whose schema takes any value).
 */
interface Found { kind: 'nesting' | 'card' | 'null'; path: Array<string | number>; undescribed: number | undefined }

/**
 * The walk looks only where the route's schema lets a value through: a member a closed group does
 * not list, or a group where the schema wants a string (or a group of the other kind), the schema
 * refuses without looking inside (UNSUPPORTED, or INVALID naming that member). `name`: the member
 * holding the value (an array's items are its member's).
 */
function problemIn(value: unknown, level: number, schema: Described | undefined, name: string): Found | undefined {
  if (typeof value === 'string') {
    return holdsCardNumber(value) && !notFreeText(name, value) ? { kind: 'card', path: [], undescribed: undefined } : undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  if (typeof schema?.type === 'string' && schema.type !== (Array.isArray(value) ? 'array' : 'object')) return undefined;
  if (level > MAX_NESTING) return { kind: 'nesting', path: [], undescribed: undefined };
  if (Array.isArray(value)) {
    // A list the schema does not describe (an open group's member) or whose items have no type
    // holds no null item; where the items have one, the schema refuses null itself ("Expected a
    // string"), and a member of any value (an amount) has its own rule.
    const nullRefused = (schema === undefined || schema.type === 'array') && typeof schema?.items?.type !== 'string';
    for (let i = 0; i < value.length; i++) {
      if (value[i] === null && nullRefused) return step({ kind: 'null', path: [], undescribed: undefined }, i, schema?.items !== undefined);
      const found = problemIn(value[i], level + 1, schema?.items, name);
      if (found) return step(found, i, schema?.items !== undefined);
    }
    return undefined;
  }
  const closed = schema?.additionalProperties === false;
  const listed = schema?.properties;
  // for...in: no array of the names made (a body parsed from JSON inherits no members; were some
  // added to Object.prototype, they would only be looked at too).
  for (const member in value) {
    // (Own members only: 'constructor' is no member a schema lists.)
    const described = listed !== undefined && Object.hasOwn(listed, member) ? listed[member] : undefined;
    if (described === undefined && closed) continue;
    const found = problemIn((value as Record<string, unknown>)[member], level + 1, described, member);
    // A member whose schema takes any value (no members, no items listed) is the field itself.
    if (found) return step(found, member, described !== undefined && (described.properties !== undefined || described.items !== undefined));
  }
  return undefined;
}

function step(found: Found, name: string | number, described: boolean): Found {
  found.path.push(name);
  if (!described) found.undescribed = found.path.length - 1;
  return found;
}

/**
 * The field named: a string's path in full. A nest's, the path down to the first member the
 * route's schema does not list (the member holding the nest: `order.description` of the order
 * API's open group `order`), as the schema would name an unexpected member; an array by its
 * member (`order.description`, not `order.description[0][0]...`). Items on the way are written as
 * the gateway writes them (`order.item[0].name`).
 */
function fieldName({ kind, path, undescribed }: Found): string {
  const steps = [...path].reverse();
  if (kind === 'nesting') {
    if (undescribed !== undefined) steps.length = path.length - undescribed;
    while (steps.length > 1 && typeof steps.at(-1) === 'number') steps.pop();
  }
  return steps.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** The first problem of a request body (a parsed JSON value), as the 400 it is answered with. */
export function bodyProblem(body: unknown, schema?: Described): InvalidRequest | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const found = problemIn(body, 1, schema, '');
  if (found) return new InvalidRequest(found.kind === 'nesting' ? TOO_DEEP : found.kind === 'card' ? CARD_NUMBER : NULL_ITEM, fieldName(found));
  for (const [group, member] of STREAM_IDS) {
    const holder: unknown = group === undefined ? body : (body as Record<string, unknown>)[group];
    const id = typeof holder === 'object' && holder !== null ? (holder as Record<string, unknown>)[member] : undefined;
    if (typeof id === 'string' && id.includes('\u0000')) return new InvalidRequest(NUL, group === undefined ? member : `${group}.${member}`);
  }
  return undefined;
}

/** Whether the body holds a member whose value is null, at any depth dropNullMembers looks (no copy made: most bodies hold none). */
export function holdsNullMember(value: unknown, level = 1): boolean {
  if (typeof value !== 'object' || value === null || level > MAX_NESTING) return false;
  if (Array.isArray(value)) return value.some((item) => holdsNullMember(item, level + 1));
  for (const member in value) {
    const held = (value as Record<string, unknown>)[member];
    if (held === null || holdsNullMember(held, level + 1)) return true;
  }
  return false;
}

/**
 * Takes every member whose value is null out of the body, at any depth (in list items' groups
 * too); null list items stay. Stops at MAX_NESTING: a deeper body is refused whole by the walk.
 */
export function dropNullMembers(value: unknown, level = 1): void {
  if (typeof value !== 'object' || value === null || level > MAX_NESTING) return;
  if (Array.isArray(value)) {
    for (const item of value) dropNullMembers(item, level + 1);
    return;
  }
  const group = value as Record<string, unknown>;
  for (const member of Object.keys(group)) {
    if (group[member] === null) delete group[member];
    else dropNullMembers(group[member], level + 1);
  }
}

/**
 * A NUL in a path parameter or a query parameter (a repeated one is an array); and a card number
 * in a named path parameter (`path`): every one is an id (an order's, a transaction's, a token's, a
 * session's...) that names a stream or is looked up, recorded in events and shown in histories,
 * or quoted by a "no such" answer.
 */
function parameterProblem(values: unknown, path: boolean): InvalidRequest | undefined {
  if (typeof values !== 'object' || values === null) return undefined;
  for (const name in values) {
    const value: unknown = (values as Record<string, unknown>)[name];
    const nul = typeof value === 'string' ? value.includes('\u0000') : Array.isArray(value) && value.some((v) => typeof v === 'string' && v.includes('\u0000'));
    if (nul) return new InvalidRequest(NUL, name);
    // An unknown path's rest ('*') names nothing and records nothing: answered as unknown (masked in logs).
    if (path && name !== '*' && typeof value === 'string' && holdsCardNumber(value)) return new InvalidRequest(CARD_NUMBER, name);
  }
  return undefined;
}

/**
 * Every check of a request's values, on its parameters and its body as the route's schema
 * describes it. The hook applies it to what Fastify parsed; a route that decodes its body itself
 * (NVP's form of dotted names: config.decodesBody) applies it to the parameters and body it
 * decodes, so that the same rules see the same members under the same names.
 */
export function valuesProblem(params: unknown, query: unknown, body: unknown, schema?: unknown): InvalidRequest | undefined {
  return parameterProblem(params, true) ?? parameterProblem(query, false) ?? bodyProblem(body, schema as Described | undefined);
}

async function requestValues(app: FastifyInstance) {
  app.decorateRequest('bodyAsSent', undefined);
  // After the body is parsed, before the route's schemas (they come after every preValidation).
  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    const route = routeOptionsOf(request);
    const { decodesBody, bodySchemaOf, nullAsNotSent } = route.config;
    if (nullAsNotSent === true && decodesBody !== true && holdsNullMember(request.body)) {
      keepBodyAsSent(request);
      dropNullMembers(request.body);
    }
    const schema = bodySchemaOf === undefined ? route.schema?.body : bodySchemaOf(request.body);
    done(valuesProblem(request.params, request.query, decodesBody === true ? undefined : request.body, schema));
  });
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The body as sent, when `body` was rewritten (members sent as null taken out, lib/body-as-sent.ts): what the journal shows. */
    bodyAsSent: unknown;
  }
  interface FastifyContextConfig {
    /** The route decodes its body itself and applies valuesProblem to what it decodes. */
    decodesBody?: boolean;
    /**
     * The schema the body is read with, when the route takes several bodies and the body itself
     * says which (POST .../session: Create Session, or Initiate Checkout by its apiOperation).
     */
    bodySchemaOf?: (body: unknown) => unknown;
    /** A body member sent as null counts as not sent: taken out before any check (dropNullMembers). */
    nullAsNotSent?: boolean;
  }
}

export default fp(requestValues, { name: 'request-values', fastify: '5.x' });
