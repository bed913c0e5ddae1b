// Where the payer goes from the embedded page (checkout.min.js, Checkout.showEmbeddedPage) and the
// Lightbox (the legacy checkout.js, Checkout.showLightbox), in headless Chromium, with a merchant
// page of its own that loads the library the gateway serves. The reference's complete callback
// ("the name of a global function or a URL string. URLs will have a query parameter appended for
// each argument"; the Lightbox's result "can be obtained with the complete callback"): a function
// gets the result and the merchant's page stays (the Lightbox closed), a URL gets the window with
// resultIndicator and sessionVersion. An address the merchant gave for the end of the checkout
// (redirectMerchantUrl once the attempts are used up, timeoutUrl) takes the whole window there,
// whatever callbacks the page named, and a forged message from elsewhere moves nothing. At 1000
// and 375 px.
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import type { FrameLocator } from 'playwright-core';
import { basic, M1 } from '../helpers/app.js';
import { call, type RunningServer } from '../helpers/server.js';
import { advanceClock, APPROVED, CHROMIUM, DECLINED, gatewayAndShop, launch, retrieveOrder, typeCard } from './hosted-checkout.fixture.js';

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;

interface Checkout { sessionId: string; successIndicator: string; orderId: string }
interface PageSetup { library: 'min' | 'legacy'; complete: string }

/** The merchant's page: the library, its complete callback (a function's name or a URL), the two ways to pay. */
const merchantPage = (gateway: string, c: Checkout, setup: PageSetup) => `<!doctype html><html><head><title>Merchant</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<script src="${gateway}${setup.library === 'min' ? '/static/checkout/checkout.min.js' : '/checkout/version/57/checkout.js'}"
        data-complete="${setup.complete}" data-error="errorCallback"></script>
<script>
  function completeCallback() { localStorage.setItem('complete', JSON.stringify([].slice.call(arguments))); }
  function errorCallback(error) { localStorage.setItem('error', JSON.stringify(error)); }
  Checkout.configure({ session: { id: '${c.sessionId}' } });
</script></head><body>
<h1 id="merchant">Your basket</h1>
<div id="embed-target"></div>
<button id="embedded" onclick="Checkout.showEmbeddedPage('#embed-target')">Pay here</button>
<button id="lightbox" onclick="Checkout.showLightbox()">Pay in a Lightbox</button>
</body></html>`;

