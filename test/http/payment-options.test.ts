// Payment Options Inquiry: POST with a JSON body (Mastercard's Magento module, version 73 on) or
// GET (the reference up to version 52) on .../paymentOptionsInquiry answers the card types the
// merchant can take under paymentTypes.card.cardTypes[].cardType, which the module keeps as its
// card list, and correlationId as sent; wrong credentials are the 401 body the module's
// credential check reads (result ERROR, error.cause, error.explanation).
import t from 'tap';
import { basic, buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { expectInvalid, type App } from './http.fixture.js';

const url = (version = 100, merchantId = M1.id) => `/api/rest/version/${version}/merchant/${merchantId}/paymentOptionsInquiry`;
const post = (a: App, payload: Record<string, unknown>, authorization = tokenAuth(M1), version = 100) =>
  a.inject({ method: 'POST', url: url(version), headers: { authorization }, payload });
const BRANDS = ['AMEX', 'CHINA_UNIONPAY', 'DINERS_CLUB', 'DISCOVER', 'JCB', 'MAESTRO', 'MASTERCARD', 'RUPAY', 'UATP', 'VISA'];

t.test('POST as the Magento module sends it: the card types, correlationId as sent', async (t) => {
  const a = await buildTestApp(t);
  const res = await post(a, { correlationId: M1.id });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.equal(body.result, 'SUCCESS');
  t.equal(body.correlationId, M1.id);
  t.equal(body.merchant, M1.id);
  t.same(body.paymentTypes.card.cardTypes.map((c: { cardType: string }) => c.cardType), BRANDS, 'every brand the test acquirer takes');
  const plain = await post(a, {});
  t.equal(plain.statusCode, 200, plain.body);
  t.notOk('correlationId' in plain.json(), 'none sent: none answered');
});

t.test('GET with the fields as URL parameters, on an older version', async (t) => {
  const a = await buildTestApp(t);
  const res = await a.inject({ method: 'GET', url: `${url(45)}?correlationId=abc`, headers: { authorization: tokenAuth(M1) } });
  t.equal(res.statusCode, 200, res.body);
  t.match(res.json(), { correlationId: 'abc', result: 'SUCCESS', paymentTypes: { card: { cardTypes: [{ cardType: 'AMEX' }] } } });
});

t.test('the credential check: a wrong password is 401 with the gateway\'s error body; bad fields and versions are refused', async (t) => {
  const a = await buildTestApp(t);
  const denied = await post(a, { correlationId: M1.id }, basic(`merchant.${M1.id}`, 'not-the-password-0123456789'));
  t.equal(denied.statusCode, 401);
  t.same(denied.json(), { error: { cause: 'INVALID_REQUEST', explanation: 'Invalid credentials.' }, result: 'ERROR' });
  expectInvalid(t, await post(a, { correlationId: '' }), { field: 'correlationId', validationType: 'INVALID' }, 'an empty correlationId');
  expectInvalid(t, await post(a, { apiOperation: 'PAY' }), { field: 'apiOperation' }, 'another apiOperation');
  expectInvalid(t, await post(a, {}, tokenAuth(M1), 22), { field: 'version' }, 'a deactivated version');
});

t.test('POST without a body, as Mastercard\'s WooCommerce module checks credentials: answered; JSON null refused', async (t) => {
  const a = await buildTestApp(t);
  const headers = { authorization: tokenAuth(M1), 'content-type': 'application/json' };
  const empty = await a.inject({ method: 'POST', url: url(), headers });
  t.equal(empty.statusCode, 200, empty.body);
  t.match(empty.json(), { result: 'SUCCESS', merchant: M1.id });
  const denied = await a.inject({ method: 'POST', url: url(), headers: { ...headers, authorization: basic(`merchant.${M1.id}`, 'not-the-password-0123456789') } });
  t.equal(denied.statusCode, 401, 'a wrong password is still the credential check\'s 401');
  const nul = await a.inject({ method: 'POST', url: url(), headers, payload: 'null' });
  t.equal(nul.statusCode, 400, nul.body);
});
