// Hosted Checkout's server half through HTTP: Initiate Checkout (INITIATE_CHECKOUT from version 63,
// CREATE_CHECKOUT_SESSION before) on POST .../session with its bounds and errors, and the payment
// page's JSON (/checkout/api/{sessionId}: view, pay, cancel; /pbl/{id}) as the payer's browser
// sends it: the card typed into the hosted fields, the payment made on order.id as transaction 1,
// 2, ... (gatewayEntryPoint CHECKOUT_VIA_WEBSITE at version 100), resultIndicator equal to successIndicator on success only,
// a declined attempt and a retry, cancel, a payment link, the steps as events, and the card
// nowhere in plaintext. 3-D Secure and expiry: hosted-checkout-3ds.test.ts.
import t from 'tap';
import { buildTestApp, createToken, M1, M2 } from '../helpers/app.js';
import { expectInvalid, storeText } from './http.fixture.js';
import {
  cancel, checkoutBody, initiate, newCheckout, PAN, pay, queryOf, RETURN_URL, retrieveOrder, typeCard, view,
} from './hosted-checkout.fixture.js';

t.test('each version\'s operation: INITIATE_CHECKOUT from 63, CREATE_CHECKOUT_SESSION before; the other refused on apiOperation', async (t) => {
  const a = await buildTestApp(t);
  const modern = await initiate(a, checkoutBody());
  t.equal(modern.statusCode, 201, modern.body);
  const body = modern.json();
  t.same(Object.keys(body), ['checkoutMode', 'merchant', 'result', 'session', 'successIndicator'], 'the captured answer\'s members, sorted');
  t.equal(body.checkoutMode, 'WEBSITE');
  t.equal(body.result, 'SUCCESS');
  t.match(body.session, { id: /^SESSION[0-9]{24}$/, updateStatus: 'SUCCESS', version: /^[0-9a-f]{10}$/ });
  t.match(body.successIndicator, /^[0-9a-f]{16}$/);
  const legacy = await initiate(a, checkoutBody({ apiOperation: 'CREATE_CHECKOUT_SESSION' }), 57);
  t.equal(legacy.statusCode, 201, legacy.body);
  t.same(Object.keys(legacy.json()), ['merchant', 'result', 'session', 'successIndicator'], 'no checkoutMode before 63');
  t.equal((await initiate(a, checkoutBody({ apiOperation: 'CREATE_CHECKOUT_SESSION' }), 62)).statusCode, 201, '62: the last CREATE_CHECKOUT_SESSION');
  t.equal((await initiate(a, checkoutBody(), 63)).statusCode, 201, '63: the first INITIATE_CHECKOUT');
  expectInvalid(t, await initiate(a, checkoutBody(), 62), { field: 'apiOperation', explanation: /available from version 63/ }, 'INITIATE_CHECKOUT on 62');
  expectInvalid(t, await initiate(a, checkoutBody({ apiOperation: 'CREATE_CHECKOUT_SESSION' }), 63), { field: 'apiOperation' }, 'CREATE_CHECKOUT_SESSION on 63');
  expectInvalid(t, await initiate(a, checkoutBody({ apiOperation: 'CREATE_SESSION' })), { field: 'apiOperation' }, 'an unknown apiOperation');
  // Before 52 interaction.operation may be left out (a purchase); from 52 it is required.
  const old = checkoutBody({ apiOperation: 'CREATE_CHECKOUT_SESSION' }, { operation: undefined });
  t.equal((await initiate(a, old, 51)).statusCode, 201, 'no operation on 51');
  expectInvalid(t, await initiate(a, old, 52), { field: 'interaction.operation', validationType: 'MISSING' }, 'no operation on 52');
  // Create Session is unchanged: no apiOperation, its own strict body.
  const plain = await initiate(a, {});
  t.equal(plain.statusCode, 201);
  t.equal(plain.json().session.updateStatus, 'NO_UPDATE');
  expectInvalid(t, await initiate(a, { interaction: {} }), { field: 'interaction', validationType: 'UNSUPPORTED' }, 'Create Session refuses checkout fields');
});

