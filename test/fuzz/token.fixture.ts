// Create or Update Token (POST version 100) for the fuzz suites: the request fields of the spec
// with their bounds and formats, valid requests, and mutations that each break one known thing.
// Named *.fixture.ts so tap does not run it as a test file.
import fc from 'fast-check';
import { buildTestApp, M1, M2, MERCHANTS, UNIQUE, tokenAuth } from '../helpers/app.js';
import {
  ALNUM, DIGIT, NOT_ALNUM, NOT_ASCII, NOT_DIGIT, anyChar, cardNumber, clone, codePoints, digits, enumField, groupMutations, groupsOf,
  ipv4, leafMutations, length, luhnDigit, sensitiveValues, text, textField, toText, validBody, withBadChar,
  type App, type FieldSpec, type JsonObject, type Mutation, type Sent,
} from './fuzz.fixture.js';
import { COUNTRIES } from './pay.fixture.js';
import type { Test } from 'tap';

const CARD = 'sourceOfFunds.provided.card';
const printable = fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c));
const ascii = (min: number, max: number, extra: Partial<FieldSpec> = {}): Partial<FieldSpec> => ({
  type: 'string', min, max, valid: codePoints(printable, min, max), fill: printable, badFormat: withBadChar(codePoints(printable, Math.max(0, min - 1), max - 1), NOT_ASCII), ...extra,
});
const chars = (alphabet: string, min: number, max: number): Partial<FieldSpec> => {
  const allowed = fc.constantFrom(...alphabet);
  return {
    type: 'string', min, max, valid: codePoints(allowed, min, max), fill: allowed,
    badFormat: withBadChar(codePoints(allowed, Math.max(0, min - 1), max - 1), fc.constantFrom(...[...NOT_ALNUM_LIST, ...'ä'].filter((c) => !alphabet.includes(c)))),
  };
};
const NOT_ALNUM_LIST = ['\u0000', '\u200b', '\u202e', '\u{1F600}', '\u0661', '\uff10', '\u00e9', '\t', '"', '\\', "'", '<', '%', '{', '/', '?', '#', ';', ',', '.', ':', '=', '+', '-', '_', '$', '!', '@', '*', ' ', '&', '\ud800'];
const ALNUM_CHARS = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

const UPPER = fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ');
const alpha3BadFormat = fc.oneof(
  fc.constantFrom('usa', 'Usa', 'U1A', 'U A', '\uff35SA', 'US\u0000', 'G\u200bB', '\u00c9SP', '123'),
  fc.tuple(codePoints(UPPER, 2, 2), fc.oneof(NOT_ALNUM, DIGIT, fc.constantFrom(...'abcxyz')), fc.nat(2))
    .map(([letters, bad, at]) => { const cs = [...letters]; cs.splice(at, 0, bad); return cs.join(''); }),
).filter((c) => !/^[A-Z]{3}$/.test(c) && length(c) === 3);
const country = (path: string): FieldSpec => ({
  path, type: 'string', min: 3, max: 3, valid: fc.constantFrom(...COUNTRIES), fill: UPPER, badFormat: alpha3BadFormat,
});

const email = fc.tuple(codePoints(fc.constantFrom(...`${ALNUM_CHARS}._%+-`), 1, 20), codePoints(ALNUM, 1, 20), codePoints(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), 2, 6))
  .map(([local, domain, tld]) => `${local}@${domain}.${tld}`);
const badEmail = fc.oneof(
  fc.constantFrom('plainaddress', 'a@b', '@b.co', 'a b@c.de', 'a@b@c.de', 'a"b@c.de', 'a@b.c ', 'a@[b].cd', 'a(b)@c.de', 'a@b,c.de', 'a;b@c.de', 'ab@.', 'abcd'),
  email.map((e) => e.replace('@', '')),
  withBadChar(email, fc.constantFrom(' ', '"', '(', ')', ',', ':', ';', '<', '>', '[', ']', '\\', '\t', '\n', '@', '\u0000', '\u001b', '\u007f', '\u0085', '\ud800')),
);

