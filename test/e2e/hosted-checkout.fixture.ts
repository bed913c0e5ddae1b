// The example shop of examples/hosted-checkout/ as a child process, a gateway process for it to
// pay through, and what a payer does in Chromium on the gateway's payment page.
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type { FrameLocator, Page } from 'playwright-core';
import { basic, M1, M2, MERCHANTS } from '../helpers/app.js';
import { call, startServer, type RunningServer } from '../helpers/server.js';
import { ADMIN_PASSWORD, launch, startShop as startExampleShop, type Shop } from './hosted-session.fixture.js';

export { ADMIN_PASSWORD, CHROMIUM, launch, type Shop } from './hosted-session.fixture.js';

const SHOP = fileURLToPath(new URL('../../examples/hosted-checkout/server.mjs', import.meta.url));

/** M1 as it is; M2 with 3-D Secure on its payment page (the merchant profile's checkout.threeDSecure). */
export const CHECKOUT_MERCHANTS = {
  merchants: MERCHANTS.merchants.map((m) => (m.id === M2.id ? { ...m, checkout: { threeDSecure: true } } : m)),
};

/** The example shop as a child process, started as Hosted Session's shops are. */
export const startShop = (env: Record<string, string>): Promise<Shop> => startExampleShop(env, SHOP);

/** A gateway process (SQLite in a test directory, trace logs) and the example shop of `merchant` paying through it. */
export async function gatewayAndShop(t: Test, options: { merchant?: typeof M1; env?: Record<string, string>; shopEnv?: Record<string, string> } = {}) {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(CHECKOUT_MERCHANTS) });
  const gateway = await startServer({
    EVENT_STORE: `sqlite:${join(dir, 'data', 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), ADMIN_PASSWORD, LOG_LEVEL: 'trace', TEST_CONTROL: 'on',
    ...options.env,
  });
  t.teardown(() => gateway.stop('SIGKILL'));
  const merchant = options.merchant ?? M1;
  const shop = await startShop({ GATEWAY_URL: gateway.url, MERCHANT_ID: merchant.id, API_PASSWORD: merchant.apiPassword, ...options.shopEnv });
  t.teardown(() => shop.stop());
  return { dir, gateway, shop };
}

/** Retrieve Order, as the merchant's server reads it. */
export async function retrieveOrder(gateway: RunningServer, orderId: string, merchant = M1) {
  const answer = await call(gateway.url, 'GET', `/api/rest/version/100/merchant/${merchant.id}/order/${orderId}`, basic(`merchant.${merchant.id}`, merchant.apiPassword));
  return answer;
}

/** The shop's page: its session id and order id. */
export async function openShop(page: Page, shop: Shop): Promise<{ sessionId: string; orderId: string }> {
  await page.goto(shop.url);
  await page.locator('#pay-page').waitFor({ timeout: 30_000 });
  const html = await page.content();
  return { sessionId: /id: '(SESSION[0-9A-Za-z]+)'/.exec(html)?.[1] as string, orderId: /Order ([0-9a-f-]{36})/.exec(html)?.[1] as string };
}

/** From the shop to the gateway's payment page, its card fields ready. */
export async function toPaymentPage(page: Page): Promise<void> {
  await page.click('#pay-page');
  await page.waitForURL(/\/checkout\/pay\/SESSION/, { timeout: 30_000 });
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
}

export interface Card { number: string; month: string; year: string; securityCode?: string; name?: string }

/** The input of a hosted field of the page (or of the embedded page's frame). */
export const field = (scope: Page | FrameLocator, role: string) => scope.frameLocator(`iframe.gw-proxy-${role}`).locator(`#${role}`);

export async function typeCard(scope: Page | FrameLocator, card: Card): Promise<void> {
  await field(scope, 'number').fill('');
  await field(scope, 'number').pressSequentially(card.number);
  await field(scope, 'expiryMonth').fill(card.month);
  await field(scope, 'expiryYear').fill(card.year);
  await field(scope, 'securityCode').fill('');
  if (card.securityCode) await field(scope, 'securityCode').pressSequentially(card.securityCode);
  if (card.name) await field(scope, 'nameOnCard').fill(card.name);
}

/** The shop's page after the payer came back: its tone (approved, failed) and text. */
/**
 * Waits until the page's address matches `url`, through a chain of navigations: Playwright's
 * waitForURL fails with net::ERR_ABORTED when the navigation it watched is cut short by the next
 * one (the legacy library reads the hash the payment page returned with, clears it, then goes on),
 * so such an abort is waited past, within the one deadline.
 */
export async function arrivedAt(page: Page, url: RegExp, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await page.waitForURL(url, { timeout: Math.max(1, deadline - Date.now()) });
      return;
    } catch (error) {
      if (Date.now() >= deadline || !/ERR_ABORTED|frame was detached/.test(String(error))) throw error;
    }
  }
}

