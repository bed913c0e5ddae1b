// The payment page's 3-D Secure steps carry the billing address (its state code too) and the email
// address the payer typed, as the payment after them does: a merchant reading the order (Retrieve
// Order, Retrieve Transaction) sees them on the AUTHENTICATION transaction as on the PAYMENT,
// frictionless or after a challenge, as on the real gateway where the payer's details go to the
// issuer with the authentication request; both transactions name the payment page (CHECKOUT_VIA_WEBSITE at version 100) as
// where they came from.
import t from 'tap';
import { buildTestApp, tokenAuth } from '../helpers/app.js';
import { expectInvalid, type App } from './http.fixture.js';
import { CHECKOUT_MERCHANTS, checkoutBody, FRICTIONLESS, initiate, newCheckout, PAN, pay, retrieveOrder, THREEDS, typeCard, view } from './hosted-checkout.fixture.js';
import { answerChallenge, transactionUrl } from './three-d-secure.fixture.js';

const ADDRESS = { street: '5 Sierra St', city: 'Springfield', postcodeZip: '12345', stateProvince: 'Illinois', country: 'USA' };
const OPTIONAL = checkoutBody({}, { displayControl: { billingAddress: 'OPTIONAL' } });

interface Shown { billing?: unknown; transaction: { id: string; type: string } }

/** Retrieve Order's transactions as [id, type, billing], and the order's own billing. */
async function orderBilling(a: App, orderId: string) {
  const order = (await retrieveOrder(a, orderId, THREEDS)).json() as { billing?: unknown; transaction: Shown[] };
  return { order: order.billing, transactions: order.transaction.map((x) => [x.transaction.id, x.transaction.type, x.billing]) };
}

const retrieveTransaction = (a: App, orderId: string, id: string) =>
  a.inject({ method: 'GET', url: transactionUrl(orderId, id, 100, THREEDS.id), headers: { authorization: tokenAuth(THREEDS) } });

t.test('frictionless: the typed address on the authentication and on the payment, in Retrieve Order and Retrieve Transaction', async (t) => {
  const a = await buildTestApp(t, { merchants: CHECKOUT_MERCHANTS });
  const c = await newCheckout(a, OPTIONAL, THREEDS);
  await typeCard(a, c.session.id, FRICTIONLESS, '1', '39', THREEDS.id);
  const paid = await pay(a, c.session.id, { billing: { address: ADDRESS } });
  t.equal(paid.json().next, 'return', paid.body);
  t.same(await orderBilling(a, c.orderId), {
    order: { address: ADDRESS },
    transactions: [['3DS-1', 'AUTHENTICATION', { address: ADDRESS }], ['1', 'PAYMENT', { address: ADDRESS }]],
  });
  const auth = (await retrieveTransaction(a, c.orderId, '3DS-1')).json();
  t.equal(auth.transaction.type, 'AUTHENTICATION');
  t.same(auth.billing, { address: ADDRESS }, 'Retrieve Transaction of the authentication');

  // Nothing typed (the page hides the address): no billing anywhere.
  const plain = await newCheckout(a, checkoutBody(), THREEDS);
  await typeCard(a, plain.session.id, FRICTIONLESS, '1', '39', THREEDS.id);
  t.equal((await pay(a, plain.session.id)).json().next, 'return');
  t.same(await orderBilling(a, plain.orderId), { order: undefined, transactions: [['3DS-1', 'AUTHENTICATION', undefined], ['1', 'PAYMENT', undefined]] });
});

