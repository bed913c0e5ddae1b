// The 3-D Secure example shop (examples/3ds/: its page takes the card, its server runs Initiate
// Authentication, Authenticate Payer and, back from the ACS, the PAY naming the authentication) in
// headless Chromium (Debian's /usr/bin/chromium via playwright-core) against the real server
// process. The cards come from docs/triggers.md's 3-D Secure table: a frictionless card is paid
// without the payer seeing the bank; a challenge card opens the emulator's challenge page over the
// shop, where the right code pays and a failed answer pays nothing. Each time: what the shopper
// sees on the shop's confirmation page, and what Retrieve Order says. With TOKENGATE_SCREENSHOTS=1
// it rewrites docs/3ds-challenge.png and docs/3ds-confirmation.png.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import type { Page } from 'playwright-core';
import { M1, tokenAuth } from '../helpers/app.js';
import { call, type RunningServer } from '../helpers/server.js';
import { readmeTriggerTables } from '../http/pay-triggers.fixture.js';
import { CHALLENGE_CODE, CHALLENGE_TOKEN } from '../../domain/order/authentication-cards.js';
import { CHROMIUM, gatewayAndShop, launch, THREE_DS_SHOP, type Shop } from './hosted-session.fixture.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const SCREENSHOTS = process.env.TOKENGATE_SCREENSHOTS === '1';
const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;

/** The first Mastercard of docs/triggers.md's 3-D Secure test cards with this test case. */
function testCard(testCase: string): string {
  const rows = readmeTriggerTables().get('3DS test card') ?? [];
  const row = rows.find(([, brand, scenario]) => brand === 'Mastercard' && scenario === testCase);
  if (!row?.[0]) throw new Error(`docs/triggers.md has no Mastercard '${testCase}' row`);
  return row[0];
}

const last4 = (number: string) => number.slice(-4);

/** The shop's checkout: the card typed into its form, and Pay. */
async function checkout(page: Page, shop: Shop, number: string) {
  await page.goto(shop.url);
  await page.fill('#number', number);
  await page.fill('#month', '01');
  await page.fill('#year', '39');
  await page.fill('#securityCode', '123');
  await page.fill('#nameOnCard', 'Jo Payer');
  await page.click('#pay-button');
}

/** The confirmation page the shop ends on: its outcome, title, text, and the order id it shows. */
async function confirmation(page: Page) {
  await page.waitForURL(/\/order\/[0-9a-f-]{36}$/, { timeout: 30_000 });
  const text = async (selector: string) => ((await page.textContent(selector)) ?? '').trim();
  return {
    outcome: await page.getAttribute('#outcome', 'data-outcome'), title: await text('#title'), text: await text('#text'),
    order: await text('#order'), card: await text('#card'), verified: await text('#verified'),
  };
}

const retrieveOrder = async (gateway: RunningServer, orderId: string) =>
  (await call(gateway.url, 'GET', `/api/rest/version/100/merchant/${M1.id}/order/${orderId}`, tokenAuth(M1))).json() as Record<string, any>;

const ofType = (order: Record<string, any>, type: string) =>
  (order.transaction as Array<Record<string, any>>).filter((tx) => tx.transaction?.type === type);

/** The challenge page, opened over the shop in iframe#challengeFrame. */
async function challenge(t: Test, page: Page, number: string) {
  await page.locator('#challenge.open').waitFor({ timeout: 30_000 });
  const frame = page.frameLocator('#challenge iframe#challengeFrame');
  await frame.locator('#selectAuthResult').waitFor({ timeout: 30_000 });
  t.match(await frame.locator('body').textContent(), /Confirm your purchase[\s\S]*49\.00 EUR[\s\S]*MASTERCARD •••• /, 'the bank\'s page shows the purchase');
  t.match(await frame.locator('body').textContent(), `•••• ${last4(number)}`, 'and the card');
  return frame;
}

