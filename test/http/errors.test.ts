// Error bodies of the gateway (facts "HTTP status codes and error bodies"): malformed bodies,
// unknown paths, and field-level INVALID_REQUEST (MISSING / INVALID / UNSUPPORTED) of Pay with token.
import t from 'tap';
import { buildTestApp, createToken, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { assertSortedJson, expectInvalid, orderId, pay, payBody } from './http.fixture.js';

const rawPut = (url: string, payload: string, contentType = 'application/json') =>
  ({ method: 'PUT' as const, url, headers: { authorization: payAuth(M1), 'content-type': contentType }, payload });

// Each malformed body with the 0-based position of the offending character.
const MALFORMED: Array<[string, string, number]> = [
  ['missing colon', '{"apiOperation" "PAY"}', 16],
  ['trailing garbage', '{"apiOperation":"PAY"}}', 22],
  ['property name expected', '{"apiOperation":"PAY",}', 22],
  ['unexpected token', '{"apiOperation":PAY}', 16],
  ['unexpected end of input', '{"apiOperation":', 16],
];

t.test('malformed JSON is 400 INVALID_REQUEST saying the body is not valid JSON, without a field', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  for (const [what, body] of MALFORMED) {
    const res = await app.inject(rawPut(payPath(M1.id, token, orderId(), '1'), body));
    const err = expectInvalid(t, res, {}, what);
    t.match(err.error.explanation, /not valid JSON/, `${what}: says the body is not valid JSON`);
  }
  // The body is JSON whatever the content type says (curl -d sends a form type).
  const form = await app.inject(rawPut(payPath(M1.id, token, orderId(), '1'), '{"a" 1}', 'application/x-www-form-urlencoded'));
  expectInvalid(t, form, { explanation: /position 5\b/ }, 'form content type');
  // Token creation too.
  const tokenRes = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload: '{"sourceOfFunds" {}}' });
  expectInvalid(t, tokenRes, { explanation: /position 17\b/ }, 'token malformed JSON');
  t.equal(await app.gateway.store.headPosition(), 1n, 'nothing but the token recorded');
});

t.test('the explanation of malformed JSON names the position of the error, once', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  for (const [what, body, position] of MALFORMED) {
    const res = await app.inject(rawPut(payPath(M1.id, token, orderId(), '1'), body));
    const explanation = String(res.json().error?.explanation);
    t.match(explanation, new RegExp(`position ${position}\\b`), `${what}: names position ${position} (got: ${explanation})`);
    t.equal(explanation.match(/position/g)?.length, 1, `${what}: names the position once (got: ${explanation})`);
  }
});

t.test('a JSON body that is not an object is 400 INVALID_REQUEST without a field', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  for (const body of ['[{"apiOperation":"PAY"}]', '"PAY"', '42', 'true', 'null']) {
    const res = await app.inject(rawPut(payPath(M1.id, token, orderId(), '1'), body));
    expectInvalid(t, res, {}, `pay body ${body}`);
    const tokenRes = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload: body });
    expectInvalid(t, tokenRes, {}, `token body ${body}`);
  }
  const empty = await app.inject({ method: 'PUT', url: payPath(M1.id, token, orderId(), '1'), headers: { authorization: payAuth(M1) } });
  expectInvalid(t, empty, {}, 'no body at all');
  t.equal(await app.gateway.store.headPosition(), 1n, 'nothing but the token recorded');
});

