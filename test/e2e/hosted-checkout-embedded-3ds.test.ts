// Hosted Checkout's embedded page with a 3-D Secure challenge, in headless Chromium: the example
// shop of a merchant whose profile runs 3-D Secure on the page (M2), "Pay with Embedded Page".
// The bank's challenge opens inside the embedded page; answered with the code, the shop's page
// stays where it is and hears `complete` from the embedded page, with the resultIndicator that
// matches the successIndicator (the shop's result page compares them). A failed challenge leaves
// the payer in the embedded page, told why, and another card pays.
import { existsSync } from 'node:fs';
import t from 'tap';
import { M2 } from '../helpers/app.js';
import { APPROVED, CHROMIUM, gatewayAndShop, launch, openShop, retrieveOrder, shopResult, typeCard } from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;
/** docs/triggers.md: a Mastercard challenge card, and a frictionless one. */
const CHALLENGE = APPROVED;
const FRICTIONLESS = { ...APPROVED, number: '5123456789012346' };

t.test('the embedded page with a 3-D Secure challenge ends with complete on the shop\'s page', { skip }, async (t) => {
  const { gateway, shop } = await gatewayAndShop(t, { merchant: M2 });
  const browser = await launch(t);
  const context = await browser.newContext({ viewport: { width: 1000, height: 1200 } });
  // What the shop's page hears, and where its window is when it hears it.
  const heard: { data: Record<string, unknown>; at: string }[] = [];
  await context.exposeFunction('recordMessage', (message: string, at: string) => { heard.push({ data: JSON.parse(message) as Record<string, unknown>, at }); });
  await context.addInitScript(() => {
    const record = (window as unknown as { recordMessage: (m: string, at: string) => void }).recordMessage;
    window.addEventListener('message', (event) => { if (window.top === window) record(JSON.stringify(event.data), location.href); });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  const first = await openShop(page, shop);
  await page.click('#pay-embedded');
  const frame = page.frameLocator('#embed-target iframe.gw-checkout-frame');
  await frame.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  await typeCard(frame, CHALLENGE);
  await frame.locator('#pay-button').click();
  const bank = frame.frameLocator('#challenge-host iframe#challengeFrame');
  await bank.locator('#otp').waitFor({ timeout: 30_000 });
  t.match(page.url(), shop.url, 'the challenge inside the embedded page, the shop\'s page around it');
  await bank.locator('#otp').fill('123456');
  await bank.locator('#acssubmit').click();
  const paid = await shopResult(page);
  t.equal(paid.tone, 'approved', `the shop's result page: resultIndicator equals its successIndicator (${paid.text})`);
  const complete = heard.filter((m) => m.data.type === 'complete');
  t.equal(complete.length, 1, 'the shop\'s page heard complete once', { heard });
  t.equal(complete[0]?.at, shop.url, 'while it was still the shop\'s page');
  t.equal(complete[0]?.data.resultIndicator, new URL(page.url()).searchParams.get('resultIndicator'), 'with the resultIndicator the shop compared');
  const order = (await retrieveOrder(gateway, first.orderId, M2)).json();
  t.equal(order.status, 'CAPTURED', 'Retrieve Order: paid');
  t.equal(order.authenticationStatus, 'AUTHENTICATION_SUCCESSFUL');

  // A failed challenge: the payer stays in the embedded page, told why; a frictionless card pays.
  const second = await openShop(page, shop);
  await page.click('#pay-embedded');
  await frame.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  await typeCard(frame, CHALLENGE);
  await frame.locator('#pay-button').click();
  await bank.locator('#selectAuthResult').selectOption('UNAUTHENTICATED');
  await bank.locator('#acssubmit').click();
  await frame.locator('#notice.error').waitFor({ timeout: 30_000 });
  t.match(await frame.locator('#notice').textContent(), /3-D Secure authentication did not succeed/, 'the reason, in the embedded page');
  t.match(page.url(), shop.url, 'the shop\'s page stays');
  await frame.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  await typeCard(frame, FRICTIONLESS);
  await frame.locator('#pay-button').click();
  t.equal((await shopResult(page)).tone, 'approved', 'another card pays');
  t.equal((await retrieveOrder(gateway, second.orderId, M2)).json().status, 'CAPTURED');
  t.same(errors, [], 'no script error');
});
