// Hosted Checkout's interaction.displayControl.paymentConfirmation SHOW in headless Chromium, as a
// payer walks it on the payment page a merchant's server opened: Pay shows a last look (amount,
// card masked, email, billing address) and pays nothing yet; "Change the details" goes back to the
// form, and what the payer changes there is what the next look shows and the payment carries; the
// confirmed payment is declined, the payer tries again with another card through the same step,
// and the approved one takes the payer to the returnUrl; the street the payer typed is read by the
// AVS rule as a merchant's PAY with that billing.address is (docs/triggers.md). The countdown and
// Cancel stay on the screen during the step, and Cancel from it goes where Cancel from the form
// goes (the merchant's cancelUrl, the checkout cancelled). At 1000 and 375 px.
import { existsSync } from 'node:fs';
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { M1 } from '../helpers/app.js';
import { call, type RunningServer } from '../helpers/server.js';
import {
  APPROVED, checkoutPage, CHROMIUM, DECLINED, gatewayAndShop, initiateCheckout, launch, merchantSite, openPage, retrieveOrder, typeCard,
} from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;

/** The confirmation step's rows, as the payer reads them. */
async function confirmation(page: Page): Promise<Record<string, string>> {
  await page.locator('#confirm').waitFor({ state: 'visible', timeout: 30_000 });
  const terms = await page.locator('#confirm-details dt').allTextContents();
  const values = await page.locator('#confirm-details dd').allTextContents();
  return Object.fromEntries(terms.map((term, i) => [term, values[i] ?? '']));
}

const checkoutOf = async (gateway: RunningServer, sessionId: string) => (await call(gateway.url, 'GET', `/checkout/api/${sessionId}`, '')).json();

/** Each element shown, and within the screen's width. */
async function inside(t: Test, page: Page, viewport: { width: number }, ids: string[]) {
  for (const id of ids) {
    const box = await page.locator(id).boundingBox();
    t.ok(await page.locator(id).isVisible(), `${id} shown`);
    t.ok(box && box.x >= 0 && box.x + box.width <= viewport.width, `${id} inside the screen`, { box });
  }
}