t.test('a challenge: the authentication carries the address while the payer answers, and after; the payment too', async (t) => {
  const a = await buildTestApp(t, { merchants: CHECKOUT_MERCHANTS });
  const c = await newCheckout(a, OPTIONAL, THREEDS);
  await typeCard(a, c.session.id, PAN, '1', '39', THREEDS.id);
  const challenge = await pay(a, c.session.id, { billing: { address: ADDRESS } });
  t.equal(challenge.json().next, 'challenge');
  t.same((await orderBilling(a, c.orderId)).transactions, [['3DS-1', 'AUTHENTICATION', { address: ADDRESS }]], 'pending: the authentication shows it');
  const { backTo, back } = await answerChallenge(a, challenge.json().html, { selectAuthResult: 'AUTHENTICATED' });
  const url = new URL(backTo);
  const returned = await a.inject({ method: 'POST', url: url.pathname + url.search, payload: new URLSearchParams(back).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(returned.statusCode, 303, returned.body);
  t.same(await orderBilling(a, c.orderId), {
    order: { address: ADDRESS },
    transactions: [['3DS-1', 'AUTHENTICATION', { address: ADDRESS }], ['1', 'PAYMENT', { address: ADDRESS }]],
  });
  const auth = (await retrieveTransaction(a, c.orderId, '3DS-1')).json();
  t.match(auth, { transaction: { authenticationStatus: 'AUTHENTICATION_SUCCESSFUL' }, billing: { address: ADDRESS } });
});

const COMPLETE = { ...ADDRESS, stateProvinceCode: 'IL' };
const EMAIL = { email: 'payer@example.com' };
const BOTH = checkoutBody({}, { displayControl: { billingAddress: 'OPTIONAL', customerEmail: 'OPTIONAL' } });

interface Detailed { billing?: unknown; customer?: unknown; gatewayEntryPoint: string; transaction: { id: string; type: string } }

/** Retrieve Order's transactions as [id, type, entry point, billing, customer]. */
async function orderDetails(a: App, orderId: string) {
  const order = (await retrieveOrder(a, orderId, THREEDS)).json() as { customer?: unknown; transaction: Detailed[] };
  return order.transaction.map((x) => [x.transaction.id, x.transaction.type, x.gatewayEntryPoint, x.billing, x.customer]);
}

t.test('the typed email: on the authentication and the payment, both from CHECKOUT_VIA_WEBSITE', async (t) => {
  const a = await buildTestApp(t, { merchants: CHECKOUT_MERCHANTS });
  const c = await newCheckout(a, BOTH, THREEDS);
  await typeCard(a, c.session.id, FRICTIONLESS, '1', '39', THREEDS.id);
  const paid = await pay(a, c.session.id, { billing: { address: ADDRESS }, customer: EMAIL });
  t.equal(paid.json().next, 'return', paid.body);
  t.same(await orderDetails(a, c.orderId), [
    ['3DS-1', 'AUTHENTICATION', 'CHECKOUT_VIA_WEBSITE', { address: ADDRESS }, EMAIL],
    ['1', 'PAYMENT', 'CHECKOUT_VIA_WEBSITE', { address: ADDRESS }, EMAIL],
  ]);
  const auth = (await retrieveTransaction(a, c.orderId, '3DS-1')).json();
  t.match(auth, { gatewayEntryPoint: 'CHECKOUT_VIA_WEBSITE', billing: { address: ADDRESS }, customer: EMAIL }, 'Retrieve Transaction of the authentication');
});

t.test('after a challenge: the authentication keeps the email and the state code; the payment carries them', async (t) => {
  const a = await buildTestApp(t, { merchants: CHECKOUT_MERCHANTS });
  const c = await newCheckout(a, BOTH, THREEDS);
  await typeCard(a, c.session.id, PAN, '1', '39', THREEDS.id);
  const challenge = await pay(a, c.session.id, { billing: { address: COMPLETE }, customer: EMAIL });
  t.equal(challenge.json().next, 'challenge', challenge.body);
  t.same(await orderDetails(a, c.orderId), [['3DS-1', 'AUTHENTICATION', 'CHECKOUT_VIA_WEBSITE', { address: COMPLETE }, EMAIL]], 'pending');
  const { backTo, back } = await answerChallenge(a, challenge.json().html, { selectAuthResult: 'AUTHENTICATED' });
  const url = new URL(backTo);
  const returned = await a.inject({ method: 'POST', url: url.pathname + url.search, payload: new URLSearchParams(back).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(returned.statusCode, 303, returned.body);
  t.same(await orderDetails(a, c.orderId), [
    ['3DS-1', 'AUTHENTICATION', 'CHECKOUT_VIA_WEBSITE', { address: COMPLETE }, EMAIL],
    ['1', 'PAYMENT', 'CHECKOUT_VIA_WEBSITE', { address: COMPLETE }, EMAIL],
  ]);
});

t.test('a state code out of the order API\'s bounds is refused on its field, nothing paid; the merchant\'s is carried when the page does not ask', async (t) => {
  const a = await buildTestApp(t, { merchants: CHECKOUT_MERCHANTS });
  const c = await newCheckout(a, BOTH, THREEDS);
  await typeCard(a, c.session.id, FRICTIONLESS, '1', '39', THREEDS.id);
  for (const code of ['il', 'ILLI', '']) {
    expectInvalid(t, await pay(a, c.session.id, { billing: { address: { ...ADDRESS, stateProvinceCode: code } } }), { field: 'billing.address.stateProvinceCode' }, code);
  }
  t.equal((await retrieveOrder(a, c.orderId, THREEDS)).statusCode, 400, 'no order: nothing paid');
  expectInvalid(t, await initiate(a, checkoutBody({ billing: { address: { stateProvinceCode: 'New York' } } }), 100, THREEDS),
    { field: 'billing.address.stateProvinceCode' }, 'Initiate Checkout: the same bounds');

  const readOnly = await newCheckout(a, checkoutBody({ billing: { address: COMPLETE } }, { displayControl: { billingAddress: 'READ_ONLY' } }), THREEDS);
  t.same((await view(a, readOnly.session.id)).json().display.billingAddress, { mode: 'READ_ONLY', value: COMPLETE }, 'the page shows the merchant\'s');
  await typeCard(a, readOnly.session.id, FRICTIONLESS, '1', '39', THREEDS.id);
  t.equal((await pay(a, readOnly.session.id)).json().next, 'return');
  t.same((await orderDetails(a, readOnly.orderId)).map((x) => x[3]), [{ address: COMPLETE }, { address: COMPLETE }], 'READ_ONLY: the merchant\'s, state code too');
});
