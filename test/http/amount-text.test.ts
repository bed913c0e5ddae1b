// An amount is checked as it is written, one rule for both forms the order API and Update Session
// accept: a string ("12.50") and a JSON number (12.50) with the same text get the same answer. The
// rule is the spec's request decimal: characters 0-9 and '.', 1 to 14 of them, no more decimals
// than the currency has, above zero, at most 1000000000000. So the number 1e12 is refused like the
// string "1e12", and 0.009999999999999999999 (which a double rounds to 0.01) like its string.
// Version 3's Pay with token takes strings only (a number there is refused by type).
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid, orderId, pay, payBody, type App } from './http.fixture.js';

const txnUrl = (order: string, txn = '1') => `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${txn}`;

/** A JSON text with the amount's literal exactly as given: `"1e12"` (a string) or `1e12` (a number). */
const payText = (token: string, literal: string, currency = 'USD') =>
  `{"apiOperation":"PAY","order":{"amount":${literal},"currency":"${currency}"},"sourceOfFunds":{"type":"CARD","token":"${token}"}}`;

const send = (app: App, url: string, text: string) =>
  app.inject({ method: 'PUT', url, headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload: text });

/** What a user sees of an answer that must not depend on the form: the status, the error, the amounts. */
function seen(res: Awaited<ReturnType<typeof send>>): unknown {
  const body = res.json() as Record<string, any>;
  if (res.statusCode !== 201) return { status: res.statusCode, body };
  return { status: 201, amount: body.transaction?.amount, orderAmount: body.order?.amount, captured: body.order?.totalCapturedAmount };
}

async function bothForms(app: App, token: string, text: string, currency = 'USD') {
  const asString = await send(app, txnUrl(uniqueId()), payText(token, JSON.stringify(text), currency));
  const asNumber = await send(app, txnUrl(uniqueId()), payText(token, text, currency));
  return { asString, asNumber };
}

t.test('order API: the number form of a text is answered as its string form', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const cases: Array<[string, number | { explanation: string | RegExp }]> = [
    ['12.50', 12.5],
    ['1.10', 1.1],
    ['100', 100],
    ['1000000000000', 1_000_000_000_000],
    ['0.010', 0.01],
    ['1e12', { explanation: "Value '1e12' is invalid. Expected a decimal number such as 100.00" }],
    ['1E2', { explanation: "Value '1E2' is invalid. Expected a decimal number such as 100.00" }],
    // (Its digits pass the Luhn check: the explanation masks them as a card number's.)
    ['0.009999999999999999999', { explanation: /^Value '0\.0099[0-9x]+' is invalid\. Length is 23 characters, but must be less than 15$/ }],
    ['999999999999.99', { explanation: "Value '999999999999.99' is invalid. Length is 15 characters, but must be less than 15" }],
    ['1000000000000.01', { explanation: "Value '1000000000000.01' is invalid. Length is 16 characters, but must be less than 15" }],
    ['1000000000001', { explanation: "Value '1000000000001' is invalid. Amount must not exceed 1000000000000" }],
    ['1.001', { explanation: "Value '1.001' is invalid. Currency USD allows at most 2 decimal places" }],
    ['1.0010', { explanation: "Value '1.0010' is invalid. Currency USD allows at most 2 decimal places" }],
    ['0.00', { explanation: "Value '0.00' is invalid. Transaction or order amount must be greater than zero" }],
    ['-1', { explanation: "Value '-1' is invalid. Expected a decimal number such as 100.00" }],
    ['-0', { explanation: "Value '-0' is invalid. Expected a decimal number such as 100.00" }],
  ];
  for (const [text, expected] of cases) {
    const { asString, asNumber } = await bothForms(app, token, text);
    if (typeof expected === 'number') {
      for (const [form, res] of [['string', asString], ['number', asNumber]] as const) {
        t.equal(res.statusCode, 201, `${text} as a ${form}: 201 (${res.body.slice(0, 300)})`);
        t.equal(res.json().transaction?.amount, expected, `${text} as a ${form}: transaction.amount`);
      }
    } else {
      expectInvalid(t, asString, { field: 'order.amount', explanation: expected.explanation }, `${text} as a string`);
      expectInvalid(t, asNumber, { field: 'order.amount', explanation: expected.explanation }, `${text} as a number`);
    }
    t.same(seen(asNumber), seen(asString), `${text}: the same answer in both forms`);
  }
});

