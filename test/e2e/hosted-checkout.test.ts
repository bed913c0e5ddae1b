// Hosted Checkout in headless Chromium (Debian's /usr/bin/chromium via playwright-core): the
// example shop (examples/hosted-checkout/: its server initiates the checkout and reads the order
// when the payer comes back; its page is written as for the real gateway, checkout.min.js and
// Checkout.showPaymentPage) against the real server process. On the gateway's payment page the
// payer types a card into the hosted fields and gets: approved (back at the shop, whose
// resultIndicator matches, Retrieve Order CAPTURED); declined (the page says so and lets the payer
// try again; corrected, approved); cancelled (back at the shop, its cancel callback fired). No card
// number reaches the shop's page, the shop's server, the gateway's logs and store files, or what
// the gateway serves afterwards.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { basic, M1 } from '../helpers/app.js';
import { call, type RunningServer } from '../helpers/server.js';
import {
  ADMIN_PASSWORD, APPROVED, CHROMIUM, DECLINED, field, gatewayAndShop, launch, openShop, retrieveOrder, shopResult, toPaymentPage, typeCard, type Shop,
} from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;
const PAN = APPROVED.number;

/** Every text the payer's card could have leaked into, by name. */
function haystacks(dir: string, gateway: RunningServer, shop: Shop): Array<[string, string]> {
  const files = readdirSync(join(dir, 'data')).map((f) => join(dir, 'data', f));
  return [['gateway logs', gateway.logs()], ['shop logs', shop.logs()], ...files.map((f): [string, string] => [f, readFileSync(f).toString('latin1')])];
}

t.test('a payer pays on the gateway\'s payment page: approved, declined then approved, cancelled; the card only ever reaches the gateway', { skip }, async (t) => {
  const { dir, gateway, shop } = await gatewayAndShop(t);
  const browser = await launch(t);
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  // Every page and API answer the browser got, read as it came.
  const served: Array<Promise<string>> = [];
  page.on('response', (response) => {
    const kind = response.request().resourceType();
    if (kind === 'document' || kind === 'fetch' || kind === 'xhr') served.push(response.text().then((text) => `${response.url()} ${text}`, () => ''));
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  // Approved.
  const first = await openShop(page, shop);
  await toPaymentPage(page);
  t.equal(await page.textContent('#merchant-name'), 'Demo Shop', 'the merchant\'s name from Initiate Checkout');
  t.equal(await page.textContent('#order-amount'), '$25.00', 'the order\'s total');
  t.equal(await page.textContent('#pay-button'), 'Pay $25.00', 'the Pay button names the amount');
  t.match(await page.textContent('#timer'), /^This page expires in \d+:\d\d$/, 'the countdown');
  t.equal(await page.locator('iframe.gw-proxy-number').count(), 1, 'the card number is a hosted field');
  await typeCard(page, APPROVED);
  t.equal(await field(page, 'number').inputValue(), '5123 4500 0000 0008', 'the number grouped as typed');
  await page.click('#pay-button');
  const approved = await shopResult(page);
  t.equal(approved.tone, 'approved', approved.text);
  t.match(approved.text, /^Paid 25 USD with MASTERCARD 512345xxxxxx0008\.$/);
  const returned = new URL(page.url());
  t.equal(returned.pathname, '/return', 'back at the shop\'s returnUrl');
  t.match(returned.searchParams.get('resultIndicator'), /^[0-9a-f]{16}$/, 'with resultIndicator');
  const order = await retrieveOrder(gateway, first.orderId);
  t.equal(order.json().status, 'CAPTURED', 'Retrieve Order: paid');
  t.equal(order.json().amount, 25);

  // Declined, the page says so; the payer corrects the expiry date and pays.
  const second = await openShop(page, shop);
  await toPaymentPage(page);
  await typeCard(page, DECLINED);
  await page.click('#pay-button');
  await page.locator('#notice.error').waitFor({ timeout: 30_000 });
  t.match(await page.textContent('#notice'), /^Your payment was declined\. The card issuer declined the payment\..*attempts? left/, 'the decline, in words');
  t.match(page.url(), /\/checkout\/pay\//, 'the payer stays on the payment page');
  t.ok(await page.locator('#pay-button:enabled').isVisible(), 'and may pay again');
  await field(page, 'expiryMonth').fill('01');
  await page.click('#pay-button');
  t.equal((await shopResult(page)).tone, 'approved', 'corrected, the same checkout pays');
  const retried = (await retrieveOrder(gateway, second.orderId)).json();
  t.equal(retried.status, 'CAPTURED', 'Retrieve Order: paid');
  t.same(retried.transaction.map((x: { response: { gatewayCode: string } }) => x.response.gatewayCode), ['DECLINED', 'APPROVED'], 'both attempts on the order');

  // Cancelled: back at the shop's page, whose cancel callback says so.
  const third = await openShop(page, shop);
  await toPaymentPage(page);
  await page.click('#cancel-button');
  await page.waitForURL((url) => url.origin === new URL(shop.url).origin, { timeout: 30_000 });
  await page.locator('#message.failed').waitFor({ timeout: 30_000 });
  t.match(await page.textContent('#message'), /^Payment cancelled\./, 'the shop\'s cancelCallback ran');
  t.equal(new URL(page.url()).hash, '', 'the library took its fragment out of the address');
  const view = await call(gateway.url, 'GET', `/checkout/api/${third.sessionId}`, '');
  t.equal(view.json().status, 'CANCELLED', 'the checkout is cancelled');
  t.equal((await retrieveOrder(gateway, third.orderId)).status, 400, 'no order was made');
  t.same(errors, [], 'no script error');

  // What the gateway serves afterwards: the checkouts, the orders, the receipt page, the events.
  const admin = basic('admin', ADMIN_PASSWORD);
  const afterwards = [
    await call(gateway.url, 'GET', `/checkout/api/${first.sessionId}`, ''),
    await call(gateway.url, 'GET', `/checkout/api/${second.sessionId}`, ''),
    await call(gateway.url, 'GET', `/checkout/receipt/${first.sessionId}`, ''),
    order, await retrieveOrder(gateway, second.orderId),
    await call(gateway.url, 'GET', `/api/rest/version/100/merchant/${M1.id}/session/${first.sessionId}`, basic(`merchant.${M1.id}`, M1.apiPassword)),
    await call(gateway.url, 'GET', '/admin/api/events?limit=500', admin),
  ];
  for (const answer of afterwards) t.notOk(answer.text.includes(PAN), 'no card number served afterwards');
  const bodies = await Promise.all(served);
  t.ok(bodies.filter((b) => b.includes('/checkout/api/')).length > 6, 'the pages and API answers were seen');
  t.same(bodies.filter((b) => b.includes(PAN) || b.includes('5123 4500 0000 0008')), [], 'no card number in any page or answer the browser got');
  await context.close();
  t.equal(await gateway.stop(), 0);
  for (const [name, text] of haystacks(dir, gateway, shop)) t.notOk(text.includes(PAN), `${name}: no card number`);
});