t.test('unknown path and wrong method are 404 INVALID_REQUEST with an explanation of what was expected', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const cases: Array<[string, 'GET' | 'POST' | 'PUT' | 'DELETE', string]> = [
    ['unknown path', 'GET', '/nothing/here'],
    ['root', 'GET', '/'],
    ['other API version for pay', 'PUT', payPath(M1.id, token, orderId(), '1').replace('/version/3/', '/version/2/')],
    ['GET on the token path', 'GET', tokenPath(M1.id)],
    ['PUT on the token path', 'PUT', tokenPath(M1.id)],
    ['POST on the pay path', 'POST', payPath(M1.id, token, orderId(), '1')],
    ['DELETE on the pay path', 'DELETE', payPath(M1.id, token, orderId(), '1')],
    ['pay path without transaction', 'PUT', `/api/rest/version/3/merchant/${M1.id}/token/${token}/order/${orderId()}`],
  ];
  for (const [what, method, url] of cases) {
    const res = await app.inject({ method, url, headers: { authorization: payAuth(M1) }, payload: method === 'GET' || method === 'DELETE' ? undefined : payBody() });
    t.equal(res.statusCode, 404, `${what}: 404 (got ${res.statusCode} ${res.body})`);
    assertSortedJson(t, res, what);
    const body = res.json();
    t.equal(body.result, 'ERROR', `${what}: result ERROR`);
    t.equal(body.error.cause, 'INVALID_REQUEST', `${what}: cause`);
    t.type(body.error.explanation, 'string', `${what}: explanation`);
    t.notOk('field' in body.error, `${what}: no field`);
    t.notOk('supportCode' in body.error, `${what}: no supportCode`);
  }
  t.equal(await app.gateway.store.headPosition(), 1n, 'nothing recorded');
});

t.test('pay: a required field that is absent is MISSING with explanation Missing parameter', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const cases: Array<[string, unknown]> = [
    ['transaction.amount', { apiOperation: 'PAY', transaction: { currency: 'USD' } }],
    ['transaction.currency', { apiOperation: 'PAY', transaction: { amount: '12.50' } }],
    ['apiOperation', { transaction: { amount: '12.50', currency: 'USD' } }],
    ['transaction', { apiOperation: 'PAY' }],
  ];
  for (const [field, body] of cases) {
    expectInvalid(t, await pay(app, token, body), { field, validationType: 'MISSING', explanation: 'Missing parameter' });
  }
  t.equal(await app.gateway.store.headPosition(), 1n, 'no payment recorded');
});

