// The screenshots of docs/operations.md's "The payment page" (Hosted Checkout), for
// scripts/screenshots.ts: the example shop (examples/hosted-checkout/) of each merchant paying
// through the gateway, its payer on the gateway's payment page in Chromium:
//   docs/hosted-checkout.png          the page, a card typed (1000×900)
//   docs/hosted-checkout-declined.png the decline, the payer asked to try again
//   docs/hosted-checkout-3ds.png      the bank's 3-D Secure challenge in the page (a merchant with checkout.threeDSecure)
//   docs/hosted-checkout-mobile.png   the page at 375 px wide
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

interface Merchant { id: string; apiPassword: string }

const CARD = { number: '5123450000000008', month: '01', year: '39', securityCode: '100', name: 'Jo Payer' };

/** The example shop of a merchant, on a port of its own; its address once it listens. */
async function startShop(root: string, gateway: string, merchant: Merchant): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [join(root, 'examples', 'hosted-checkout', 'server.mjs')], {
    env: { ...process.env, PORT: '0', GATEWAY_URL: gateway, MERCHANT_ID: merchant.id, API_PASSWORD: merchant.apiPassword },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      output += String(chunk);
      const match = /Merchant shop at (http:\/\/localhost:\d+\/)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`the shop exited with ${code}:\n${output}`)));
  });
  return { child, url };
}

const field = (page: Page, role: string) => page.frameLocator(`iframe.gw-proxy-${role}`).locator(`#${role}`);

/** From the shop to the payment page, a card typed. */
async function typedPage(page: Page, shop: string, card = CARD) {
  await page.goto(shop);
  await page.click('#pay-page');
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  await field(page, 'number').pressSequentially(card.number);
  await field(page, 'expiryMonth').fill(card.month);
  await field(page, 'expiryYear').fill(card.year);
  await field(page, 'securityCode').fill(card.securityCode);
  await field(page, 'nameOnCard').fill(card.name);
}

async function shot(page: Page, docs: string, file: string) {
  await page.screenshot({ path: join(docs, file) });
  process.stdout.write(`docs/${file}\n`);
}

/** The four screenshots; `merchants[1]` must have 3-D Secure on its payment page. */
export async function checkoutScreenshots(browser: Browser, root: string, gateway: string, merchants: readonly Merchant[]): Promise<void> {
  const docs = join(root, 'docs');
  const plain = await startShop(root, gateway, merchants[0] as Merchant);
  const secure = await startShop(root, gateway, merchants[1] as Merchant);
  try {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
    await typedPage(page, plain.url);
    await shot(page, docs, 'hosted-checkout.png');
    await typedPage(page, plain.url, { ...CARD, month: '05' });
    await page.click('#pay-button');
    await page.locator('#notice.error').waitFor({ timeout: 30_000 });
    await shot(page, docs, 'hosted-checkout-declined.png');
    await typedPage(page, secure.url);
    await page.click('#pay-button');
    await page.frameLocator('#challenge-host iframe').locator('#otp').waitFor({ timeout: 30_000 });
    await shot(page, docs, 'hosted-checkout-3ds.png');
    await page.close();
    const phone = await browser.newPage({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    await typedPage(phone, plain.url);
    await field(phone, 'nameOnCard').focus();
    await shot(phone, docs, 'hosted-checkout-mobile.png');
    await phone.close();
  } finally {
    plain.child.kill('SIGTERM');
    secure.child.kill('SIGTERM');
  }
}