export async function shopResult(page: Page): Promise<{ tone: string; text: string }> {
  await page.locator('#result').waitFor({ timeout: 30_000 });
  return { tone: (await page.getAttribute('#result', 'data-tone')) ?? '', text: (await page.textContent('#result-text')) ?? '' };
}

/** Advance the merchant's sandbox clock (the test-control API). */
export async function advanceClock(gateway: RunningServer, merchantId: string, milliseconds: number) {
  const answer = await call(gateway.url, 'POST', `/admin/api/test-control/merchants/${merchantId}/clock/advance`, basic('admin', ADMIN_PASSWORD), { milliseconds });
  if (answer.status !== 200) throw new Error(`clock/advance: ${answer.status} ${answer.text}`);
}

export const APPROVED: Card = { number: '5123450000000008', month: '01', year: '39', securityCode: '100', name: 'Jo Payer' };
export const DECLINED: Card = { ...APPROVED, month: '05' };

/** The merchant's site: any address answers a page naming its path (#landed). */
export async function merchantSite(t: Test): Promise<string> {
  const server = createServer((request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(`<h1 id="landed">${request.url?.split('?')[0]}</h1>`));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return `http://localhost:${(server.address() as AddressInfo).port}`;
}

let orders = 0;
/** Initiate Checkout as the merchant's server sends it (M1, version 100, a PURCHASE of $25.00 unless `extra` says otherwise); the session and order ids. */
export async function initiateCheckout(gateway: RunningServer, interaction: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const orderId = `e2e-checkout-${process.pid}-${++orders}`;
  const answer = await call(gateway.url, 'POST', `/api/rest/version/100/merchant/${M1.id}/session`, basic(`merchant.${M1.id}`, M1.apiPassword), {
    apiOperation: 'INITIATE_CHECKOUT', interaction: { operation: 'PURCHASE', merchant: { name: 'Demo Shop' }, ...interaction },
    order: { id: orderId, amount: '25.00', currency: 'USD', description: 'Ordered goods' }, ...extra,
  });
  if (answer.status !== 201) throw new Error(`Initiate Checkout: ${answer.status} ${answer.text}`);
  return { sessionId: answer.json().session.id as string, orderId };
}

/** The payer on the payment page of `sessionId` (as the merchant's server sent them there), its card fields ready. */
export async function openPage(page: Page, gateway: RunningServer, sessionId: string) {
  await page.goto(`${gateway.url}/checkout/pay/${sessionId}?checkoutVersion=1.0.0`);
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
}

/**
 * A gateway (with the example shop), the merchant's site, and a Chromium page at `viewport` (a
 * phone's below 500 px wide), its script errors collected in `errors`.
 */
export async function checkoutPage(t: Test, viewport: { width: number; height: number }) {
  const { gateway } = await gatewayAndShop(t);
  const site = await merchantSite(t);
  const browser = await launch(t);
  const page = await browser.newPage({ viewport, ...(viewport.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return { gateway, site, browser, page, errors };
}
