// Hosted Checkout's stored cards in headless Chromium: a checkout whose Initiate Checkout named the
// payer's stored card (interaction.tokens) offers it on the payment page beside "a new card"; the
// payer pays with it without typing a card, and Retrieve Order shows the token's masked card.
import { existsSync } from 'node:fs';
import t from 'tap';
import { basic, M1 } from '../helpers/app.js';
import { call } from '../helpers/server.js';
import { CHROMIUM, gatewayAndShop, launch, retrieveOrder } from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;

t.test('a stored card offered on the payment page pays; Retrieve Order shows the token\'s card', { skip }, async (t) => {
  const { gateway } = await gatewayAndShop(t);
  const auth = basic(`merchant.${M1.id}`, M1.apiPassword);
  const api = `/api/rest/version/99/merchant/${M1.id}`;
  const stored = await call(gateway.url, 'POST', `${api}/token`, auth, {
    sourceOfFunds: { type: 'CARD', provided: { card: { number: '4508750015741019', expiry: { month: '7', year: '41' } } } },
  });
  t.equal(stored.status, 201, stored.text);
  const token = stored.json().token as string;
  const orderId = 'stored-card-order';
  const initiated = await call(gateway.url, 'POST', `${api}/session`, auth, {
    apiOperation: 'INITIATE_CHECKOUT', interaction: { operation: 'PURCHASE', merchant: { name: 'Stored Card Shop' }, tokens: [token] },
    order: { currency: 'USD', amount: '30.00', id: orderId },
  });
  t.equal(initiated.status, 201, initiated.text);

  const browser = await launch(t);
  const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${gateway.url}/checkout/pay/${initiated.json().session.id as string}`);
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  const choices = page.locator('#stored-cards .choice');
  t.same(await choices.allTextContents(), ['Visa ending 1019, expires 07/41', 'A new card'], 'the stored card beside a new card');
  t.ok(await page.locator('#stored-cards input[type=radio]').first().isChecked(), 'the stored card chosen');
  t.notOk(await page.locator('#new-card').isVisible(), 'no card fields while a stored card is chosen');
  await choices.nth(1).click();
  t.ok(await page.locator('#new-card').isVisible(), 'a new card: the card fields');
  await choices.nth(0).click();
  // A double click pays once: the second lands on a busy button, or on a paid checkout, whose Pay answers where the first went.
  await page.dblclick('#pay-button');
  await page.waitForURL(/\/checkout\/receipt\/SESSION[0-9A-Za-z]+\?resultIndicator=[0-9a-f]{16}&sessionVersion=/, { timeout: 30_000 });
  await page.locator('#outcome.ok').waitFor({ timeout: 30_000 });
  t.equal(await page.textContent('#outcome-title'), 'Payment successful');
  t.notOk((await page.content()).includes('4508750015741019'), 'no card number on the page');
  const order = (await retrieveOrder(gateway, orderId)).json();
  t.equal(order.transaction.length, 1, 'one payment');
  t.match(order, { status: 'CAPTURED', sourceOfFunds: { token, provided: { card: { number: '450875xxxxxx1019', brand: 'VISA', expiry: { month: '7', year: '41' } } } } });
  t.same(errors, [], 'no script error');
});
