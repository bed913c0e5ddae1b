// The gateway's operations as its own OpenAPI document lists them (every route with a schema: the
// API and the admin API), with their path and query parameters and every string field of their
// body schemas, so that a test over "every parameter" or "every free-text field" covers a route or
// field added later without being told. The NVP route, one form for every apiOperation, is listed
// once per apiOperation of its form: the fields of the REST operation of that name, sent dotted.
// Named *.fixture.ts so tap does not run it as a test file.
import type { Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { expectInvalid, type App } from './http.fixture.js';
import { M1, payAuth, tokenAuth } from '../helpers/app.js';
import { budget } from '../helpers/slowdown.js';

export const ADMIN_PASSWORD = 'admin-password-for-request-values-0123';

interface JsonSchema {
  type?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; enum?: unknown[]; pattern?: string; anyOf?: JsonSchema[]; additionalProperties?: unknown;
}

export interface Operation {
  method: string;
  /** The path with {param} placeholders. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** The dotted paths of every string member of the body schema (none without a body). */
  bodyStrings: string[];
  /** The body takes members its schema does not list (the order API's transactions). */
  openBody: boolean;
  /** The dotted paths of the lists the body schema describes, their items typed (`interaction.tokens`). */
  lists: string[];
  /** The dotted paths of the lists the body schema describes whose items take any value (Update Session's `order.item`, as the order API's). */
  anyItemLists: string[];
  /** The dotted paths of the body's groups that take members their schema does not list ('' the body itself). */
  openGroups: string[];
  /**
   * The route takes several bodies, chosen by the body's apiOperation (POST .../session: Create
   * Session without one, Initiate Checkout with INITIATE_CHECKOUT or CREATE_CHECKOUT_SESSION):
   * this one is the body with one of these (sent with the first), each body an operation here.
   */
  selects?: string[];
  /** One operation of the NVP route: its apiOperation, and its fields that are REST's path parameters (order.id, token...). */
  nvp?: { apiOperation: string; idFields: string[]; rest: Operation };
}

/** Dotted paths of the members of a JSON schema that `pick` picks, lists' items at [0]; an item itself is not named. */
function membersWhere(pick: (schema: JsonSchema) => boolean, schema: JsonSchema | undefined, prefix = ''): string[] {
  if (schema === undefined) return [];
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap((s) => membersWhere(pick, s, prefix)))];
  const inner = [
    ...membersWhere(pick, schema.items, `${prefix}[0]`),
    ...Object.entries(schema.properties ?? {}).flatMap(([name, member]) => membersWhere(pick, member, prefix === '' ? name : `${prefix}.${name}`)),
  ];
  return pick(schema) ? [prefix, ...inner] : inner;
}

/** Dotted paths of the lists a JSON schema describes: with `typedItems`, those whose items it types; else those whose items take any value. */
export const listFields = (schema: JsonSchema | undefined, typedItems = true) =>
  membersWhere((s) => s.type === 'array' && (typeof s.items?.type === 'string') === typedItems, schema);

/** Dotted paths of the groups of a JSON schema that take members it does not list ('' the whole). */
export const openGroups = (schema: JsonSchema | undefined) =>
  membersWhere((s) => (s.type === 'object' || s.properties !== undefined) && s.additionalProperties !== false, schema);

/** Dotted paths of the string members of a JSON schema (enumerations included). */
export function stringFields(schema: JsonSchema | undefined, prefix = ''): string[] {
  if (schema === undefined) return [];
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap((s) => stringFields(s, prefix)))];
  if (schema.type === 'string') return [prefix];
  if (schema.type === 'array') return stringFields(schema.items, `${prefix}[0]`);
  return Object.entries(schema.properties ?? {}).flatMap(([name, member]) => stringFields(member, prefix === '' ? name : `${prefix}.${name}`));
}

type DocumentedOperation = { parameters?: Array<{ in: string; name: string }>; requestBody?: { content: Record<string, { schema: JsonSchema }> } };

const API = '/api/rest/version/{version}/merchant/{merchantId}';
const TRANSACTION = `PUT ${API}/order/{orderId}/transaction/{transactionId}`;
/**
 * Each apiOperation of NVP and the REST operation of the same name, as the reference pairs them
 * (TOKENIZE is Tokenize with a `token`, Create or Update Token without): an apiOperation of the
 * form missing here fails the sweeps.
 */
