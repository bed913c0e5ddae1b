// Property-based fuzzing of Create or Update Token (POST version 100) through app.inject (issue 8,
// item 1). Every answer: never a 5xx, an error is the gateway's body, a refusal appends no event,
// no card number or security code echoed (fuzz.fixture.ts). Each property adds what the generated
// request leads us to expect. Bounded here (npm test); `npm run fuzz` runs them FUZZ_RUNS times.
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { payAuth, payPath } from '../helpers/app.js';
import {
  anyOf, badAuthorization, codePoints, corruption, deepNest, describe, expectRefusal, fuzz, luhnValid, malformedContentType,
  clone, getAt, object, overlaps, runs, sendChecked, sensitiveValues, setAt, sortedKeys, toText, validBody, wellFormedContentType,
  type JsonObject, type Outcome, type Sent,
} from './fuzz.fixture.js';
import {
  EDGE_VALUES, TOKEN_SPECS, applied, bodyMutation, ruleMutation, tokenSecrets, tokenSent, tokenWorld, urlMutation, validToken,
  type TokenMutation, type TokenRequest, type TokenWorld,
} from './token.fixture.js';

const CARD = 'sourceOfFunds.provided.card';
/** Expiry years that are outcome triggers of the test acquirer or the sandbox (kept out of valid requests). */
const TRIGGER_YEARS = new Set(['27', '28', '36', '37', '38', '39']);

const cardOf = (r: TokenRequest) => ((r.body.sourceOfFunds as JsonObject).provided as JsonObject).card as JsonObject;
const canonical = (v: unknown) => sortedKeys(v);

/** The checks of a 201 to a valid request. Returns the token. */
function checkStored(world: TokenWorld, r: TokenRequest, sent: Sent, out: Outcome, seen: Map<string, { token: string; expiry: string }>): string {
  const { res } = out;
  const fail = (problem: string): never => { throw new Error(`${problem}\n${describe(sent)}\n=> ${res.statusCode} ${res.body.slice(0, 3000)}`); };
  if (res.statusCode !== 201) fail('a valid create request was not answered 201');
  const body = JSON.parse(res.body) as Record<string, any>;
  if (sortedKeys(body) !== res.body) fail('the 201 body is not compact JSON with sorted keys');
  const storer = world.storers.find((s) => s.id === r.merchantId);
  if (!storer) return fail('unknown storer');
  if (body.result !== 'SUCCESS' || body.status !== 'VALID' || body.response?.gatewayCode !== 'BASIC_VERIFICATION_SUCCESSFUL') fail('not SUCCESS / VALID / BASIC_VERIFICATION_SUCCESSFUL');
  if (body.repositoryId !== storer.repositoryId) fail(`repositoryId ${String(body.repositoryId)}`);
  const card = cardOf(r);
  const number = String(card.number);
  const expiry = card.expiry as JsonObject;
  const token = String(body.token);
  if (storer.generation === 'RANDOM' && !(/^9[0-9]{15}$/.test(token) && luhnValid(token))) fail(`RANDOM token ${token} is not 16 digits starting with 9 passing Luhn`);
  if (storer.generation === 'PRESERVE_6_4' && !(token.length === number.length && token.startsWith(number.slice(0, 6)) && token.endsWith(number.slice(-4)) && !luhnValid(token))) {
    fail(`PRESERVE_6_4 token ${token} does not keep the first 6 and last 4 digits, or passes Luhn`);
  }
  const shown = body.sourceOfFunds?.provided?.card ?? {};
  if (!/^[0-9x]+$/.test(String(shown.number)) || shown.number === number || !String(shown.number).endsWith(number.slice(-4)) || String(shown.number).length !== number.length) {
    fail(`card number shown as ${String(shown.number)}`);
  }
  const mmyy = String(expiry.month).padStart(2, '0') + String(expiry.year);
  if (shown.expiry !== mmyy) fail(`expiry shown as ${String(shown.expiry)}, sent ${String(expiry.month)}/${String(expiry.year)}`);
  if (card.nameOnCard !== undefined && shown.nameOnCard !== card.nameOnCard) fail('nameOnCard not echoed');
  if (r.body.correlationId !== undefined && body.correlationId !== r.body.correlationId) fail('correlationId not echoed');
  for (const group of ['customer', 'device'] as const) {
    if (r.body[group] !== undefined && canonical(body[group]) !== canonical(r.body[group])) fail(`${group} not echoed as sent`);
  }
  const address = (r.body.billing as JsonObject | undefined)?.address as JsonObject | undefined;
  if (address) {
    const { street, street2, ...rest } = address;
    const joined = [street, street2].filter((s) => s !== undefined).join(' ');
    const echoed = body.billing?.address ?? {};
    // Truncation at 100 is only checked where characters and UTF-16 units agree (see the bug property).
    if (!/[\ud800-\udfff]/.test(joined) && (echoed.street ?? undefined) !== (joined === '' ? undefined : joined.slice(0, 100))) fail(`billing street echoed as ${JSON.stringify(echoed.street)}`);
    if (echoed.street2 !== undefined) fail('billing street2 echoed (it is merged into street)');
    const { street: _s, ...echoedRest } = echoed;
    if (canonical(echoedRest) !== canonical(rest)) fail('billing address not echoed as sent');
  }
  const key = `${r.merchantId}/${number}`;
  const before = seen.get(key);
  if (storer.management !== 'UNIQUE_TOKEN' && before && before.token !== token) fail(`UNIQUE_CARD gave a new token ${token} for a stored card (was ${before.token})`);
  const reused = storer.management !== 'UNIQUE_TOKEN' && before?.expiry === mmyy;
  if (!reused && out.appended < 1n) fail('a stored card appended no event');
  if (reused && out.appended !== 0n) fail('storing the same card again appended events');
  seen.set(key, { token, expiry: mmyy });
  return token;
}

