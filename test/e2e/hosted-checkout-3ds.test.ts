// Hosted Checkout with 3-D Secure, in headless Chromium: the example shop of a merchant whose
// profile turns 3-D Secure on for its payment page (checkout.threeDSecure). A challenge card
// (docs/triggers.md, 3-D Secure) brings the bank's challenge into the payment page; the payer
// types the one-time code and is back at the shop, paid, the order showing the authentication.
// A failed challenge brings the payer back to the payment page with the reason, and another card
// (frictionless) pays.
import { existsSync } from 'node:fs';
import t from 'tap';
import { M2 } from '../helpers/app.js';
import { APPROVED, CHROMIUM, gatewayAndShop, launch, openShop, retrieveOrder, shopResult, toPaymentPage, typeCard } from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;
/** docs/triggers.md: a Mastercard challenge card, and a frictionless one (transStatus Y). */
const CHALLENGE = APPROVED;
const FRICTIONLESS = { ...APPROVED, number: '5123456789012346' };

t.test('3-D Secure on the payment page: the challenge answered with the code pays; a failed one lets the payer try again', { skip }, async (t) => {
  const { gateway, shop } = await gatewayAndShop(t, { merchant: M2 });
  const browser = await launch(t);
  const page = await browser.newPage({ viewport: { width: 1200, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  const first = await openShop(page, shop);
  await toPaymentPage(page);
  t.ok(await page.locator('#threeds-note').isVisible(), 'the page says the bank may ask');
  await typeCard(page, CHALLENGE);
  await page.click('#pay-button');
  await page.locator('#challenge').waitFor({ timeout: 30_000 });
  const bank = page.frameLocator('#challenge-host iframe#challengeFrame');
  await bank.locator('#otp').waitFor({ timeout: 30_000 });
  t.match(await bank.locator('dl').textContent(), /25\.00 USD/, 'the bank\'s page shows the amount');
  t.notOk(await page.locator('#pay-form').isVisible(), 'the card form gives way to the challenge');
  await bank.locator('#otp').fill('123456');
  await bank.locator('#acssubmit').click();
  const paid = await shopResult(page);
  t.equal(paid.tone, 'approved', paid.text);
  const order = (await retrieveOrder(gateway, first.orderId, M2)).json();
  t.equal(order.status, 'CAPTURED', 'Retrieve Order: paid');
  t.equal(order.authenticationStatus, 'AUTHENTICATION_SUCCESSFUL', 'after a successful authentication');
  t.same(order.transaction.map((x: { transaction: { type: string } }) => x.transaction.type), ['AUTHENTICATION', 'PAYMENT'], 'the authentication, then the payment');

  // The payer fails the challenge: back on the payment page, told why; another card pays.
  const second = await openShop(page, shop);
  await toPaymentPage(page);
  await typeCard(page, CHALLENGE);
  await page.click('#pay-button');
  const again = page.frameLocator('#challenge-host iframe#challengeFrame');
  await again.locator('#selectAuthResult').selectOption('UNAUTHENTICATED');
  await again.locator('#acssubmit').click();
  await page.locator('#notice.error').waitFor({ timeout: 30_000 });
  t.match(page.url(), /\/checkout\/pay\/SESSION/, 'back on the payment page');
  t.match(await page.textContent('#notice'), /3-D Secure authentication did not succeed/, 'with the reason');
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  await typeCard(page, FRICTIONLESS);
  await page.click('#pay-button');
  t.equal((await shopResult(page)).tone, 'approved', 'a frictionless card pays without a challenge');
  const retried = (await retrieveOrder(gateway, second.orderId, M2)).json();
  t.equal(retried.status, 'CAPTURED');
  t.same(errors, [], 'no script error');
});