t.test('bounds and errors: the field named, nothing recorded', async (t) => {
  const a = await buildTestApp(t);
  const before = (await a.gateway.store.readAll()).length;
  const cases: Array<[object, string, 'INVALID' | 'MISSING' | 'UNSUPPORTED']> = [
    [checkoutBody({}, { operation: 'BUY' }), 'interaction.operation', 'INVALID'],
    [checkoutBody({}, { returnUrl: '/relative' }), 'interaction.returnUrl', 'INVALID'],
    [checkoutBody({}, { cancelUrl: 'javascript:alert(1)' }), 'interaction.cancelUrl', 'INVALID'],
    [checkoutBody({}, { returnUrl: `https://shop.example/${'a'.repeat(2048)}` }), 'interaction.returnUrl', 'INVALID'],
    [checkoutBody({}, { timeout: 59 }), 'interaction.timeout', 'INVALID'],
    [checkoutBody({}, { timeout: '600s' }), 'interaction.timeout', 'INVALID'],
    [checkoutBody({}, { retryAttemptCount: 4 }), 'interaction.retryAttemptCount', 'INVALID'],
    [checkoutBody({}, { merchant: { name: 'x'.repeat(41) } }), 'interaction.merchant.name', 'INVALID'],
    [checkoutBody({}, {}, { id: undefined }), 'order.id', 'MISSING'],
    [checkoutBody({}, {}, { id: 'x'.repeat(41) }), 'order.id', 'INVALID'],
    [checkoutBody({}, {}, { id: PAN }), 'order.id', 'INVALID'],
    [checkoutBody({}, {}, { amount: undefined }), 'order.amount', 'MISSING'],
    [checkoutBody({}, {}, { amount: '1.234' }), 'order.amount', 'INVALID'],
    [checkoutBody({}, {}, { currency: undefined }), 'order.currency', 'MISSING'],
    [checkoutBody({}, {}, { currency: 'usd' }), 'order.currency', 'INVALID'],
    [checkoutBody({}, {}, { currency: 'XXX' }), 'order.currency', 'UNSUPPORTED'],
    [checkoutBody({}, {}, { description: 'x'.repeat(128) }), 'order.description', 'INVALID'],
    [checkoutBody({}, {}, { notificationUrl: 'https://elsewhere.example/hook' }), 'order.notificationUrl', 'INVALID'],
    [checkoutBody({ checkoutMode: 'LIGHTBOX' }), 'checkoutMode', 'INVALID'],
    [checkoutBody({ paymentLink: { numberOfAllowedAttempts: 2 } }), 'paymentLink', 'UNSUPPORTED'],
    [checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { numberOfAllowedAttempts: 0 } }), 'paymentLink.numberOfAllowedAttempts', 'INVALID'],
    [checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { expiryDateTime: '2001-01-01T00:00:00Z' } }), 'paymentLink.expiryDateTime', 'INVALID'],
    [checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { expiryDateTime: 'tomorrow' } }), 'paymentLink.expiryDateTime', 'INVALID'],
    [checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { colour: 'red' } }), 'paymentLink.colour', 'UNSUPPORTED'],
    // A day or hour that does not exist is no date (not read as 2 March, or the next day's 01:00).
    [checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { expiryDateTime: '2031-02-30T00:00:00Z' } }), 'paymentLink.expiryDateTime', 'INVALID'],
    [checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { expiryDateTime: '2031-04-31T12:00:00+02:00' } }), 'paymentLink.expiryDateTime', 'INVALID'],
    [checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { expiryDateTime: '2031-01-01T24:00:00Z' } }), 'paymentLink.expiryDateTime', 'INVALID'],
    // order.id names the order's stream: a NUL is refused as in a path (PostgreSQL holds none in text).
    [checkoutBody({}, {}, { id: 'hco-\u0000-1' }), 'order.id', 'INVALID'],
  ];
  for (const [payload, field, validationType] of cases) {
    const res = await initiate(a, payload);
    expectInvalid(t, res, { field, validationType }, `${field} ${validationType}`);
    t.notMatch(res.body, PAN, 'no card number in the answer');
  }
  expectInvalid(t, await initiate(a, checkoutBody({ checkoutMode: 'PAYMENT_LINK' }), 65), { field: 'checkoutMode' }, 'PAYMENT_LINK before 66');
  t.equal((await a.gateway.store.readAll()).length, before, 'nothing recorded');
  // Fields a shop's plugin sends beside those used are taken (WooCommerce's INITIATE_CHECKOUT).
  const woo = await initiate(a, checkoutBody({ partnerSolutionId: 'x', customer: { email: 'a@b.example' }, billing: { address: {} }, transaction: { reference: 'wc-1', source: 'INTERNET' } }, { displayControl: { shipping: 'HIDE' } }, { amount: 25.5, reference: 'wc-1' }));
  t.equal(woo.statusCode, 201, woo.body);
});

