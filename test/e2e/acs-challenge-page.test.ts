// The 3-D Secure emulator's challenge page in headless Chromium (Debian's /usr/bin/chromium via
// playwright-core), at a phone's width: Authenticate Payer's HTML put in a page opens the challenge
// in its iframe; the page fits the screen; the payer types the one-time code (or picks an
// outcome) and the browser posts the result back to the merchant's redirectResponseUrl (a local
// receiver); the authentication then reads as the payer answered.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { chromium, type Frame } from 'playwright-core';
import { M1, MERCHANTS, tokenAuth } from '../helpers/app.js';
import { startServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';

const CHROMIUM = '/usr/bin/chromium';

t.test('the challenge page at a phone\'s width: the code typed or an outcome picked, the result posted back', { skip: existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium` }, async (t) => {
  const merchantSite = await startReceiver();
  t.teardown(() => merchantSite.close());
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const server = await startServer({ EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json') });
  t.teardown(() => server.stop('SIGKILL'));
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  t.teardown(() => browser.close());

  const transaction = (order: string) => `${server.url}/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/a1`;
  const put = async (order: string, body: object) => {
    const res = await fetch(transaction(order), { method: 'PUT', headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return await res.json() as Record<string, any>;
  };

  for (const [order, answer, expected] of [
    ['e2e-3ds-code', async (frame: Frame) => { await frame.fill('#otp', '123456'); }, { result: 'SUCCESS', status: 'Y' }],
    ['e2e-3ds-pick', async (frame: Frame) => { await frame.selectOption('#selectAuthResult', 'AUTHENTICATION_REJECTED'); }, { result: 'FAILURE', status: 'R' }],
  ] as const) {
    await put(order, {
      apiOperation: 'INITIATE_AUTHENTICATION', authentication: { channel: 'PAYER_BROWSER' }, order: { currency: 'EUR' },
      sourceOfFunds: { provided: { card: { number: '4440000009900010', expiry: { month: '1', year: '39' } } } },
    });
    const payer = await put(order, {
      apiOperation: 'AUTHENTICATE_PAYER', authentication: { redirectResponseUrl: `${merchantSite.origin}/3ds/return?order=${order}` },
      order: { amount: '249.99', currency: 'EUR' }, device: { browser: 'Mozilla/5.0 (iPhone)', browserDetails: { '3DSecureChallengeWindowSize': 'FULL_SCREEN' } },
    });
    t.equal(payer.result, 'PENDING', `${order}: a challenge`);
    const page = await browser.newPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await page.setContent(`<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width"></head><body style="margin:0">${payer.authentication.redirect.html}</body></html>`);
    const frame = await (await page.waitForSelector('iframe#challengeFrame')).contentFrame();
    if (!frame) throw new Error('no challenge frame');
    await frame.waitForSelector('#selectAuthResult');
    t.match(await frame.textContent('body'), /249\.99 EUR/, `${order}: the purchase shown`);
    t.equal(await frame.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), true, `${order}: no sideways scrolling at 375 px`);
    for (const selector of ['#otp', '#selectAuthResult', '#acssubmit']) {
      const box = await frame.locator(selector).boundingBox();
      t.ok(box && box.x >= 0 && box.x + box.width <= 375, `${order}: ${selector} within the screen's width`);
    }
    const before = merchantSite.received.length;
    await answer(frame);
    await frame.click('#acssubmit');
    const [back] = (await merchantSite.waitFor(before + 1)).slice(before);
    t.equal(back?.method, 'POST', `${order}: the browser posted back to the merchant`);
    t.equal(back?.url, `/3ds/return?order=${order}`);
    const fields = new URLSearchParams(back?.body ?? '');
    t.strictSame([fields.get('order.id'), fields.get('transaction.id'), fields.get('result')], [order, 'a1', expected.result], `${order}: the fields posted back`);
    const retrieved = await (await fetch(transaction(order), { headers: { authorization: tokenAuth(M1) } })).json() as Record<string, any>;
    t.equal(retrieved.authentication['3ds2'].transactionStatus, expected.status, `${order}: the authentication as the payer answered`);
    await page.close();
  }
});
