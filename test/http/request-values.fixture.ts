// The gateway's operations as its own OpenAPI document lists them (every route with a schema: the
// API and the admin API), with their path and query parameters and every string field of their
// body schemas, so that a test over "every parameter" or "every free-text field" covers a route or
// field added later without being told. Named *.fixture.ts so tap does not run it as a test file.
import type { Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { expectInvalid, type App } from './http.fixture.js';
import { M1, payAuth, tokenAuth } from '../helpers/app.js';

export const ADMIN_PASSWORD = 'admin-password-for-request-values-0123';

interface JsonSchema { type?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; enum?: unknown[]; pattern?: string; anyOf?: JsonSchema[] }

export interface Operation {
  method: string;
  /** The path with {param} placeholders. */
  path: string;
  pathParams: string[];
  queryParams: string[];
  /** The dotted paths of every string member of the body schema (none without a body). */
  bodyStrings: string[];
}

/** Dotted paths of the string members of a JSON schema (enumerations included). */
export function stringFields(schema: JsonSchema | undefined, prefix = ''): string[] {
  if (schema === undefined) return [];
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap((s) => stringFields(s, prefix)))];
  if (schema.type === 'string') return [prefix];
  if (schema.type === 'array') return stringFields(schema.items, `${prefix}[0]`);
  return Object.entries(schema.properties ?? {}).flatMap(([name, member]) => stringFields(member, prefix === '' ? name : `${prefix}.${name}`));
}

export async function operations(app: App): Promise<Operation[]> {
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }>; requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  };
  const found: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      found.push({
        method: method.toUpperCase(), path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyStrings: stringFields(op.requestBody?.content['application/json']?.schema),
      });
    }
  }
  return found;
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

/** Body members that name a stream: a NUL there is refused as in a parameter. */
export const STREAM_ID_FIELDS = ['session.id', 'referenceOrderId', 'sourceOfFunds.token'];

/**
 * A NUL character in each path parameter and each query parameter of every operation: a 400
 * naming it, whatever the store (PostgreSQL cannot hold one in text); in each string of a body:
 * a 400 naming it where the member names a stream, and never a 5xx anywhere.
 */
export async function expectNulRefusedEverywhere(t: Test, app: App): Promise<number> {
  let cases = 0;
  // An answer within 10 s, or a failure: a live stream (the admin's events/live) that accepted
  // the value would never end.
  const send = async (op: Operation, url: string, payload?: Record<string, unknown>): Promise<LightMyRequestResponse> => {
    let timer: NodeJS.Timeout | undefined;
    const answer = app.inject({
      method: op.method as 'GET', url, headers: { authorization: authFor(op.path) },
      ...(op.bodyStrings.length > 0 ? { payload: payload ?? {} } : {}),
    });
    const late = new Promise<LightMyRequestResponse>((resolve) => {
      timer = setTimeout(() => resolve({ statusCode: 0, body: 'no answer within 10 s', headers: {} } as LightMyRequestResponse), 10_000);
    });
    try { return await Promise.race([answer, late]); } finally { clearTimeout(timer); }
  };
  for (const op of await operations(app)) {
    for (const param of op.pathParams) {
      expectInvalid(t, await send(op, fill(op.path, { [param]: `a%00${param}` })), { field: param }, `${op.method} ${op.path}: NUL in {${param}}`);
      cases++;
    }
    for (const param of op.queryParams) {
      expectInvalid(t, await send(op, `${fill(op.path)}?${param}=a%00b`), { field: param, explanation: /NUL/ }, `${op.method} ${op.path}: NUL in ?${param}`);
      cases++;
    }
    for (const field of op.bodyStrings) {
      const res = await send(op, fill(op.path), withField({}, field, 'a\u0000b'));
      if (STREAM_ID_FIELDS.includes(field)) expectInvalid(t, res, { field, explanation: /NUL/ }, `${op.method} ${op.path}: NUL in ${field}`);
      else t.ok(res.statusCode > 0 && res.statusCode < 500, `${op.method} ${op.path}: NUL in ${field}: no failure (${res.statusCode})`);
      cases++;
    }
  }
  return cases;
}