/** ITU-T E.123: '+', 1-3 digit country code, a space, the national number in groups, at most 15 digits, 4-20 characters. */
const phone = fc.tuple(digits(1, 3), fc.array(digits(1, 4), { minLength: 1, maxLength: 4 }))
  .map(([cc, groups]) => `+${cc} ${groups.join(' ')}`)
  .filter((p) => p.length <= 20 && p.replace(/\D/g, '').length <= 15);
const badPhone = fc.oneof(
  fc.constantFrom('2125551234', '+1  212', '+1-212-555', '+1234 5678', '+1 212 ', '+ 1 212', '+1 (212) 555', '+1 212a', '+1\u00a0212', '+\uff11 212', '++1 212'),
  withBadChar(phone, fc.constantFrom('a', '-', '(', '.', '/', '\u200b', '\u0661', '#')),
);
/** More than 15 digits in 20 characters: the spec's rule, beyond what a pattern can say. */
const tooManyDigitsPhone = fc.tuple(digits(1, 3), digits(13, 16)).map(([cc, n]) => `+${cc} ${n}`).filter((p) => p.length <= 20 && p.replace(/\D/g, '').length > 15);

const hex = fc.constantFrom(...'0123456789abcdefABCDEF');
const ipv6 = fc.oneof(
  fc.array(codePoints(hex, 1, 4), { minLength: 8, maxLength: 8 }).map((g) => g.join(':')),
  fc.tuple(fc.array(codePoints(hex, 1, 4), { minLength: 1, maxLength: 3 }), fc.array(codePoints(hex, 1, 4), { minLength: 1, maxLength: 3 })).map(([a, b]) => `${a.join(':')}::${b.join(':')}`),
  fc.constantFrom('2001:db8::1', 'fe80::1ff:fe23:4567:890a', '::ffff:192.0.2.128'),
).filter((s) => s.length >= 7 && s.length <= 45);
const badIp = fc.oneof(
  fc.constantFrom('not an ip', 'localhost', '999.999.999.999', '1.2.3.4.5', '1.2.3', '2001:db8:::1', 'gggg::1', '1.2.3.4/24', 'example.com', '12345678'),
  codePoints(anyChar, 7, 20).filter((s) => !/^[0-9a-fA-F:.]+$/.test(s)),
);

const thisYear = new Date().getUTCFullYear() % 100;
const month = fc.integer({ min: 1, max: 12 }).chain((m) => fc.constantFrom(String(m), String(m).padStart(2, '0')));
/** A year after this one, two digits (a card valid through the whole of it). */
const futureYear = fc.integer({ min: thisYear + 1, max: 99 }).map((y) => String(y).padStart(2, '0'));
const pastYear = fc.integer({ min: Math.max(0, thisYear - 15), max: thisYear - 1 }).map((y) => String(y).padStart(2, '0'));