async function walk(t: Test, viewport: { width: number; height: number }) {
  const { gateway, site, page, errors } = await checkoutPage(t, viewport);

  const { sessionId, orderId } = await initiateCheckout(gateway, {
    returnUrl: `${site}/return`, displayControl: { paymentConfirmation: 'SHOW', customerEmail: 'OPTIONAL', billingAddress: 'OPTIONAL' },
  }, { billing: { address: { street: '1 Main Street', city: 'Springfield', country: 'USA' } } });
  await openPage(page, gateway, sessionId);
  t.notOk(await page.locator('#confirm').isVisible(), 'no confirmation before Pay');
  await page.fill('#customer-email', 'first@example.org');
  await typeCard(page, DECLINED);
  await page.click('#pay-button');

  let look = await confirmation(page);
  t.same(look, {
    Amount: '$25.00', Card: 'MASTERCARD 512345xxxxxx0008', Email: 'first@example.org', 'Billing address': '1 Main Street, Springfield, United States',
  }, 'the last look: amount, card masked, email, the billing address (the merchant\'s, filled in)');
  t.notOk(await page.locator('#pay-form').isVisible(), 'the form set aside');
  t.equal(await page.textContent('#confirm-pay'), 'Pay $25.00');
  t.equal(await page.locator('#confirm-pay').evaluate((e) => e === document.activeElement), true, 'the confirm button has the focus');
  t.equal((await retrieveOrder(gateway, orderId)).status, 400, 'nothing paid yet');
  t.equal((await checkoutOf(gateway, sessionId)).attemptsLeft, 3, 'no attempt used');
  t.equal(await page.evaluate(() => document.documentElement.scrollWidth), viewport.width, 'no sideways scrolling');
  await inside(t, page, viewport, ['#confirm-pay', '#confirm-back', '#timer', '#cancel-button']);
  t.match(await page.textContent('#timer'), /^This page expires in \d+:\d\d$/, 'the countdown, during the last look too');

  await page.click('#confirm-back');
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  t.notOk(await page.locator('#confirm').isVisible(), 'Change the details: back to the form');
  t.equal(await page.inputValue('#customer-email'), 'first@example.org', 'what the payer typed is kept');
  await page.fill('#customer-email', 'second@example.org');
  await page.fill('#billing-street', '9 November St');
  await page.click('#pay-button');
  look = await confirmation(page);
  t.equal(look.Email, 'second@example.org', 'the next look shows the change');
  t.equal(look['Billing address'], '9 November St, Springfield, United States');
  t.equal((await retrieveOrder(gateway, orderId)).status, 400, 'still nothing paid');

  await page.click('#confirm-pay');
  await page.locator('#notice.error').waitFor({ timeout: 30_000 });
  t.match(await page.textContent('#notice'), /declined.*2 attempts left/, 'confirmed: paid, declined; the payer may try again');
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  t.notOk(await page.locator('#confirm').isVisible(), 'the form again after the decline');

  await typeCard(page, APPROVED);
  await page.click('#pay-button');
  look = await confirmation(page);
  t.equal(look.Email, 'second@example.org', 'the other card goes through the same last look');
  t.equal((await retrieveOrder(gateway, orderId)).json().transaction.length, 1, 'the one declined attempt only');
  await page.click('#confirm-pay');
  await page.waitForURL((url) => url.pathname === '/return', { timeout: 30_000 });
  t.match(new URL(page.url()).searchParams.get('resultIndicator'), /^[0-9a-f]{16}$/, 'back at the returnUrl');
  const order = (await retrieveOrder(gateway, orderId)).json();
  t.equal(order.status, 'CAPTURED');
  t.same(order.transaction.map((x: { response: { gatewayCode: string } }) => x.response.gatewayCode), ['DECLINED', 'APPROVED'], 'two payments: each made once, after its confirmation');
  t.same(order.customer, { email: 'second@example.org' }, 'the email the payer confirmed');
  t.same(order.billing, { address: { street: '9 November St', city: 'Springfield', country: 'USA' } }, 'and the address');
  t.same(order.transaction.map((x: { response: { avs?: { gatewayCode: string } } }) => x.response.avs?.gatewayCode), ['NO_MATCH', 'NO_MATCH'],
    'the typed street read by the AVS rule (November St: NO_MATCH), as on a merchant\'s PAY');
  t.equal((await checkoutOf(gateway, sessionId)).status, 'PAID');
  t.equal(M1.id, order.merchant);
  t.same(errors, [], 'no script error');
}

t.test('paymentConfirmation SHOW: a last look before each payment, the details changed from it, a decline and a retry through it', { skip }, (t) => walk(t, { width: 1000, height: 1000 }));
t.test('the same at 375 px', { skip }, (t) => walk(t, { width: 375, height: 812 }));

t.test('Cancel from the last look: to the merchant\'s cancelUrl, the checkout cancelled, nothing paid (1000 and 375 px)', { skip }, async (t) => {
  const { gateway } = await gatewayAndShop(t);
  const site = await merchantSite(t);
  const browser = await launch(t);
  for (const viewport of [{ width: 1000, height: 1000 }, { width: 375, height: 812 }]) {
    const page = await browser.newPage({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const { sessionId, orderId } = await initiateCheckout(gateway, {
      returnUrl: `${site}/return`, cancelUrl: `${site}/cancelled`, displayControl: { paymentConfirmation: 'SHOW' },
    });
    await openPage(page, gateway, sessionId);
    await typeCard(page, APPROVED);
    await page.click('#pay-button');
    await confirmation(page);
    await inside(t, page, viewport, ['#timer', '#cancel-button']);
    await page.click('#cancel-button');
    await page.waitForURL((url) => url.pathname === '/cancelled', { timeout: 30_000 });
    t.equal(await page.textContent('#landed'), '/cancelled', `${viewport.width} px: at the merchant's cancelUrl`);
    t.equal((await checkoutOf(gateway, sessionId)).status, 'CANCELLED', 'the checkout cancelled');
    t.equal((await retrieveOrder(gateway, orderId)).status, 400, 'nothing paid');
    t.same(errors, [], 'no script error');
    await page.close();
  }
});
