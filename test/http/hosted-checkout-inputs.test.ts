// Hosted Checkout as an attacker sends it: any value in any field Initiate Checkout reads, and any
// body or session id on the payment page's JSON, gets a 2xx or the gateway's error body (400/404,
// a field named), never a 500; and the card number, security code and successIndicator of a
// checkout paid on the page appear nowhere afterwards: not in the log, the store, the page's view,
// nor an error text.
import { Writable } from 'node:stream';
import fc from 'fast-check';
import t from 'tap';
import { buildApp, loggerOptions } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { buildTestApp } from '../helpers/app.js';
import { storeText } from './http.fixture.js';
import { checkoutBody, CHECKOUT_MERCHANTS, FRICTIONLESS, initiate, newCheckout, PAN, pay, THREEDS, view } from './hosted-checkout.fixture.js';

/** Values of every JSON kind, strange strings among them (NUL, a card number, very long). */
const anyValue = fc.oneof(
  fc.string({ maxLength: 50 }), fc.constantFrom('\u0000', PAN, 'x'.repeat(5000), '-1', '1e400', 'javascript:alert(1)', 'https://shop.example/r'),
  fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 8 }), fc.string(), { maxKeys: 3 }),
);
const FIELDS = [
  'apiOperation', 'checkoutMode', 'correlationId', 'interaction', 'interaction.operation', 'interaction.returnUrl', 'interaction.cancelUrl', 'interaction.timeout',
  'interaction.retryAttemptCount', 'interaction.merchant', 'interaction.merchant.name', 'interaction.action', 'interaction.action.3DSecure', 'order', 'order.id',
  'order.amount', 'order.currency', 'order.description', 'order.reference', 'order.notificationUrl', 'paymentLink', 'paymentLink.expiryDateTime',
  'paymentLink.numberOfAllowedAttempts', 'paymentLink.errorUrl', 'transaction', 'transaction.reference', 'interaction.timeoutUrl', 'interaction.redirectMerchantUrl',
  'interaction.displayControl', 'interaction.displayControl.billingAddress', 'interaction.displayControl.customerEmail', 'interaction.displayControl.orderSummary',
  'billing', 'billing.address', 'billing.address.country', 'billing.address.street', 'customer', 'customer.email', 'shipping.address',
] as const;

function withValue(body: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  const steps = path.split('.');
  let at = copy;
  for (const step of steps.slice(0, -1)) {
    if (typeof at[step] !== 'object' || at[step] === null || Array.isArray(at[step])) at[step] = {};
    at = at[step] as Record<string, unknown>;
  }
  at[steps.at(-1)!] = value;
  return copy;
}

const ERROR_MEMBERS = new Set(['cause', 'explanation', 'field', 'validationType']);
const isGatewayError = (body: unknown) => {
  const b = body as { result?: unknown; error?: Record<string, unknown> };
  return b.result === 'ERROR' && b.error?.cause === 'INVALID_REQUEST' && typeof b.error.explanation === 'string' && Object.keys(b.error).every((k) => ERROR_MEMBERS.has(k));
};