t.test('paid: the card typed into the hosted fields, PAY as transaction 1 with gatewayEntryPoint CHECKOUT_VIA_WEBSITE, resultIndicator = successIndicator', async (t) => {
  const a = await buildTestApp(t);
  const c = await newCheckout(a);
  const shown = await view(a, c.session.id);
  t.equal(shown.statusCode, 200, shown.body);
  t.same(shown.json(), {
    apiVersion: 100, attemptsLeft: 3, cancelUrl: 'https://shop.example/cancelled', expiresAt: shown.json().expiresAt,
    merchant: { id: M1.id, name: 'Demo Shop' }, operation: 'PURCHASE', order: { amount: '12.50', currency: 'USD', description: 'Ordered goods', id: c.orderId },
    display: { orderSummary: 'SHOW', paymentConfirmation: 'HIDE' }, returnUrl: RETURN_URL, status: 'OPEN', threeDS: false,
  });
  t.equal((await typeCard(a, c.session.id)).statusCode, 200);
  const withCard = (await view(a, c.session.id)).json();
  t.same(withCard.card, { number: '512345xxxxxx0008', brand: 'MASTERCARD' }, 'the page shows the card the session holds, masked');
  const paid = await pay(a, c.session.id);
  t.equal(paid.statusCode, 200, paid.body);
  t.equal(paid.json().next, 'return');
  const back = new URL(paid.json().url);
  t.equal(`${back.origin}${back.pathname}`, 'https://shop.example/return');
  const query = queryOf(paid.json().url);
  t.equal(query.cart, '7', 'the merchant\'s own query kept');
  t.equal(query.resultIndicator, c.successIndicator, 'resultIndicator = successIndicator');
  t.match(query.sessionVersion, /^[0-9a-f]{10}$/);
  const order = (await retrieveOrder(a, c.orderId)).json();
  t.equal(order.status, 'CAPTURED');
  t.equal(order.totalCapturedAmount, 12.5);
  t.equal(order.transaction.length, 1);
  t.match(order.transaction[0], { gatewayEntryPoint: 'CHECKOUT_VIA_WEBSITE', result: 'SUCCESS', transaction: { id: '1', type: 'PAYMENT', source: 'INTERNET' } });
  t.equal(order.transaction[0].sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  t.equal((await view(a, c.session.id)).json().status, 'PAID');
  const again = await pay(a, c.session.id);
  t.same(again.json(), paid.json(), 'a paid checkout pays no more: a repeated pay is answered from the record');
  t.equal((await retrieveOrder(a, c.orderId)).json().transaction.length, 1, 'still one payment');
  expectInvalid(t, await cancel(a, c.session.id), { field: 'sessionId' }, 'nor a cancel');
  const types = (await a.gateway.store.readStream(`session-${M1.id}:${c.session.id}`)).map((e) => e.type);
  t.same(types, ['SessionCreated', 'CheckoutInitiated', 'CheckoutPageShown', 'SessionUpdated', 'CheckoutCompleted'], 'every step an event of the checkout, the page shown once');
  const stored = await storeText(a);
  t.notMatch(stored, PAN, 'no card number in the store');
  t.notMatch(stored, c.successIndicator, 'the successIndicator sealed');
});

t.test('declined, then a retry with another card on the same page; out of attempts, sent back with another resultIndicator', async (t) => {
  const a = await buildTestApp(t);
  const c = await newCheckout(a);
  await typeCard(a, c.session.id, PAN, '5', '39');
  const declined = await pay(a, c.session.id);
  t.same(declined.json(), { next: 'retry', gatewayCode: 'DECLINED', explanation: declined.json().explanation, attemptsLeft: 2 });
  const shown = (await view(a, c.session.id)).json();
  t.match(shown, { status: 'OPEN', attemptsLeft: 2, lastError: { gatewayCode: 'DECLINED', explanation: /declined/ } });
  await typeCard(a, c.session.id, PAN, '1', '39');
  const paid = await pay(a, c.session.id);
  t.equal(queryOf(paid.json().url).resultIndicator, c.successIndicator);
  const order = (await retrieveOrder(a, c.orderId)).json();
  t.same(order.transaction.map((x: { transaction: { id: string }; result: string }) => [x.transaction.id, x.result]), [['1', 'FAILURE'], ['2', 'SUCCESS']], 'transaction 1 declined, 2 paid');

  const d = await newCheckout(a, checkoutBody({}, { retryAttemptCount: 0 }));
  await typeCard(a, d.session.id, PAN, '5', '39');
  const out = await pay(a, d.session.id);
  t.equal(out.json().next, 'return', 'no attempt left: sent back');
  const indicator = queryOf(out.json().url).resultIndicator;
  t.match(indicator, /^[0-9a-f]{16}$/);
  t.not(indicator, d.successIndicator, 'resultIndicator differs from successIndicator');
  t.equal((await view(a, d.session.id)).json().status, 'DECLINED');
});

t.test('a stored token of the merchant; errors the page shows; AUTHORIZE, VERIFY, NONE; no returnUrl: the gateway\'s receipt', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const c = await newCheckout(a, checkoutBody({}, { operation: 'AUTHORIZE', returnUrl: undefined, tokens: [token] }), M1, 99);
  const empty = await pay(a, c.session.id);
  t.match(empty.json(), { next: 'error', error: { cause: 'INVALID_REQUEST', field: 'session.id' } }, 'no card typed yet');
  t.match((await pay(a, c.session.id, { token: '9999999999999999' })).json(), { next: 'error', error: { field: 'token' } }, 'a token the checkout does not offer');
  expectInvalid(t, await pay(a, c.session.id, { token: 'x', card: PAN }), { field: 'card', validationType: 'UNSUPPORTED' }, 'the pay body takes a token only');
  const paid = (await pay(a, c.session.id, { token })).json();
  t.match(paid.url, new RegExp(`^http://localhost(:[0-9]+)?/checkout/receipt/${c.session.id}\\?resultIndicator=${c.successIndicator}&sessionVersion=`));
  const order = (await retrieveOrder(a, c.orderId)).json();
  t.match(order, { status: 'AUTHORIZED', transaction: [{ gatewayEntryPoint: 'CHECKOUT_VIA_WEBSITE', transaction: { type: 'AUTHORIZATION' } }] });
  const verify = await newCheckout(a, checkoutBody({}, { operation: 'VERIFY' }, { amount: undefined }));
  await typeCard(a, verify.session.id);
  t.equal(queryOf((await pay(a, verify.session.id)).json().url).resultIndicator, verify.successIndicator);
  t.match((await retrieveOrder(a, verify.orderId)).json(), { status: 'VERIFIED', transaction: [{ transaction: { type: 'VERIFICATION' } }] });
  const none = await newCheckout(a, checkoutBody({}, { operation: 'NONE' }));
  await typeCard(a, none.session.id);
  t.equal(queryOf((await pay(a, none.session.id)).json().url).resultIndicator, none.successIndicator, 'NONE: the card collected, no payment');
  t.equal((await retrieveOrder(a, none.orderId)).statusCode, 400, 'no order');
});