t.test('valid create requests are 201, mask the card, and the token pays', async (t) => {
  const world = await tokenWorld(t);
  const seen = new Map<string, { token: string; expiry: string }>();
  // 11 digits: no card number (one of 13 digits or more passing Luhn is refused as an id).
  let order = 10n ** 10n;
  const arb = validToken(world).filter((r) => !TRIGGER_YEARS.has(String((cardOf(r).expiry as JsonObject).year)));
  await fuzz(t, 'valid token', arb, async (generated) => {
    const r = applied(generated, []);
    const sent = tokenSent(r);
    const out = await sendChecked(world.app, sent, tokenSecrets(r));
    const token = checkStored(world, r, sent, out, seen);
    // The token pays (with the merchant's pay credentials).
    order += 1n;
    const payment = { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } };
    const paySentReq: Sent = { method: 'PUT', url: payPath(r.merchantId, token, String(order), '1'), headers: { authorization: payAuth({ apiPassword: r.password }), 'content-type': 'application/json' }, payload: JSON.stringify(payment) };
    const paid = await sendChecked(world.app, paySentReq, { values: [String(cardOf(r).number)], elsewhere: '' });
    if (paid.res.statusCode !== 201 || (JSON.parse(paid.res.body) as { result: string }).result !== 'SUCCESS') {
      throw new Error(`the new token does not pay\n${describe(paySentReq)}\n=> ${paid.res.statusCode} ${paid.res.body}`);
    }
  }, runs(120));
});

/** A valid body storing a bank account or a billing agreement instead of a card, optional top-level fields at random. */
function validOtherSource(world: TokenWorld): fc.Arbitrary<TokenRequest & { kind: string }> {
  const group = (prefix: string, all: boolean) => {
    const specs = TOKEN_SPECS.filter((s) => s.path.startsWith(`${prefix}.`));
    return validBody(specs.map((s) => ({ ...s, notInValid: false, ...(all ? { required: true } : {}) })));
  };
  const common = validBody(TOKEN_SPECS.filter((s) => !s.path.startsWith('sourceOfFunds.') && !s.path.startsWith('shipping.')));
  return fc.tuple(
    fc.constantFrom(...world.storers),
    fc.constantFrom('ACH', 'DIRECT_DEBIT_CANADA', 'WALLET'),
    common,
    group('sourceOfFunds.provided.ach', true),
    group('sourceOfFunds.provided.directDebitCanada', false),
    group('sourceOfFunds.provided.wallet', false).filter((b) => getAt(b, ['sourceOfFunds', 'provided', 'wallet', 'billingAgreement']) !== undefined),
  ).map(([m, kind, base, ach, ddc, wallet]) => {
    const source = kind === 'ACH' ? ach : kind === 'DIRECT_DEBIT_CANADA' ? ddc : wallet;
    const body = clone(base) as JsonObject;
    setAt(body, ['sourceOfFunds', 'type'], kind);
    setAt(body, ['sourceOfFunds', 'provided'], clone(getAt(source, ['sourceOfFunds', 'provided']) ?? null));
    return { merchantId: m.id, password: m.password, body, kind };
  });
}