t.test('pay: values that break the rules are INVALID on their field', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const tx = (transaction: Record<string, unknown>, rest: Record<string, unknown> = {}) => payBody(transaction, rest);
  const cases: Array<[string, unknown, string, (string | RegExp)?]> = [
    ['apiOperation CAPTURE', tx({}, { apiOperation: 'CAPTURE' }), 'apiOperation', /^Value 'CAPTURE' is invalid\./],
    ['apiOperation lower case', tx({}, { apiOperation: 'pay' }), 'apiOperation'],
    ['amount abc', tx({ amount: 'abc' }), 'transaction.amount', /^Value 'abc' is invalid\./],
    ['amount 0.00', tx({ amount: '0.00' }), 'transaction.amount', "Value '0.00' is invalid. Transaction or order amount must be greater than zero"],
    ['amount 0', tx({ amount: '0' }), 'transaction.amount', /must be greater than zero/],
    ['amount negative', tx({ amount: '-1.00' }), 'transaction.amount'],
    ['amount as a JSON number', tx({ amount: 12.5 }), 'transaction.amount'],
    ['amount 15 characters', tx({ amount: '123456789012.50' }), 'transaction.amount', /Length is 15 characters, but must be less than 15/],
    ['amount two points', tx({ amount: '1.2.3' }), 'transaction.amount'],
    ['amount 12.345 in USD', tx({ amount: '12.345' }), 'transaction.amount', /USD/],
    ['amount 1.5 in JPY', tx({ amount: '1.5', currency: 'JPY' }), 'transaction.amount', /JPY/],
    ['amount 1.2345 in BHD', tx({ amount: '1.2345', currency: 'BHD' }), 'transaction.amount', /BHD/],
    ['amount above the maximum', tx({ amount: '1000000000001' }), 'transaction.amount'],
    ['currency usd', tx({ currency: 'usd' }), 'transaction.currency', /^Value 'usd' is invalid\./],
    ['currency US', tx({ currency: 'US' }), 'transaction.currency'],
    ['card.securityCode abc', tx({}, { card: { securityCode: 'abc' } }), 'card.securityCode'],
    ['card.securityCode 12345', tx({}, { card: { securityCode: '12345' } }), 'card.securityCode'],
    ['card.securityCode 12', tx({}, { card: { securityCode: '12' } }), 'card.securityCode'],
    ['customer.ipAddress 999.1.1.1', tx({}, { customer: { ipAddress: '999.1.1.1' } }), 'customer.ipAddress', /^Value '999\.1\.1\.1' is invalid\./],
    ['customer.ipAddress not an address', tx({}, { customer: { ipAddress: 'localhost' } }), 'customer.ipAddress'],
    ['billing.address.country us', tx({}, { billing: { address: { country: 'us' } } }), 'billing.address.country', /^Value 'us' is invalid\./],
    ['billing.address.country USAX', tx({}, { billing: { address: { country: 'USAX' } } }), 'billing.address.country'],
    ['transaction.source WEB', tx({ source: 'WEB' }), 'transaction.source', /^Value 'WEB' is invalid\./],
    ['transaction.frequency DAILY', tx({ frequency: 'DAILY' }), 'transaction.frequency', /^Value 'DAILY' is invalid\./],
    ['order.reference 41 characters', tx({}, { order: { reference: 'R'.repeat(41) } }), 'order.reference', `Value '${'R'.repeat(41)}' is invalid. Length is 41 characters, but must be less than 41`],
    ['order.reference empty', tx({}, { order: { reference: '' } }), 'order.reference'],
    ['transaction.reference 41 characters', tx({ reference: 'T'.repeat(41) }), 'transaction.reference', /Length is 41 characters, but must be less than 41/],
    ['billing.address.postcodeZip 10 characters', tx({}, { billing: { address: { postcodeZip: '1234567890' } } }), 'billing.address.postcodeZip', /Length is 10 characters, but must be less than 10/],
    ['transaction.cashAdvance as a string', tx({ cashAdvance: 'true' }), 'transaction.cashAdvance'],
    ['correlationId 101 characters', tx({}, { correlationId: 'c'.repeat(101) }), 'correlationId'],
    ['tax.local.reference 21 characters', tx({ tax: { local: { reference: 'x'.repeat(21) } } }), 'transaction.tax.local.reference'],
    ['transaction as a string', { apiOperation: 'PAY', transaction: 'x' }, 'transaction'],
  ];
  for (const [what, body, field, explanation] of cases) {
    expectInvalid(t, await pay(app, token, body), { field, validationType: 'INVALID', ...(explanation ? { explanation } : {}) }, what);
  }
  t.equal(await app.gateway.store.headPosition(), 1n, 'no payment recorded');
});

t.test('pay: invalid URL parameters are INVALID on the parameter name', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const cases: Array<[string, string, string]> = [
    ['order id below 10000000000', payPath(M1.id, token, '9999999999', '1'), 'orderid'],
    ['order id above 9999999999999999', payPath(M1.id, token, '10000000000000000', '1'), 'orderid'],
    ['order id with letters', payPath(M1.id, token, '1000000000A', '1'), 'orderid'],
    ['order id with a leading zero', payPath(M1.id, token, '01000000000', '1'), 'orderid'],
    ['token id with -', payPath(M1.id, `${token.slice(0, 8)}-${token.slice(8)}`, orderId(), '1'), 'tokenid'],
    ['token id 41 characters', payPath(M1.id, '9'.repeat(41), orderId(), '1'), 'tokenid'],
    ['transaction id 41 characters', payPath(M1.id, token, orderId(), 'x'.repeat(41)), 'transactionid'],
  ];
  for (const [what, url, field] of cases) {
    const res = await app.inject({ method: 'PUT', url, headers: { authorization: payAuth(M1) }, payload: payBody() });
    expectInvalid(t, res, { field, validationType: 'INVALID' }, what);
  }
  const tx41 = await app.inject({ method: 'PUT', url: payPath(M1.id, token, orderId(), 'x'.repeat(41)), headers: { authorization: payAuth(M1) }, payload: payBody() });
  t.match(tx41.json().error.explanation, /Length is 41 characters, but must be less than 41/);
  // The bounds themselves are fine: transaction id of 40 characters, lowest and highest order ids.
  for (const url of [
    payPath(M1.id, token, orderId(), 'x'.repeat(40)),
    payPath(M1.id, token, '10000000000', 'a/b c'),
    payPath(M1.id, token, '9999999999999999', '1'),
  ]) {
    const res = await app.inject({ method: 'PUT', url, headers: { authorization: payAuth(M1) }, payload: payBody() });
    t.equal(res.statusCode, 201, `${url}: 201 (${res.body})`);
  }
});

