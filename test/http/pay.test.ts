// Pay with token (PUT version 3): outcomes of the test acquirer, the response's fields, amounts.
import t, { type Test } from 'tap';
import { buildTestApp, createToken, M1 } from '../helpers/app.js';
import { assertSortedJson, orderId, pay, payBody } from './http.fixture.js';

const MASTERCARD = '5123450000000008';

/** The members the spec marks ALWAYS PROVIDED in a pay response, with their types. */
function assertAlwaysProvided(t: Test, body: any, expected: { order: string; transaction: string; amount: number; currency: string }) {
  t.match(body.result, /^(SUCCESS|FAILURE|PENDING|UNKNOWN)$/, 'result');
  t.equal(body.merchant, M1.id, 'merchant');
  t.equal(body.order?.id, Number(expected.order), 'order.id as a JSON integer');
  for (const total of ['totalAuthorizedAmount', 'totalCapturedAmount', 'totalRefundedAmount']) {
    t.type(body.order?.[total], 'number', `order.${total} is a number`);
  }
  t.type(body.card?.expiry?.month, 'string', 'card.expiry.month is a string');
  t.match(body.card?.expiry?.month, /^([1-9]|1[0-2])$/, 'card.expiry.month 1-12');
  t.match(body.card?.expiry?.year, /^\d{2}$/, 'card.expiry.year 2 digits');
  t.match(body.card?.number, /^[0-9x]{9,19}$/, 'card.number masked digits');
  t.match(body.card?.number, /x/, 'card.number is masked');
  t.type(body.card?.type, 'string', 'card.type');
  t.type(body.response?.gatewayCode, 'string', 'response.gatewayCode');
  t.type(body.transaction?.acquirer?.id, 'string', 'transaction.acquirer.id');
  t.ok(body.transaction?.acquirer?.id?.length >= 1 && body.transaction?.acquirer?.id?.length <= 40, 'transaction.acquirer.id 1-40');
  t.equal(body.transaction?.amount, expected.amount, 'transaction.amount');
  t.equal(body.transaction?.currency, expected.currency, 'transaction.currency');
  t.equal(body.transaction?.id, expected.transaction, 'transaction.id');
  t.equal(body.transaction?.type, 'PAYMENT', 'transaction.type');
}

t.test('an approved payment: 201, every ALWAYS PROVIDED field, amounts as JSON numbers', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app, M1, MASTERCARD, '1', '39');
  const order = orderId();
  const res = await pay(app, token, payBody({ amount: '12.50' }), { order, transaction: 'tx-1' });
  t.equal(res.statusCode, 201, res.body);
  assertSortedJson(t, res);
  const body = res.json();
  assertAlwaysProvided(t, body, { order, transaction: 'tx-1', amount: 12.5, currency: 'USD' });
  t.equal(body.result, 'SUCCESS');
  t.equal(body.response.gatewayCode, 'APPROVED');
  t.same(body.card.expiry, { month: '1', year: '39' });
  t.equal(body.card.number, '512345xxxxxx0008');
  t.equal(body.card.type, 'MASTERCARD');
  t.equal(body.order.totalAuthorizedAmount, 12.5);
  t.equal(body.order.totalCapturedAmount, 12.5);
  t.equal(body.order.totalRefundedAmount, 0);
  t.match(body.transaction.authorizationCode, /^[\x20-\x7e]{1,100}$/, 'authorizationCode when approved');
  t.match(res.body, /"amount":12\.5[,}]/, 'raw amount written 12.5');
  t.match(res.body, /"totalCapturedAmount":12\.5[,}]/, 'raw total written 12.5');
  t.match(res.body, new RegExp(`"id":${order}[,}]`), 'raw order id a JSON integer');
  t.notMatch(res.body, new RegExp(MASTERCARD), 'the full card number is never returned');
  t.notOk('correlationId' in body, 'no correlationId when none was sent');
});

