// Hosted Session with 3-D Secure in headless Chromium (Debian's /usr/bin/chromium via
// playwright-core): the example shop (examples/hosted-session/) puts the order and what 3-D
// Secure needs in the session, the payer types a challenge card (docs/triggers.md's 3-D Secure
// table) into the gateway's frames, the shop's server runs Initiate Authentication and
// Authenticate Payer naming only session.id, the bank's challenge opens over the shop, and back at
// the shop's redirectResponseUrl the PAY names the session and the authentication. Then the payer
// abandoning: cancelling at the bank (nothing paid, the shop says so), and cancelling on the shop's
// page before paying (nothing sent to the gateway). With TOKENGATE_SCREENSHOTS=1 it rewrites
// docs/hosted-session-3ds.png and docs/hosted-session-cancelled.png.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import type { Page } from 'playwright-core';
import { M1, tokenAuth } from '../helpers/app.js';
import { call, type RunningServer } from '../helpers/server.js';
import { readmeTriggerTables } from '../http/pay-triggers.fixture.js';
import { CHALLENGE_CODE } from '../../domain/order/authentication-cards.js';
import { CHROMIUM, gatewayAndShop, launch, openShop, typeCard } from './hosted-session.fixture.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const SCREENSHOTS = process.env.TOKENGATE_SCREENSHOTS === '1';
const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;
const CHALLENGE_CARD = readmeTriggerTables().get('3DS test card')?.find(([, brand, scenario]) => brand === 'Mastercard' && scenario === 'Challenge')?.[0] ?? '';

const retrieveOrder = (gateway: RunningServer, orderId: string) => call(gateway.url, 'GET', `/api/rest/version/100/merchant/${M1.id}/order/${orderId}`, tokenAuth(M1));
const ofType = (order: Record<string, any>, type: string) => (order.transaction as Array<Record<string, any>>).filter((tx) => tx.transaction?.type === type);
const orderIn = (text: string) => /order ([0-9a-f-]{36})/i.exec(text)?.[1] ?? '';

/** Pay with the challenge card; the bank's page, once it has opened over the shop. */
async function toChallenge(page: Page) {
  await typeCard(page, { number: CHALLENGE_CARD, month: '01', year: '39', securityCode: '123' });
  await page.click('#pay-button');
  await page.locator('#challenge.open').waitFor({ timeout: 30_000 });
  const frame = page.frameLocator('#challenge iframe#challengeFrame');
  await frame.locator('#selectAuthResult').waitFor({ timeout: 30_000 });
  return frame;
}

/** The result the page shows once the way back has answered. */
async function result(page: Page): Promise<string> {
  await page.locator('#result.approved, #result.failed, #result.cancelled').waitFor({ timeout: 30_000 });
  return (await page.textContent('#result')) ?? '';
}

t.test('Hosted Session with a 3-D Secure challenge, and the payer cancelling', { skip }, async (t) => {
  t.ok(CHALLENGE_CARD, 'docs/triggers.md names a Mastercard challenge card');
  const { gateway, shop } = await gatewayAndShop(t);
  const browser = await launch(t);
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  await t.test('the challenge passed: paid with session.id, the authentication on the order', async (t) => {
    await openShop(page, shop);
    const frame = await toChallenge(page);
    t.match(await frame.locator('body').textContent(), /25\.00 USD[\s\S]*MASTERCARD •••• 0008/, 'the bank shows the session\'s amount and card');
    if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, 'hosted-session-3ds.png') });
    await frame.locator('#otp').fill(CHALLENGE_CODE);
    await frame.locator('#acssubmit').click();
    const shown = await result(page);
    t.match(shown, /^Payment approved: MASTERCARD 512345xxxxxx0008, order /);
    t.notOk(await page.locator('#challenge.open').count(), 'the bank\'s window closed');
    const order = (await retrieveOrder(gateway, orderIn(shown))).json();
    t.strictSame([order.status, order.authenticationStatus, order.totalCapturedAmount], ['CAPTURED', 'AUTHENTICATION_SUCCESSFUL', 25]);
    t.match(ofType(order, 'AUTHENTICATION')[0]?.authentication, { payerInteraction: 'REQUIRED', '3ds2': { transactionStatus: 'Y' } });
    const [payment] = ofType(order, 'PAYMENT');
    t.equal(payment?.response?.gatewayCode, 'APPROVED');
    t.match(payment?.authentication, { transactionId: '3ds-1', '3ds2': { transactionStatus: 'Y' } }, 'the PAY with session.id used the authentication');
  });

  await t.test('the payer cancels at the bank: nothing paid, the shop says so', async (t) => {
    await openShop(page, shop);
    const frame = await toChallenge(page);
    await frame.locator('#acscancel').click();
    const shown = await result(page);
    t.match(shown, /^Payment cancelled at your bank: you have not been charged\. Order /);
    t.equal(await page.getAttribute('#result', 'class'), 'cancelled');
    t.ok(await page.isEnabled('#pay-button'), 'the payer may try again');
    const order = (await retrieveOrder(gateway, orderIn(shown))).json();
    t.equal(order.authenticationStatus, 'AUTHENTICATION_FAILED');
    t.match(ofType(order, 'AUTHENTICATION')[0]?.authentication, { '3ds2': { transactionStatus: 'N', challengeCancel: '01' } }, 'the challenge cancelled');
    t.strictSame([ofType(order, 'PAYMENT'), order.totalCapturedAmount], [[], 0], 'no payment');
  });

  await t.test('the payer cancels on the shop\'s page before paying: nothing reaches the gateway', async (t) => {
    await openShop(page, shop);
    const payRequests: string[] = [];
    page.on('request', (request) => { if (new URL(request.url()).pathname === '/pay') payRequests.push(request.url()); });
    await typeCard(page, { number: CHALLENGE_CARD, month: '01', year: '39' });
    await page.click('#cancel-button');
    const shown = await result(page);
    t.match(shown, /^Payment cancelled: order [0-9a-f-]{36} was not placed and you have not been charged\.$/);
    if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, 'hosted-session-cancelled.png') });
    t.notOk(await page.isEnabled('#pay-button'), 'nothing left to pay');
    t.strictSame(payRequests, [], 'the page never asked to pay');
    const order = await retrieveOrder(gateway, orderIn(shown));
    t.equal(order.status, 400, 'the gateway has no such order');
    t.match(order.json(), { error: { explanation: /^Unable to find order / } });
  });

  t.same(errors, [], 'no script error');
});