/** Fields of the create request ("Create token: request body"). */
export function tokenSpecs(): FieldSpec[] {
  const address = (base: string, company: boolean, stateProvinceCode: boolean): FieldSpec[] => [
    textField(`${base}.city`, 1, 100),
    ...(company ? [textField(`${base}.company`, 1, 100)] : []),
    country(`${base}.country`),
    { path: `${base}.postcodeZip`, ...chars(`${ALNUM_CHARS} -`, 1, 10) } as FieldSpec,
    textField(`${base}.stateProvince`, 1, 20),
    ...(stateProvinceCode ? [{ path: `${base}.stateProvinceCode`, ...chars('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ', 1, 3) } as FieldSpec] : []),
    textField(`${base}.street`, 1, 100),
    textField(`${base}.street2`, 1, 100),
  ];
  const notInValid = { notInValid: true };
  return [
    ...address('billing.address', true, true),
    textField('correlationId', 1, 100),
    { path: 'customer.email', type: 'string', min: 4, max: 256, valid: email, fill: ALNUM, badFormat: badEmail },
    textField('customer.firstName', 1, 50),
    textField('customer.lastName', 1, 50),
    { path: 'customer.mobilePhone', type: 'string', min: 4, max: 20, valid: phone, fill: DIGIT, badFormat: badPhone },
    { path: 'customer.phone', type: 'string', min: 4, max: 20, valid: phone, fill: DIGIT, badFormat: badPhone },
    textField('customer.taxRegistrationId', 1, 30),
    { path: 'device.ipAddress', type: 'string', min: 7, max: 45, valid: fc.oneof(ipv4.filter((s) => s.length >= 7), ipv6), fill: DIGIT },
    { path: 'posTerminal.serialNumber', ...ascii(1, 16) } as FieldSpec,
    // With card details in the body: refused (the card comes from the order). An order id holds no
    // NUL (refused on the field itself in every id: PostgreSQL cannot store one).
    textField('referenceOrderId', 1, 40, { valid: text(1, 40).filter((s) => !s.includes('\u0000')), refusedAs: { field: `${CARD}`, validationType: 'UNSUPPORTED' } }),
    textField('responseControls.sensitiveData', 1, 50),
    enumField('schemeTokenProvisioningMode', ['ASYNCHRONOUS', 'ATTEMPT_SYNCHRONOUS', 'SYNCHRONOUS']),
    // A session id of no session of the merchant; a version without a session.
    { path: 'session.id', ...ascii(31, 35), refusedAs: { field: 'session.id', validationType: 'INVALID' } } as FieldSpec,
    { path: 'session.version', ...ascii(10, 10), refusedAs: { field: 'session.id', validationType: 'MISSING' } } as FieldSpec,
    ...address('shipping.address', false, false),
    textField('shipping.contact.firstName', 1, 50),
    textField('shipping.contact.lastName', 1, 50),
    { path: 'shipping.origin.postcodeZip', ...chars(`${ALNUM_CHARS} -`, 1, 10) } as FieldSpec,
    enumField('sourceOfFunds.type', ['CARD'], { required: true }),
    // A token of no token of the repository; push provisioning with card details in the body.
    { path: 'sourceOfFunds.token', ...chars(ALNUM_CHARS, 1, 40), refusedAs: { field: 'sourceOfFunds.token', validationType: 'INVALID' } } as FieldSpec,
    { path: 'sourceOfFunds.schemeTokenProvisioningIdentifier', ...ascii(1, 64), refusedAs: { field: CARD, validationType: 'UNSUPPORTED' } } as FieldSpec,
    {
      path: `${CARD}.expiry.month`, type: 'string', min: 1, max: 2, required: true, valid: month, fill: DIGIT,
      badFormat: fc.constantFrom('0', '00', '13', '19', '99', '1a', ' 1', '1 ', '\u0661', '\uff11', '-1', '+1', '1.', 'I'),
    },
    {
      path: `${CARD}.expiry.year`, type: 'string', min: 2, max: 2, required: true, valid: futureYear, fill: DIGIT,
      badFormat: withBadChar(digits(1, 1), NOT_DIGIT), semantic: pastYear.map((value) => ({ value, validationType: 'INVALID' })),
    },
    textField(`${CARD}.nameOnCard`, 1, 256),
    {
      path: `${CARD}.number`, type: 'string', min: 9, max: 19, required: true, valid: cardNumber(12, 19), fill: DIGIT, sensitive: true,
      badFormat: withBadChar(digits(8, 18), NOT_DIGIT),
      // Right format, wrong check digit.
      semantic: digits(11, 18).map((p) => ({ value: p + String((Number(luhnDigit(p)) + 1 + (p.length % 9)) % 10), validationType: 'INVALID' })),
    },
    { path: `${CARD}.securityCode`, type: 'string', min: 3, max: 4, valid: digits(3, 4), fill: DIGIT, badFormat: withBadChar(digits(2, 3), NOT_DIGIT), sensitive: true },
    // Bank accounts and wallets (test/http/token-sources.test.ts): here beside a card, validated, not stored.
    enumField('sourceOfFunds.provided.ach.accountType', ['CONSUMER_CHECKING', 'CONSUMER_SAVINGS', 'CORPORATE_CHECKING'], notInValid),
    textField('sourceOfFunds.provided.ach.bankAccountHolder', 1, 28, notInValid),
    { path: 'sourceOfFunds.provided.ach.bankAccountNumber', ...chars(`${ALNUM_CHARS} -/`, 1, 17), sensitive: true, ...notInValid } as FieldSpec,
    { path: 'sourceOfFunds.provided.ach.routingNumber', type: 'string', min: 9, max: 9, valid: digits(9, 9), fill: DIGIT, badFormat: withBadChar(digits(8, 8), NOT_DIGIT), ...notInValid },
    enumField('sourceOfFunds.provided.ach.secCode', ['PPD', 'TEL', 'WEB'], notInValid),
    enumField('sourceOfFunds.provided.directDebitCanada.accountType', ['CONSUMER_CHECKING', 'CONSUMER_SAVINGS'], notInValid),
    textField('sourceOfFunds.provided.directDebitCanada.bankAccountHolder', 1, 28, { required: true, ...notInValid }),
    { path: 'sourceOfFunds.provided.directDebitCanada.bankAccountNumber', ...chars(`${ALNUM_CHARS} -/`, 7, 12), required: true, sensitive: true, ...notInValid } as FieldSpec,
    { path: 'sourceOfFunds.provided.directDebitCanada.financialInstitutionNumber', type: 'string', min: 3, max: 3, required: true, valid: digits(3, 3), fill: DIGIT, badFormat: withBadChar(digits(2, 2), NOT_DIGIT), ...notInValid },
    { path: 'sourceOfFunds.provided.directDebitCanada.transitNumber', type: 'string', min: 5, max: 5, required: true, valid: digits(5, 5), fill: DIGIT, badFormat: withBadChar(digits(4, 4), NOT_DIGIT), ...notInValid },
    { path: 'sourceOfFunds.provided.wallet.accountEmail', type: 'string', min: 4, max: 256, valid: email, fill: ALNUM, badFormat: badEmail, ...notInValid },
    textField('sourceOfFunds.provided.wallet.accountHolder', 1, 255, notInValid),
    enumField('sourceOfFunds.provided.wallet.billingAgreement.cardinality', ['MULTIPLE', 'SINGLE'], { required: true, ...notInValid }),
    textField('sourceOfFunds.provided.wallet.billingAgreement.description', 1, 255, notInValid),
    textField('sourceOfFunds.provided.wallet.billingAgreement.id', 1, 100, { required: true, ...notInValid }),
    textField('sourceOfFunds.provided.wallet.billingAgreement.name', 1, 255, notInValid),
    textField('sourceOfFunds.provided.wallet.payerId', 1, 13, notInValid),
    { path: 'subMerchant.identifier', ...chars(`${ALNUM_CHARS}-_ &+!$.`, 1, 100), required: true } as FieldSpec,
    // Acquirer verification (its outcomes are the token-verification tests'): kept out of valid bodies.
    { path: 'transaction.currency', type: 'string', min: 3, max: 3, valid: fc.constantFrom('USD', 'EUR', 'JPY'), fill: UPPER, badFormat: alpha3BadFormat, notInValid: true },
  ];
}

