// Recorded exchanges: what real client code sends (ActiveMerchant's Mastercard gateway, an older
// Ruby client, Mastercard's sample code, published Postman collections) and what the real gateway
// answered, replayed against tokengate. Every fixture in test/fixtures/recorded/ is one client
// behaviour: its steps run in order on a fresh gateway, ids an answer returned are substituted
// into later steps, and every field the client reads is checked for presence and format.
// Adding an exchange is adding a JSON file; test/fixtures/recorded/README.md describes the format
// and where each exchange comes from.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { basic, buildTestApp } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import type { App } from './http.fixture.js';

/**
 * The capabilities (test/fixtures/recorded/README.md) this branch has. A fixture that needs one
 * not listed is skipped, naming it; RECORDED_CAPABILITIES (a comma list, or `all`) overrides the
 * list, e.g. to see the fixtures of a capability fail before it lands.
 */
const PRESENT: readonly string[] = ['reference-reuse', 'deterministic-acquirer-fields', 'session-merge', 'versions-below-50', 'nvp', 'unknown-path-404', '3ds-markers', '3ds'];
const KNOWN = ['reference-reuse', 'session-merge', 'versions-below-50', 'nvp', 'unknown-path-404', 'deterministic-acquirer-fields', '3ds-markers', '3ds'];
const env = process.env.RECORDED_CAPABILITIES;
const present = new Set(env === 'all' ? KNOWN : env !== undefined ? env.split(',').map((c) => c.trim()) : PRESENT);

type Rule = string | number | boolean | null | Rule[];
interface Step {
  name: string;
  request: {
    method: string; path: string;
    /** merchant: Basic merchant.<id>; challenge: none first, then merchant after a 401 with WWW-Authenticate: Basic. */
    auth?: 'merchant' | 'challenge' | 'none' | { user: string; password: string };
    headers?: Record<string, string>;
    json?: unknown; raw?: string; form?: [string, string][];
  };
  response: { status: number | number[]; body?: 'json' | 'form'; fields?: Record<string, Rule> };
  /** name → dotted path in the answer, for later steps' {{name}}. */
  save?: Record<string, string>;
  /** Dotted paths whose values must be the same when the fixture is replayed on another fresh gateway. */
  stable?: string[];
}
interface Fixture { name: string; needs?: string[]; merchant: string; notifications?: Record<string, unknown>; steps: Step[] }

const DIR = fileURLToPath(new URL('../fixtures/recorded/', import.meta.url));
const password = (merchant: string) => `recorded-exchange-${merchant}-password-0123456789`;

/** {{name}} from the values saved so far; {{uuid:name}} is one UUID-shaped id per fixture (its digits as letters: never a card number). */
function substitute(text: string, vars: Map<string, string>): string {
  return text.replace(/\{\{([^}]+)\}\}/g, (_, key: string) => {
    if (key.startsWith('uuid:') && !vars.has(key)) vars.set(key, uniqueId());
    const value = vars.get(key);
    if (value === undefined) throw new Error(`no value for {{${key}}}`);
    return value;
  });
}
function deep(value: unknown, vars: Map<string, string>): unknown {
  if (typeof value === 'string') return substitute(value, vars);
  if (Array.isArray(value)) return value.map((v) => deep(v, vars));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, deep(v, vars)]));
  return value;
}

