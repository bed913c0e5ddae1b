// Machinery shared by the fuzz suites (issue 8, item 1): JSON bodies that can hold what
// JSON.stringify cannot write (huge number literals, deep nests, `__proto__` members), paths,
// junk generators, and the checks every answer must pass whatever was sent:
// never a 5xx; an error is the gateway's body (compact, keys sorted, INVALID_REQUEST, field and
// validationType only together); a refused request appends no event; card numbers and security
// codes are never echoed.
// Named *.fixture.ts so tap does not run it as a test file.
import fc from 'fast-check';
import type { Test } from 'tap';
import type { LightMyRequestResponse } from 'fastify';
import type { buildTestApp } from '../helpers/app.js';

export type App = Awaited<ReturnType<typeof buildTestApp>>;

// ---------------------------------------------------------------------------------------------
// Run control

/** Runs of a property: its bounded count in `npm test`, FUZZ_RUNS in the long run (`npm run fuzz`). */
export function runs(bounded: number): number {
  const n = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(n) && n > 0 ? n : bounded;
}

/** Each property stops after this long even if its runs are not done (FUZZ_TIME_LIMIT_MS; 60 s bounded, 15 min long). */
function timeLimitMs(): number {
  const limit = Number(process.env.FUZZ_TIME_LIMIT_MS);
  if (Number.isInteger(limit) && limit > 0) return limit;
  return process.env.FUZZ_RUNS ? 15 * 60_000 : 60_000;
}

