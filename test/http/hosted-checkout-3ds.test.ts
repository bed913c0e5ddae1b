// Hosted Checkout with 3-D Secure (the merchant's profile: checkout.threeDSecure) and its expiry:
// frictionless goes straight on to the payment naming the authentication; a challenge is answered
// with the emulator's HTML, the payer answers on the challenge page, and the ACS's form post to
// acs-return makes the payment and sends the browser on (303); a failed challenge leaves the payer
// on the page. Expiry follows the merchant's sandbox clock (the test-control API).
import t from 'tap';
import { basic, buildTestApp } from '../helpers/app.js';
import { parseMerchants } from '../../merchants.js';
import { waitFor } from '../helpers/poll.js';
import { expectInvalid, storeText } from './http.fixture.js';
import { CHECKOUT_MERCHANTS, checkoutBody, FRICTIONLESS, newCheckout, PAN, pay, queryOf, retrieveOrder, THREEDS, typeCard, view } from './hosted-checkout.fixture.js';
import type { App } from './http.fixture.js';

const ADMIN_PASSWORD = 'hosted-checkout-admin-password';
const app = (t: Parameters<typeof buildTestApp>[0]) => buildTestApp(t, { merchants: CHECKOUT_MERCHANTS, adminPassword: ADMIN_PASSWORD, testControl: true });
const typed = (a: App, id: string, number: string, month = '1') => typeCard(a, id, number, month, '39', THREEDS.id);

/** The payer on the emulator's challenge page: the creq of the HTML posted with an answer; the page posts back to acs-return. */
async function answerChallenge(t: Parameters<typeof buildTestApp>[0], a: App, html: string, answer: string) {
  const action = /action="([^"]+)"/.exec(html)?.[1] ?? '';
  const creq = /name="creq" value="([^"]+)"/.exec(html)?.[1] ?? '';
  t.match(action, /\/acs\/mastercard\/v2\/prompt\//, 'the HTML posts the creq to the emulator');
  const path = new URL(action.replace(/&amp;/g, '&')).pathname;
  const page = await a.inject({ method: 'POST', url: `${path}/result`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams({ creq, selectAuthResult: answer }).toString() });
  t.equal(page.statusCode, 200, page.body);
  const back = /action="([^"]+)"/.exec(page.body)?.[1] ?? '';
  t.match(back, /\/checkout\/api\/SESSION[0-9]{24}\/acs-return(\?page=entry)?$/, 'the ACS posts back to the checkout\'s acs-return');
  const url = new URL(back.replace(/&amp;/g, '&'));
  return a.inject({ method: 'POST', url: url.pathname + url.search, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: 'result=SUCCESS' });
}

t.test('frictionless: Initiate Authentication, Authenticate Payer, the PAY naming it', async (t) => {
  const a = await app(t);
  const c = await newCheckout(a, checkoutBody(), THREEDS);
  t.equal((await view(a, c.session.id)).json().threeDS, true);
  await typed(a, c.session.id, FRICTIONLESS);
  const paid = await pay(a, c.session.id);
  t.equal(paid.json().next, 'return', paid.body);
  t.equal(queryOf(paid.json().url).resultIndicator, c.successIndicator);
  const order = (await retrieveOrder(a, c.orderId, THREEDS)).json();
  t.equal(order.status, 'CAPTURED');
  t.equal(order.authenticationStatus, 'AUTHENTICATION_SUCCESSFUL');
  const [auth, payment] = order.transaction;
  t.match(auth, { transaction: { id: '3DS-1', type: 'AUTHENTICATION' } });
  t.match(payment, { gatewayEntryPoint: 'CHECKOUT_VIA_WEBSITE', authentication: { transactionId: '3DS-1' }, transaction: { id: '1', authenticationStatus: 'AUTHENTICATION_SUCCESSFUL' } });
  const types = (await a.gateway.store.readStream(`session-${THREEDS.id}:${c.session.id}`)).map((e) => e.type);
  t.same(types.filter((x) => x.startsWith('Checkout')), ['CheckoutInitiated', 'CheckoutPageShown', 'CheckoutAuthenticationStarted', 'CheckoutCompleted']);
  // interaction.action.3DSecure BYPASS: no authentication, whatever the profile.
  const bypass = await newCheckout(a, checkoutBody({}, { action: { '3DSecure': 'BYPASS' } }), THREEDS);
  await typed(a, bypass.session.id, FRICTIONLESS);
  await pay(a, bypass.session.id);
  t.same((await retrieveOrder(a, bypass.orderId, THREEDS)).json().transaction.map((x: { transaction: { type: string } }) => x.transaction.type), ['PAYMENT']);
});