t.test('valid ACH, DIRECT_DEBIT_CANADA and WALLET create requests are 201 and never echo the account number', async (t) => {
  const world = await tokenWorld(t);
  await fuzz(t, 'valid other sources', validOtherSource(world), async (generated) => {
    const r = applied(generated, []);
    const sent = tokenSent(r);
    const out = await sendChecked(world.app, sent, tokenSecrets(r));
    const fail = (problem: string): never => { throw new Error(`${generated.kind}: ${problem}\n${describe(sent)}\n=> ${out.res.statusCode} ${out.res.body.slice(0, 3000)}`); };
    if (out.res.statusCode !== 201) fail('a valid create request was not answered 201');
    const body = JSON.parse(out.res.body) as Record<string, any>;
    if (sortedKeys(body) !== out.res.body) fail('the 201 body is not compact JSON with sorted keys');
    if (body.sourceOfFunds?.type !== generated.kind) fail(`sourceOfFunds.type ${String(body.sourceOfFunds?.type)}`);
    if (typeof body.token !== 'string' || !/^[0-9A-Za-z]{1,40}$/.test(body.token)) fail(`token ${String(body.token)}`);
    // The account number comes back masked: whatever precedes its last 4 characters is hidden.
    const group = generated.kind === 'ACH' ? 'ach' : 'directDebitCanada';
    const account = getAt(r.body, ['sourceOfFunds', 'provided', group, 'bankAccountNumber']) as string | undefined;
    const shown = getAt(body as JsonObject, ['sourceOfFunds', 'provided', group, 'bankAccountNumber']);
    if (account !== undefined && /[^x]/.test([...account].slice(0, -4).join('')) && shown === account) fail('the bank account number is echoed unmasked');
  }, runs(100));
});

async function refusalProperty(t: Test, name: string, world: TokenWorld, arbitrary: fc.Arbitrary<{ r: TokenRequest; ms: TokenMutation[] }>, numRuns: number, todo?: string) {
  await fuzz(t, name, arbitrary, async ({ r, ms }) => {
    const q = applied(r, ms);
    const sent = tokenSent(q);
    const out = await sendChecked(world.app, sent, tokenSecrets(q));
    expectRefusal(out, anyOf(ms.map((m) => m.expect)), sent, ms.map((m) => m.what).join(' + '));
  }, numRuns, todo ? { todo } : {});
}

/** Bases for mutations also carry the groups this release does not store (bank accounts, wallets). */
const base = (world: TokenWorld) => validToken(world, { withUnvalidated: true });

t.test('one wrong field or member of the body: 400 naming exactly that field', async (t) => {
  const world = await tokenWorld(t);
  await refusalProperty(t, 'token body mutation', world, base(world).chain((r) => bodyMutation().map((m) => ({ r, ms: [m] }))), runs(400));
});

t.test('a wrong merchantId in the URL: 400 naming it (401 for an unknown merchant)', async (t) => {
  const world = await tokenWorld(t);
  await refusalProperty(t, 'token URL mutation', world, base(world).chain((r) => urlMutation(world).map((m) => ({ r, ms: [m] }))), runs(100));
});

t.test("the card and the repository's rules: 400 naming the field (none for a merchant-supplied repository)", async (t) => {
  const world = await tokenWorld(t);
  const valid = validToken(world).filter((r) => !TRIGGER_YEARS.has(String((cardOf(r).expiry as JsonObject).year)));
  await refusalProperty(t, 'token rule mutation', world, valid.chain((r) => ruleMutation(world).map((m) => ({ r, ms: [m] }))), runs(100));
});

