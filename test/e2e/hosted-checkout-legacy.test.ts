// The legacy Checkout library (/checkout/version/57/checkout.js, Create Checkout Session) in
// headless Chromium, with a merchant page written as Mastercard's Node sample writes it: the
// callbacks by name in data-* attributes (complete, cancel, beforeRedirect, afterRedirect), the
// legacy configure() with the merchant, the order (its amount a function) and the merchant's
// name. The payment page brings the payer back to that page, where completeCallback gets
// (resultIndicator, sessionVersion) and afterRedirect what beforeRedirect returned; the Lightbox
// pays in a dialog over the page, and its close button is a cancel.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { basic, M1 } from '../helpers/app.js';
import { call } from '../helpers/server.js';
import { APPROVED, arrivedAt, CHROMIUM, gatewayAndShop, launch, retrieveOrder, typeCard } from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;

interface Checkout { sessionId: string; sessionVersion: string; successIndicator: string; orderId: string }

/** The Node sample's templates/hostedCheckout.ejs, trimmed, its values written in. */
const samplePage = (gateway: string, c: Checkout) => `<!doctype html><html><head><title>Hosted Checkout</title></head><body>
<input type="button" value="Pay with Lightbox" onclick="Checkout.showLightbox();" />
<input type="button" value="Pay with Payment Page" onclick="Checkout.showPaymentPage();" />
<input type="text" id="note" name="note" value="">
<script src="${gateway}/checkout/version/57/checkout.js"
        data-error="errorCallback" data-cancel="cancelCallback"
        data-beforeRedirect="beforeRedirect" data-afterRedirect="afterRedirect"
        data-complete="completeCallback"></script>
<script>
  var merchantId = '${M1.id}', sessionId = '${c.sessionId}', sessionVersion = '${c.sessionVersion}', successIndicator = '${c.successIndicator}', orderId = '${c.orderId}';
  var resultIndicator = null;
  function errorCallback(error) { localStorage.setItem('error', JSON.stringify(error)); }
  function cancelCallback() { localStorage.setItem('cancelled', 'yes'); }
  function beforeRedirect() { return { successIndicator: successIndicator, orderId: orderId, note: document.getElementById('note').value }; }
  function afterRedirect(data) {
    localStorage.setItem('afterRedirect', JSON.stringify(data));
    if (resultIndicator) {
      var result = (resultIndicator === data.successIndicator) ? "SUCCESS" : "ERROR";
      window.location.href = "/process/hostedCheckout/" + data.orderId + "/" + result;
    } else {
      window.location.href = "/process/hostedCheckout/" + data.orderId + "/" + data.successIndicator + "/" + sessionId;
    }
  }
  function completeCallback(response, version) {
    localStorage.setItem('complete', JSON.stringify([typeof response, arguments.length, version]));
    resultIndicator = response;
    var result = (resultIndicator === successIndicator) ? "SUCCESS" : "ERROR";
    window.location.href = "/process/hostedCheckout/" + orderId + "/" + result;
  }
  Checkout.configure({
    merchant: merchantId,
    order: { amount: function () { return 80 + 20; }, currency: 'USD', description: 'Ordered goods' },
    session: { id: sessionId, version: sessionVersion },
    interaction: { merchant: { name: 'Merchant Name', address: { line1: '200 Sample St', line2: '1234 Example Town' } } }
  });
</script></body></html>`;

t.test('the legacy library: the Node sample\'s page pays on the payment page and in the Lightbox', { skip }, async (t) => {
  const { gateway } = await gatewayAndShop(t);
  const auth = basic(`merchant.${M1.id}`, M1.apiPassword);
  let current: Checkout | undefined;
  const create = async (orderId: string) => {
    const answer = (await call(gateway.url, 'POST', `/api/rest/version/57/merchant/${M1.id}/session`, auth, {
      apiOperation: 'CREATE_CHECKOUT_SESSION', interaction: { operation: 'PURCHASE' }, order: { id: orderId, amount: '100.00', currency: 'USD' },
    })).json();
    current = { sessionId: answer.session.id, sessionVersion: answer.session.version, successIndicator: answer.successIndicator, orderId };
  };
  const server = createServer((request, response) => {
    const body = request.url?.startsWith('/process/') ? `<!doctype html><title>result</title><p id="result">${request.url}</p>` : samplePage(gateway.url, current as Checkout);
    response.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  const merchantPage = `http://localhost:${(server.address() as AddressInfo).port}/checkout`;
  const browser = await launch(t);
  const page = await browser.newPage({ viewport: { width: 1000, height: 1000 } });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  const stored = (key: string) => page.evaluate((k) => localStorage.getItem(k), key);

  // The payment page, and back.
  await create('legacy-page');
  await page.goto(merchantPage);
  await page.fill('#note', 'gift wrap');
  await page.click('input[value="Pay with Payment Page"]');
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  t.equal(await page.textContent('#merchant-name'), 'Merchant Name', 'the name the legacy configure() gave');
  t.equal(await page.textContent('#pay-button'), 'Pay $100.00');
  await typeCard(page, APPROVED);
  await page.click('#pay-button');
  await arrivedAt(page, /\/process\/hostedCheckout\//);
  t.equal(new URL(page.url()).pathname, '/process/hostedCheckout/legacy-page/SUCCESS', 'the sample\'s own verdict: resultIndicator matched');
  const [type, count, version] = JSON.parse(await stored('complete') ?? '[]') as [string, number, unknown];
  t.same([type, count], ['string', 2], 'completeCallback(resultIndicator, sessionVersion): two arguments, the first a string');
  t.match(version, /^[0-9a-f]{10}$/, 'the second the session\'s version');
  t.same(JSON.parse(await stored('afterRedirect') ?? 'null'), { successIndicator: current?.successIndicator, orderId: 'legacy-page', note: 'gift wrap' }, 'afterRedirect gets what beforeRedirect kept');
  t.equal((await retrieveOrder(gateway, 'legacy-page')).json().status, 'CAPTURED');

  // The Lightbox: closed is a cancel; then paid.
  await create('legacy-lightbox');
  await page.goto(merchantPage);
  await page.click('input[value="Pay with Lightbox"]');
  const box = page.frameLocator('.gw-checkout-lightbox iframe');
  await box.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  await page.click('.gw-checkout-lightbox button[aria-label="Close"]');
  t.equal(await page.locator('.gw-checkout-lightbox').count(), 0, 'the dialog closes');
  t.equal(await stored('cancelled'), 'yes', 'cancelCallback ran');
  await page.click('input[value="Pay with Lightbox"]');
  await box.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  await typeCard(box, APPROVED);
  await box.locator('#pay-button').click();
  await arrivedAt(page, /\/process\/hostedCheckout\//);
  t.equal(new URL(page.url()).pathname, '/process/hostedCheckout/legacy-lightbox/SUCCESS', 'paid in the Lightbox');
  t.equal((await retrieveOrder(gateway, 'legacy-lightbox')).json().status, 'CAPTURED');
  t.same(errors, [], 'no script error');
});
