// Property-based fuzzing of Pay with token (PUT version 3) through app.inject (issue 8, item 1).
// Every answer: never a 5xx, an error is the gateway's body, a refusal appends no event, no card
// data echoed (fuzz.fixture.ts). Each property adds what the generated request leads us to expect.
// Bounded here (npm test); `npm run fuzz` runs the same properties FUZZ_RUNS times each.
import fc from 'fast-check';
import t, { type Test } from 'tap';
import {
  ALNUM, anyOf, badAuthorization, codePoints, corruption, deepNest, describe, digits, expectRefusal, fuzz, luhnValid, malformedContentType, object,
  overlaps, runs, sendChecked, setAt, sortedKeys, toText, wellFormedContentType, type JsonObject, type Outcome, type Sent,
} from './fuzz.fixture.js';
import {
  ALL_CURRENCIES, CURRENCIES, applied, bodyMutation, paySecrets, paySent, payWorld, stateMutation, urlMutation, validPay,
  type PayMutation, type PayRequest, type PayWorld,
} from './pay.fixture.js';

const RESULTS = ['SUCCESS', 'FAILURE', 'PENDING', 'UNKNOWN'];

/** JSON.parse would round order ids beyond 2^53: keep them as text. */
const parseExact = (body: string) => JSON.parse(body.replace(/"id":(\d{16,})/g, '"id":"$1"')) as Record<string, any>;

function decimals(n: unknown): number {
  const text = String(n);
  const [, fraction = ''] = /^-?\d+(?:\.(\d+))?$/.exec(text) ?? [];
  return /e/i.test(text) ? 99 : fraction.length;
}

/** The checks of a 201 to a valid request: what was sent comes back, amounts by the response decimal rule. */
function checkPaid(r: PayRequest, sent: Sent, out: Outcome): Record<string, any> {
  const { res } = out;
  const fail = (problem: string): never => { throw new Error(`${problem}\n${describe(sent)}\n=> ${res.statusCode} ${res.body.slice(0, 3000)}`); };
  if (res.statusCode !== 201) fail('a valid payment was not answered 201');
  const exact = res.body.replace(/"id":(\d{16,})/g, '"id":"$1"');
  const body = parseExact(res.body);
  if (sortedKeys(body) !== exact) fail('the 201 body is not compact JSON with sorted keys');
  if (!RESULTS.includes(body.result)) fail(`result ${String(body.result)}`);
  if (body.merchant !== r.merchantId) fail('merchant is not the path merchant');
  if (!res.body.includes(`"id":${r.orderid},`) && !res.body.includes(`"id":${r.orderid}}`)) fail(`order.id is not written as the integer ${r.orderid}`);
  if (body.transaction?.id !== r.transactionid) fail(`transaction.id ${JSON.stringify(body.transaction?.id)} is not the path's ${JSON.stringify(r.transactionid)}`);
  const tx = r.body.transaction as JsonObject;
  if (body.transaction?.currency !== tx.currency) fail('transaction.currency differs');
  if (body.transaction?.amount !== Number(tx.amount)) fail(`transaction.amount ${String(body.transaction?.amount)} is not ${String(tx.amount)}`);
  for (const [where, value] of [['transaction.amount', body.transaction?.amount], ['order.amount', body.order?.amount],
    ['order.totalAuthorizedAmount', body.order?.totalAuthorizedAmount], ['order.totalCapturedAmount', body.order?.totalCapturedAmount]] as const) {
    if (typeof value !== 'number' || value < 0 || value > 1e12 || decimals(value) > 3) fail(`${where} ${String(value)} breaks the response decimal rule (0 to 1000000000000, at most 3 decimals)`);
  }
  if (out.appended < 1n) fail('a 201 payment appended no event');
  return body;
}

const withoutCorrelationId = (body: string) => {
  const parsed = parseExact(body);
  delete parsed.correlationId;
  return sortedKeys(parsed);
};