t.test('several wrong things: 400 (or 401) naming one of them', async (t) => {
  const world = await tokenWorld(t);
  const arb = base(world).chain((r) =>
    fc.array(fc.oneof(bodyMutation(), urlMutation(world)), { minLength: 2, maxLength: 4 }).map((all) => {
      const ms: TokenMutation[] = [];
      for (const m of all) if (!ms.some((k) => overlaps(k.at, m.at))) ms.push(m);
      return { r, ms };
    }));
  await refusalProperty(t, 'token several mutations', world, arb, runs(200));
});

t.test('wrong credentials: 401, whatever else is wrong', async (t) => {
  const world = await tokenWorld(t);
  const arb = base(world).chain((r) => {
    const other = world.storers.find((s) => s.id !== r.merchantId) as { id: string; password: string };
    return fc.tuple(
      fc.oneof(badAuthorization(r.merchantId, r.password, other.password), fc.constant(payAuth({ apiPassword: r.password })),
        fc.constant(`Basic ${Buffer.from(`merchant.${other.id}:${other.password}`).toString('base64')}`)),
      fc.option(bodyMutation(), { nil: undefined }),
    ).map(([authorization, m]) => ({ r: { ...applied(r, m ? [m] : []), authorization }, what: m?.what ?? 'valid body' }));
  });
  await fuzz(t, 'token credentials', arb, async ({ r, what }) => {
    const sent = tokenSent(r);
    const out = await sendChecked(world.app, sent, tokenSecrets(r));
    expectRefusal(out, { status: [401] }, sent, `bad credentials (${what})`);
    const explanation = (JSON.parse(out.res.body) as { error: { explanation: string } }).error.explanation;
    if (!['Invalid credentials.', 'Authenticated entity not authorised to perform operation for target entity'].includes(explanation)) {
      throw new Error(`401 with explanation ${explanation}\n${describe(sent)}`);
    }
    if (out.res.headers['www-authenticate'] !== 'Basic realm="tokengate"') throw new Error('401 without the challenge WWW-Authenticate: Basic realm="tokengate"');
  }, runs(120));
});

t.test('malformed JSON text: 400 saying where, without a field, never quoting the card', async (t) => {
  const world = await tokenWorld(t);
  const arb = base(world).chain((r) => corruption.map((c) => ({ r, c })));
  await fuzz(t, 'token malformed JSON', arb, async ({ r, c }) => {
    const text = c.apply(JSON.stringify(r.body));
    const q: TokenRequest = { ...r, payload: text };
    const sent = tokenSent(q);
    const out = await sendChecked(world.app, sent, { values: sensitiveValues(r.body).values, elsewhere: sensitiveValues(r.body).rest });
    let parses = true;
    try { JSON.parse(text); } catch { parses = false; }
    if (!parses && text.trim() !== '') {
      expectRefusal(out, { status: [400], fields: [null] }, sent, c.what);
      const explanation = (JSON.parse(out.res.body) as { error: { explanation: string } }).error.explanation;
      if (!/not valid JSON/.test(explanation)) throw new Error(`${c.what}: explanation ${explanation}\n${describe(sent)}`);
    } else if (![201, 400].includes(out.res.statusCode)) {
      throw new Error(`${c.what} (still JSON): HTTP ${out.res.statusCode}\n${describe(sent)}\n=> ${out.res.body}`);
    }
  }, runs(200));
});

t.test('a body that is not a JSON object, or none: 400 without a field', async (t) => {
  const world = await tokenWorld(t);
  const arb = base(world).chain((r) => fc.oneof(
    fc.constant<string | null>(null), fc.constantFrom('', ' ', '\n', 'null', 'true', '0', '1e400', '""', '[]', '[null]'),
    fc.constant(`[${JSON.stringify(r.body)}]`), fc.constant(JSON.stringify(JSON.stringify(r.body))),
  ).map((payload) => ({ r: { ...r, payload } })));
  await fuzz(t, 'token body not an object', arb, async ({ r }) => {
    const sent = tokenSent(r);
    const out = await sendChecked(world.app, sent, { values: sensitiveValues(r.body).values, elsewhere: sensitiveValues(r.body).rest });
    expectRefusal(out, { status: [400], fields: [null] }, sent, `body ${String(r.payload).slice(0, 40)}`);
  }, runs(60));
});

