// Hosted Checkout's page controls through HTTP: interaction.displayControl (its values checked, in
// REST and NVP; what the page is told to show; the billing address and email the payment carries
// onto the order, the payer's where the page let them edit, the merchant's otherwise; a MANDATORY
// one refused until given), interaction.timeoutUrl in the page's view, redirectMerchantUrl with
// retryAttemptCount (the payer sent there once the attempts are used up; without the count, as
// before), and a payment link's errorUrl (where the link sends the payer once used up, or once
// past its paymentLink.expiryDateTime on the merchant's clock).
import t from 'tap';
import { basic, buildTestApp, M1 } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';
import { checkoutBody, initiate, newCheckout, pay, queryOf, RETURN_URL, retrieveOrder, typeCard, view } from './hosted-checkout.fixture.js';

const ADDRESS = { street: '1 Main Street', city: 'Springfield', postcodeZip: '12345', country: 'USA' };
const TYPED = { street: '9 Payer Road', street2: 'Flat 2, Second Floor', city: 'Shelbyville', postcodeZip: 'AB1 2CD', country: 'GBR' };
const display = (control: Record<string, string>, extra: Record<string, unknown> = {}) =>
  checkoutBody({ billing: { address: ADDRESS }, customer: { email: 'shop-known@example.com' }, ...extra }, { displayControl: control });

t.test('interaction.displayControl: each value taken, another refused on its field (REST and NVP); the payer\'s details checked', async (t) => {
  const a = await buildTestApp(t);
  const good = { billingAddress: 'MANDATORY', customerEmail: 'READ_ONLY', shipping: 'HIDE', orderSummary: 'SHOW_PARTIAL', paymentConfirmation: 'SHOW', paymentTerms: 'SHOW_IF_SUPPORTED' };
  t.equal((await initiate(a, display(good))).statusCode, 201, 'every member with a value of its list');
  for (const [field, value] of [
    ['billingAddress', 'SHOW'], ['customerEmail', 'mandatory'], ['shipping', 'OPTIONAL'], ['orderSummary', 'FULL'], ['paymentConfirmation', 'READ_ONLY'], ['paymentTerms', 'SHOW'],
  ] as const) {
    expectInvalid(t, await initiate(a, display({ [field]: value })), { field: `interaction.displayControl.${field}`, validationType: 'INVALID' }, `${field} ${value}`);
  }
  expectInvalid(t, await initiate(a, checkoutBody({ billing: { address: { ...ADDRESS, country: 'XYZ' } } })), { field: 'billing.address.country' }, 'an unknown country');
  expectInvalid(t, await initiate(a, checkoutBody({ customer: { email: 'not an address' } })), { field: 'customer.email' }, 'not an email address');
  expectInvalid(t, await initiate(a, checkoutBody({}, { redirectMerchantUrl: '/failed', retryAttemptCount: 1 })), { field: 'interaction.redirectMerchantUrl' }, 'a relative redirectMerchantUrl');
  expectInvalid(t, await initiate(a, checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { errorUrl: 'ftp://shop.example/x' } })), { field: 'paymentLink.errorUrl' }, 'errorUrl of another scheme');

  const nvp = (fields: Record<string, string>) => a.inject({
    method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      apiOperation: 'INITIATE_CHECKOUT', merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword, 'interaction.operation': 'PURCHASE',
      'order.id': `nvp-dc-${Math.random().toString(36).slice(2)}`, 'order.amount': '10.00', 'order.currency': 'USD', ...fields,
    }).toString(),
  });
  const taken = await nvp({ 'interaction.displayControl.billingAddress': 'OPTIONAL', 'interaction.displayControl.orderSummary': 'HIDE' });
  t.equal(taken.statusCode, 201, taken.body);
  const refused = await nvp({ 'interaction.displayControl.billingAddress': 'NEVER' });
  const pairs = Object.fromEntries(new URLSearchParams(refused.body));
  t.match([refused.statusCode, pairs], [400, { result: 'ERROR', 'error.cause': 'INVALID_REQUEST', 'error.field': 'interaction.displayControl.billingAddress', 'error.validationType': 'INVALID' }], 'NVP: the field named');
});

