// Update Session's shop details (order.id, order.reference, order.description,
// order.notificationUrl, billing, customer, shipping, partnerSolutionId) as an attacker would send
// them: a payer holding only the session id, card numbers in the new members, values of the wrong
// kind, and NVP's form of the same fields. None is held, none is a 500, no card number is quoted.
import t from 'tap';
import { buildTestApp, M1, M2, tokenAuth } from '../helpers/app.js';
import { expectInvalid, type App } from './http.fixture.js';

const sessionUrl = (id = '', merchantId = M1.id) => `/api/rest/version/100/merchant/${merchantId}/session${id ? `/${id}` : ''}`;
const headers = { authorization: tokenAuth(M1) };
const CARD = /must not hold a card number/;

async function newSession(app: App): Promise<string> {
  return (await app.inject({ method: 'POST', url: sessionUrl(), headers })).json().session.id as string;
}
const put = (app: App, id: string, payload: unknown, auth: Record<string, string> = headers) =>
  app.inject({ method: 'PUT', url: sessionUrl(id), headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify(payload) });

t.test('a payer holding the session id: the merchant\'s members refused, the payer\'s details taken and not held', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const bySession = { authorization: `Basic ${Buffer.from(`merchant.${M1.id}:${id}`).toString('base64')}` };
  for (const [field, payload] of [
    ['order', { order: { notificationUrl: 'https://attacker.example/hook' } }], ['order', { order: { id: 'someone-elses-order' } }],
    ['order', { order: { reference: 'r' } }], ['partnerSolutionId', { partnerSolutionId: 'x' }],
  ] as const) expectInvalid(t, await put(app, id, payload, bySession), { field, explanation: /only the payer's data/ }, `${Object.keys(payload)[0]}: the merchant's`);
  const payer = { billing: { address: { street: 'Attacker Rd 1', country: 'USA' } }, shipping: { address: { city: 'Elsewhere' } }, customer: { email: 'evil@example.com', firstName: 'Eve' } };
  const taken = await put(app, id, payer, bySession);
  t.equal(taken.statusCode, 200, taken.body);
  const retrieved = await app.inject({ method: 'GET', url: sessionUrl(id), headers });
  t.notOk(/Attacker|Elsewhere|evil@|Eve/.test(retrieved.body), `nothing of the payer's details held: ${retrieved.body}`);
  const otherMerchant = await put(app, id, payer, { authorization: `Basic ${Buffer.from(`merchant.${M2.id}:${id}`).toString('base64')}` });
  t.equal(otherMerchant.statusCode, 401, "the session id as another merchant's password");
});

t.test('card numbers in the new members: refused on the field, not quoted', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  for (const [field, payload] of [
    ['order.id', { order: { id: '5123450000000008' } }], ['order.reference', { order: { reference: 'ref 5123-4500-0000-0008' } }],
    ['order.description', { order: { description: 'card 4111111111111111' } }], ['partnerSolutionId', { partnerSolutionId: '4111111111111111' }],
    ['billing.address.street', { billing: { address: { street: '4111 1111 1111 1111' } } }], ['billing.address.company', { billing: { address: { company: '4111111111111111' } } }],
    ['customer.firstName', { customer: { firstName: '4111111111111111' } }], ['shipping.contact.lastName', { shipping: { contact: { lastName: '4111111111111111' } } }],
    ['order.notificationUrl', { order: { notificationUrl: 'https://shop.example/hook?pan=4111111111111111' } }],
  ] as const) {
    const res = await put(app, id, payload);
    expectInvalid(t, res, { field, explanation: CARD }, field);
    t.notOk(/4111111111111111|4111 1111|5123450000000008|5123-4500/.test(res.body), `${field}: not quoted`);
  }
});

t.test('values of the wrong kind in the new members: 400 on the field, never a 500', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  for (const [field, payload] of [
    ['billing', { billing: [] }], ['billing.address', { billing: { address: 'x' } }], ['billing.address.country', { billing: { address: { country: 7 } } }],
    ['billing.address.country', { billing: { address: { country: 'ZZZ' } } }], ['customer', { customer: 'x' }], ['customer.firstName', { customer: { firstName: {} } }],
    ['customer.phone', { customer: { phone: ['1'] } }], ['customer.email', { customer: { email: 'x'.repeat(300) } }], ['shipping', { shipping: [] }],
    ['order.id', { order: { id: 12 } }], ['order.description', { order: { description: 'x'.repeat(128) } }], ['order.notificationUrl', { order: { notificationUrl: {} } }],
    ['partnerSolutionId', { partnerSolutionId: [] }],
  ] as const) expectInvalid(t, await put(app, id, payload), { field }, `${field}: ${JSON.stringify(payload).slice(0, 60)}`);
  // A number too large for a double, as its text (JSON.stringify writes Infinity as null, which counts as not sent).
  const huge = await app.inject({ method: 'PUT', url: sessionUrl(id), headers: { ...headers, 'content-type': 'application/json' }, payload: '{"partnerSolutionId":1e309}' });
  expectInvalid(t, huge, { field: 'partnerSolutionId' }, 'partnerSolutionId: 1e309');
  const deep = await put(app, id, { shipping: JSON.parse(`${'{"a":'.repeat(40)}1${'}'.repeat(40)}`) as unknown });
  t.equal(deep.statusCode, 400, 'a shipping group nested too deep');
});

t.test('NVP: the same members as dotted fields, checked alike', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const nvp = (fields: Record<string, string>) => app.inject({
    method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ apiOperation: 'UPDATE_SESSION', merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword, 'session.id': id, ...fields }).toString(),
  });
  const taken = await nvp({ partnerSolutionId: 'WC_9.4.0', 'order.id': 'wc1', 'billing.address.street': '1 Main St', 'customer.email': 'a@example.com', 'shipping.address.city': 'X' });
  t.equal(taken.statusCode, 200, taken.body);
  expectInvalid(t, await nvp({ 'billing.address.country': 'ZZZ' }), { field: 'billing.address.country' });
  expectInvalid(t, await nvp({ 'shipping.address.street': '4111111111111111' }), { field: 'shipping.address.street', explanation: CARD });
});