/** FUZZ_SEED replays a failure (FUZZ_PATH too: its counterexample at once); otherwise every property draws its own seed (always reported). */
function seed(): number {
  const fixed = Number(process.env.FUZZ_SEED);
  return Number.isInteger(fixed) ? fixed : (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
}

const clip = (text: string, max = 6000) => (text.length <= max ? text : `${text.slice(0, max / 2)}\n...[${text.length - max} characters]...\n${text.slice(-max / 2)}`);

/**
 * Run an async property with fast-check and turn the outcome into one tap assertion, naming the
 * seed and path on failure (replay with FUZZ_SEED=<seed>) and the run count and time on success.
 * With `todo` (a known bug), a failure is reported as a todo assertion: visible, not failing the
 * suite. (A tap subtest marked todo is not run at all, so the property must stay a plain test.)
 */
export async function fuzz<T>(
  t: Test, name: string, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, numRuns: number,
  options: { todo?: string } = {},
): Promise<void> {
  const s = seed();
  const started = performance.now();
  const details = await fc.check(fc.asyncProperty(arbitrary, predicate), {
    numRuns, seed: s,
    // FUZZ_PATH (with FUZZ_SEED) replays one reported counterexample directly.
    ...(process.env.FUZZ_PATH && process.env.FUZZ_SEED ? { path: process.env.FUZZ_PATH } : {}),
    // Shrinking replays the request against an app that remembers: off unless FUZZ_SHRINK is set.
    endOnFailure: process.env.FUZZ_SHRINK === undefined,
    interruptAfterTimeLimit: timeLimitMs(),
  });
  const ms = Math.round(performance.now() - started);
  if (details.failed) {
    // The report goes into the YAML diagnostics (a multi-line test name would break the TAP stream);
    // control characters are escaped so that the report stays readable text.
    const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    const report = clip(`${error}\n\n${fc.defaultReportMessage(details) ?? 'failed'}`).replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    t.fail(`${name}: property failed after ${details.numRuns} runs (seed ${s}; replay with FUZZ_SEED=${s} FUZZ_PATH=${details.counterexamplePath ?? ''})`, {
      diagnostic: true, report, seed: s, path: details.counterexamplePath, ...(options.todo ? { todo: options.todo } : {}),
    });
  } else {
    const fixed = options.todo ? ` - no failure found: if '${options.todo}' is fixed, drop the todo` : '';
    const stopped = details.interrupted ? ` (stopped by the time limit of ${timeLimitMs()} ms)` : '';
    t.pass(`${name}: ${details.numRuns} runs${details.numSkips ? `, ${details.numSkips} skipped` : ''} in ${ms} ms${stopped} (seed ${s})${fixed}`);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON that JSON.stringify cannot express

/** A JSON text fragment written as it is: `1e400`, `-0`, a nest of 10 000 arrays. */
export class Raw {
  constructor(readonly text: string) {}
  toString() { return `Raw(${this.text.length > 40 ? `${this.text.slice(0, 40)}...` : this.text})`; }
}

export type Json = null | boolean | number | string | Raw | Json[] | JsonObject;
export interface JsonObject { [key: string]: Json }

/** Set an own member, also `__proto__` (an assignment would change the prototype instead). */
export function put(target: JsonObject, key: string, value: Json): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

export function object(entries: Array<[string, Json]>): JsonObject {
  const o: JsonObject = {};
  for (const [k, v] of entries) put(o, k, v);
  return o;
}

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Raw);

export function toText(v: Json): string {
  if (v instanceof Raw) return v.text;
  if (v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(toText).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${toText(v[k] as Json)}`).join(',')}}`;
  if (typeof v === 'number' && !Number.isFinite(v)) return 'null';
  return JSON.stringify(v);
}

export function clone(v: Json): Json {
  if (v instanceof Raw || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(clone);
  return object(Object.keys(v).map((k) => [k, clone(v[k] as Json)]));
}

export const split = (path: string) => (path === '' ? [] : path.split('.'));

export function getAt(body: Json | undefined, path: readonly string[]): Json | undefined {
  let at: Json | undefined = body;
  for (const key of path) {
    if (!isObject(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}

/** Set the member at `path`, creating the groups on the way. */
export function setAt(body: JsonObject, path: readonly string[], value: Json): void {
  let at = body;
  for (const key of path.slice(0, -1)) {
    const next = Object.hasOwn(at, key) ? at[key] : undefined;
    if (isObject(next)) at = next;
    else { const created: JsonObject = {}; put(at, key, created); at = created; }
  }
  put(at, path[path.length - 1] as string, value);
}

export function deleteAt(body: JsonObject, path: readonly string[]): void {
  const parent = getAt(body, path.slice(0, -1));
  if (isObject(parent)) delete parent[path[path.length - 1] as string];
}

/** Dotted paths of every member present in a body (groups and leaves). */
export function presentPaths(body: Json | undefined, prefix = ''): string[] {
  if (!isObject(body)) return [];
  return Object.keys(body).flatMap((k) => {
    const p = prefix === '' ? k : `${prefix}.${k}`;
    return [p, ...presentPaths(body[k], p)];
  });
}

// ---------------------------------------------------------------------------------------------
// Characters and junk

/** Single code points that break things: NUL and controls, zero-width, bidi overrides (RTL),
 *  BOM, non-characters, look-alike digits and letters, astral characters (surrogate pairs). */
export const WEIRD = [
  '\u0000', '\u0001', '\u0008', '\u001f', '\u007f', '\u0085', '\u00a0', '\u00ad', '\u200b', '\u200c', '\u200d',
  '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\u2028', '\u2029', '\ufeff', '\ufffd', '\uffff',
  '\u{1F600}', '\u{1F468}', '\u{10FFFF}', '\u{1D7D8}', '\u0301', '\u0660', '\u0661', '\u06f5', '\u0966', '\uff10', '\uff11',
  '\uff21', '\u0130', '\u0131', '\u01c5', '\u00df', '\u00e9', '\u4e2d', '\u05d0', '\u0627', '\t', '\n', '\r', ' ',
  '"', '\\', "'", '<', '>', '&', '%', '{', '}', '[', ']', '/', '?', '#', ';', ',', '.', ':', '=', '+', '-', '_', '$', '!', '@', '*',
];
/** Lone surrogates: valid in a JSON string escape, not in UTF-8 (so never in a URL here). */
export const LONE_SURROGATES = ['\ud800', '\udbff', '\udc00', '\udfff'];

const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
/** One code point of any kind, mostly the interesting ones. */
export const anyChar = fc.oneof(
  { weight: 3, arbitrary: printable },
  { weight: 3, arbitrary: fc.constantFrom(...WEIRD) },
  { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0x10ffff }).filter((c) => c < 0xd800 || c > 0xdfff).map((c) => String.fromCodePoint(c)) },
);

/** A string of exactly `min`..`max` code points drawn from `char`. */
export const codePoints = (char: fc.Arbitrary<string>, min: number, max: number) =>
  fc.array(char, { minLength: min, maxLength: max }).map((cs) => cs.join(''));

export const length = (s: string) => [...s].length;

/** Free text within bounds (any characters: free-text fields of the spec take any). */
export const text = (min: number, max: number) => codePoints(anyChar, min, Math.min(max, min + 60)).chain((s) =>
  max > min + 60 ? fc.oneof(fc.constant(s), codePoints(printable, min, max)) : fc.constant(s));

/** Numbers as JSON literals, some far beyond a double or an int64. */
export const hugeNumber = fc.constantFrom(
  '1e400', '-1e400', '1E+308', '1.7976931348623157e309', '123456789012345678901234567890', '-123456789012345678901234567890',
  '-0', '0.000000000000000000000000001', '9007199254740993', '18446744073709551616', '1e-400', '4.9e-325',
).map((t) => new Raw(t));

export const deepNest = (minDepth: number, maxDepth: number) =>
  fc.tuple(fc.integer({ min: minDepth, max: maxDepth }), fc.constantFrom('[]', '{"a":}', '[{"b":]}')).map(([depth, shape]) => {
    if (shape === '[]') return new Raw(`${'['.repeat(depth)}${']'.repeat(depth)}`);
    if (shape === '{"a":}') return new Raw(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    return new Raw(`${'[{"b":'.repeat(depth)}0${'}]'.repeat(depth)}`);
  });

/** Small JSON values of every kind (fast-check's jsonValue writes `__proto__` members safely). */
const smallJson = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>;

/** Any JSON value that is not a string. */
export const nonString: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null), hugeNumber,
  fc.constant<Json>([]), fc.constant<Json>({}), smallJson.filter((v) => typeof v !== 'string'), deepNest(1, 40),
  fc.array(smallJson, { minLength: 1, maxLength: 3 }),
);

/** Any JSON value that is not a boolean. */
export const nonBoolean: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom('true', 'false', 'TRUE', '1', '0', '', 'yes'), fc.constantFrom(0, 1, -1), fc.constant(null), hugeNumber,
  fc.constant<Json>([]), fc.constant<Json>([true]), fc.constant<Json>({}), smallJson.filter((v) => typeof v !== 'boolean'),
);

/** Any JSON value that is not an object. */
export const nonObject: fc.Arbitrary<Json> = fc.oneof(
  text(0, 10), fc.integer(), fc.boolean(), fc.constant(null), hugeNumber, fc.constant<Json>([]),
  fc.array(smallJson, { maxLength: 3 }), deepNest(1, 40).filter((r) => r.text.startsWith('[')),
);

/** A member name the spec does not have in `known`. */
export const unknownKey = (known: readonly string[]) => fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '', ' ', '.', 'a.b',
    '\u0000', '\u200b', '\u202e', 'Amount', 'AMOUNT', 'number', 'securityCode', 'id', 'foo', '$ref', 'apiOperation ', 'type\u200b'),
  codePoints(anyChar, 1, 12),
).filter((k) => !known.includes(k));

// ---------------------------------------------------------------------------------------------
// Checks every answer must pass

/** Re-serialize parsed JSON with keys sorted at every level (independent of lib/json.ts). */
export function sortedKeys(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedKeys).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record).sort().map((k) => `${JSON.stringify(k)}:${sortedKeys(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

export interface ErrorBody { error: { cause: string; explanation?: string; field?: string; validationType?: string; supportCode?: string }; result: string }

/** What is wrong with an error answer, as a list of problems (empty: it is the gateway's error body). */
export function errorShapeProblems(res: LightMyRequestResponse): string[] {
  const problems: string[] = [];
  if (!/^application\/json/.test(String(res.headers['content-type']))) problems.push(`content type ${String(res.headers['content-type'])}`);
  let body: ErrorBody;
  try { body = JSON.parse(res.body) as ErrorBody; } catch { return [...problems, 'body is not JSON']; }
  // Parse with the big integers kept as text is unnecessary: error bodies hold none.
  if (res.body !== sortedKeys(body)) problems.push('not compact JSON with keys sorted at every level');
  if (sortedKeys(Object.keys(body ?? {})) !== '["error","result"]') problems.push('top level is not exactly error and result');
  if (body?.result !== 'ERROR') problems.push('result is not ERROR');
  const error = body?.error ?? ({} as ErrorBody['error']);
  if (error.cause !== 'INVALID_REQUEST') problems.push(`cause ${String(error.cause)}`);
  if (typeof error.explanation !== 'string' || error.explanation.length < 1 || error.explanation.length > 1000) {
    problems.push(`explanation is not a string of 1-1000 characters (length ${String(error.explanation?.length)})`);
  }
  const keys = Object.keys(error).sort().join(',');
  if (keys !== 'cause,explanation' && keys !== 'cause,explanation,field,validationType') problems.push(`error members ${keys}`);
  if (error.field !== undefined && !['INVALID', 'MISSING', 'UNSUPPORTED'].includes(String(error.validationType))) problems.push(`validationType ${String(error.validationType)}`);
  return problems;
}

/**
 * Sensitive values (card numbers, security codes, bank account numbers) found in a request body,
 * and the request with them blanked out, to tell an echo from a value the request also carries
 * elsewhere.
 */
export function sensitiveValues(body: Json | undefined): { values: string[]; rest: string } {
  const values: string[] = [];
  const blank = (v: Json | undefined, key: string): Json | undefined => {
    if (/^(number|securityCode|bankAccountNumber)$/.test(key) && v !== undefined) {
      collect(v);
      return null;
    }
    if (Array.isArray(v)) return v.map((x) => blank(x, '') ?? null);
    if (isObject(v)) return object(Object.keys(v).map((k) => [k, blank(v[k], k) ?? null]));
    return v;
  };
  const collect = (v: Json) => {
    if (typeof v === 'string' || typeof v === 'number') values.push(String(v));
    else if (v instanceof Raw) values.push(v.text);
    else if (Array.isArray(v)) v.forEach(collect);
    else if (isObject(v)) Object.keys(v).forEach((k) => collect(v[k] as Json));
  };
  const rest = body === undefined ? '' : toText(blank(body, '') ?? null);
  return { values: values.filter((v) => v.trim().length >= 3), rest };
}

/**
 * Where the answer echoes a sensitive value: anywhere when it holds 6 digits or more (a card
 * number, whole or in part of a bigger value), else as a quoted value (`'123'` in an explanation,
 * `\"123\"` inside a quoted JSON text, `"securityCode":"123"`).
 */
export function echoProblems(resBody: string, secrets: readonly string[], elsewhere: string): string[] {
  const problems: string[] = [];
  for (const secret of secrets) {
    const forms = [...new Set([secret, JSON.stringify(secret).slice(1, -1)])];
    for (const form of forms) {
      if (elsewhere.includes(form)) continue; // the request carries it outside card data too
      const found = /[0-9]{6}/.test(form)
        ? resBody.includes(form)
        : resBody.includes(`'${form}'`) || resBody.includes(`\\"${form}\\"`) || resBody.includes(`"securityCode":"${form}"`) || resBody.includes(`"number":"${form}"`);
      if (found) problems.push(`echoes the sensitive value ${JSON.stringify(secret)}`);
    }
  }
  return problems;
}

export interface Sent {
  method: 'PUT' | 'POST';
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

export interface Expectation {
  /** Allowed statuses. */
  status: readonly number[];
  /** With 400: the fields the error may name (`null`: no field). Undefined: any field. */
  fields?: ReadonlyArray<string | null>;
  /** With a field: the allowed validation types. */
  validationTypes?: readonly string[];
}

export interface Outcome { res: LightMyRequestResponse; appended: bigint }

/** Send a request and check the universal properties; returns the answer for specific checks. */
export async function sendChecked(app: App, sent: Sent, secrets: { values: readonly string[]; elsewhere: string }): Promise<Outcome> {
  const before = await app.gateway.store.headPosition();
  let res: LightMyRequestResponse;
  try {
    res = await app.inject({ method: sent.method, url: sent.url, headers: sent.headers, ...(sent.payload === undefined ? {} : { payload: sent.payload }) });
  } catch (error) {
    throw new Error(`the request crashed the app: ${(error as Error).stack ?? String(error)}\n${describe(sent)}`);
  }
  const after = await app.gateway.store.headPosition();
  const problems: string[] = [];
  if (res.statusCode >= 500) problems.push(`HTTP ${res.statusCode}`);
  if (res.statusCode !== 201) {
    problems.push(...errorShapeProblems(res));
    if (after !== before) problems.push(`a refused request appended ${after - before} event(s)`);
  }
  problems.push(...echoProblems(res.body, secrets.values, `${secrets.elsewhere} ${sent.url}`));
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\n${describe(sent)}\n=> ${res.statusCode} ${clip(res.body, 1500)}`);
  return { res, appended: after - before };
}

export function describe(sent: Sent): string {
  const payload = sent.payload === undefined ? '(no body)' : Buffer.isBuffer(sent.payload) ? `<${sent.payload.length} bytes>` : sent.payload;
  return `${sent.method} ${clip(sent.url, 600)}\n${Object.entries(sent.headers).map(([k, v]) => `${k}: ${JSON.stringify(v)}`).join('\n')}\n${clip(payload, 1500)}`;
}

/** Check a refusal against what the mutation that caused it leads us to expect. */
export function expectRefusal(outcome: Outcome, expected: Expectation, sent: Sent, what: string): void {
  const { res } = outcome;
  const fail = (problem: string) => { throw new Error(`${what}: ${problem}\n${describe(sent)}\n=> ${res.statusCode} ${clip(res.body, 1500)}`); };
  if (!expected.status.includes(res.statusCode)) fail(`expected HTTP ${expected.status.join(' or ')}`);
  if (res.statusCode !== 400) return;
  const error = (JSON.parse(res.body) as ErrorBody).error;
  const field = error.field ?? null;
  if (expected.fields && !expected.fields.includes(field)) {
    fail(`expected the field to be ${expected.fields.map((f) => (f === null ? '(none)' : `'${f}'`)).join(' or ')}, got ${field === null ? '(none)' : `'${field}'`}`);
  }
  if (field !== null && expected.validationTypes && !expected.validationTypes.includes(String(error.validationType))) {
    fail(`expected validationType ${expected.validationTypes.join(' or ')}, got ${String(error.validationType)}`);
  }
}

/** Merge expectations of several mutations: any of their outcomes is acceptable. */
export function anyOf(expectations: readonly Expectation[]): Expectation {
  const status = [...new Set(expectations.flatMap((e) => e.status))];
  const fields = expectations.some((e) => e.fields === undefined) ? undefined : [...new Set(expectations.flatMap((e) => e.fields ?? []))];
  const validationTypes = expectations.some((e) => e.validationTypes === undefined) ? undefined : [...new Set(expectations.flatMap((e) => e.validationTypes ?? []))];
  return { status, ...(fields ? { fields } : {}), ...(validationTypes ? { validationTypes } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Field specifications, written from ../shared/spec/gateway-api.md (not from schemas/)

export interface FieldSpec {
  /** Dotted path of the member. */
  path: string;
  type: 'string' | 'boolean';
  /** Bounds in characters (code points). */
  min?: number;
  max?: number;
  /** Required when its group is present (top-level groups: always). */
  required?: boolean;
  /** Valid values (bounds, format and business rules met). */
  valid: fc.Arbitrary<string | boolean>;
  /** One allowed character, to build strings that are too long or too short but otherwise fine. */
  fill?: fc.Arbitrary<string>;
  /** Values of allowed length but wrong format. */
  badFormat?: fc.Arbitrary<string>;
  /** Values of right format the gateway refuses (amount zero, unknown currency, failing Luhn...). */
  semantic?: fc.Arbitrary<{ value: string; validationType: string }>;
  /** Card data: never echoed. */
  sensitive?: boolean;
  /** Not in valid bodies: a valid value is refused as UNSUPPORTED naming this field. */
  unsupportedAs?: string;
  /** Not in valid bodies: a valid value (alone) is refused naming this field with this validation type. */
  refusedAs?: { field: string; validationType: string };
  /** Not in valid bodies (groups whose presence changes the request's meaning). */
  notInValid?: boolean;
}

/** Insert one character from `chars` at a random place of a valid value. */
export const withBadChar = (valid: fc.Arbitrary<string>, chars: fc.Arbitrary<string>) =>
  fc.tuple(valid, chars, fc.nat()).map(([v, c, i]) => { const cps = [...v]; cps.splice(i % (cps.length + 1), 0, c); return cps.join(''); });

export const DIGIT = fc.constantFrom(...'0123456789');
export const ALNUM = fc.constantFrom(...'0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
export const digits = (min: number, max: number) => codePoints(DIGIT, min, max);
export const alnum = (min: number, max: number) => codePoints(ALNUM, min, max);
/** Characters that are not ASCII digits (look-alike digits included). */
export const NOT_DIGIT = fc.constantFrom(...WEIRD.filter((c) => !/^[0-9]$/.test(c)), 'a', 'O', 'l', ...LONE_SURROGATES);
export const NOT_ALNUM = fc.constantFrom(...WEIRD.filter((c) => !/^[0-9A-Za-z]$/.test(c)), ...LONE_SURROGATES);
export const NOT_ASCII = fc.constantFrom(...WEIRD.filter((c) => !/^[\x20-\x7e]$/.test(c)), ...LONE_SURROGATES);

export const enumField = (path: string, values: readonly string[], extra: Partial<FieldSpec> = {}): FieldSpec => ({
  path, type: 'string', valid: fc.constantFrom(...values),
  badFormat: fc.oneof(
    fc.constantFrom(...values).chain((v) => fc.constantFrom(v.toLowerCase(), `${v} `, ` ${v}`, `${v}\u200b`, `\u202e${v}`, v.slice(0, -1), `${v}\u0000`, `${v}S`)),
    text(0, 12),
  ).filter((v) => !values.includes(v)),
  ...extra,
});

export const textField = (path: string, min: number, max: number, extra: Partial<FieldSpec> = {}): FieldSpec => ({
  path, type: 'string', min, max, valid: text(min, max), fill: anyChar, ...extra,
});

export const booleanField = (path: string): FieldSpec => ({ path, type: 'boolean', valid: fc.boolean() });

/** Luhn check digit of a digit string. */
export function luhnDigit(payload: string): string {
  let sum = 0;
  for (let i = 0; i < payload.length; i++) {
    let d = Number(payload[payload.length - 1 - i]);
    if (i % 2 === 0) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}
export const luhnValid = (n: string) => luhnDigit(n.slice(0, -1)) === n.slice(-1);

/** A card number of `min`..`max` digits that passes the Luhn check. */
export const cardNumber = (min: number, max: number) => digits(min - 1, max - 1).map((p) => p + luhnDigit(p));

const octet = fc.integer({ min: 0, max: 255 }).map(String);
export const ipv4 = fc.tuple(octet, octet, octet, octet).map((o) => o.join('.'));
export const badIpv4 = fc.oneof(
  fc.tuple(fc.integer({ min: 256, max: 999 }), octet, octet, octet).map(([a, b, c, d]) => [String(a), b, c, d].join('.')),
  fc.tuple(octet, octet, octet).map((o) => `${o.join('.')}.`),
  fc.tuple(octet, octet, octet, octet, octet).map((o) => o.join('.').slice(0, 15)),
  fc.tuple(octet, octet, octet).map((o) => `${o.join('.')}.x`),
  withBadChar(ipv4, NOT_DIGIT.filter((c) => c !== '.')),
).filter((v) => !/^((25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])\.){3}(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])$/.test(v) && length(v) >= 7 && length(v) <= 15);

// ---------------------------------------------------------------------------------------------
// Mutations

export interface Mutation<R> {
  /** What was done, for the failure report. */
  what: string;
  /** The path the mutation touched (URL parameter name, dotted body path, or '' for the body). */
  at: string;
  apply(request: R): void;
  expect: Expectation;
}

const INVALID = ['INVALID'];

/** Mutations of one leaf field: wrong type, too long, too short, bad format, refused value, missing. */
export function leafMutations<R extends { body: JsonObject }>(spec: FieldSpec): fc.Arbitrary<Mutation<R>> {
  const path = split(spec.path);
  const set = (what: string, value: fc.Arbitrary<Json>, expect: Expectation = { status: [400], fields: [spec.path], validationTypes: INVALID }) =>
    value.map((v): Mutation<R> => ({ what: `${what} ${spec.path} = ${clip(toText(v), 200)}`, at: spec.path, apply: (r) => setAt(r.body, path, clone(v)), expect }));
  const options: Array<fc.Arbitrary<Mutation<R>>> = [set('wrong type', spec.type === 'boolean' ? nonBoolean : nonString)];
  if (spec.type === 'string' && spec.max !== undefined) {
    const fill = spec.fill ?? anyChar;
    options.push(set('too long', fc.oneof(codePoints(fill, spec.max + 1, spec.max + 8), codePoints(fill, spec.max + 100, spec.max + 3000))));
  }
  if (spec.type === 'string' && spec.min !== undefined && spec.min > 0) {
    options.push(set('too short', codePoints(spec.fill ?? anyChar, 0, spec.min - 1)));
  }
  if (spec.badFormat) options.push(set('bad format', spec.badFormat));
  if (spec.semantic) {
    options.push(spec.semantic.chain(({ value, validationType }) =>
      set('refused value', fc.constant(value), { status: [400], fields: [spec.path], validationTypes: [validationType] })));
  }
  if (spec.required) {
    options.push(fc.constant<Mutation<R>>({ what: `missing ${spec.path}`, at: spec.path, apply: (r) => deleteAt(r.body, path), expect: { status: [400], fields: [spec.path], validationTypes: ['MISSING'] } }));
  }
  if (spec.unsupportedAs) {
    options.push(set('not supported yet', spec.valid, { status: [400], fields: [spec.unsupportedAs], validationTypes: ['UNSUPPORTED'] }));
  }
  if (spec.refusedAs) {
    options.push(set('refused alone', spec.valid, { status: [400], fields: [spec.refusedAs.field], validationTypes: [spec.refusedAs.validationType] }));
  }
  return fc.oneof(...options);
}

/** Mutations of a group: not an object, an unknown member. */
export function groupMutations<R extends { body: JsonObject }>(group: string, known: readonly string[], required: boolean): fc.Arbitrary<Mutation<R>> {
  const path = split(group);
  const options: Array<fc.Arbitrary<Mutation<R>>> = [
    fc.tuple(unknownKey(known), fc.oneof(smallJson, hugeNumber, deepNest(1, 2000), text(0, 20))).map(([key, value]): Mutation<R> => {
      const field = group === '' ? key : `${group}.${key}`;
      return {
        what: `unknown member '${field}' = ${clip(toText(value), 200)}`, at: field,
        apply: (r) => setAt(r.body, [...path, key], clone(value)),
        expect: { status: [400], fields: [field], validationTypes: ['UNSUPPORTED'] },
      };
    }),
  ];
  if (group !== '') {
    options.push(nonObject.map((v): Mutation<R> => ({
      what: `group ${group} = ${clip(toText(v), 200)}`, at: group, apply: (r) => setAt(r.body, path, clone(v)),
      expect: { status: [400], fields: [group], validationTypes: INVALID },
    })));
    if (required) {
      options.push(fc.constant<Mutation<R>>({ what: `missing group ${group}`, at: group, apply: (r) => deleteAt(r.body, path), expect: { status: [400], fields: [group], validationTypes: ['MISSING'] } }));
    }
  }
  return fc.oneof(...options);
}

/** The groups of a list of field specs and, for each, the names of its members. */
export function groupsOf(specs: readonly FieldSpec[]): Map<string, string[]> {
  const groups = new Map<string, Set<string>>([['', new Set()]]);
  for (const spec of specs) {
    const parts = split(spec.path);
    for (let i = 0; i < parts.length; i++) {
      const group = parts.slice(0, i).join('.');
      if (!groups.has(group)) groups.set(group, new Set());
      groups.get(group)?.add(parts[i] as string);
    }
  }
  return new Map([...groups].map(([g, members]) => [g, [...members]]));
}

/** Build a valid body from the specs: required members always, optional ones at random. */
export function validBody(specs: readonly FieldSpec[], overrides: Record<string, fc.Arbitrary<string | boolean>> = {}): fc.Arbitrary<JsonObject> {
  const usable = specs.filter((s) => !s.unsupportedAs && !s.refusedAs && !s.notInValid);
  return fc.tuple(...usable.map((s) => fc.tuple(fc.constant(s), overrides[s.path] ?? s.valid, s.required ? fc.constant(true) : fc.boolean()))).map((leaves) => {
    const body: JsonObject = {};
    for (const [spec, value, present] of leaves) if (present) setAt(body, split(spec.path), value);
    return body;
  });
}

/** Is a mutation's path inside (or equal to) another's? Such pairs are not combined. */
export const overlaps = (a: string, b: string) => a === b || a === '' || b === '' || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);

// ---------------------------------------------------------------------------------------------
// Credentials and transport junk

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** Authorization headers that are not the merchant's credentials. */
export const badAuthorization = (merchantId: string, password: string, otherPassword: string) => fc.oneof(
  fc.constant<string | null>(null),
  fc.constantFrom('', 'Basic', 'Basic ', 'Basic !!!', 'Basic Og==', 'Bearer abc', 'basic', `Digest ${merchantId}`, 'Basic \u00e9'),
  fc.string({ maxLength: 60 }).map((p) => basic('', p)).filter((h) => h !== basic('', password)),
  fc.string({ maxLength: 60 }).map((p) => basic(`merchant.${merchantId}`, p)).filter((h) => h !== basic(`merchant.${merchantId}`, password)),
  fc.constant(basic('', otherPassword)),
  fc.constant(basic(`merchant.${merchantId}`, otherPassword)),
  fc.constant(basic(`merchant.${merchantId.toLowerCase()}`, password)),
  fc.constant(basic(`merchant.${merchantId}`, `${password} `)),
  fc.constant(basic(`merchant.${merchantId}`, password.slice(0, -1))),
  fc.string({ maxLength: 80 }).map((s) => `Basic ${s}`),
);

/** Content types a client might send with a JSON body, well formed (type/subtype and parameters). */
export const wellFormedContentType = fc.oneof(
  fc.constantFrom<string | null>(null, 'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'Application/Json; Charset=UTF-8',
    'text/plain', 'text/plain; charset=iso-8859-1', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz',
    'application/octet-stream', 'application/xml', 'text/html', 'application/vnd.api+json', 'application/problem+json',
    'application/json; charset=utf-16', 'application/json;charset=latin1', '*/*', 'application/*', 'image/png', 'application/json; foo="bar baz"'),
  fc.tuple(codePoints(ALNUM, 1, 12), codePoints(ALNUM, 1, 12)).map(([a, b]) => `${a}/${b}`),
);

/** Content-Type header values that are not media types at all. */
export const malformedContentType = fc.oneof(
  fc.constantFrom('', ' ', 'json', 'application', 'application/', '/json', ';', 'application/json;;', 'a/b/c', 'application/ json',
    'application /json', '\u00e9', 'application/json; charset', '"application/json"', 'application/json,text/plain'),
  fc.string({ unit: 'binary-ascii', maxLength: 30 }).filter((s) => /^[\x20-\x7e]*$/.test(s) && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(\s*;.*)?$/.test(s.trim())),
);

/** Ways to break a JSON text. */
export const corruption = fc.oneof(
  fc.nat().map((i) => ({ what: 'truncated', apply: (s: string) => s.slice(0, i % Math.max(1, s.length)) })),
  fc.tuple(fc.nat(), fc.constantFrom('{', '}', '[', ']', ',', ':', '"', "'", '\\', '\u0000', 'x', 'NaN', 'undefined', '//', '/*', '\u00a0', '\ufeff', ',,', 'Infinity', '0x10', '01')).map(([i, junk]) =>
    ({ what: `inserted ${JSON.stringify(junk)} at ${i}`, apply: (s: string) => { const at = i % (s.length + 1); return s.slice(0, at) + junk + s.slice(at); } })),
  fc.nat().map((i) => ({ what: `deleted character ${i}`, apply: (s: string) => { const at = i % Math.max(1, s.length); return s.slice(0, at) + s.slice(at + 1); } })),
  fc.constantFrom(
    { what: 'single quotes', apply: (s: string) => s.replace(/"/g, "'") },
    { what: 'trailing comma', apply: (s: string) => `${s.slice(0, -1)},}` },
    { what: 'two documents', apply: (s: string) => s + s },
    { what: 'byte order mark', apply: (s: string) => `\ufeff${s}` },
    { what: 'unquoted keys', apply: (s: string) => s.replace(/"([A-Za-z]+)":/g, '$1:') },
    { what: 'comment', apply: (s: string) => `/* card */${s}` },
    { what: 'NaN amount', apply: (s: string) => s.replace(/"amount":"[^"]*"/, '"amount":NaN') },
    { what: 'raw control character', apply: (s: string) => s.replace(/":"/, '":"\u0001') },
    { what: 'bad escape', apply: (s: string) => s.replace(/":"/, '":"\\x41') },
    { what: 'lone backslash', apply: (s: string) => s.replace(/":"/, '":"\\') },
    { what: 'unterminated string', apply: (s: string) => s.replace(/"}$/, '}') },
  ),
);