t.test('billing address MANDATORY and email OPTIONAL: the page is told; no payment until the address is given; the order shows what the payer typed', async (t) => {
  const a = await buildTestApp(t);
  const c = await newCheckout(a, display({ billingAddress: 'MANDATORY', customerEmail: 'OPTIONAL', orderSummary: 'SHOW_PARTIAL' }, { shipping: { address: ADDRESS } }));
  const shown = (await view(a, c.session.id)).json();
  t.same(shown.display, {
    billingAddress: { mode: 'MANDATORY', value: ADDRESS }, customerEmail: { mode: 'OPTIONAL', value: 'shop-known@example.com' }, shipping: ADDRESS,
    orderSummary: 'SHOW_PARTIAL', paymentConfirmation: 'HIDE',
  }, 'the modes and the merchant\'s values to fill in');
  await typeCard(a, c.session.id);
  const refused = (await pay(a, c.session.id, { billing: { address: { street: '9 Payer Road' } } })).json();
  t.match(refused, { next: 'error', error: { field: 'billing.address.city', validationType: 'MISSING' } }, 'no city: refused');
  t.equal((await view(a, c.session.id)).json().attemptsLeft, 3, 'no attempt used');
  t.equal((await retrieveOrder(a, c.orderId)).statusCode, 400, 'nothing paid');
  t.match((await pay(a, c.session.id, { billing: { address: { ...TYPED, country: 'ZZZ' } } })).json(), { next: 'error', error: { field: 'billing.address.country' } }, 'an unknown country');
  expectInvalid(t, await pay(a, c.session.id, { billing: { address: { ...TYPED, street2: 'x'.repeat(101) } } }), { field: 'billing.address.street2' }, 'street2 longer than 100 (the token\'s bound)');

  const paid = (await pay(a, c.session.id, { billing: { address: TYPED } })).json();
  t.equal(paid.next, 'return', JSON.stringify(paid));
  const order = (await retrieveOrder(a, c.orderId)).json();
  t.same(order.billing, { address: TYPED }, 'Retrieve Order: the billing address the payer typed');
  t.equal(order.customer, undefined, 'the payer cleared the optional email: none recorded');
  t.same(order.shipping, { address: ADDRESS }, 'the merchant\'s shipping address');
  t.same(order.transaction[0].billing, { address: TYPED }, 'on the transaction too');
  t.equal(order.transaction[0].gatewayEntryPoint, 'CHECKOUT_VIA_WEBSITE');
});

t.test('READ_ONLY and HIDE: the merchant\'s details go on the payment whatever the payer sends; HIDE shows nothing', async (t) => {
  const a = await buildTestApp(t);
  const readOnly = await newCheckout(a, display({ billingAddress: 'READ_ONLY', customerEmail: 'MANDATORY' }));
  await typeCard(a, readOnly.session.id);
  t.match((await pay(a, readOnly.session.id, { billing: { address: TYPED } })).json(), { next: 'error', error: { field: 'customer.email', validationType: 'MISSING' } }, 'the email is MANDATORY');
  t.equal((await pay(a, readOnly.session.id, { billing: { address: TYPED }, customer: { email: 'payer@example.org' } })).json().next, 'return');
  const first = (await retrieveOrder(a, readOnly.orderId)).json();
  t.same([first.billing, first.customer], [{ address: ADDRESS }, { email: 'payer@example.org' }], 'the read-only address is the merchant\'s; the email the payer\'s');

  const hidden = await newCheckout(a, display({ billingAddress: 'HIDE', customerEmail: 'HIDE', orderSummary: 'HIDE' }));
  const shown = (await view(a, hidden.session.id)).json();
  t.same(shown.display, { orderSummary: 'HIDE', paymentConfirmation: 'HIDE' }, 'nothing of the payer\'s shown');
  await typeCard(a, hidden.session.id);
  t.equal((await pay(a, hidden.session.id, { customer: { email: 'payer@example.org' } })).json().next, 'return');
  const second = (await retrieveOrder(a, hidden.orderId)).json();
  t.same([second.billing, second.customer], [{ address: ADDRESS }, { email: 'shop-known@example.com' }], 'hidden: the merchant\'s values');

  const plain = await newCheckout(a);
  t.same((await view(a, plain.session.id)).json().display, { orderSummary: 'SHOW', paymentConfirmation: 'HIDE' }, 'without displayControl: the summary, no payer details');
  await typeCard(a, plain.session.id);
  await pay(a, plain.session.id);
  const third = (await retrieveOrder(a, plain.orderId)).json();
  t.notOk('billing' in third || 'customer' in third, 'nothing sent, nothing recorded');
});