t.test('any well-formed Content-Type: the body is read as JSON', async (t) => {
  const world = await tokenWorld(t);
  const seen = new Map<string, { token: string; expiry: string }>();
  const arb = validToken(world).chain((r) => wellFormedContentType.map((contentType) => ({ r: { ...r, contentType } })));
  await fuzz(t, 'token content types', arb, async ({ r }) => {
    const q = applied(r, []);
    const sent = tokenSent(q);
    checkStored(world, q, sent, await sendChecked(world.app, sent, tokenSecrets(q)), seen);
  }, runs(60));
});

// ---------------------------------------------------------------------------------------------
// Edge cases that broke the gateway when these suites were written (the 15-digit telephone rule,
// IP and country formats, street truncation in UTF-16 units, card data quoted from a misshapen
// group, deep nesting, framework errors). Those still broken are reported as todo
// (fuzz(..., { todo })): visible in every run, not failing `npm test`. Drop the todo once fixed.

const oneValue = (world: TokenWorld, path: string, values: fc.Arbitrary<string>) =>
  validToken(world).chain((r) => values.map((v): { r: TokenRequest; ms: TokenMutation[] } => ({
    r, ms: [{ what: `${path} = ${JSON.stringify(v)}`, at: path, apply: (q) => setAt(q.body, path.split('.'), v), expect: { status: [400], fields: [path], validationTypes: ['INVALID'] } }],
  })));

t.test('a telephone number of more than 15 digits: 400 naming it (spec: at most 15 digits in total)', async (t) => {
  const world = await tokenWorld(t);
  await refusalProperty(t, 'token phone digits', world, fc.oneof(
    oneValue(world, 'customer.phone', EDGE_VALUES.tooManyDigitsPhone), oneValue(world, 'customer.mobilePhone', EDGE_VALUES.tooManyDigitsPhone),
  ), runs(30));
});

t.test('device.ipAddress that is neither IPv4 nor IPv6: 400 naming it', async (t) => {
  const world = await tokenWorld(t);
  await refusalProperty(t, 'token device IP', world, oneValue(world, 'device.ipAddress', EDGE_VALUES.badIp), runs(30));
});

t.test('a country that is not ISO 3166 alpha-3: 400 naming it (as Pay with token does)', async (t) => {
  const world = await tokenWorld(t);
  await refusalProperty(t, 'token country', world, fc.oneof(
    oneValue(world, 'billing.address.country', EDGE_VALUES.notACountry), oneValue(world, 'shipping.address.country', EDGE_VALUES.notACountry),
  ), runs(30));
});

t.test('street and street2 merged and truncated at 100 characters, never splitting a character', async (t) => {
  const world = await tokenWorld(t);
  const astral = codePoints(fc.constantFrom('\u{1F600}', '\u{10348}', '\u{1D7D8}', 'a'), 51, 100);
  const arb = validToken(world).chain((r) => fc.tuple(astral, astral).map(([street, street2]) => ({ r, street, street2 })));
  await fuzz(t, 'token street truncation', arb, async ({ r, street, street2 }) => {
    const q = applied(r, []);
    setAt(q.body, ['billing', 'address', 'street'], street);
    setAt(q.body, ['billing', 'address', 'street2'], street2);
    const sent = tokenSent(q);
    const out = await sendChecked(world.app, sent, tokenSecrets(q));
    const echoed = (JSON.parse(out.res.body) as { billing?: { address?: { street?: string } } }).billing?.address?.street ?? '';
    const expected = [...`${street} ${street2}`].slice(0, 100).join('');
    if (echoed !== expected) throw new Error(`street echoed as ${JSON.stringify(echoed)} (${[...echoed].length} characters${/[\ud800-\udbff](?![\udc00-\udfff])/.test(echoed) ? ', ends in half a surrogate pair' : ''}), expected ${[...expected].length} characters`);
  }, runs(20));
});

const CARD_GROUPS = ['sourceOfFunds.provided.card', 'sourceOfFunds.provided', 'sourceOfFunds'] as const;

/** The request with the group at `path` replaced by itself as an array or as JSON text. */
function reshaped(r: TokenRequest, path: string, shape: 'array' | 'json text'): TokenRequest {
  const q = applied(r, []);
  const parts = path.split('.');
  let group: JsonObject = q.body;
  for (const p of parts) group = group[p] as JsonObject;
  const copy = object(Object.keys(group).map((k) => [k, group[k] ?? null]));
  setAt(q.body, parts, shape === 'array' ? [copy] : toText(copy));
  return q;
}