const NVP_AS_REST: ReadonlyArray<readonly [string, string]> = [
  ...['PAY', 'AUTHORIZE', 'CAPTURE', 'REFUND', 'VOID', 'VERIFY', 'INITIATE_AUTHENTICATION', 'AUTHENTICATE_PAYER'].map((name) => [name, TRANSACTION] as const),
  ['RETRIEVE_TRANSACTION', `GET ${API}/order/{orderId}/transaction/{transactionId}`], ['RETRIEVE_ORDER', `GET ${API}/order/{orderId}`],
  ['CREATE_SESSION', `POST ${API}/session`], ['INITIATE_CHECKOUT', `POST ${API}/session`], ['CREATE_CHECKOUT_SESSION', `POST ${API}/session`], ['UPDATE_SESSION', `PUT ${API}/session/{sessionId}`], ['RETRIEVE_SESSION', `GET ${API}/session/{sessionId}`],
  ['PAYMENT_OPTIONS_INQUIRY', `POST ${API}/paymentOptionsInquiry`],
  ['TOKENIZE', `PUT ${API}/token/{tokenid}`], ['TOKENIZE', `POST ${API}/token`], ['RETRIEVE_TOKEN', `GET ${API}/token/{tokenid}`], ['DELETE_TOKEN', `DELETE ${API}/token/{tokenid}`],
];
/** REST's path parameters as NVP's fields. */
const NVP_FIELD: Record<string, string> = { orderId: 'order.id', transactionId: 'transaction.id', sessionId: 'session.id', tokenid: 'token' };

/** The NVP route's operations: each apiOperation of its form, with the fields of the REST operation of that name. */
function nvpOperations(method: string, path: string, form: JsonSchema, rest: Operation[]): Operation[] {
  const names = (form.properties?.apiOperation?.enum ?? []).map(String);
  const missing = names.filter((name) => !NVP_AS_REST.some(([known]) => known === name));
  if (missing.length > 0) throw new Error(`NVP's ${missing.join(', ')}: which REST operation? (NVP_AS_REST)`);
  return NVP_AS_REST.filter(([name]) => names.includes(name)).map(([name, restOperation]) => {
    // A route of several bodies: the one this apiOperation selects, or the one selected by none.
    const candidates = rest.filter((op) => `${op.method} ${op.path}` === restOperation);
    const same = candidates.find((op) => op.selects?.includes(name)) ?? candidates.find((op) => op.selects === undefined);
    if (same === undefined) throw new Error(`${restOperation} is not in the document`);
    return {
      method, path, pathParams: [], queryParams: [],
      // apiOperation, kept in a transaction's body, is the form's own field: it chooses the operation.
      bodyStrings: same.bodyStrings.filter((field) => field !== 'apiOperation'),
      openBody: same.openBody,
      // (A form's values are text: no list item or member is null.)
      lists: [], anyItemLists: [], openGroups: [],
      nvp: { apiOperation: name, idFields: same.pathParams.filter((p) => p !== 'version' && p !== 'merchantId').map((p) => NVP_FIELD[p] ?? p), rest: same },
    };
  });
}

/**
 * The bodies a route takes: one, or, when its schema is a union, each of its members, with the
 * values of apiOperation that select it (none: the body without an apiOperation).
 */
function bodiesOf(body: JsonSchema | undefined): Array<{ body: JsonSchema | undefined; selects?: string[] }> {
  if (body?.anyOf === undefined) return [{ body }];
  return body.anyOf.map((member) => {
    const names = member.properties?.apiOperation?.enum;
    return names === undefined ? { body: member } : { body: member, selects: names.map(String) };
  });
}

export async function operations(app: App): Promise<Operation[]> {
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, DocumentedOperation>> };
  const found: Operation[] = [];
  const forms: Array<[string, string, JsonSchema]> = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      for (const { body, selects } of bodiesOf(op.requestBody?.content['application/json']?.schema)) {
        found.push({
          method: method.toUpperCase(), path,
          pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
          queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
          bodyStrings: stringFields(body),
          openBody: body !== undefined && body.additionalProperties !== false,
          lists: listFields(body), anyItemLists: listFields(body, false), openGroups: openGroups(body),
          ...(selects === undefined ? {} : { selects }),
        });
      }
      const form = op.requestBody?.content['application/x-www-form-urlencoded']?.schema;
      if (form) forms.push([method.toUpperCase(), path, form]);
    }
  }
  return [...found, ...forms.flatMap(([method, path, form]) => nvpOperations(method, path, form, found))];
}