/** The merchant's site: the page above at /checkout, any other address a page naming its path. */
async function merchantSite(t: Test, gateway: RunningServer, current: () => { c: Checkout; setup: PageSetup }) {
  const server = createServer((request, response) => {
    const path = request.url?.split('?')[0] ?? '/';
    const body = path === '/checkout' ? merchantPage(gateway.url, current().c, current().setup) : `<!doctype html><h1 id="landed">${path}</h1>`;
    response.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

let orders = 0;
/** Initiate Checkout (version 100) or Create Checkout Session (57, for the legacy library). */
async function initiate(gateway: RunningServer, version: 100 | 57, interaction: Record<string, unknown>): Promise<Checkout> {
  const orderId = `e2e-redirect-${process.pid}-${++orders}`;
  const answer = await call(gateway.url, 'POST', `/api/rest/version/${version}/merchant/${M1.id}/session`, basic(`merchant.${M1.id}`, M1.apiPassword), {
    apiOperation: version === 100 ? 'INITIATE_CHECKOUT' : 'CREATE_CHECKOUT_SESSION',
    interaction: { operation: 'PURCHASE', merchant: { name: 'Demo Shop' }, ...interaction }, order: { id: orderId, amount: '30.00', currency: 'USD' },
  });
  if (answer.status !== 201) throw new Error(`Initiate Checkout: ${answer.status} ${answer.text}`);
  return { sessionId: answer.json().session.id, successIndicator: answer.json().successIndicator, orderId };
}

async function walk(t: Test, viewport: { width: number; height: number }) {
  const { gateway } = await gatewayAndShop(t);
  let state: { c: Checkout; setup: PageSetup } | undefined;
  const site = await merchantSite(t, gateway, () => state as { c: Checkout; setup: PageSetup });
  const browser = await launch(t);
  const page = await browser.newPage({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  // Every address the merchant's window (not a frame) went to.
  const visited: string[] = [];
  page.on('framenavigated', (frame) => { if (frame === page.mainFrame()) visited.push(frame.url()); });
  const stored = (key: string) => page.evaluate((k) => localStorage.getItem(k), key);

  /** The merchant's page for checkout `c`, the payment opened in `how`; the frame the gateway's page is in. */
  async function open(c: Checkout, setup: PageSetup, how: 'embedded' | 'lightbox'): Promise<FrameLocator> {
    state = { c, setup };
    await page.goto(`${site}/checkout`);
    await page.evaluate(() => localStorage.clear());
    await page.click(`#${how}`);
    const frame = page.frameLocator(how === 'embedded' ? '#embed-target iframe.gw-checkout-frame' : '.gw-checkout-lightbox iframe.gw-checkout-frame');
    await frame.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
    return frame;
  }
  const onWindow = async (path: string) => {
    await page.waitForURL((url) => url.pathname === path, { timeout: 30_000 });
    t.equal(await page.textContent('#landed'), path, `the merchant's window is on ${path}, not a frame`);
    return Object.fromEntries(new URL(page.url()).searchParams);
  };

  // The embedded page, its one attempt declined: redirectMerchantUrl, the complete function not called.
  let c = await initiate(gateway, 100, { retryAttemptCount: 0, redirectMerchantUrl: `${site}/failed?cart=5`, returnUrl: `${site}/return` });
  let frame = await open(c, { library: 'min', complete: 'completeCallback' }, 'embedded');
  // A message that is not the gateway's frame's: the library ignores it.
  await page.evaluate((url) => window.postMessage({ gw: 'tokengate-checkout', type: 'redirect', url }, '*'), `${site}/forged`);
  await typeCard(frame, DECLINED);
  await frame.locator('#pay-button').click();
  let query = await onWindow('/failed');
  t.equal(query.cart, '5', 'the merchant\'s own parameters kept');
  t.match(query.resultIndicator, /^[0-9a-f]{16}$/, 'with a resultIndicator');
  t.not(query.resultIndicator, c.successIndicator, 'which is not the successIndicator');
  t.equal(await stored('complete'), null, 'the complete callback is not called for it');
  t.same((await retrieveOrder(gateway, c.orderId)).json().transaction.map((x: { response: { gatewayCode: string } }) => x.response.gatewayCode), ['DECLINED']);

  // The embedded page, approved, complete a URL: the window goes there with the result as parameters.
  c = await initiate(gateway, 100, { returnUrl: `${site}/return` });
  frame = await open(c, { library: 'min', complete: `${site}/receipt` }, 'embedded');
  await typeCard(frame, APPROVED);
  await frame.locator('#pay-button').click();
  query = await onWindow('/receipt');
  t.equal(query.resultIndicator, c.successIndicator, 'complete as a URL: resultIndicator appended, the successIndicator');
  t.match(query.sessionVersion, /^[0-9a-f]{10}$/, 'and sessionVersion');

  // The embedded page timing out, no timeout callback named: the window goes to timeoutUrl.
  c = await initiate(gateway, 100, { timeout: 300, timeoutUrl: `${site}/timed-out`, returnUrl: `${site}/return` });
  frame = await open(c, { library: 'min', complete: 'completeCallback' }, 'embedded');
  await advanceClock(gateway, M1.id, 301_000);
  await onWindow('/timed-out');
  t.equal((await retrieveOrder(gateway, c.orderId)).status, 400, 'nothing paid');

  // The Lightbox, approved, complete a function: called with (resultIndicator, sessionVersion), the dialog closed, the page kept.
  c = await initiate(gateway, 57, { returnUrl: `${site}/return` });
  frame = await open(c, { library: 'legacy', complete: 'completeCallback' }, 'lightbox');
  await typeCard(frame, APPROVED);
  await frame.locator('#pay-button').click();
  await page.waitForFunction(() => localStorage.getItem('complete') !== null, undefined, { timeout: 30_000 });
  const [resultIndicator, sessionVersion, ...more] = JSON.parse(await stored('complete') ?? '[]') as string[];
  t.equal(resultIndicator, c.successIndicator, 'complete(resultIndicator, sessionVersion): the successIndicator');
  t.match(sessionVersion, /^[0-9a-f]{10}$/);
  t.same(more, [], 'two arguments (version 57)');
  t.equal(await page.locator('.gw-checkout-lightbox').count(), 0, 'the Lightbox closed');
  t.equal(new URL(page.url()).pathname, '/checkout', 'the payer stays on the merchant\'s page');
  t.ok(await page.locator('#merchant').isVisible(), 'which is there to read');
  t.equal((await retrieveOrder(gateway, c.orderId)).json().status, 'CAPTURED');

  // The Lightbox, its one attempt declined: redirectMerchantUrl, the dialog gone with the page.
  c = await initiate(gateway, 57, { retryAttemptCount: 0, redirectMerchantUrl: `${site}/failed-lightbox`, returnUrl: `${site}/return` });
  frame = await open(c, { library: 'legacy', complete: 'completeCallback' }, 'lightbox');
  await typeCard(frame, DECLINED);
  await frame.locator('#pay-button').click();
  query = await onWindow('/failed-lightbox');
  t.match(query.resultIndicator, /^[0-9a-f]{16}$/);
  t.equal(await stored('complete'), null, 'the complete callback is not called for it');

  t.same(visited.filter((url) => url.includes('/forged')), [], 'the forged message moved nothing');
  t.same(visited.filter((url) => new URL(url).pathname === '/return'), [], 'never the returnUrl: each end went where the merchant said');
  t.same(errors, [], 'no script error');
}

t.test('the embedded page and the Lightbox: complete a function or a URL; redirectMerchantUrl and timeoutUrl take the merchant\'s window', { skip }, (t) => walk(t, { width: 1000, height: 1000 }));
t.test('the same at 375 px', { skip }, (t) => walk(t, { width: 375, height: 812 }));