t.test('redirectMerchantUrl with retryAttemptCount: the payer goes there once the attempts are used up; without the count, to the returnUrl', async (t) => {
  const a = await buildTestApp(t);
  const failed = 'https://shop.example/failed?cart=7';
  const c = await newCheckout(a, checkoutBody({}, { redirectMerchantUrl: failed, retryAttemptCount: 1, timeoutUrl: 'https://shop.example/timed-out' }));
  t.equal((await view(a, c.session.id)).json().timeoutUrl, 'https://shop.example/timed-out', 'the page knows the timeoutUrl');
  await typeCard(a, c.session.id, undefined, '5');
  t.match((await pay(a, c.session.id)).json(), { next: 'retry', attemptsLeft: 1 }, 'one retry');
  const last = (await pay(a, c.session.id)).json();
  t.equal(last.next, 'return');
  t.equal(last.redirect, true, 'to go there whatever the merchant page\'s callbacks');
  t.equal(last.url.split('?')[0], 'https://shop.example/failed');
  t.match(queryOf(last.url), { cart: '7', resultIndicator: /^[0-9a-f]{16}$/ }, 'the merchant\'s query kept, resultIndicator added');
  t.not(queryOf(last.url).resultIndicator, c.successIndicator);
  t.same((await pay(a, c.session.id)).json(), last, 'a repeat: the same');

  const without = await newCheckout(a, checkoutBody({}, { redirectMerchantUrl: failed }));
  await typeCard(a, without.session.id, undefined, '5');
  for (let i = 0; i < 2; i++) await pay(a, without.session.id);
  const back = (await pay(a, without.session.id)).json();
  t.equal(back.url.split('?')[0], RETURN_URL.split('?')[0], 'without retryAttemptCount: three attempts, then the returnUrl');
  t.notOk(back.redirect);
});

t.test('a payment link\'s errorUrl: where /pbl sends the payer once its attempts are used up', async (t) => {
  const a = await buildTestApp(t);
  const errorUrl = 'https://shop.example/link-error';
  const res = await initiate(a, checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { numberOfAllowedAttempts: 1, errorUrl } }));
  t.equal(res.statusCode, 201, res.body);
  const link = `/pbl/${res.json().paymentLink.id}`;
  const opened = await a.inject({ method: 'GET', url: link });
  const sessionId = /\/checkout\/pay\/(SESSION[0-9]+)$/.exec(String(opened.headers.location))?.[1] ?? '';
  t.ok(sessionId, 'usable: the link opens its page');
  t.equal((await view(a, sessionId)).json().errorUrl, errorUrl, 'the page knows the errorUrl');
  await typeCard(a, sessionId, undefined, '5');
  const declined = (await pay(a, sessionId)).json();
  t.match(declined, { next: 'return', redirect: true }, 'its one attempt declined');
  t.equal(declined.url.split('?')[0], errorUrl, 'the payer goes to the errorUrl');
  const after = await a.inject({ method: 'GET', url: link });
  t.same([after.statusCode, after.headers.location], [302, errorUrl], 'used up: the link sends the payer to its errorUrl');
});

t.test('a payment link past its expiryDateTime: /pbl sends the payer to its errorUrl (to its page without one), and the page takes no payment', async (t) => {
  const admin = 'hosted-checkout-display-admin';
  const a = await buildTestApp(t, { adminPassword: admin, testControl: true });
  const errorUrl = 'https://shop.example/link-expired?cart=3';
  // Ten minutes from now, written with a +01:00 offset (the same instant).
  const expiryDateTime = new Date(Date.now() + 10 * 60_000 + 3_600_000).toISOString().replace('Z', '+01:00');
  const links = [];
  for (const paymentLink of [{ expiryDateTime, errorUrl }, { expiryDateTime }]) {
    const res = await initiate(a, checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink }));
    t.equal(res.statusCode, 201, res.body);
    links.push(`/pbl/${res.json().paymentLink.id}`);
  }
  const [withError, without] = links as [string, string];
  const opened = await a.inject({ method: 'GET', url: withError });
  const sessionId = /\/checkout\/pay\/(SESSION[0-9]+)$/.exec(String(opened.headers.location))?.[1] ?? '';
  t.ok(sessionId, 'before its expiry the link opens its page');
  await typeCard(a, sessionId);
  t.equal((await view(a, sessionId)).json().status, 'OPEN');

  const advanced = await a.inject({
    method: 'POST', url: `/admin/api/test-control/merchants/${M1.id}/clock/advance`, headers: { authorization: basic('admin', admin) }, payload: { milliseconds: 11 * 60_000 },
  });
  t.equal(advanced.statusCode, 200, advanced.body);
  const expired = await a.inject({ method: 'GET', url: withError });
  t.same([expired.statusCode, expired.headers.location, expired.headers['cache-control']], [302, errorUrl, 'no-store'], 'past its expiry: to the errorUrl, as given');
  t.equal((await view(a, sessionId)).json().status, 'EXPIRED', 'the page\'s view: EXPIRED');
  expectInvalid(t, await pay(a, sessionId), { field: 'sessionId', explanation: /EXPIRED/ }, 'the card typed before pays nothing');
  const noErrorUrl = await a.inject({ method: 'GET', url: without });
  t.equal(noErrorUrl.statusCode, 302);
  t.match(String(noErrorUrl.headers.location), /^\/checkout\/pay\/SESSION[0-9]+$/, 'without an errorUrl: its page, which says it timed out');
});