/** The credentials each operation takes (version 3: the blank user id; the admin API: admin). */
export function authFor(path: string): string {
  if (path.startsWith('/admin')) return `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`;
  return path.includes('/version/3/') ? payAuth(M1) : tokenAuth(M1);
}

/** The path with every parameter filled: `values` first, then a plausible value for its name. */
export function fill(path: string, values: Record<string, string> = {}): string {
  return path.replace(/\{([^}]+)\}/g, (_all, name: string) => values[name] ?? (
    name === 'version' ? '100' : /^merchantid$/i.test(name) ? M1.id : name === 'orderid' ? '10000000001' : name === 'repositoryId' ? 'REPO01' : '1'));
}

/** `body` with the member at a dotted path (with [i] for array items) set to `value`, the groups on the way made. */
export function withField(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const steps = path.split('.').flatMap((step) => step.split(/\[(\d+)\]/).filter((s) => s !== ''));
  const copy = structuredClone(body);
  let at: Record<string, unknown> = copy;
  steps.forEach((step, i) => {
    if (i === steps.length - 1) {
      at[step] = value;
      return;
    }
    const next = at[step];
    at[step] = typeof next === 'object' && next !== null ? next : /^\d+$/.test(steps[i + 1] as string) ? [] : {};
    at = at[step] as Record<string, unknown>;
  });
  return copy;
}

/** Members an open body (the order API's) accepts and ignores: free text too. */
export const OPEN_MEMBERS = ['order.description', 'customer.firstName', 'shipping.address.street', 'order.item[0].name', 'airline.passenger[1].lastName'];

/** NVP's credentials, as fields of the form. */
export const NVP_CREDENTIALS = { merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword };

/** Plausible values of NVP's fields that are REST's path parameters (as fill gives the path's). */
const NVP_IDS: Record<string, string> = { 'order.id': '10000000001', 'transaction.id': '1', 'session.id': `SESSION${'0'.repeat(24)}`, token: '1' };

/**
 * The items before each list item of a dotted path, each with the rest of the path (its own lists
 * at [0]): `a[1].b[2].c` needs `a[0].b[0].c`, `a[1].b[0].c` and `a[1].b[1].c`, as NVP's lists
 * are numbered from 0 without a gap (a JSON list's items left out are null, refused too).
 */
export function earlierItems(path: string): string[] {
  const earlier: string[] = [];
  for (const index of path.matchAll(/\[(\d+)\]/g)) {
    const head = path.slice(0, index.index);
    const tail = path.slice(index.index + index[0].length).replace(/\[\d+\]/g, '[0]');
    for (let i = 0; i < Number(index[1]); i++) earlier.push(`${head}[${i}]${tail}`);
  }
  return earlier;
}

/** The body before any field is set: the apiOperation that selects it, on a route of several bodies. */
const bodyOf = (op: Operation): Record<string, unknown> => (op.selects ? { apiOperation: op.selects[0] } : {});

/**
 * The operation requested at `url` with one field set: in a JSON body (`field` a dotted path), or
 * for an NVP operation as a form field of that (dotted) name, beside its apiOperation, credentials
 * and ids (and, for a list item, the items before it).
 */
export function requestOf(op: Operation, url: string, field?: string, value?: string) {
  if (op.nvp) {
    const fields: Record<string, string> = { apiOperation: op.nvp.apiOperation, ...NVP_CREDENTIALS };
    for (const id of op.nvp.idFields) fields[id] = NVP_IDS[id] ?? '1';
    if (field !== undefined) {
      for (const item of earlierItems(field)) fields[item] = 'x';
      fields[field] = value ?? '';
    }
    return { method: 'POST' as const, url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() };
  }
  // The items before a list item, as in NVP (a JSON list's missing items would be null, refused).
  const items = (body: Record<string, unknown>) => (field === undefined ? [] : earlierItems(field)).reduce((b, item) => withField(b, item, 'x'), body);
  return {
    method: op.method as 'GET', url, headers: { authorization: authFor(op.path) },
    ...(op.bodyStrings.length > 0 ? { payload: field === undefined ? bodyOf(op) : withField(items(bodyOf(op)), field, value) } : {}),
  };
}