t.test('Initiate Checkout: any value in any field it reads is a 201 or the gateway\'s 400, never a 500, no card number quoted', async (t) => {
  const a = await buildTestApp(t);
  const mode = fc.constantFrom({}, { checkoutMode: 'PAYMENT_LINK' });
  await fc.assert(fc.asyncProperty(fc.constantFrom(...FIELDS), anyValue, mode, fc.constantFrom(51, 62, 63, 100), async (field, value, extra, version) => {
    const base = checkoutBody({ ...extra, ...(version < 63 ? { apiOperation: 'CREATE_CHECKOUT_SESSION' } : {}) });
    const res = await initiate(a, withValue(base, field, value), version);
    if (res.statusCode === 201) return;
    if (res.statusCode !== 400 || !isGatewayError(res.json())) throw new Error(`${field}=${JSON.stringify(value)?.slice(0, 80)}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (res.body.includes(PAN)) throw new Error(`${field}: the card number quoted: ${res.body}`);
  }), { numRuns: 300 });
  t.pass('300 requests');
});

t.test('the payment page\'s JSON: any session id, any body, any content type: a 2xx/3xx or the gateway\'s error, never a 500', async (t) => {
  const a = await buildTestApp(t);
  const c = await newCheckout(a);
  const plain = (await initiate(a, {})).json().session.id as string;
  const ids = fc.oneof(fc.constantFrom(c.session.id, plain, `${c.session.id}0`, c.session.id.slice(0, -1), 'SESSION%00', '%E2%82%AC', PAN), fc.stringMatching(/^[0-9A-Za-z%._~-]{1,80}$/));
  const bodies = fc.oneof(fc.constantFrom('', '{}', '[]', 'null', '"x"', '{', '{"token":5}', `{"token":"${PAN}"}`, '{"token":"a\\u0000"}', 'token=abc'), fc.json({ maxDepth: 3 }));
  const types = fc.constantFrom(undefined, 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x');
  const ends = fc.constantFrom('', '/pay', '/cancel', '/acs-return');
  await fc.assert(fc.asyncProperty(ids, ends, bodies, types, async (id, end, body, type) => {
    const res = await a.inject({ method: end === '' ? 'GET' : 'POST', url: `/checkout/api/${id}${end}`, ...(end === '' ? {} : { payload: body }), headers: type ? { 'content-type': type } : {} });
    if (res.statusCode < 400) return;
    if (![400, 404, 413, 415].includes(res.statusCode) || !isGatewayError(res.json())) throw new Error(`${end} ${id} ${type} ${body.slice(0, 60)}: ${res.statusCode} ${res.body.slice(0, 300)}`);
    if (res.body.includes(PAN)) throw new Error(`the card number quoted: ${res.body}`);
  }), { numRuns: 200 });
  t.pass('200 requests');
});

t.test('a checkout paid on the page with 3-D Secure: card number, security code and successIndicator in no log line, event, view or error text', async (t) => {
  let log = '';
  const stream = new Writable({ write(chunk, _encoding, done) { log += String(chunk); done(); } });
  const a = await buildApp({ eventStore: { kind: 'memory' }, merchants: parseMerchants(CHECKOUT_MERCHANTS, 'test merchants'), logger: { ...loggerOptions('debug'), stream }, limits: { authFailureLimit: 1_000_000 } });
  t.teardown(() => a.close());
  const CODE = '9731';
  const c = await newCheckout(a, checkoutBody({ correlationId: 'secrets-1' }), THREEDS);
  const typeCard = (month: string) => a.inject({
    method: 'PUT', url: `/form/version/100/merchant/${THREEDS.id}/session/${c.session.id}`, headers: { 'sec-fetch-site': 'same-origin' },
    payload: { paymentType: 'card', card: { number: FRICTIONLESS, expiryMonth: month, expiryYear: '39', securityCode: CODE } },
  });
  // 05/39: declined by the test acquirer (after a frictionless authentication); 01/39: approved.
  t.equal((await typeCard('5')).statusCode, 200);
  const texts: string[] = [];
  const declined = await pay(a, c.session.id);
  texts.push(declined.body, (await view(a, c.session.id)).body);
  t.equal(declined.json().next, 'retry', declined.body);
  t.equal((await typeCard('1')).statusCode, 200);
  texts.push((await pay(a, c.session.id, { token: 'x'.repeat(41) })).body, (await pay(a, c.session.id, { token: '9999999999999999' })).body);
  const paid = await pay(a, c.session.id);
  t.equal(paid.json().next, 'return', paid.body);
  texts.push((await view(a, c.session.id)).body, (await a.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${THREEDS.id}/session/${c.session.id}`, headers: { authorization: `Basic ${Buffer.from(`merchant.${THREEDS.id}:${THREEDS.apiPassword}`).toString('base64')}` } })).body);
  const store = await storeText(a);
  const secrets = { 'card number': [FRICTIONLESS], 'security code': [CODE], successIndicator: [c.successIndicator] };
  t.notMatch(store, /"securityCode"/, 'no security code member in the store');
  for (const [what, values] of Object.entries(secrets)) {
    for (const value of values) {
      t.notOk(log.includes(value), `${what} not in the log`);
      // A 4-digit code can occur by chance inside the store's random ids and numbers: as a stored
      // value it would be a JSON string of its own (as test/http/card-data.test.ts checks it).
      const stored = what === 'security code' ? store.includes(`"${value}"`) : store.includes(value);
      t.notOk(stored, `${what} not in the store`);
      t.notOk(texts.some((text) => text.includes(value)), `${what} not in a view, answer or error text`);
    }
  }
  t.match(log, /"msg":"request"/, 'the requests were logged');
});