t.test('a declined payment is 201 FAILURE, zero totals, no authorizationCode', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app, M1, MASTERCARD, '5', '39');
  const order = orderId();
  const res = await pay(app, token, payBody({ amount: '12.50' }), { order });
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  assertAlwaysProvided(t, body, { order, transaction: '1', amount: 12.5, currency: 'USD' });
  t.equal(body.result, 'FAILURE');
  t.equal(body.response.gatewayCode, 'DECLINED');
  t.same(body.card.expiry, { month: '5', year: '39' });
  t.equal(body.order.totalAuthorizedAmount, 0);
  t.equal(body.order.totalCapturedAmount, 0);
  t.equal(body.order.totalRefundedAmount, 0);
  t.notOk('authorizationCode' in body.transaction, 'no authorizationCode on a decline');
});

t.test('every row of the test acquirer expiry table', async (t) => {
  const app = await buildTestApp(t);
  const rows: Array<[string, string, string, string]> = [
    ['01', '39', 'APPROVED', 'SUCCESS'],
    ['05', '39', 'DECLINED', 'FAILURE'],
    ['04', '27', 'EXPIRED_CARD', 'FAILURE'],
    ['08', '28', 'TIMED_OUT', 'FAILURE'],
    ['01', '37', 'ACQUIRER_SYSTEM_ERROR', 'FAILURE'],
    ['02', '37', 'UNSPECIFIED_FAILURE', 'FAILURE'],
    ['05', '37', 'UNKNOWN', 'UNKNOWN'],
    ['12', '35', 'APPROVED', 'SUCCESS'], // any other future expiry approves
  ];
  for (const [month, year, gatewayCode, result] of rows) {
    const what = `${month}/${year}`;
    const token = await createToken(app, M1, MASTERCARD, month, year);
    const order = orderId();
    const res = await pay(app, token, payBody({ amount: '10.00' }), { order });
    t.equal(res.statusCode, 201, `${what}: 201 (${res.body})`);
    const body = res.json();
    assertAlwaysProvided(t, body, { order, transaction: '1', amount: 10, currency: 'USD' });
    t.equal(body.response.gatewayCode, gatewayCode, `${what}: gatewayCode`);
    t.equal(body.result, result, `${what}: result`);
    t.same(body.card.expiry, { month: String(Number(month)), year }, `${what}: card.expiry`);
    const approved = result === 'SUCCESS';
    t.equal(body.order.totalCapturedAmount, approved ? 10 : 0, `${what}: totals follow the outcome`);
    t.equal(body.order.totalAuthorizedAmount, approved ? 10 : 0, `${what}: authorized total`);
    t.equal('authorizationCode' in body.transaction, approved, `${what}: authorizationCode only when approved`);
  }
});

t.test('card security code response', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const amex = await createToken(app, M1, '345678901234564');
  const cases: Array<[string, string, string | undefined, string]> = [
    ['mastercard 100', token, '100', 'MATCH'],
    ['mastercard 101', token, '101', 'NOT_PROCESSED'],
    ['mastercard 102', token, '102', 'NO_MATCH'],
    ['mastercard none', token, undefined, 'NOT_PRESENT'],
    ['amex 1000', amex, '1000', 'MATCH'],
    ['amex 1010', amex, '1010', 'NOT_PROCESSED'],
    ['amex 1020', amex, '1020', 'NO_MATCH'],
    ['amex none', amex, undefined, 'NOT_PRESENT'],
  ];
  for (const [what, tok, securityCode, gatewayCode] of cases) {
    const res = await pay(app, tok, payBody({}, securityCode === undefined ? {} : { card: { securityCode } }));
    t.equal(res.statusCode, 201, `${what}: ${res.body}`);
    t.equal(res.json().response?.cardSecurityCode?.gatewayCode, gatewayCode, what);
    if (securityCode !== undefined) t.notMatch(res.body, new RegExp(`"${securityCode}"`), `${what}: the code is not echoed`);
  }
});

