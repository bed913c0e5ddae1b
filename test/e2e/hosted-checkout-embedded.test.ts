// Hosted Checkout's embedded page, and a page written for the real gateway, in headless Chromium.
// The example shop's "Pay with Embedded Page" (Checkout.showEmbeddedPage): the gateway's page in
// an iframe of the shop's page, paid there, the payer back at the shop's returnUrl. Then the
// reference's minimal merchant page ("HTML Code Example for Requesting an Embedded or Payment
// Page"), verbatim but for the gateway's address and the session id, with a checkout that has no
// returnUrl: both buttons lead to a payment and the gateway's receipt.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { basic, M1 } from '../helpers/app.js';
import { call } from '../helpers/server.js';
import { APPROVED, CHROMIUM, field, gatewayAndShop, launch, openShop, retrieveOrder, shopResult, typeCard } from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;

/** The reference's page, as published (the gateway's address and the session id are what a merchant fills in). */
const MINIMAL = `<html>
  <head>
    <script src="https://GATEWAY/static/checkout/checkout.min.js"
            data-error="errorCallback" data-cancel="cancelCallback"></script>
    <script type="text/javascript">
      function errorCallback(error) { console.log(JSON.stringify(error)); }
      function cancelCallback() { console.log('Payment cancelled'); }
      Checkout.configure({ session: { id: '<your_initiate_checkout_session_ID>' } });
    </script>
  </head>
  <body>
    ...
    <div id="embed-target"> </div>
    <input type="button" value="Pay with Embedded Page" onclick="Checkout.showEmbeddedPage('#embed-target');" />
    <input type="button" value="Pay with Payment Page" onclick="Checkout.showPaymentPage();" />
    ...
  </body>
</html>`;

t.test('the embedded page pays inside the shop\'s page; the reference\'s minimal page works by changing only the gateway\'s address', { skip }, async (t) => {
  const { gateway, shop } = await gatewayAndShop(t);
  const browser = await launch(t);
  const context = await browser.newContext({ viewport: { width: 1000, height: 1100 } });
  // What the shop's page hears from the embedded page (kept here: the page navigates away).
  const messages: string[] = [];
  await context.exposeFunction('recordMessage', (message: string) => { messages.push(message); });
  await context.addInitScript(() => {
    const record = (window as unknown as { recordMessage: (m: string) => void }).recordMessage;
    window.addEventListener('message', (event) => { if (window.top === window) record(JSON.stringify(event.data)); });
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  const { orderId } = await openShop(page, shop);
  await page.click('#pay-embedded');
  const frame = page.frameLocator('#embed-target iframe.gw-checkout-frame');
  await frame.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  t.match(page.url(), /^http:\/\/localhost:/, 'the payer stays on the shop\'s page');
  t.equal(await frame.locator('#merchant-name').textContent(), 'Demo Shop');
  t.notOk(await frame.locator('#cancel-button').isVisible(), 'no cancel on the embedded page (the reference: cancel is for the payment page)');
  const box = await page.locator('iframe.gw-checkout-frame').boundingBox();
  t.ok(box && box.height > 500, 'the frame takes the page\'s height', { box });
  await typeCard(frame, APPROVED);
  t.equal(await field(frame, 'number').inputValue(), '5123 4500 0000 0008');
  await frame.locator('#pay-button').click();
  const paid = await shopResult(page);
  t.ok(messages.some((m) => m.includes('"type":"complete"') && /"resultIndicator":"[0-9a-f]{16}"/.test(m)), 'the embedded page told the shop\'s page', { messages });
  t.same(messages.filter((m) => m.includes(APPROVED.number) || m.includes('5123 4500')), [], 'no card number in what the shop\'s page heard');
  t.equal(paid.tone, 'approved', paid.text);
  t.equal((await retrieveOrder(gateway, orderId)).json().status, 'CAPTURED');

  // The reference's page, served by a server of its own on localhost.
  const auth = basic(`merchant.${M1.id}`, M1.apiPassword);
  const initiate = async (orderId: string) => (await call(gateway.url, 'POST', `/api/rest/version/100/merchant/${M1.id}/session`, auth, {
    apiOperation: 'INITIATE_CHECKOUT', interaction: { operation: 'PURCHASE', merchant: { name: 'Minimal Merchant' } },
    order: { currency: 'USD', amount: '12.50', id: orderId, description: 'A minimal order' },
  })).json().session.id as string;
  let session = '';
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' })
    .end(MINIMAL.replace('https://GATEWAY', gateway.url).replace('<your_initiate_checkout_session_ID>', session)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const merchantPage = `http://localhost:${(server.address() as AddressInfo).port}/`;

  for (const button of ['Pay with Payment Page', 'Pay with Embedded Page']) {
    const order = `minimal-${button.split(' ')[2]?.toLowerCase()}`;
    session = await initiate(order);
    await page.goto(merchantPage);
    await page.click(`input[value="${button}"]`);
    const scope = button.includes('Embedded') ? page.frameLocator('#embed-target iframe') : page;
    await scope.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
    t.equal(await scope.locator('#pay-button').textContent(), 'Pay $12.50', `${button}: the gateway's page`);
    await typeCard(scope, APPROVED);
    await scope.locator('#pay-button').click();
    await page.waitForURL(/\/checkout\/receipt\/SESSION[0-9A-Za-z]+\?resultIndicator=[0-9a-f]{16}&sessionVersion=/, { timeout: 30_000 });
    await page.locator('#outcome.ok').waitFor({ timeout: 30_000 });
    t.equal(await page.textContent('#outcome-title'), 'Payment successful', `${button}: no returnUrl, the gateway's receipt`);
    t.match(await page.textContent('#outcome-details'), /Minimal Merchant.*\$12\.50.*512345xxxxxx0008/, 'the receipt: merchant, amount, card masked');
    t.equal((await retrieveOrder(gateway, order)).json().status, 'CAPTURED', `${button}: paid`);
  }
  t.same(errors, [], 'no script error');
});