for (const shape of ['array', 'json text'] as const) {
  t.test(`the card number and security code are not echoed when a group holding them arrives as ${shape === 'array' ? 'an array' : 'JSON text (double-encoded)'}`, async (t) => {
    const world = await tokenWorld(t);
    const arb = validToken(world).chain((r) => fc.constantFrom(...CARD_GROUPS).map((path) => ({ r, path })));
    await fuzz(t, `token card group as ${shape}`, arb, async ({ r, path }) => {
      const q = reshaped(r, path, shape);
      const sent = tokenSent(q);
      const out = await sendChecked(world.app, sent, { values: sensitiveValues(r.body).values, elsewhere: '' });
      expectRefusal(out, { status: [400], fields: [path] }, sent, `${path} as ${shape}`);
    }, runs(30));
  });
}

t.test('deeply nested JSON in a member: 400 naming it, not a 500', async (t) => {
  const world = await tokenWorld(t);
  const arb = validToken(world).chain((r) => fc.tuple(fc.constantFrom(`${CARD}.nameOnCard`, 'customer', 'billing.address.city', 'sourceOfFunds.type'), deepNest(5000, 6000)).map(([path, nest]) => ({ r, path, nest })));
  await fuzz(t, 'token deep nesting', arb, async ({ r, path, nest }) => {
    const q = applied(r, []);
    setAt(q.body, path.split('.'), nest);
    const sent = tokenSent(q);
    const out = await sendChecked(world.app, sent, tokenSecrets(q));
    // A nest of objects in a group is an unknown member of the group.
    const fields = nest.text.startsWith('[') ? [path] : [path, `${path}.a`];
    expectRefusal(out, { status: [400], fields }, sent, `${path} = a nest of ${nest.text.length} characters`);
  }, runs(20));
});

t.test('a malformed Content-Type: read as JSON anyway (201) or a 400 in the gateway shape', async (t) => {
  const world = await tokenWorld(t);
  const seen = new Map<string, { token: string; expiry: string }>();
  const arb = validToken(world).chain((r) => malformedContentType.map((contentType) => ({ r: { ...r, contentType } })));
  await fuzz(t, 'token malformed content type', arb, async ({ r }) => {
    const q = applied(r, []);
    const sent = tokenSent(q);
    const out = await sendChecked(world.app, sent, tokenSecrets(q));
    if (out.res.statusCode === 201) checkStored(world, q, sent, out, seen);
    else expectRefusal(out, { status: [400], fields: [null] }, sent, `Content-Type ${JSON.stringify(r.contentType)}`);
  }, runs(40));
});

t.test('a merchantId with broken percent-encoding: 400 in the gateway shape', async (t) => {
  const world = await tokenWorld(t);
  const arb = validToken(world).chain((r) => fc.constantFrom('%', '%ZZ', '%ED%A0%80', '%C0%AF', '%FF', 'a%2').map((junk) => ({ r, junk })));
  await fuzz(t, 'token broken URL encoding', arb, async ({ r, junk }) => {
    const sent = tokenSent(r);
    const broken = { ...sent, url: sent.url.replace('/token', `${junk}/token`) };
    expectRefusal(await sendChecked(world.app, broken, tokenSecrets(r)), { status: [400], fields: ['merchantId', null] }, broken, `merchantId + ${junk}`);
  }, runs(20));
});

t.test('a merchantId of hundreds of characters: 400 naming it', async (t) => {
  const world = await tokenWorld(t);
  const arb = validToken(world).chain((r) => fc.integer({ min: 500, max: 2000 }).map((size) => ({ r, size })));
  await fuzz(t, 'token overlong merchantId', arb, async ({ r, size }) => {
    const sent = tokenSent(r);
    const broken = { ...sent, url: sent.url.replace('/token', `${'m'.repeat(size)}/token`) };
    expectRefusal(await sendChecked(world.app, broken, tokenSecrets(r)), { status: [400], fields: ['merchantId'] }, broken, `merchantId + ${size} characters`);
  }, runs(20));
});