export const TOKEN_SPECS = tokenSpecs();
export const TOKEN_GROUPS = groupsOf(TOKEN_SPECS);
const REQUIRED_GROUPS = new Set(['sourceOfFunds']);

export interface Storer { id: string; password: string; repositoryId: string; generation: string; management: string }

export interface TokenRequest {
  merchantId: string;
  password: string;
  body: JsonObject;
  authorization?: string | null;
  contentType?: string | null;
  payload?: string | null;
}

export interface TokenWorld { app: App; storers: Storer[]; supplied: Storer }

const storer = (m: { id: string; apiPassword: string; repository: { id: string; tokenGeneration: string; tokenManagement: string } }): Storer =>
  ({ id: m.id, password: m.apiPassword, repositoryId: m.repository.id, generation: m.repository.tokenGeneration, management: m.repository.tokenManagement });

export async function tokenWorld(t: Test): Promise<TokenWorld> {
  const app = await buildTestApp(t);
  return { app, storers: [M1, M2, UNIQUE].map(storer), supplied: storer(MERCHANTS.merchants[3] as typeof M1) };
}

export const tokenUrl = (merchantId: string) => `/api/rest/version/100/merchant/${encodeURIComponent(merchantId)}/token`;

/** A valid create request: a Luhn-valid card number, a future expiry, optional fields within bounds. */
export function validToken(world: TokenWorld, options: { withUnvalidated?: boolean } = {}): fc.Arbitrary<TokenRequest> {
  const specs = options.withUnvalidated ? TOKEN_SPECS.map((s) => (s.notInValid ? { ...s, notInValid: false } : s)) : TOKEN_SPECS;
  return fc.tuple(fc.constantFrom(...world.storers), validBody(specs)).map(([m, body]) => ({ merchantId: m.id, password: m.password, body }));
}