const MISSING = Symbol('missing');
function at(body: unknown, path: string): unknown {
  if (body instanceof Map) return body.has(path) ? body.get(path) : MISSING;
  let node: unknown = body;
  for (const key of path.split('.')) {
    if (node === null || typeof node !== 'object' || !(key in node)) return MISSING;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Why a value breaks a rule, or undefined when it keeps it (rules: see the README). */
function breaks(value: unknown, rule: Rule): string | undefined {
  if (Array.isArray(rule)) return rule.map((r) => breaks(value, r)).find((why) => why !== undefined);
  if (typeof rule !== 'string') return value !== MISSING && JSON.stringify(value) === JSON.stringify(rule) ? undefined : `expected ${JSON.stringify(rule)}`;
  if (rule === 'absent') return value === MISSING ? undefined : 'expected absent';
  if (value === MISSING) return 'missing';
  const text = typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
  if (rule === 'present') return undefined;
  if (rule.startsWith('=')) return value === rule.slice(1) ? undefined : `expected the string ${JSON.stringify(rule.slice(1))}`;
  if (rule.startsWith('!~')) return text !== undefined && !text.includes(rule.slice(2)) ? undefined : `must not contain ${JSON.stringify(rule.slice(2))}`;
  if (rule.startsWith('/')) {
    const re = new RegExp(rule.slice(1, rule.lastIndexOf('/')), rule.slice(rule.lastIndexOf('/') + 1));
    return text !== undefined && re.test(text) ? undefined : `expected to match ${rule}`;
  }
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (rule === 'integer') return Number.isInteger(value) ? undefined : 'expected an integer';
  if (['string', 'number', 'boolean', 'object', 'array'].includes(rule)) return type === rule ? undefined : `expected a ${rule}, got a ${type}`;
  throw new Error(`unknown rule ${rule}`);
}

function request(step: Step, merchant: string, vars: Map<string, string>, withAuth: boolean) {
  const r = step.request;
  const headers: Record<string, string> = { ...(deep(r.headers ?? {}, vars) as Record<string, string>) };
  const auth = r.auth ?? 'merchant';
  if (typeof auth === 'object') headers.authorization = basic(substitute(auth.user, vars), substitute(auth.password, vars));
  else if (auth === 'merchant' || (auth === 'challenge' && withAuth)) headers.authorization = basic(`merchant.${merchant}`, password(merchant));
  let payload: string | undefined;
  if (r.json !== undefined) { payload = JSON.stringify(deep(r.json, vars)); headers['content-type'] ??= 'application/json'; }
  if (r.raw !== undefined) payload = substitute(r.raw, vars);
  if (r.form !== undefined) {
    payload = new URLSearchParams(r.form.map(([k, v]) => [k, substitute(v, vars)])).toString();
    headers['content-type'] ??= 'application/x-www-form-urlencoded; charset=UTF-8';
  }
  return { method: r.method as 'GET', url: substitute(r.path, vars), headers, ...(payload === undefined ? {} : { payload }) };
}

function parse(step: Step, text: string): unknown {
  if (step.response.body === 'form') return new Map(new URLSearchParams(text));
  try { return JSON.parse(text); } catch { return MISSING; }
}

/** Runs the steps; returns the values of each step's `stable` fields, or undefined when a step failed. */
async function replay(t: Test, app: App, fixture: Fixture, vars: Map<string, string>): Promise<Map<string, unknown> | undefined> {
  const stable = new Map<string, unknown>();
  vars.set('merchant', fixture.merchant);
  vars.set('password', password(fixture.merchant));
  for (const step of fixture.steps) {
    if (step.request.auth === 'challenge') {
      const challenge = await app.inject(request(step, fixture.merchant, vars, false));
      t.equal(challenge.statusCode, 401, `${step.name}: challenged without credentials`);
      t.match(String(challenge.headers['www-authenticate']), /^Basic /, `${step.name}: WWW-Authenticate: Basic`);
    }
    const res = await app.inject(request(step, fixture.merchant, vars, true));
    const statuses = ([] as number[]).concat(step.response.status);
    if (!statuses.includes(res.statusCode)) {
      t.fail(`${step.name}: HTTP ${statuses.join(' or ')}, got ${res.statusCode} ${res.body.slice(0, 600)}`);
      return undefined;
    }
    t.pass(`${step.name}: HTTP ${res.statusCode}`);
    const body = parse(step, res.body);
    for (const [path, rule] of Object.entries(step.response.fields ?? {})) {
      const why = breaks(at(body, path), deep(rule, vars) as Rule);
      t.ok(why === undefined, `${step.name}: ${path} ${JSON.stringify(rule)}${why === undefined ? '' : `: ${why} (${res.body.slice(0, 600)})`}`);
    }
    for (const [name, path] of Object.entries(step.save ?? {})) {
      const value = at(body, path);
      if (value === MISSING) { t.fail(`${step.name}: nothing at ${path} to save as ${name}`); return undefined; }
      vars.set(name, String(value));
    }
    for (const path of step.stable ?? []) stable.set(`${step.name}: ${path}`, at(body, path));
  }
  return stable;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.json')).sort();
t.ok(files.length > 0, 'there are recorded exchanges');
for (const file of files) {
  const fixture = JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Fixture;
  const missing = (fixture.needs ?? []).filter((c) => !present.has(c));
  const unknown = (fixture.needs ?? []).filter((c) => !KNOWN.includes(c));
  t.same(unknown, [], `${file}: needs only known capabilities`);
  if (missing.length > 0) {
    t.test(`${file}: ${fixture.name}`, { skip: `needs ${missing.join(', ')} (not on this branch)` }, async () => {});
    continue;
  }
  t.test(`${file}: ${fixture.name}`, async (t) => {
    // notifications: the merchant's settings, for a client that names order.notificationUrl (its prefix must be allowed).
    const merchant = { id: fixture.merchant, apiPassword: password(fixture.merchant), repository: { id: 'RECORDED01', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN' } };
    const merchants = { merchants: [fixture.notifications ? { ...merchant, notifications: fixture.notifications } : merchant] };
    const vars = new Map<string, string>();
    const first = await replay(t, await buildTestApp(t, { merchants }), fixture, vars);
    if (first === undefined || first.size === 0) return;
    // Acquirer-side fields must be the same for the same requests on another gateway and store.
    const second = await replay(t, await buildTestApp(t, { merchants }), fixture, vars);
    for (const [field, value] of first) t.same(second?.get(field), value, `replayed on a fresh gateway, ${field} is the same`);
  });
}
