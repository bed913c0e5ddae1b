// Hosted Checkout's page controls in headless Chromium, as a payer uses the payment page a
// merchant's server opened (Initiate Checkout through the API, the payer following the page's
// address): a checkout that times out lands on interaction.timeoutUrl; declined attempts up to
// retryAttemptCount end on redirectMerchantUrl; a billing address MANDATORY refuses to pay until
// filled (at 375 px too) and the order shows what the payer typed (the optional second street line
// and the state code too, a code out of the gateway's bounds refused on the page); HIDE shows no address.
import { existsSync } from 'node:fs';
import t, { type Test } from 'tap';
import { M1 } from '../helpers/app.js';
import { call } from '../helpers/server.js';
import {
  advanceClock, APPROVED, checkoutPage, CHROMIUM, DECLINED, initiateCheckout as initiate, openPage, retrieveOrder, typeCard,
} from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;

t.test('a timeout lands on timeoutUrl; declines up to retryAttemptCount end on redirectMerchantUrl', { skip }, async (t) => {
  const { gateway, site, page, errors } = await checkoutPage(t, { width: 1000, height: 900 });

  const late = await initiate(gateway, { timeout: 300, timeoutUrl: `${site}/timed-out?cart=1`, returnUrl: `${site}/return` });
  await openPage(page, gateway, late.sessionId);
  await typeCard(page, APPROVED);
  await advanceClock(gateway, M1.id, 301_000);
  await page.waitForURL(`${site}/timed-out?cart=1`, { timeout: 30_000 });
  t.equal(await page.textContent('#landed'), '/timed-out', 'the payer is on the merchant\'s timeoutUrl');
  t.equal((await call(gateway.url, 'GET', `/checkout/api/${late.sessionId}`, '')).json().status, 'EXPIRED');
  await page.goto(`${gateway.url}/checkout/pay/${late.sessionId}`);
  await page.waitForURL(`${site}/timed-out?cart=1`, { timeout: 30_000 });
  t.pass('the expired checkout opened again: to the timeoutUrl too');

  const failing = await initiate(gateway, { retryAttemptCount: 1, redirectMerchantUrl: `${site}/failed`, returnUrl: `${site}/return` });
  await openPage(page, gateway, failing.sessionId);
  await typeCard(page, DECLINED);
  await page.click('#pay-button');
  await page.locator('#notice.error').waitFor({ timeout: 30_000 });
  t.match(await page.textContent('#notice'), /declined.*1 attempt left/, 'the first decline: one retry left');
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  await page.click('#pay-button');
  await page.waitForURL((url) => url.pathname === '/failed', { timeout: 30_000 });
  t.match(new URL(page.url()).searchParams.get('resultIndicator'), /^[0-9a-f]{16}$/, 'on redirectMerchantUrl, with resultIndicator');
  const order = (await retrieveOrder(gateway, failing.orderId)).json();
  t.same(order.transaction.map((x: { response: { gatewayCode: string } }) => x.response.gatewayCode), ['DECLINED', 'DECLINED'], 'two attempts, both declined');
  t.same(errors, [], 'no script error');
});

async function billingMandatory(t: Test, viewport: { width: number; height: number }) {
  const { gateway, site, page, errors } = await checkoutPage(t, viewport);

  const { sessionId, orderId } = await initiate(gateway, { returnUrl: `${site}/return`, displayControl: { billingAddress: 'MANDATORY', customerEmail: 'OPTIONAL' } });
  await openPage(page, gateway, sessionId);
  t.ok(await page.locator('#billing-street').isVisible(), 'the billing address is asked for');
  t.ok(await page.locator('#customer-email').isVisible(), 'and the email (optional)');
  t.equal(await page.evaluate(() => document.documentElement.scrollWidth), viewport.width, 'no sideways scrolling');
  const street = await page.locator('#billing-street').boundingBox();
  t.ok(street && street.x >= 0 && street.x + street.width <= viewport.width, 'the inputs inside the screen', { street });
  await typeCard(page, APPROVED);
  await page.click('#pay-button');
  await page.locator('#billing-error:not(:empty)').waitFor({ timeout: 30_000 });
  t.match(await page.textContent('#billing-error'), /Enter your billing address/, 'refused until filled');
  t.match(page.url(), /\/checkout\/pay\//, 'still on the page');
  t.equal((await retrieveOrder(gateway, orderId)).status, 400, 'nothing paid');

  await page.fill('#billing-street', '9 Payer Road');
  t.ok(await page.locator('#billing-street2').isVisible(), 'a second line for the street, optional');
  t.notOk(await page.locator('#billing-street2').evaluate((e) => (e as HTMLInputElement).required), 'not required');
  await page.fill('#billing-street2', 'Flat 2');
  await page.fill('#billing-city', 'Shelbyville');
  await page.fill('#billing-postcode', 'AB1 2CD');
  await page.selectOption('#billing-country', 'GBR');
  await page.fill('#customer-email', 'payer@example.org');
  await page.fill('#billing-state', 'Kent');
  const code = await page.locator('#billing-state-code').boundingBox();
  t.ok(code && code.x >= 0 && code.x + code.width <= viewport.width && code.width >= 60, 'the state code typed beside the state, inside the screen', { code });
  await page.fill('#billing-state-code', 'k-t');
  await page.click('#pay-button');
  await page.locator('#billing-error:has-text("state code")').waitFor({ timeout: 30_000 });
  t.ok(await page.locator('#billing-state-code.missing').isVisible(), 'a state code that is none: marked, nothing sent');
  t.equal((await retrieveOrder(gateway, orderId)).status, 400, 'nothing paid');
  await page.fill('#billing-state-code', 'ken');
  await page.click('#pay-button');
  await page.waitForURL((url) => url.pathname === '/return', { timeout: 30_000 });
  const order = (await retrieveOrder(gateway, orderId)).json();
  t.equal(order.status, 'CAPTURED');
  t.same(order.billing, {
    address: { street: '9 Payer Road', street2: 'Flat 2', city: 'Shelbyville', postcodeZip: 'AB1 2CD', stateProvince: 'Kent', stateProvinceCode: 'KEN', country: 'GBR' },
  }, 'Retrieve Order: the address typed, its second line and state code too');
  t.same(order.customer, { email: 'payer@example.org' }, 'and the email');

  const hidden = await initiate(gateway, { returnUrl: `${site}/return`, displayControl: { billingAddress: 'HIDE', customerEmail: 'HIDE' } }, { billing: { address: { street: '1 Main Street', country: 'USA' } } });
  await openPage(page, gateway, hidden.sessionId);
  t.notOk(await page.locator('#billing-block').isVisible(), 'HIDE: no address');
  t.notOk(await page.locator('#payer-details').isVisible(), 'nothing of the payer\'s');
  await typeCard(page, APPROVED);
  await page.click('#pay-button');
  await page.waitForURL((url) => url.pathname === '/return', { timeout: 30_000 });
  t.same((await retrieveOrder(gateway, hidden.orderId)).json().billing, { address: { street: '1 Main Street', country: 'USA' } }, 'the merchant\'s address on the order');
  t.same(errors, [], 'no script error');
}

t.test('billing address MANDATORY: no payment until it is filled; the order shows it; HIDE shows none', { skip }, (t) => billingMandatory(t, { width: 1000, height: 1000 }));
t.test('the same at 375 px', { skip }, (t) => billingMandatory(t, { width: 375, height: 812 }));