t.test('a challenge: its HTML, the payer\'s answer, acs-return pays and sends the browser on; a failed one, back to the page', async (t) => {
  const a = await app(t);
  const c = await newCheckout(a, checkoutBody(), THREEDS);
  await typed(a, c.session.id, PAN);
  const challenge = await pay(a, c.session.id);
  t.equal(challenge.json().next, 'challenge', challenge.body);
  t.match(challenge.json().html, /threedsChallengeRedirectForm/);
  const failed = await answerChallenge(t, a, challenge.json().html, 'UNAUTHENTICATED');
  t.equal(failed.statusCode, 303);
  t.equal(failed.headers.location, `/checkout/pay/${c.session.id}`, 'the payer can retry: back to the page');
  t.match((await view(a, c.session.id)).json(), { status: 'OPEN', attemptsLeft: 2, lastError: { gatewayCode: 'AUTHENTICATION_FAILED' } });
  const again = await pay(a, c.session.id);
  t.equal(again.json().next, 'challenge');
  const passed = await answerChallenge(t, a, again.json().html, 'AUTHENTICATED');
  t.equal(passed.statusCode, 303);
  t.equal(queryOf(String(passed.headers.location)).resultIndicator, c.successIndicator, 'on to the merchant with the successIndicator');
  const repeat = await a.inject({ method: 'POST', url: `/checkout/api/${c.session.id}/acs-return`, payload: 'result=SUCCESS', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(repeat.headers.location, passed.headers.location, 'a repeated post goes where the first went');
  const order = (await retrieveOrder(a, c.orderId, THREEDS)).json();
  t.same(order.transaction.map((x: { transaction: { id: string }; result: string }) => [x.transaction.id, x.result]), [['3DS-1', 'FAILURE'], ['1', 'FAILURE'], ['3DS-2', 'SUCCESS'], ['2', 'SUCCESS']]);
  t.notMatch(await storeText(a), PAN, 'no card number in the store');
});

t.test('the embedded page\'s challenge ends in its frame: acs-return to the page that tells the embedded page; Pay then answers the return', async (t) => {
  const a = await app(t);
  const c = await newCheckout(a, checkoutBody(), THREEDS);
  await typed(a, c.session.id, PAN);
  const challenge = await pay(a, c.session.id, { embedded: true });
  t.equal(challenge.json().next, 'challenge', challenge.body);
  const failed = await answerChallenge(t, a, challenge.json().html, 'UNAUTHENTICATED');
  t.equal(failed.statusCode, 303);
  t.equal(failed.headers.location, `/checkout/entry/${c.session.id}/return`, 'a failed challenge: the same page, the embedded page reads the checkout');
  const over = await a.inject({ method: 'GET', url: String(failed.headers.location) });
  t.equal(over.statusCode, 200);
  t.match(over.body, /postMessage\(\{ gw: 'tokengate-checkout', type: 'challenge-over' \}, location\.origin\)/, 'it tells its parent, on the gateway\'s origin only');
  t.match(String(over.headers['content-security-policy']), /script-src 'self' 'sha256-[^']+'.*frame-ancestors http: https:/, 'its own script only; framed inside the merchant\'s page');
  t.match((await view(a, c.session.id)).json(), { status: 'OPEN', lastError: { gatewayCode: 'AUTHENTICATION_FAILED' } });
  const again = await pay(a, c.session.id, { embedded: true });
  const passed = await answerChallenge(t, a, again.json().html, 'AUTHENTICATED');
  t.equal(passed.headers.location, `/checkout/entry/${c.session.id}/return`);
  const back = await pay(a, c.session.id, { embedded: true });
  t.equal(back.json().next, 'return', 'Pay on the paid checkout: where the payer goes, no payment');
  t.equal(queryOf(back.json().url).resultIndicator, c.successIndicator);
  t.equal((await retrieveOrder(a, c.orderId, THREEDS)).json().transaction.length, 4, 'two authentications, two payments: nothing more');
  expectInvalid(t, await pay(a, c.session.id, { embedded: 'yes' }), { field: 'embedded' }, 'embedded is a boolean');
});

t.test('expiry on the merchant\'s sandbox clock: EXPIRED, no payment, the card data destroyed', async (t) => {
  const a = await app(t);
  const c = await newCheckout(a, checkoutBody({}, { timeout: 600 }), THREEDS);
  await typed(a, c.session.id, FRICTIONLESS);
  t.equal((await view(a, c.session.id)).json().status, 'OPEN');
  const advanced = await a.inject({ method: 'POST', url: `/admin/api/test-control/merchants/${THREEDS.id}/clock/advance`, headers: { authorization: basic('admin', ADMIN_PASSWORD) }, payload: { milliseconds: 601_000 } });
  t.equal(advanced.statusCode, 200, advanced.body);
  t.equal((await view(a, c.session.id)).json().status, 'EXPIRED');
  expectInvalid(t, await pay(a, c.session.id), { field: 'sessionId', explanation: /EXPIRED/ }, 'an expired checkout takes no payment');
  await waitFor(async () => (await a.gateway.store.readAll()).some((e) => e.type === 'SessionExpired'), 'the session expires');
  t.equal((await retrieveOrder(a, c.orderId, THREEDS)).statusCode, 400, 'no order');
});

t.test('the merchants file: checkout.threeDSecure optional, a boolean; the contract\'s shape without it still loads', async (t) => {
  const base = { id: 'M1', apiPassword: 'x'.repeat(32), repository: { id: 'R1', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN' } };
  t.equal(parseMerchants({ merchants: [base] }, 'f').get('M1')?.checkout, undefined, 'absent: no 3-D Secure on the page');
  t.same(parseMerchants({ merchants: [{ ...base, checkout: { threeDSecure: true } }] }, 'f').get('M1')?.checkout, { threeDSecure: true });
  t.throws(() => parseMerchants({ merchants: [{ ...base, checkout: { threeDSecure: 'yes' } }] }, 'f'), /checkout\/threeDSecure/);
  t.throws(() => parseMerchants({ merchants: [{ ...base, checkout: { lightbox: true } }] }, 'f'), /checkout/);
});
