// Assertions shared by the HTTP tests: what a client sees of an error (status, headers, the exact
// body shape of the gateway), keys sorted at every level, and small request builders.
// Named *.fixture.ts so tap does not run it as a test file.
import type { Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import { M1, payAuth, payPath, tokenAuth, tokenPath, type buildTestApp } from '../helpers/app.js';

export type App = Awaited<ReturnType<typeof buildTestApp>>;

export const INVALID_CREDENTIALS = '{"error":{"cause":"INVALID_REQUEST","explanation":"Invalid credentials."},"result":"ERROR"}';
export const NOT_AUTHORISED = 'Authenticated entity not authorised to perform operation for target entity';

/** Re-serialize a parsed JSON value with the keys of every object sorted (independent of lib/json.ts). */
export function sortedKeys(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedKeys).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${sortedKeys(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The raw body is compact JSON with keys sorted alphabetically at every level. */
export function assertSortedJson(t: Test, res: LightMyRequestResponse, what = 'body') {
  t.match(String(res.headers['content-type']), /^application\/json/, `${what}: JSON content type`);
  let parsed: unknown;
  try { parsed = JSON.parse(res.body); } catch { t.fail(`${what}: body is not JSON: ${res.body}`); return; }
  t.equal(res.body, sortedKeys(parsed), `${what}: compact JSON, keys sorted at every level`);
}

export interface ErrorBody {
  error: { cause: string; explanation?: string; field?: string; validationType?: string; supportCode?: string };
  result: string;
}

/**
 * An NVP answer (`error.cause=...&result=ERROR`: a form of pairs, names sorted) as the error body
 * it carries, for the same checks as a JSON one: a pair other than `result` and `error.<member>`
 * is a failure.
 */
export function nvpErrorBody(t: Test, res: LightMyRequestResponse, what = 'body'): ErrorBody {
  t.match(String(res.headers['content-type']), /^application\/x-www-form-urlencoded/, `${what}: form content type`);
  const pairs = [...new URLSearchParams(res.body)];
  const names = pairs.map(([name]) => name);
  t.same(names, [...names].sort(), `${what}: pairs sorted by name`);
  const body: ErrorBody = { error: { cause: '' }, result: '' };
  for (const [name, value] of pairs) {
    if (name === 'result') body.result = value;
    else if (name.startsWith('error.')) (body.error as Record<string, string>)[name.slice('error.'.length)] = value;
    else t.fail(`${what}: unexpected pair ${name}`);
  }
  return body;
}

/**
 * An INVALID_REQUEST error as the gateway writes it (an NVP request's: as pairs). With `field`, the body must carry exactly
 * cause, explanation, field and validationType; without, exactly cause and explanation.
 */
export function expectInvalid(
  t: Test,
  res: LightMyRequestResponse,
  expected: { status?: number; field?: string | RegExp; validationType?: 'INVALID' | 'MISSING' | 'UNSUPPORTED'; explanation?: string | RegExp },
  what = `${String(expected.field ?? 'request')} ${expected.validationType ?? ''}`,
): ErrorBody {
  const status = expected.status ?? 400;
  if (res.statusCode !== status) {
    // One failure per case, with everything a reader needs.
    t.fail(`${what}: expected HTTP ${status} ${String(expected.field ?? '')} ${expected.validationType ?? ''}, got ${res.statusCode} ${res.body}`);
    return { error: { cause: '' }, result: '' };
  }
  t.pass(`${what}: HTTP ${status}`);
  let body: ErrorBody;
  if (String(res.raw?.req?.url ?? '').startsWith('/api/nvp/')) {
    body = nvpErrorBody(t, res, what);
  } else {
    assertSortedJson(t, res, what);
    body = JSON.parse(res.body) as ErrorBody;
  }
  t.equal(body.result, 'ERROR', `${what}: result ERROR`);
  t.equal(body.error?.cause, 'INVALID_REQUEST', `${what}: cause INVALID_REQUEST`);
  t.type(body.error?.explanation, 'string', `${what}: has an explanation`);
  t.ok((body.error?.explanation ?? '').length >= 1 && (body.error?.explanation ?? '').length <= 1000, `${what}: explanation 1-1000 characters`);
  t.notOk('supportCode' in (body.error ?? {}), `${what}: no supportCode with INVALID_REQUEST`);
  t.same(Object.keys(body), ['error', 'result'], `${what}: only error and result at the top`);
  if (expected.field !== undefined) {
    if (typeof expected.field === 'string') t.equal(body.error?.field, expected.field, `${what}: field`);
    else t.match(body.error?.field, expected.field, `${what}: field`);
    t.equal(body.error?.validationType, expected.validationType ?? 'INVALID', `${what}: validationType`);
    t.same(Object.keys(body.error ?? {}).sort(), ['cause', 'explanation', 'field', 'validationType'], `${what}: error members`);
  } else {
    t.same(Object.keys(body.error ?? {}).sort(), ['cause', 'explanation'], `${what}: no field, no validationType`);
  }
  if (typeof expected.explanation === 'string') t.equal(body.error?.explanation, expected.explanation, `${what}: explanation`);
  else if (expected.explanation) t.match(body.error?.explanation, expected.explanation, `${what}: explanation`);
  return body;
}

/** A 401 as the real gateway answers it, with the challenge issue 15 asks for (the real gateway sends none). */
export function expect401(t: Test, res: LightMyRequestResponse, what: string, explanation = 'Invalid credentials.') {
  t.equal(res.statusCode, 401, `${what}: 401 (got ${res.statusCode} ${res.body})`);
  t.equal(res.body, `{"error":{"cause":"INVALID_REQUEST","explanation":${JSON.stringify(explanation)}},"result":"ERROR"}`, `${what}: body`);
  t.equal(res.headers['www-authenticate'], 'Basic realm="tokengate"', `${what}: WWW-Authenticate: Basic realm="tokengate"`);
  t.match(String(res.headers['content-type']), /^application\/json/, `${what}: JSON content type`);
}

export const payBody = (transaction: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({
  apiOperation: 'PAY',
  transaction: { amount: '12.50', currency: 'USD', ...transaction },
  ...rest,
});

let nextOrder = 10_000_000_000;
/** A fresh order id (11 digits, within the spec's bounds). */
export const orderId = () => String(++nextOrder);

export function pay(app: App, token: string, body: unknown, options: { merchant?: { id: string; apiPassword: string }; order?: string; transaction?: string; auth?: string } = {}) {
  const merchant = options.merchant ?? M1;
  return app.inject({
    method: 'PUT',
    url: payPath(merchant.id, token, options.order ?? orderId(), options.transaction ?? '1'),
    headers: { authorization: options.auth ?? payAuth(merchant) },
    payload: body as Record<string, unknown>,
  });
}

/** Events of the store, as JSON text (bigint positions written as strings). */
export async function storeText(app: App): Promise<string> {
  return JSON.stringify(await app.gateway.store.readAll(), (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

export async function eventsOfType(app: App, type: string) {
  return (await app.gateway.store.readAll()).filter((e) => e.type === type);
}

/** Luhn (mod 10), written here rather than imported so the test does not share the code under test. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return /^\d+$/.test(digits) && sum % 10 === 0;
}

/** Delete Token of `merchant`'s `token`, asserted answered 200. */
export async function deleteTokenOk(t: Test, app: App, token: string, merchant: { id: string; apiPassword: string } = M1): Promise<void> {
  const res = await app.inject({ method: 'DELETE', url: `${tokenPath(merchant.id)}/${token}`, headers: { authorization: tokenAuth(merchant) } });
  t.equal(res.statusCode, 200, `token deleted (${res.body})`);
}