t.test('cancel: the cancelUrl, CheckoutCancelled once, no payment after; unknown sessions 404', async (t) => {
  const a = await buildTestApp(t);
  const c = await newCheckout(a);
  // The body says nothing: {} or none; anything else is refused, and the checkout stays open.
  const cancelAt = `/checkout/api/${c.session.id}/cancel`;
  expectInvalid(t, await a.inject({ method: 'POST', url: cancelAt, payload: { reason: 'x' } }), { field: 'reason', validationType: 'UNSUPPORTED' }, 'cancel: an unknown member');
  expectInvalid(t, await a.inject({ method: 'POST', url: cancelAt, headers: { 'content-type': 'application/json' }, payload: '[]' }), {}, 'cancel: an array');
  expectInvalid(t, await a.inject({ method: 'POST', url: cancelAt, headers: { 'content-type': 'application/json' }, payload: '"x"' }), {}, 'cancel: a string');
  t.equal((await view(a, c.session.id)).json().status, 'OPEN', 'still open');
  const cancelled = await cancel(a, c.session.id);
  t.same(cancelled.json(), { url: 'https://shop.example/cancelled' });
  t.equal((await view(a, c.session.id)).json().status, 'CANCELLED');
  await typeCard(a, c.session.id);
  expectInvalid(t, await pay(a, c.session.id), { field: 'sessionId', explanation: /CANCELLED/ }, 'a cancelled checkout takes no payment');
  const d = await newCheckout(a, checkoutBody({}, { cancelUrl: undefined }));
  const bare = await a.inject({ method: 'POST', url: `/checkout/api/${d.session.id}/cancel` });
  t.same({ status: bare.statusCode, body: bare.json() }, { status: 200, body: { url: null } }, 'cancel with no body');
  const plain = (await initiate(a, {})).json().session.id as string;
  for (const id of ['SESSION000000000000000000000001', plain]) {
    for (const res of [await view(a, id), await pay(a, id), await cancel(a, id)]) expectInvalid(t, res, { status: 404, field: 'sessionId' }, `${id}: 404`);
  }
  const cross = await a.inject({ method: 'POST', url: `/checkout/api/${d.session.id}/pay`, headers: { 'sec-fetch-site': 'cross-site' }, payload: {} });
  t.equal(cross.statusCode, 403, 'another site\'s page cannot pay');
  // Another merchant's checkout is found by its id alone (the page's path names no merchant).
  const other = await newCheckout(a, checkoutBody(), M2);
  t.equal((await view(a, other.session.id)).json().merchant.id, M2.id);
});