t.test('order API: a CAPTURE and a REFUND amount too, and only the member the body keeps (the last of a repeated name)', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const order = uniqueId();
  t.equal((await send(app, txnUrl(order, 'auth'), payText(token, '"500.00"').replace('"PAY"', '"AUTHORIZE"'))).statusCode, 201, 'authorized');
  const capture = (literal: string) => `{"apiOperation":"CAPTURE","transaction":{"currency":"USD","amount":${literal}}}`;
  expectInvalid(t, await send(app, txnUrl(order, 'c1'), capture('0.009999999999999999999')), { field: 'transaction.amount', explanation: /Length is 23 characters/ }, 'capture of 0.0099… as a number');
  expectInvalid(t, await send(app, txnUrl(order, 'c2'), capture('1e2')), { field: 'transaction.amount', explanation: /Value '1e2' is invalid/ }, 'capture of 1e2 as a number');
  // A name written twice: JSON.parse keeps the last, and so does the check of its text.
  const twice = await send(app, txnUrl(order, 'c3'), `{"apiOperation":"CAPTURE","transaction":{"amount":1e2,"currency":"USD","amount":100.50}}`);
  t.equal(twice.statusCode, 201, `the last amount, 100.50, is taken (${twice.body.slice(0, 200)})`);
  t.equal(twice.json().transaction.amount, 100.5);
  const escaped = await send(app, txnUrl(order, 'c4'), `{"apiOperation":"CAPTURE","transaction":{"currency":"USD","am\\u006funt":1e2}}`);
  expectInvalid(t, escaped, { field: 'transaction.amount', explanation: /Value '1e2' is invalid/ }, 'a member name written with an escape');
  const refund = (literal: string) => `{"apiOperation":"REFUND","transaction":{"amount":${literal},"currency":"USD"}}`;
  expectInvalid(t, await send(app, txnUrl(order, 'r1'), refund('1.0e1')), { field: 'transaction.amount', explanation: /Value '1.0e1' is invalid/ }, 'refund of 1.0e1 as a number');
  const refunded = await send(app, txnUrl(order, 'r2'), refund('10.00'));
  t.equal(refunded.statusCode, 201, refunded.body.slice(0, 200));
  t.equal(refunded.json().order.totalRefundedAmount, 10);
});

t.test('Update Session: order.amount as a number is checked by its text as written', async (t) => {
  const app = await buildTestApp(t);
  const base = `/api/rest/version/100/merchant/${M1.id}/session`;
  const created = await app.inject({ method: 'POST', url: base, headers: { authorization: tokenAuth(M1) } });
  const id = created.json().session.id as string;
  const update = (literal: string) => send(app, `${base}/${id}`, `{"order":{"amount":${literal},"currency":"USD"}}`);
  expectInvalid(t, await update('0.009999999999999999999'), { field: 'order.amount', explanation: /Length is 23 characters/ }, '0.0099… as a number');
  expectInvalid(t, await update('"0.009999999999999999999"'), { field: 'order.amount', explanation: /Length is 23 characters/ }, '0.0099… as a string');
  expectInvalid(t, await update('1e12'), { field: 'order.amount', explanation: /Value '1e12' is invalid/ }, '1e12 as a number');
  const held = await update('12.50');
  t.equal(held.statusCode, 200, held.body);
  t.equal(held.json().order.amount, '12.50');
});

t.test('version 3 Pay with token: the request decimal rule on its strings; a JSON number is refused by type', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const ok = await pay(app, token, payBody({ amount: '1000000000000' }));
  t.equal(ok.statusCode, 201, ok.body);
  t.equal(ok.json().transaction.amount, 1_000_000_000_000);
  expectInvalid(t, await pay(app, token, payBody({ amount: '999999999999.99' })), { field: 'transaction.amount', explanation: /Length is 15 characters/ }, '"999999999999.99"');
  expectInvalid(t, await pay(app, token, payBody({ amount: '0.009999999999999999999' })), { field: 'transaction.amount', explanation: /Length is 23 characters/ }, '"0.0099…"');
  expectInvalid(t, await pay(app, token, payBody({ amount: '1e12' })), { field: 'transaction.amount' }, '"1e12"');
  for (const literal of ['1e12', '0.009999999999999999999', '12.50']) {
    const res = await app.inject({
      method: 'PUT', url: `/api/rest/version/3/merchant/${M1.id}/token/${token}/order/${orderId()}/transaction/1`,
      headers: { authorization: `Basic ${Buffer.from(`:${M1.apiPassword}`).toString('base64')}`, 'content-type': 'application/json' },
      payload: `{"apiOperation":"PAY","transaction":{"amount":${literal},"currency":"USD"}}`,
    });
    expectInvalid(t, res, { field: 'transaction.amount', explanation: "Value '" + String(Number(literal)) + "' is invalid. Expected a string" }, `${literal} as a number`);
  }
});

/** JSON number literals: an integer part, maybe a fraction, now and then an exponent or a minus. */
const rarely = <T>(arbitrary: fc.Arbitrary<T>, otherwise: T) => fc.oneof({ arbitrary: fc.constant(otherwise), weight: 4 }, { arbitrary, weight: 1 });
const numberLiteral = fc.tuple(
  rarely(fc.constant('-'), ''),
  fc.oneof(fc.constant('0'), fc.integer({ min: 1, max: 999 }).map(String), fc.bigInt({ min: 1n, max: 10n ** 16n }).map(String)),
  fc.oneof(fc.constant(''), fc.stringMatching(/^\.[0-9]{1,4}$/), fc.stringMatching(/^\.[0-9]{1,22}$/)),
  rarely(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 25 })).map((e) => e.join('')), ''),
).map((parts) => parts.join(''));

t.test('property: a text sent as a string and as a JSON number gets the same answer (USD, JPY, BHD)', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  let accepted = 0;
  await fc.assert(fc.asyncProperty(numberLiteral, fc.constantFrom('USD', 'JPY', 'BHD'), async (text, currency) => {
    const { asString, asNumber } = await bothForms(app, token, text, currency);
    if (asString.statusCode === 201) accepted += 1;
    const [s, n] = [seen(asString), seen(asNumber)];
    if (!isDeepStrictEqual(s, n)) throw new Error(`${text} ${currency}: as a string ${JSON.stringify(s)}, as a number ${JSON.stringify(n)}`);
  }), { numRuns: 150 });
  t.ok(accepted > 5, `some texts are accepted (${accepted})`);
});