export function tokenSent(r: TokenRequest): Sent {
  const headers: Record<string, string> = {};
  const authorization = r.authorization === undefined ? tokenAuth({ id: r.merchantId, apiPassword: r.password }) : r.authorization;
  if (authorization !== null) headers.authorization = authorization;
  const contentType = r.contentType === undefined ? 'application/json' : r.contentType;
  if (contentType !== null) headers['content-type'] = contentType;
  const payload = r.payload === undefined ? toText(r.body) : r.payload;
  return { method: 'POST', url: tokenUrl(r.merchantId), headers, ...(payload === null ? {} : { payload }) };
}

export function tokenSecrets(r: TokenRequest) {
  const { values, rest } = sensitiveValues(r.body);
  return { values, elsewhere: `${rest} ${r.payload ?? ''}` };
}

export type TokenMutation = Mutation<TokenRequest>;

export function bodyMutation(): fc.Arbitrary<TokenMutation> {
  const leaves = TOKEN_SPECS.map((s) => leafMutations<TokenRequest>(s));
  const groups = [...TOKEN_GROUPS].map(([g, members]) => groupMutations<TokenRequest>(g, members, REQUIRED_GROUPS.has(g)));
  return fc.oneof(...leaves, ...groups);
}

const MERCHANT_FORMAT = /^[0-9A-Za-z_-]{1,40}$/;
const merchantParam = (what: string, value: string, status = [400]): TokenMutation => ({
  what: `${what}: merchantId = ${JSON.stringify(value)}`, at: 'url:merchantId',
  // The caller keeps its own (right) credentials: only the path is wrong.
  apply: (r) => { r.authorization ??= tokenAuth({ id: r.merchantId, apiPassword: r.password }); r.merchantId = value; },
  expect: status.includes(401) ? { status } : { status, fields: ['merchantId'], validationTypes: ['INVALID'] },
});