t.test('valid payments (random currencies with their minor units, optional fields within bounds) are 201 and repeat identically', async (t) => {
  const world = await payWorld(t);
  const usedOrders = new Set([world.recorded.orderid]);
  let n = 0;
  await fuzz(t, 'valid pay', validPay(world), async (generated) => {
    n += 1;
    // Unique order ids and transaction references (a repeat would be a replay, or refused).
    const r: PayRequest = applied(generated, []);
    let order = BigInt(r.orderid);
    // (Nor a card number: orderIdArb's rule, refused as an id.)
    while (usedOrders.has(String(order)) || (String(order).length >= 13 && luhnValid(String(order)))) order = order >= 10n ** 16n - 1n ? 10n ** 10n + BigInt(n) : order + 1n;
    r.orderid = String(order);
    usedOrders.add(r.orderid);
    const tx = r.body.transaction as JsonObject;
    if (typeof tx.reference === 'string') tx.reference = [...`${n}~${tx.reference}`].slice(0, 40).join('');
    const sent = paySent(r);
    const first = await sendChecked(world.app, sent, paySecrets(r));
    checkPaid(r, sent, first);
    // An identical repeat, with another correlationId: the recorded answer, nothing appended.
    const again: PayRequest = applied(r, []);
    again.body.correlationId = `repeat-${n}`;
    const repeatSent = paySent(again);
    const repeat = await sendChecked(world.app, repeatSent, paySecrets(again));
    if (repeat.res.statusCode !== 201 || repeat.appended !== 0n) throw new Error(`identical repeat: ${repeat.res.statusCode}, ${repeat.appended} event(s) appended\n${describe(repeatSent)}\n=> ${repeat.res.body}`);
    if (withoutCorrelationId(repeat.res.body) !== withoutCorrelationId(first.res.body)) {
      throw new Error(`identical repeat answered differently\nfirst:  ${first.res.body}\nrepeat: ${repeat.res.body}`);
    }
    if (!repeat.res.body.includes(`"correlationId":"repeat-${n}"`)) throw new Error(`the repeat does not echo its own correlationId: ${repeat.res.body}`);
  }, runs(100));
});

async function refusalProperty(t: Test, name: string, world: PayWorld, arbitrary: fc.Arbitrary<{ r: PayRequest; ms: PayMutation[] }>, numRuns: number) {
  await fuzz(t, name, arbitrary, async ({ r, ms }) => {
    const q = applied(r, ms);
    const sent = paySent(q);
    const out = await sendChecked(world.app, sent, paySecrets(q));
    expectRefusal(out, anyOf(ms.map((m) => m.expect)), sent, ms.map((m) => m.what).join(' + '));
  }, numRuns);
}

t.test('one wrong field or member of the body: 400 naming exactly that field', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => bodyMutation(r).map((m) => ({ r, ms: [m] })));
  await refusalProperty(t, 'pay body mutation', world, arb, runs(400));
});

t.test('one wrong URL parameter: 400 naming the parameter (401 for an unknown merchant)', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => urlMutation(world, r).map((m) => ({ r, ms: [m] })));
  await refusalProperty(t, 'pay URL mutation', world, arb, runs(300));
});

t.test('refusals that depend on what is recorded name the field (or none for reused ids)', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => stateMutation(world).map((m) => ({ r, ms: [m] })));
  await refusalProperty(t, 'pay state mutation', world, arb, runs(100));
});

t.test('several wrong things: 400 (or 401) naming one of them', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) =>
    fc.array(fc.oneof(bodyMutation(r), urlMutation(world, r)), { minLength: 2, maxLength: 4 }).map((all) => {
      const ms: PayMutation[] = [];
      for (const m of all) if (!ms.some((k) => overlaps(k.at, m.at))) ms.push(m);
      return { r, ms };
    }));
  await refusalProperty(t, 'pay several mutations', world, arb, runs(200));
});

t.test('wrong credentials: 401 Invalid credentials, whatever else is wrong', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => {
    const other = world.payers.find((p) => p.id !== r.merchantId)?.password ?? 'x';
    return fc.tuple(badAuthorization(r.merchantId, r.password, other), fc.option(bodyMutation(r), { nil: undefined }))
      .map(([authorization, m]) => ({ r: { ...applied(r, m ? [m] : []), authorization }, what: m?.what ?? 'valid body' }));
  });
  await fuzz(t, 'pay credentials', arb, async ({ r, what }) => {
    const sent = paySent(r);
    const out = await sendChecked(world.app, sent, paySecrets(r));
    expectRefusal(out, { status: [401] }, sent, `bad credentials (${what})`);
    const explanation = (JSON.parse(out.res.body) as { error: { explanation: string } }).error.explanation;
    if (!['Invalid credentials.', 'Authenticated entity not authorised to perform operation for target entity'].includes(explanation)) {
      throw new Error(`401 with explanation ${explanation}\n${describe(sent)}`);
    }
    if (out.res.headers['www-authenticate'] !== 'Basic realm="tokengate"') throw new Error('401 without the challenge WWW-Authenticate: Basic realm="tokengate"');
  }, runs(200));
});

