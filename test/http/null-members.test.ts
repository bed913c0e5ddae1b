// A member sent as null counts as not sent on the order API, Create Session, Update Session and
// Initiate Checkout: a group (shipping, billing, customer, authentication, order.discount, ...) as a
// member of one. What shops send: Mastercard's WooCommerce module sends "shipping":null for an
// order with no shipping address (a virtual order) to Initiate Checkout and Update Session, and its
// release 1.5.2.1 creates its sessions with {"authentication":null}. A required member sent as null
// is MISSING; a null list item stays refused; the spec's Pay with token and Create or Update Token
// keep refusing null (their schemas type every member).
import t from 'tap';
import { buildTestApp, cardBody, createToken, M1, tokenAuth, tokenPath } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid, pay, payBody, type App } from './http.fixture.js';
import { checkoutBody, initiate, view } from './hosted-checkout.fixture.js';

const headers = { authorization: tokenAuth(M1) };
const sessionUrl = (id = '') => `/api/rest/version/100/merchant/${M1.id}/session${id ? `/${id}` : ''}`;
const put = (a: App, order: string, payload: Record<string, unknown>) => a.inject({
  method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/1`, headers, payload,
});
const update = (a: App, id: string, payload: object) => a.inject({ method: 'PUT', url: sessionUrl(id), headers, payload });
async function newSession(a: App): Promise<string> {
  const made = await a.inject({ method: 'POST', url: sessionUrl(), headers });
  return made.json().session.id as string;
}
const ADDRESS = { street: '1 Main St', city: 'Springfield', postcodeZip: '12345', stateProvince: 'IL', country: 'USA' };
/** WooCommerce's line items (send_line_items on), as CheckoutBuilder::getOrder sends them. */
const LINE_ITEMS = {
  itemAmount: 20, shippingAndHandlingAmount: 3.5, taxAmount: 0, discount: { amount: 0 },
  item: [{ name: 'Beanie', unitPrice: 10, quantity: 2, sku: 'woo-beanie' }],
};

t.test('Initiate Checkout: "shipping":null, and other groups and members sent as null, count as not sent', async (t) => {
  const a = await buildTestApp(t);
  const virtual = await initiate(a, checkoutBody({ shipping: null, billing: { address: ADDRESS }, customer: { email: 'ada@example.com', phone: null } }, { displayControl: { billingAddress: 'READ_ONLY', shipping: 'READ_ONLY' } }));
  t.equal(virtual.statusCode, 201, virtual.body);
  const page = (await view(a, virtual.json().session.id)).json();
  t.notOk(page.display?.shipping, 'no shipping details shown');
  t.same(page.display?.billingAddress?.value, ADDRESS, 'the billing address shown');
  const groups = await initiate(a, checkoutBody({ billing: null, customer: null, transaction: null, paymentLink: null }, { merchant: null, locale: null }, { description: null, reference: null, discount: null }));
  t.equal(groups.statusCode, 201, groups.body);
  expectInvalid(t, await initiate(a, checkoutBody({}, { operation: null })), { field: 'interaction.operation', validationType: 'MISSING' }, 'a required member sent as null is missing');
  expectInvalid(t, await initiate(a, checkoutBody({ interaction: { ...checkoutBody().interaction, tokens: [null] } })), { field: 'interaction.tokens[0]', explanation: "Value 'null' is invalid. Expected a string" }, 'a null list item stays refused');
});

t.test('Create Session: {"authentication":null} and other members sent as null count as not sent', async (t) => {
  const a = await buildTestApp(t);
  for (const payload of [{ authentication: null }, { correlationId: null, session: null }, { session: { authenticationLimit: null } }]) {
    const made = await a.inject({ method: 'POST', url: sessionUrl(), headers, payload });
    t.equal(made.statusCode, 201, `${JSON.stringify(payload)}: ${made.body}`);
    t.match(made.json(), { result: 'SUCCESS', session: { id: /^SESSION/, updateStatus: 'NO_UPDATE' } });
    t.notOk('authentication' in made.json() || 'correlationId' in made.json(), 'no null echoed');
  }
  expectInvalid(t, await a.inject({ method: 'POST', url: sessionUrl(), headers, payload: { authentication: {} } }), { field: 'authentication', validationType: 'UNSUPPORTED' }, 'a group sent with a value is still unexpected');
});

t.test('Update Session: "shipping":null and other groups and members sent as null count as not sent', async (t) => {
  const a = await buildTestApp(t);
  const id = await newSession(a);
  const shop = { order: { id: 'wc1042', amount: 23.5, currency: 'USD', description: null }, billing: { address: { ...ADDRESS, street2: null } }, shipping: null, customer: { email: 'ada@example.com', phone: null }, authentication: null, sourceOfFunds: { type: 'CARD' } };
  const updated = await update(a, id, shop);
  t.equal(updated.statusCode, 200, updated.body);
  t.match(updated.json(), { result: 'SUCCESS', session: { id, updateStatus: 'SUCCESS' }, order: { amount: 23.5, currency: 'USD' } });
  const retrieved = (await a.inject({ method: 'GET', url: sessionUrl(id), headers })).json();
  t.notOk('shipping' in retrieved || 'authentication' in retrieved || 'billing' in retrieved, 'no null held');
  const nulls = await update(a, id, { order: { amount: null, currency: null }, correlationId: null, sourceOfFunds: null });
  t.equal(nulls.statusCode, 200, nulls.body);
  t.match(nulls.json(), { order: { amount: 23.5, currency: 'USD' } }, 'a null amount leaves the held one');
});

t.test("Update Session takes WooCommerce's line items and amounts, as the order API does, and does not hold them", async (t) => {
  const a = await buildTestApp(t);
  const id = await newSession(a);
  const updated = await update(a, id, { order: { id: 'wc1042', amount: 23.5, currency: 'USD', ...LINE_ITEMS }, sourceOfFunds: { type: 'CARD' } });
  t.equal(updated.statusCode, 200, updated.body);
  const retrieved = (await a.inject({ method: 'GET', url: sessionUrl(id), headers })).json();
  t.same(retrieved.order, { amount: 23.5, currency: 'USD' }, 'the amount and currency held, the line items not');
  expectInvalid(t, await update(a, id, { order: { item: [null] } }), { field: 'order.item[0]', explanation: "Value 'null' is invalid. A list item must not be null" }, 'a null item, as the order API refuses it');
  expectInvalid(t, await update(a, id, { order: { taxes: 1 } }), { field: 'order.taxes', validationType: 'UNSUPPORTED' }, 'an order member not listed is still unexpected');
});

t.test('the order API: groups and members sent as null count as not sent, and are not echoed', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const body = { apiOperation: 'PAY', order: { amount: '20.00', currency: 'USD', reference: null, description: null, ...LINE_ITEMS, discount: null }, sourceOfFunds: { type: 'CARD', token },
    shipping: null, billing: null, customer: null, authentication: null, device: null, transaction: { reference: null }, correlationId: null };
  const paid = await put(a, uniqueId(), body);
  t.equal(paid.statusCode, 201, paid.body);
  t.match(paid.json(), { result: 'SUCCESS', order: { amount: 20, currency: 'USD' } });
  for (const member of ['billing', 'customer', 'shipping', 'correlationId']) t.notOk(member in paid.json(), `no ${member} echoed`);
  t.notOk('reference' in paid.json().order || 'reference' in paid.json().transaction, 'no null reference echoed');
  expectInvalid(t, await put(a, uniqueId(), { ...body, apiOperation: null }), { field: 'apiOperation', validationType: 'MISSING', explanation: 'Missing parameter' }, 'a required member sent as null is missing');
  expectInvalid(t, await put(a, uniqueId(), { ...body, order: { amount: '20.00', currency: null } }), { field: 'order.currency', validationType: 'MISSING' }, 'a member the operation requires, sent as null, is missing');
  expectInvalid(t, await put(a, uniqueId(), { ...body, order: { ...body.order, item: [null] } }), { field: 'order.item[0]', explanation: "Value 'null' is invalid. A list item must not be null" }, 'a null list item stays refused');
});

t.test("the spec's operations keep refusing null: Pay with token (version 3), Create or Update Token (version 100)", async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  expectInvalid(t, await pay(a, token, payBody({ reference: null })), { field: 'transaction.reference' }, 'Pay with token');
  expectInvalid(t, await a.inject({ method: 'POST', url: tokenPath(M1.id), headers, payload: { ...cardBody(), billing: null } }), { field: 'billing' }, 'Create Token');
});