t.test('AVS response chosen by words in billing.address.street', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const cases: Array<[string, string]> = [
    ['1 Alpha St', 'ADDRESS_MATCH'],
    ['2 November St', 'NO_MATCH'],
    ['3 Romeo St', 'SERVICE_NOT_AVAILABLE_RETRY'],
    ['4 Sierra St', 'SERVICE_NOT_SUPPORTED'],
    ['5 Uniform St', 'NOT_AVAILABLE'],
    ['6 Whiskey St', 'ZIP_MATCH'],
    ['7 X-ray St', 'ADDRESS_ZIP_MATCH'],
    ['8 Kilo St', 'NAME_MATCH'],
    ['9 Love St', 'NAME_ZIP_MATCH'],
    ['10 Olive St', 'NAME_ADDRESS_MATCH'],
    ['11 Zero St', 'NOT_REQUESTED'],
  ];
  for (const [street, gatewayCode] of cases) {
    const res = await pay(app, token, payBody({}, { billing: { address: { street, city: 'Springfield', country: 'USA' } } }));
    t.equal(res.statusCode, 201, `${street}: ${res.body}`);
    t.equal(res.json().response?.avs?.gatewayCode, gatewayCode, street);
  }
});

t.test('optional request values are echoed; correlationId echoed unchanged', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const res = await pay(app, token, payBody(
    { reference: 'TXN-REF-1', source: 'MOTO', frequency: 'RECURRING', tax: { local: { amount: '1.20', exempt: false, reference: 'VAT-7' } } },
    { order: { reference: 'CART-42' }, correlationId: 'corr ID: "x" ü' },
  ));
  t.equal(res.statusCode, 201, res.body);
  assertSortedJson(t, res);
  const body = res.json();
  t.equal(body.order.reference, 'CART-42', 'order.reference');
  t.equal(body.transaction.reference, 'TXN-REF-1', 'transaction.reference');
  t.equal(body.transaction.source, 'MOTO', 'transaction.source');
  t.equal(body.transaction.frequency, 'RECURRING', 'transaction.frequency');
  t.same(body.transaction.tax, { local: { amount: 1.2, exempt: false, reference: 'VAT-7' } }, 'transaction.tax.local');
  t.equal(body.correlationId, 'corr ID: "x" ü', 'correlationId unchanged');
  // Not sent: not returned.
  const plain = (await pay(app, token, payBody())).json();
  for (const member of ['reference', 'frequency', 'tax']) t.notOk(member in plain.transaction, `transaction.${member} absent when not sent`);
  t.notOk('reference' in plain.order, 'order.reference absent when not sent');
});

t.test('amounts in currencies with 0 and 3 decimals', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const cases: Array<[string, string, number]> = [
    ['JPY', '100', 100],
    ['JPY', '1500', 1500],
    ['BHD', '1.234', 1.234],
    ['BHD', '12.5', 12.5],
    ['USD', '0.01', 0.01],
    ['USD', '100.00', 100],
    ['USD', '7', 7],
  ];
  for (const [currency, amount, expected] of cases) {
    const res = await pay(app, token, payBody({ amount, currency }));
    t.equal(res.statusCode, 201, `${amount} ${currency}: ${res.body}`);
    const body = res.json();
    t.equal(body.transaction?.amount, expected, `${amount} ${currency}: transaction.amount`);
    t.equal(body.transaction?.currency, currency, `${amount} ${currency}: transaction.currency`);
    t.equal(body.order?.totalCapturedAmount, expected, `${amount} ${currency}: total`);
    t.match(res.body, new RegExp(`"amount":${String(expected).replace('.', '\\.')}[,}]`), `${amount} ${currency}: raw JSON number`);
  }
});

t.test('the largest order id is returned exactly as a JSON integer', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  const res = await pay(app, token, payBody(), { order: '9999999999999999' });
  t.equal(res.statusCode, 201, res.body);
  t.match(res.body, /"id":9999999999999999[,}]/, 'written digit for digit, not rounded to a double');
});

t.test('a transaction id with any characters is returned as sent', async (t) => {
  const app = await buildTestApp(t);
  const token = await createToken(app);
  for (const id of ['a/b c?d#e', 'é'.repeat(40), '%41']) {
    const res = await pay(app, token, payBody(), { transaction: id });
    t.equal(res.statusCode, 201, `${id}: ${res.body}`);
    t.equal(res.json().transaction?.id, id, `${id}: transaction.id`);
  }
});