t.test('malformed JSON text: 400 saying where, without a field', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => corruption.map((c) => ({ r, c })));
  await fuzz(t, 'pay malformed JSON', arb, async ({ r, c }) => {
    const text = c.apply(JSON.stringify(r.body));
    const q: PayRequest = { ...r, payload: text };
    const sent = paySent(q);
    const out = await sendChecked(world.app, sent, paySecrets(q));
    let parses = true;
    try { JSON.parse(text); } catch { parses = false; }
    if (!parses && text.trim() !== '') {
      expectRefusal(out, { status: [400], fields: [null] }, sent, c.what);
      const explanation = (JSON.parse(out.res.body) as { error: { explanation: string } }).error.explanation;
      if (!/not valid JSON/.test(explanation)) throw new Error(`${c.what}: explanation ${explanation}\n${describe(sent)}`);
    } else if (![201, 400].includes(out.res.statusCode)) {
      throw new Error(`${c.what} (still JSON): HTTP ${out.res.statusCode}\n${describe(sent)}\n=> ${out.res.body}`);
    }
  }, runs(300));
});

t.test('a body that is not a JSON object, or none: 400 without a field', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => fc.oneof(
    fc.constant<string | null>(null), fc.constantFrom('', ' ', '\n\t', 'null', 'true', 'false', '0', '-1', '1e400', '""', '"PAY"', '[]', '[null]'),
    fc.constant(`[${JSON.stringify(r.body)}]`), fc.constant(JSON.stringify(JSON.stringify(r.body))),
  ).map((payload) => ({ r: { ...r, payload } })));
  await fuzz(t, 'pay body not an object', arb, async ({ r }) => {
    const sent = paySent(r);
    const out = await sendChecked(world.app, sent, paySecrets(r));
    expectRefusal(out, { status: [400], fields: [null] }, sent, `body ${String(r.payload)}`);
  }, runs(100));
});

t.test('any well-formed Content-Type: the body is read as JSON', async (t) => {
  const world = await payWorld(t);
  let n = 0;
  const arb = validPay(world).chain((r) => wellFormedContentType.map((contentType) => ({ r: { ...r, contentType } })));
  await fuzz(t, 'pay content types', arb, async ({ r }) => {
    n += 1;
    const q: PayRequest = { ...applied(r, []), orderid: String(10n ** 11n + BigInt(n)) };
    const tx = q.body.transaction as JsonObject;
    if (typeof tx.reference === 'string') tx.reference = `ct-${n}`;
    const sent = paySent(q);
    const out = await sendChecked(world.app, sent, paySecrets(q));
    checkPaid(q, sent, out);
  }, runs(100));
});

// ---------------------------------------------------------------------------------------------
// Edge cases that broke the gateway when these suites were written. Those still broken are
// reported as todo (fuzz(..., { todo })): visible in every run, not failing `npm test`. Drop the
// todo once the bug is fixed; the property then guards against its return.

t.test('a currency with 4 minor digits (CLF, UYW): refused as unsupported, or answered within the response decimal rule', async (t) => {
  const world = await payWorld(t);
  let n = 0;
  const arb = validPay(world, ALL_CURRENCIES.filter((c) => !CURRENCIES.includes(c)));
  await fuzz(t, 'pay 4-decimal currencies', arb, async (generated) => {
    n += 1;
    const r: PayRequest = { ...applied(generated, []), orderid: String(2n * 10n ** 11n + BigInt(n)) };
    delete (r.body.transaction as JsonObject).reference;
    const sent = paySent(r);
    const out = await sendChecked(world.app, sent, paySecrets(r));
    if (out.res.statusCode === 400) {
      expectRefusal(out, { status: [400], fields: ['transaction.currency'], validationTypes: ['UNSUPPORTED'] }, sent, `currency ${r.currency}`);
      return;
    }
    checkPaid(r, sent, out);
  }, runs(30));
});

t.test('deeply nested JSON (thousands of levels) in a member: 400 naming it, not a 500', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => fc.tuple(
    fc.constantFrom('order', 'order.reference', 'transaction.amount', 'billing', 'card.holder.title', 'correlationId'),
    deepNest(5000, 6000),
  ).map(([path, nest]) => ({ r, path, nest })));
  await fuzz(t, 'pay deep nesting', arb, async ({ r, path, nest }) => {
    const q = applied(r, []);
    setAt(q.body, path.split('.'), nest);
    const sent = paySent(q);
    const out = await sendChecked(world.app, sent, paySecrets(q));
    // A nest of objects in a group is an unknown member of the group.
    const fields = nest.text.startsWith('[') ? [path] : [path, `${path}.a`];
    expectRefusal(out, { status: [400], fields }, sent, `${path} = a nest of ${nest.text.length} characters`);
  }, runs(20));
});

/** The request text but its card group: where else a security code may legitimately appear. */
const withoutCard = (body: JsonObject) => toText(object(Object.keys(body).filter((k) => k !== 'card').map((k) => [k, body[k] ?? null])));

