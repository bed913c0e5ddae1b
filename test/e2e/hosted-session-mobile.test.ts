// The example shop (examples/hosted-session/) on a phone's width, in headless Chromium: the
// hosted fields take the places and sizes of the shop's inputs, so the form looks as the shop
// made it (the card number as wide as the button, month, year and code on one row, the inputs'
// height). With TOKENGATE_SCREENSHOTS=1 it rewrites docs/hosted-session-mobile.png.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { CHROMIUM, field, gatewayAndShop, launch, openShop, typeCard } from './hosted-session.fixture.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const SCREENSHOTS = process.env.TOKENGATE_SCREENSHOTS === '1';
const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;
const PAN = '5123450000000008';

t.test('at 375 px the hosted fields fill the form as the shop\'s inputs did', { skip }, async (t) => {
  const { shop } = await gatewayAndShop(t);
  const browser = await launch(t);
  const page = await browser.newPage({ viewport: { width: 375, height: 812 }, deviceScaleFactor: 2 });
  await openShop(page, shop);
  const number = await page.locator('iframe.gw-proxy-number').boundingBox();
  const button = await page.locator('#pay-button').boundingBox();
  t.ok(number && button && Math.abs(number.width - button.width) < 1, 'the card number spans the form, as wide as the button', { number, button });
  t.ok(number && number.x >= 0 && number.x + number.width <= 375, 'inside the screen');
  const month = await page.locator('iframe.gw-proxy-expiryMonth').boundingBox();
  const code = await page.locator('iframe.gw-proxy-securityCode').boundingBox();
  t.ok(month && code && Math.abs(month.y - code.y) < 1 && month.width > 60, 'month, year and code share a row', { month, code });
  t.equal(Math.round(number?.height ?? 0), 44, 'the shop\'s input height');
  await typeCard(page, { number: PAN, month: '01', year: '39', securityCode: '123', name: 'Jo Payer' });
  await field(page, 'nameOnCard').focus();
  if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, 'hosted-session-mobile.png') });
});