/** The NVP operation's request as REST's: the same ids in the path, the same members in a JSON body. */
export function restTwin(op: Operation & { nvp: NonNullable<Operation['nvp']> }, field: string, value: string) {
  const { rest, apiOperation } = op.nvp;
  const ids = Object.fromEntries(Object.entries(NVP_FIELD).map(([param, name]) => [param, NVP_IDS[name] as string]));
  // POST .../session's apiOperation names Initiate Checkout: Create Session's body has none; Update
  // Session's names Update Session with Payer Data (the mobile SDKs'), never NVP's UPDATE_SESSION.
  const body = rest.bodyStrings.includes('apiOperation') && apiOperation !== 'CREATE_SESSION' && apiOperation !== 'UPDATE_SESSION' ? { apiOperation } : {};
  // The items before a list item, as requestOf sends them in NVP.
  const items = earlierItems(field).reduce((b: Record<string, unknown>, item) => withField(b, item, 'x'), body);
  return { method: rest.method as 'PUT', url: fill(rest.path, ids), headers: { authorization: authFor(rest.path) }, payload: withField(items, field, value) };
}

/** Body members that name a stream: a NUL there is refused as in a parameter. */
export const STREAM_ID_FIELDS = ['session.id', 'referenceOrderId', 'sourceOfFunds.token'];

/**
 * A NUL character in each path parameter and each query parameter of every operation: a 400
 * naming it, whatever the store (PostgreSQL cannot hold one in text); in each string of a body:
 * a 400 naming it where the member names a stream, and never a 5xx anywhere. NVP's fields that
 * are REST's path parameters (order.id, transaction.id, session.id, token) are refused as those
 * are; its `merchant` and `apiOperation` are refused on themselves.
 */
export async function expectNulRefusedEverywhere(t: Test, app: App): Promise<number> {
  let cases = 0;
  // An answer within 10 s (scaled by the machine's load), or a failure: a live stream (the admin's events/live) that accepted
  // the value would never end.
  const send = async (op: Operation, url: string, field?: string, value?: string): Promise<LightMyRequestResponse> => {
    let timer: NodeJS.Timeout | undefined;
    const limit = budget(10_000);
    const answer = app.inject(requestOf(op, url, field, value));
    const late = new Promise<LightMyRequestResponse>((resolve) => {
      timer = setTimeout(() => resolve({ statusCode: 0, body: `no answer within ${limit} ms`, headers: {} } as LightMyRequestResponse), limit);
    });
    try { return await Promise.race([answer, late]); } finally { clearTimeout(timer); }
  };
  for (const op of await operations(app)) {
    const name = `${op.method} ${op.path}${op.nvp ? ` ${op.nvp.apiOperation}` : ''}`;
    for (const param of op.pathParams) {
      expectInvalid(t, await send(op, fill(op.path, { [param]: `a%00${param}` })), { field: param }, `${name}: NUL in {${param}}`);
      cases++;
    }
    for (const param of op.queryParams) {
      expectInvalid(t, await send(op, `${fill(op.path)}?${param}=a%00b`), { field: param, explanation: /NUL/ }, `${name}: NUL in ?${param}`);
      cases++;
    }
    for (const field of op.nvp?.idFields ?? []) {
      expectInvalid(t, await send(op, fill(op.path), field, `a\u0000${field}`), { field, explanation: /NUL/ }, `${name}: NUL in ${field}`);
      cases++;
    }
    for (const field of op.nvp ? ['merchant', 'apiOperation'] : []) {
      expectInvalid(t, await send(op, fill(op.path), field, `a\u0000${field}`), { field }, `${name}: NUL in ${field}`);
      cases++;
    }
    for (const field of op.bodyStrings) {
      const res = await send(op, fill(op.path), field, 'a\u0000b');
      if (STREAM_ID_FIELDS.includes(field)) expectInvalid(t, res, { field, explanation: /NUL/ }, `${name}: NUL in ${field}`);
      else t.ok(res.statusCode > 0 && res.statusCode < 500, `${name}: NUL in ${field}: no failure (${res.statusCode})`);
      cases++;
    }
  }
  return cases;
}