export function urlMutation(world: TokenWorld): fc.Arbitrary<TokenMutation> {
  const known = new Set([...world.storers.map((s) => s.id), world.supplied.id]);
  return fc.oneof(
    codePoints(ALNUM, 41, 80).map((v) => merchantParam('too long', v)),
    withBadChar(fc.constantFrom(...known), NOT_ALNUM.filter((c) => c !== '-' && c !== '_' && !/[\ud800-\udfff]/.test(c))).map((v) => merchantParam('bad character', v)),
    fc.constant(merchantParam('empty', '')),
    codePoints(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'), 1, 40).filter((v) => MERCHANT_FORMAT.test(v) && !known.has(v))
      .map((v) => merchantParam('unknown merchant', v, [401])),
  );
}

/** Refusals the schema cannot make: what the card must be, and who may store it. */
export function ruleMutation(world: TokenWorld): fc.Arbitrary<TokenMutation> {
  const m2 = world.storers.find((s) => s.generation === 'PRESERVE_6_4') as Storer;
  const set = (r: TokenRequest, path: string, value: string) => {
    const card = ((r.body.sourceOfFunds as JsonObject).provided as JsonObject).card as JsonObject;
    const [head, tail] = path.split('.');
    if (tail) (card[head as string] as JsonObject)[tail] = value; else card[head as string] = value;
  };
  const card = () => (r: TokenRequest) => ((r.body.sourceOfFunds as JsonObject).provided as JsonObject).card as JsonObject;
  return fc.oneof(
    cardNumber(9, 10).map((n): TokenMutation => ({
      what: `PRESERVE_6_4 with a ${n.length}-digit card`, at: 'rule',
      apply: (r) => { r.merchantId = m2.id; r.password = m2.password; set(r, 'number', n); },
      expect: { status: [400], fields: [`${CARD}.number`], validationTypes: ['INVALID'] },
    })),
    // A month of this year already past (none in January).
    ...(new Date().getUTCMonth() > 0 ? [fc.integer({ min: 1, max: new Date().getUTCMonth() }).map((m): TokenMutation => ({
      what: `expiry ${m}/${thisYear}, a month of this year already past`, at: 'rule',
      apply: (r) => { set(r, 'expiry.month', String(m)); set(r, 'expiry.year', String(thisYear).padStart(2, '0')); },
      expect: { status: [400], fields: [`${CARD}.expiry.year`, `${CARD}.expiry.month`], validationTypes: ['INVALID'] },
    }))] : []),
    fc.constantFrom('provided', 'provided.card').map((group): TokenMutation => ({
      what: `no sourceOfFunds.${group}`, at: 'rule',
      apply: (r) => { const sof = r.body.sourceOfFunds as JsonObject; if (group === 'provided') delete sof.provided; else delete (sof.provided as JsonObject).card; },
      expect: { status: [400], fields: [`${CARD}.number`, `sourceOfFunds.${group}`], validationTypes: ['MISSING'] },
    })),
    fc.constant<TokenMutation>({
      what: 'no card expiry', at: 'rule', apply: (r) => { delete card()(r).expiry; },
      expect: { status: [400], fields: [`${CARD}.expiry`, `${CARD}.expiry.month`, `${CARD}.expiry.year`], validationTypes: ['MISSING'] },
    }),
    fc.constant<TokenMutation>({
      what: 'a MERCHANT_SUPPLIED repository (the Tokenize operation stores its cards)', at: 'rule',
      apply: (r) => { r.merchantId = world.supplied.id; r.password = world.supplied.password; },
      expect: { status: [400], fields: [null] },
    }),
  );
}

export function applied(r: TokenRequest, mutations: readonly TokenMutation[]): TokenRequest {
  const copy: TokenRequest = { ...r, body: clone(r.body) as JsonObject };
  for (const m of mutations) m.apply(copy);
  return copy;
}

/** Values that broke the gateway once, kept apart from the main properties (token.test.ts). */
export const EDGE_VALUES = {
  /** Spec: at most 15 digits in total. */
  tooManyDigitsPhone,
  /** Spec: IPv4 nnn.nnn.nnn.nnn or IPv6 (RFC 4291). */
  badIp,
  /** Spec: ISO alpha-3 country code. */
  notACountry: fc.constantFrom('ZZZ', 'AAA', 'XKK', 'QQQ', 'EUR'),
};