t.test('a payment link: PAYLINK id and url, /pbl/{id} to the checkout\'s page, its attempts', async (t) => {
  const a = await buildTestApp(t);
  const expiry = new Date(Date.now() + 86_400_000).toISOString();
  const res = await initiate(a, checkoutBody({ checkoutMode: 'PAYMENT_LINK', paymentLink: { expiryDateTime: expiry, numberOfAllowedAttempts: 2 } }));
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  t.same(Object.keys(body), ['checkoutMode', 'merchant', 'paymentLink', 'result', 'successIndicator'], 'as captured: no session');
  t.match(body.paymentLink, { id: /^PAYLINK[0-9]{24}$/, expiryDateTime: expiry, numberOfAllowedAttempts: 2 });
  t.match(body.paymentLink.url, new RegExp(`/pbl/${body.paymentLink.id}$`));
  const opened = await a.inject({ method: 'GET', url: `/pbl/${body.paymentLink.id}` });
  t.equal(opened.statusCode, 302);
  const sessionId = String(opened.headers.location).replace('/checkout/pay/', '');
  t.match(sessionId, /^SESSION[0-9]{24}$/);
  t.equal((await a.inject({ method: 'GET', url: `/pbl/${body.paymentLink.id}` })).headers.location, opened.headers.location, 'the link reuses its checkout');
  const shown = (await view(a, sessionId)).json();
  t.match(shown, { status: 'OPEN', attemptsLeft: 2, expiresAt: expiry });
  await typeCard(a, sessionId, PAN, '5', '39');
  t.equal((await pay(a, sessionId)).json().next, 'retry');
  await typeCard(a, sessionId);
  t.equal(queryOf((await pay(a, sessionId)).json().url).resultIndicator, body.successIndicator);
  expectInvalid(t, await a.inject({ method: 'GET', url: '/pbl/PAYLINK000000000000000000000001' }), { status: 404, field: 'paymentLinkId' }, 'an unknown link');
});
