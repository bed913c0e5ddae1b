// Update Session with what a shop's plugin sends beside the card: Mastercard's WooCommerce module
// (fingent-corp/gateway-woocommerce-mastercard-module, GatewayServiceController::update_session)
// puts the order, the payer's details and its partnerSolutionId into the session before the
// payment, as the reference's Update Session allows. They are checked as a payment checks them and
// not held (the payment that follows sends its own); the card, order.amount, order.currency,
// sourceOfFunds.token and authentication.* are held as before.
import t from 'tap';
import { buildTestApp, MERCHANTS, M1, tokenAuth } from '../helpers/app.js';
import { expectInvalid, type App } from './http.fixture.js';

const WEBHOOK = 'https://shop.example/wp-json/mastercard/v1/webhook/';
const SHOP = { ...M1, notifications: { url: WEBHOOK, secret: 'shop-webhook-secret-0123456789abcdef-01', allowedUrls: ['https://shop.example/wp-json/mastercard/v1/'] } };
const merchants = { merchants: [SHOP, ...MERCHANTS.merchants.slice(1)] };
const sessionUrl = (id = '') => `/api/rest/version/100/merchant/${M1.id}/session${id ? `/${id}` : ''}`;
const headers = { authorization: tokenAuth(M1) };

async function newSession(app: App): Promise<string> {
  return (await app.inject({ method: 'POST', url: sessionUrl(), headers })).json().session.id as string;
}
const update = (app: App, id: string, payload: object) => app.inject({ method: 'PUT', url: sessionUrl(id), headers, payload });

/** The module's savePayment body (CheckoutBuilder leaves blank address lines out). */
const shopBody = (order: Record<string, unknown> = {}) => ({
  partnerSolutionId: 'WC_9.4.0_FINGENT_1.5.2.1',
  order: { id: 'wc1042', description: 'Ordered Goods', amount: 23.5, currency: 'USD', notificationUrl: WEBHOOK, ...order },
  billing: { address: { street: '1 Main St', city: 'Springfield', postcodeZip: '12345', stateProvince: 'IL', country: 'USA' } },
  shipping: { address: { street: '1 Main St', city: 'Springfield', postcodeZip: '12345', stateProvince: 'IL', country: 'USA' }, contact: { firstName: 'Ada', lastName: 'Lovelace' } },
  customer: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' },
  sourceOfFunds: { type: 'CARD' },
});

t.test("Update Session takes a shop's order and payer details: the amount and currency held, the rest checked and not held", async (t) => {
  const app = await buildTestApp(t, { merchants });
  const id = await newSession(app);
  t.equal((await update(app, id, { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '05', year: '31' } } } } })).statusCode, 200);
  const updated = await update(app, id, shopBody());
  t.equal(updated.statusCode, 200, updated.body);
  t.match(updated.json(), { result: 'SUCCESS', session: { id, updateStatus: 'SUCCESS' }, order: { amount: 23.5, currency: 'USD' } });
  const retrieved = (await app.inject({ method: 'GET', url: sessionUrl(id), headers })).json();
  t.match(retrieved, { order: { amount: 23.5, currency: 'USD' }, sourceOfFunds: { provided: { card: { number: '512345xxxxxx0008' } } } }, 'the card and amount are held');
  t.notOk(retrieved.billing ?? retrieved.customer ?? retrieved.shipping ?? retrieved.partnerSolutionId, 'the payer details are not held');
});

t.test("Update Session refuses a shop's bad details with the field, holding nothing", async (t) => {
  const app = await buildTestApp(t, { merchants });
  const id = await newSession(app);
  expectInvalid(t, await update(app, id, shopBody({ notificationUrl: 'https://elsewhere.example/hook' })), { field: 'order.notificationUrl', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, { ...shopBody(), partnerSolutionId: 'x'.repeat(41) }), { field: 'partnerSolutionId', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, { ...shopBody(), customer: { email: 'not an email' } }), { field: 'customer.email', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, { ...shopBody(), billing: { address: { country: 'United States' } } }), { field: 'billing.address.country', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, shopBody({ id: 'x'.repeat(41) })), { field: 'order.id', validationType: 'INVALID' });
  expectInvalid(t, await update(app, id, { ...shopBody(), airline: { ticket: {} } }), { field: 'airline', validationType: 'UNSUPPORTED' });
  const retrieved = (await app.inject({ method: 'GET', url: sessionUrl(id), headers })).json();
  t.equal(retrieved.session.updateStatus, 'NO_UPDATE', 'nothing held');
});

t.test('order.notificationUrl in Update Session needs a merchant with webhook notifications', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  expectInvalid(t, await update(app, id, shopBody()), { field: 'order.notificationUrl', explanation: /not configured/ });
  const without = shopBody();
  delete (without.order as Record<string, unknown>).notificationUrl;
  t.equal((await update(app, id, without)).statusCode, 200, 'the same body without it is taken');
});

t.test("a payer holding the session id may send the payer's details, not the shop software's id", async (t) => {
  const app = await buildTestApp(t, { merchants });
  const id = await newSession(app);
  const bySession = { authorization: `Basic ${Buffer.from(`merchant.${M1.id}:${id}`).toString('base64')}` };
  const payer = { billing: shopBody().billing, customer: shopBody().customer };
  t.equal((await app.inject({ method: 'PUT', url: sessionUrl(id), headers: bySession, payload: payer })).statusCode, 200, 'billing and customer');
  expectInvalid(t, await app.inject({ method: 'PUT', url: sessionUrl(id), headers: bySession, payload: { ...payer, partnerSolutionId: 'WC_9.4.0_FINGENT_1.5.2.1' } }),
    { field: 'partnerSolutionId', explanation: /only the payer's data/ });
});