const PARAM_SEGMENT = { merchantid: 6, tokenid: 8, orderid: 10, transactionid: 12 } as const;
const breakParam = (sent: Sent, name: keyof typeof PARAM_SEGMENT, junk: string): Sent => {
  const segments = sent.url.split('/');
  segments[PARAM_SEGMENT[name]] = `${segments[PARAM_SEGMENT[name]] ?? ''}${junk}`;
  return { ...sent, url: segments.join('/') };
};

t.test('a URL parameter with broken percent-encoding: 400 in the gateway shape', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => fc.tuple(
    fc.constantFrom(...(Object.keys(PARAM_SEGMENT) as Array<keyof typeof PARAM_SEGMENT>)),
    fc.constantFrom('%', '%Z', '%ZZ', '%E0%A4', '%ED%A0%80', '%C0%AF', '%FF', '%F4%90%80%80', 'a%2'),
  ).map(([name, junk]) => ({ r, name, junk })));
  await fuzz(t, 'pay broken URL encoding', arb, async ({ r, name, junk }) => {
    const broken = breakParam(paySent(r), name, junk);
    const out = await sendChecked(world.app, broken, paySecrets(r));
    expectRefusal(out, { status: [400], fields: [name, null] }, broken, `${name} + ${junk}`);
  }, runs(40));
});

t.test('a URL parameter far beyond its bounds (hundreds of characters): 400 naming it', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => fc.tuple(
    fc.constantFrom(...(Object.keys(PARAM_SEGMENT) as Array<keyof typeof PARAM_SEGMENT>)),
    fc.integer({ min: 500, max: 2000 }),
  ).map(([name, size]) => ({ r, name, size })));
  await fuzz(t, 'pay overlong URL parameter', arb, async ({ r, name, size }) => {
    const broken = breakParam(paySent(r), name, '7'.repeat(size));
    const out = await sendChecked(world.app, broken, paySecrets(r));
    expectRefusal(out, { status: [400], fields: [name] }, broken, `${name} + ${size} characters`);
  }, runs(20));
});

t.test('the security code is not echoed when the card group is an array', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => digits(3, 4).map((code) => ({ r, code })));
  await fuzz(t, 'pay card group as array', arb, async ({ r, code }) => {
    const q = applied(r, []);
    setAt(q.body, ['card'], [object([['securityCode', code]])]);
    const sent = paySent(q);
    const out = await sendChecked(world.app, sent, { values: [code], elsewhere: withoutCard(q.body) });
    expectRefusal(out, { status: [400], fields: ['card'] }, sent, 'card as an array');
  }, runs(30));
});

t.test('the security code is not echoed when the card group arrives as JSON text (double-encoded)', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => digits(3, 4).map((code) => ({ r, code })));
  await fuzz(t, 'pay card group as JSON text', arb, async ({ r, code }) => {
    const q = applied(r, []);
    setAt(q.body, ['card'], JSON.stringify({ securityCode: code }));
    const sent = paySent(q);
    const out = await sendChecked(world.app, sent, { values: [code], elsewhere: withoutCard(q.body) });
    expectRefusal(out, { status: [400], fields: ['card'] }, sent, 'card as JSON text');
  }, runs(30));
});

t.test('a malformed Content-Type header: read as JSON anyway (201), or a 400 in the gateway shape', async (t) => {
  const world = await payWorld(t);
  let n = 0;
  const arb = validPay(world).chain((r) => malformedContentType.map((contentType) => ({ r: { ...r, contentType } })));
  await fuzz(t, 'pay malformed content type', arb, async ({ r }) => {
    n += 1;
    const q: PayRequest = { ...applied(r, []), orderid: String(3n * 10n ** 11n + BigInt(n)) };
    delete (q.body.transaction as JsonObject).reference;
    const sent = paySent(q);
    const out = await sendChecked(world.app, sent, paySecrets(q));
    if (out.res.statusCode === 201) checkPaid(q, sent, out);
    else expectRefusal(out, { status: [400], fields: [null] }, sent, `Content-Type ${JSON.stringify(r.contentType)}`);
  }, runs(40));
});

t.test('an unknown member with a long name: the explanation stays within 1-1000 characters', async (t) => {
  const world = await payWorld(t);
  const arb = validPay(world).chain((r) => fc.tuple(fc.constantFrom('', 'billing', 'transaction.tax'), codePoints(ALNUM, 990, 3000)).map(([group, key]) => ({ r, group, key })));
  await fuzz(t, 'pay long member name', arb, async ({ r, group, key }) => {
    const q = applied(r, []);
    setAt(q.body, [...(group ? group.split('.') : []), key], 1);
    const sent = paySent(q);
    const out = await sendChecked(world.app, sent, paySecrets(q));
    expectRefusal(out, { status: [400], validationTypes: ['UNSUPPORTED'] }, sent, `member name of ${key.length} characters`);
  }, runs(20));
});
