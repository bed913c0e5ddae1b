// Where the payment page's transactions say they came from (gatewayEntryPoint), per API version:
// CHECKOUT before version 70 (captured answers at 50 and 57), CHECKOUT_VIA_WEBSITE from 70 (the
// version 70 reference's enumeration, and what Mastercard's WooCommerce module at version 100 acts
// on in its webhook). The same name in Retrieve Order, Retrieve Transaction and the notification,
// on the payment and on the 3-D Secure authentication before it.
import t from 'tap';
import { buildTestApp, M1, MERCHANTS, tokenAuth } from '../helpers/app.js';
import { startReceiver } from '../helpers/receiver.js';
import type { App } from './http.fixture.js';
import { CHECKOUT_MERCHANTS, checkoutBody, FRICTIONLESS, newCheckout, pay, retrieveOrder, THREEDS, typeCard } from './hosted-checkout.fixture.js';
import { transactionUrl } from './three-d-secure.fixture.js';

const retrieveTransaction = (a: App, orderId: string, id: string, version: number, m: { id: string; apiPassword: string } = M1) =>
  a.inject({ method: 'GET', url: transactionUrl(orderId, id, version, m.id), headers: { authorization: tokenAuth(m) } });

/** Retrieve Order's transactions as [id, gatewayEntryPoint] at `version`. */
async function entryPoints(a: App, orderId: string, version: number, m: { id: string; apiPassword: string } = M1) {
  const order = (await retrieveOrder(a, orderId, m, version)).json() as { transaction: Array<{ gatewayEntryPoint: string; transaction: { id: string } }> };
  return order.transaction.map((x) => [x.transaction.id, x.gatewayEntryPoint]);
}

t.test('the payment page\'s payment: CHECKOUT before version 70, CHECKOUT_VIA_WEBSITE from 70', async (t) => {
  const a = await buildTestApp(t);
  const c = await newCheckout(a);
  await typeCard(a, c.session.id);
  t.equal((await pay(a, c.session.id)).json().next, 'return');
  for (const [version, name] of [[100, 'CHECKOUT_VIA_WEBSITE'], [70, 'CHECKOUT_VIA_WEBSITE'], [69, 'CHECKOUT'], [57, 'CHECKOUT']] as const) {
    t.same(await entryPoints(a, c.orderId, version), [['1', name]], `Retrieve Order at ${version}`);
    const one = await retrieveTransaction(a, c.orderId, '1', version);
    t.equal(one.statusCode, 200, `Retrieve Transaction at ${version}: 200`);
    t.equal(one.json().gatewayEntryPoint, name, `Retrieve Transaction at ${version}`);
  }
});

t.test('the authentication before a payment with 3-D Secure names the page too, in the version\'s name', async (t) => {
  const a = await buildTestApp(t, { merchants: CHECKOUT_MERCHANTS });
  const c = await newCheckout(a, checkoutBody(), THREEDS);
  await typeCard(a, c.session.id, FRICTIONLESS, '1', '39', THREEDS.id);
  t.equal((await pay(a, c.session.id)).json().next, 'return');
  t.same(await entryPoints(a, c.orderId, 100, THREEDS), [['3DS-1', 'CHECKOUT_VIA_WEBSITE'], ['1', 'CHECKOUT_VIA_WEBSITE']]);
  t.same(await entryPoints(a, c.orderId, 61, THREEDS), [['3DS-1', 'CHECKOUT'], ['1', 'CHECKOUT']]);
  t.equal((await retrieveTransaction(a, c.orderId, '3DS-1', 100, THREEDS)).json().gatewayEntryPoint, 'CHECKOUT_VIA_WEBSITE');
});

t.test('the notification of a payment page\'s payment says CHECKOUT_VIA_WEBSITE at 100, CHECKOUT at 57', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const merchants = {
    merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id
      ? { ...m, notifications: { url: `${receiver.origin}/hooks/main`, secret: 'notification-secret-0123456789abcdef-QZ' } }
      : m)),
  };
  const a = await buildTestApp(t, { merchants });
  const modern = await newCheckout(a);
  await typeCard(a, modern.session.id);
  t.equal((await pay(a, modern.session.id)).json().next, 'return');
  const [first] = await receiver.waitFor(1);
  t.match(JSON.parse(first!.body), { gatewayEntryPoint: 'CHECKOUT_VIA_WEBSITE', order: { id: modern.orderId }, result: 'SUCCESS', version: '100' });
  const legacy = await newCheckout(a, checkoutBody({ apiOperation: 'CREATE_CHECKOUT_SESSION' }), M1, 57);
  await typeCard(a, legacy.session.id);
  t.equal((await pay(a, legacy.session.id)).json().next, 'return');
  const [, second] = await receiver.waitFor(2);
  t.match(JSON.parse(second!.body), { gatewayEntryPoint: 'CHECKOUT', order: { id: legacy.orderId }, version: '57' });
});