t.test('a shop\'s checkout with 3-D Secure in Chromium: frictionless, a challenge passed, a challenge failed', { skip }, async (t) => {
  const { gateway, shop } = await gatewayAndShop(t, {}, THREE_DS_SHOP);
  const browser = await launch(t);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await t.test('a frictionless card: paid, the payer never sees the bank', async (t) => {
    const number = testCard('Frictionless');
    await checkout(page, shop, number);
    const seen = await confirmation(page);
    t.strictSame([seen.outcome, seen.title], ['approved', 'Thank you, your order is confirmed']);
    t.equal(seen.card, `MASTERCARD ${number.slice(0, 6)}xxxxxx${last4(number)}`, 'the card, masked');
    t.equal(seen.verified, 'Confirmed by your bank (3-D Secure)');
    t.equal(await page.locator('#challengeFrame').count(), 0, 'no challenge was shown');
    const order = await retrieveOrder(gateway, seen.order);
    t.strictSame([order.status, order.authenticationStatus, order.totalCapturedAmount], ['CAPTURED', 'AUTHENTICATION_SUCCESSFUL', 49]);
    const [payment] = ofType(order, 'PAYMENT');
    t.equal(payment?.response?.gatewayCode, 'APPROVED');
    t.match(payment?.authentication, { transactionId: '3ds-1', '3ds2': { transactionStatus: 'Y' }, '3ds': { acsEci: '02' } }, 'the PAY used the authentication');
  });

  await t.test('a challenge passed with the one-time code: paid', async (t) => {
    const number = testCard('Challenge');
    await checkout(page, shop, number);
    const frame = await challenge(t, page, number);
    if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, '3ds-challenge.png') });
    await frame.locator('#otp').fill(CHALLENGE_CODE);
    await frame.locator('#acssubmit').click();
    const seen = await confirmation(page);
    t.strictSame([seen.outcome, seen.title, seen.text], ['approved', 'Thank you, your order is confirmed', 'We have received your payment of 49.00 EUR.']);
    t.equal(seen.verified, 'Confirmed by your bank (3-D Secure)');
    if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, '3ds-confirmation.png') });
    const order = await retrieveOrder(gateway, seen.order);
    t.strictSame([order.status, order.authenticationStatus, order.totalCapturedAmount], ['CAPTURED', 'AUTHENTICATION_SUCCESSFUL', 49]);
    const [authentication] = ofType(order, 'AUTHENTICATION');
    t.match(authentication?.authentication, { payerInteraction: 'REQUIRED', '3ds2': { transactionStatus: 'Y' } }, 'the authentication: a challenge, passed');
    const [payment] = ofType(order, 'PAYMENT');
    t.equal(payment?.response?.gatewayCode, 'APPROVED');
    t.match(payment?.authentication, { transactionId: '3ds-1', version: '3DS2', '3ds2': { transactionStatus: 'Y' }, '3ds': { acsEci: '02', authenticationToken: CHALLENGE_TOKEN } },
      'the payment carries the authentication block');
    t.match(payment?.risk?.response?.rule, [{ name: 'MERCHANT_3D_SECURE', data: 'LIABILITY_SHIFT' }], 'and the liability shift');
  });

  await t.test('a challenge failed (a wrong code): nothing paid, the shopper told so', async (t) => {
    const number = testCard('Challenge');
    await checkout(page, shop, number);
    const frame = await challenge(t, page, number);
    await frame.locator('#otp').fill('000000');
    await frame.locator('#acssubmit').click();
    const seen = await confirmation(page);
    t.strictSame([seen.outcome, seen.title, seen.text], ['failed', 'Your bank did not confirm this payment', 'You have not been charged. Try again, or use another card.']);
    t.equal(seen.verified, 'Not confirmed by your bank');
    t.equal(await page.textContent('a.button'), 'Try again');
    const order = await retrieveOrder(gateway, seen.order);
    t.strictSame([order.authenticationStatus, order.totalCapturedAmount, order.totalAuthorizedAmount], ['AUTHENTICATION_FAILED', 0, 0]);
    t.notSame(order.status, 'CAPTURED');
    t.strictSame(ofType(order, 'PAYMENT'), [], 'no payment on the order');
    t.match(ofType(order, 'AUTHENTICATION')[0]?.authentication, { '3ds2': { transactionStatus: 'N' } }, 'the authentication failed (N)');
  });

  t.same(errors, [], 'no script error on the shop\'s pages');
});