t.test('pay: unknown members and unsupported currencies are UNSUPPORTED', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const cases: Array<[string, unknown, string]> = [
    ['transaction.foo', payBody({ foo: 'bar' }), 'transaction.foo'],
    ['top-level member', payBody({}, { merchant: M1.id }), 'merchant'],
    ['card.number on pay', payBody({}, { card: { number: '5123450000000008' } }), 'card.number'],
    ['billing.address.street2', payBody({}, { billing: { address: { street2: 'x' } } }), 'billing.address.street2'],
    ['currency XYZ', payBody({ currency: 'XYZ' }), 'transaction.currency'],
  ];
  for (const [what, body, field] of cases) {
    expectInvalid(t, await pay(app, token, body), { field, validationType: 'UNSUPPORTED' }, what);
  }
  t.equal(await app.gateway.store.headPosition(), 1n, 'no payment recorded');
});

t.test('pay: ISO 4217 codes without a minor unit (gold, "no currency") are UNSUPPORTED currencies', async (t) => {
  // ISO 4217 lists XAU and XXX with minor unit "N.A."; domain/money.ts means to refuse them.
  const app = await buildTestApp(t);
  const token = await createToken(app);
  for (const currency of ['XAU', 'XXX']) {
    expectInvalid(t, await pay(app, token, payBody({ amount: '12', currency })), { field: 'transaction.currency', validationType: 'UNSUPPORTED' }, `currency ${currency}`);
  }
  t.equal(await app.gateway.store.headPosition(), 1n, 'no payment recorded');
});

t.test('token creation: field errors follow the same rules', async (t) => {
  const app = await buildTestApp(t);
  const post = (payload: unknown) => app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: payload as Record<string, unknown> });
  const card = { number: '5123450000000008', expiry: { month: '1', year: '39' } };
  expectInvalid(t, await post({}), { field: 'sourceOfFunds', validationType: 'MISSING', explanation: 'Missing parameter' });
  expectInvalid(t, await post({ sourceOfFunds: { type: 'CARD', provided: { card }, foo: 1 } }), { field: 'sourceOfFunds.foo', validationType: 'UNSUPPORTED' });
  expectInvalid(t, await post({ sourceOfFunds: { type: 'card', provided: { card } } }), { field: 'sourceOfFunds.type', validationType: 'INVALID' });
  expectInvalid(t, await post({ sourceOfFunds: { type: 'CARD', provided: { card: { ...card, expiry: { month: '13', year: '39' } } } } }), { field: 'sourceOfFunds.provided.card.expiry.month', validationType: 'INVALID', explanation: /^Value '13' is invalid\./ });
  expectInvalid(t, await post({ sourceOfFunds: { type: 'CARD', provided: { card: { ...card, expiry: { month: '1', year: '2039' } } } } }), { field: 'sourceOfFunds.provided.card.expiry.year', validationType: 'INVALID' });
  expectInvalid(t, await post({ sourceOfFunds: { type: 'CARD', provided: { card } }, customer: { email: 'not-an-email' } }), { field: 'customer.email', validationType: 'INVALID' });
  expectInvalid(t, await post({ sourceOfFunds: { type: 'CARD', provided: { card } }, billing: { address: { street: 's'.repeat(101) } } }), { field: 'billing.address.street', validationType: 'INVALID', explanation: /Length is 101 characters, but must be less than 101/ });
  t.equal(await app.gateway.store.headPosition(), 0n, 'no token recorded');
});
