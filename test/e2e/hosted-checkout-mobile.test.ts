// Hosted Checkout's payment page on a phone's width (375 px), and a checkout that times out, in
// headless Chromium, with the example shop (examples/hosted-checkout/). At 375 px the page fills
// the screen: the card number as wide as the Pay button, month, year and code on one row, nothing
// beyond the screen's edge. The timeout: the merchant's sandbox clock is advanced (the
// test-control API) past the checkout's timeout while the payer is on the page; the page says so
// and brings the payer back to the shop, whose timeout callback runs; the checkout is EXPIRED.
import { existsSync } from 'node:fs';
import t from 'tap';
import { M1 } from '../helpers/app.js';
import { call } from '../helpers/server.js';
import { advanceClock, APPROVED, CHROMIUM, field, gatewayAndShop, launch, openShop, toPaymentPage, typeCard } from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;

t.test('at 375 px the payment page fills the screen; a checkout that times out sends the payer back to the shop\'s timeout callback', { skip }, async (t) => {
  const { gateway, shop } = await gatewayAndShop(t, { shopEnv: { CHECKOUT_TIMEOUT: '300' } });
  const browser = await launch(t);
  const page = await browser.newPage({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  const { sessionId } = await openShop(page, shop);
  await toPaymentPage(page);
  const number = await page.locator('iframe.gw-proxy-number').boundingBox();
  const button = await page.locator('#pay-button').boundingBox();
  t.ok(number && button && Math.abs(number.width - button.width) < 1, 'the card number as wide as the Pay button', { number, button });
  t.ok(number && number.x >= 0 && number.x + number.width <= 375, 'inside the screen');
  const month = await page.locator('iframe.gw-proxy-expiryMonth').boundingBox();
  const code = await page.locator('iframe.gw-proxy-securityCode').boundingBox();
  t.ok(month && code && Math.abs(month.y - code.y) < 1 && month.width > 70 && code.x + code.width <= 375, 'month, year and code share a row', { month, code });
  t.equal(await page.evaluate(() => document.documentElement.scrollWidth), 375, 'no sideways scrolling');
  await typeCard(page, APPROVED);
  await field(page, 'nameOnCard').focus();
  t.match(await page.textContent('#timer'), /^This page expires in [45]:\d\d$/, 'the checkout\'s 300 s, counted down');

  // Five minutes pass on the merchant's clock: the page notices, and the payer is back at the shop.
  await advanceClock(gateway, M1.id, 301_000);
  await page.locator('#message.failed').waitFor({ timeout: 30_000 });
  t.match(page.url(), /^http:\/\/localhost:\d+\/$/, 'back on the shop\'s page');
  t.match(await page.textContent('#message'), /^Your payment session timed out\./, 'the shop\'s timeoutCallback ran');
  const view = await call(gateway.url, 'GET', `/checkout/api/${sessionId}`, '');
  t.equal(view.json().status, 'EXPIRED', 'the checkout has expired');

  // The payment page opened again: it says the session has timed out.
  await page.goto(`${gateway.url}/checkout/pay/${sessionId}`);
  await page.locator('#outcome.warn').waitFor({ timeout: 30_000 });
  t.equal(await page.textContent('#outcome-title'), 'Your payment session has timed out');
  t.same(errors, [], 'no script error');
});
