// Hosted Session in headless Chromium (Debian's /usr/bin/chromium via playwright-core): the
// example shop (examples/hosted-session/: its server creates the session and pays with
// session.id; its page is written as for the real gateway) against the real server process. A
// payer types a card into the gateway's frames and gets (a frictionless 3-D Secure card, so that
// the shop's 3-D Secure runs unseen): approved, declined (expiry 05/39, docs/triggers.md), fields
// in error (a number failing Luhn), then approved after correcting it;
// the session's history shows the update. No card number or security code reaches the shop's
// page (its requests, the messages it receives), the shop's server, the gateway's logs and store
// files, or what the gateway serves afterwards. With TOKENGATE_SCREENSHOTS=1 it rewrites
// docs/hosted-session.png and docs/hosted-session-error.png. The same shop at 375 px:
// hosted-session-mobile.test.ts; a session that expires: hosted-session-expiry.test.ts; a 3-D
// Secure challenge and the payer cancelling: hosted-session-3ds.test.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { basic, M1 } from '../helpers/app.js';
import { call, type RunningServer } from '../helpers/server.js';
import { ADMIN_PASSWORD, CHROMIUM, field, gatewayAndShop, launch, openShop, pay, typeCard, type Shop } from './hosted-session.fixture.js';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const SCREENSHOTS = process.env.TOKENGATE_SCREENSHOTS === '1';
const PAN = '5123456789012346';
const BAD_PAN = '5123456789012347';
const CSC = '7391';
const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium`;
const merchantAuth = basic(`merchant.${M1.id}`, M1.apiPassword);

/** Every text the payer's card could have leaked into, by name. */
function haystacks(dir: string, gateway: RunningServer, shop: Shop): Array<[string, string]> {
  const files = readdirSync(join(dir, 'data')).map((f) => join(dir, 'data', f));
  return [['gateway logs', gateway.logs()], ['shop logs', shop.logs()], ...files.map((f): [string, string] => [f, readFileSync(f).toString('latin1')])];
}

t.test('a payer pays in the gateway\'s hosted fields: approved, declined, fields in error; the card only ever reaches the gateway', { skip }, async (t) => {
  const { dir, gateway, shop } = await gatewayAndShop(t);
  const browser = await launch(t);
  const context = await browser.newContext();
  // What the shop's page receives from the frames, and what it sends itself.
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { seenMessages: string[] }).seenMessages = seen;
    window.addEventListener('message', (event) => seen.push(JSON.stringify(event.data)));
  });
  const page = await context.newPage();
  const shopRequests: string[] = [];
  page.on('request', (request) => { if (request.frame() === page.mainFrame()) shopRequests.push(`${request.url()} ${request.postData() ?? ''}`); });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));

  const approvedSession = await openShop(page, shop);
  t.equal(await page.locator('iframe.gw-proxy-number').count(), 1, 'the card number input is replaced by the gateway\'s frame');
  t.notOk(await page.locator('#card-number').isVisible(), 'the shop\'s own input is hidden');
  await typeCard(page, { number: PAN, month: '01', year: '39', securityCode: CSC, name: 'Jo Payer' });
  t.equal(await field(page, 'number').inputValue(), '5123 4567 8901 2346', 'formatCard EMBOSSED groups the digits');
  t.match(await pay(page), /^Payment approved: MASTERCARD 512345xxxxxx2346/);
  if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, 'hosted-session.png') });
  const order = /order ([0-9a-f-]{36})/.exec((await page.textContent('#result')) ?? '')?.[1];
  const retrieved = await call(gateway.url, 'GET', `/api/rest/version/100/merchant/${M1.id}/order/${order}`, merchantAuth);
  t.equal(retrieved.json().status, 'CAPTURED', 'the order is paid as after a server-side PAY');

  await openShop(page, shop);
  await typeCard(page, { number: PAN, month: '05', year: '39', securityCode: CSC });
  t.match(await pay(page), /^Payment declined \(DECLINED\)/, 'expiry 05/39 declines');

  await openShop(page, shop);
  await typeCard(page, { number: BAD_PAN, month: '01', year: '39' });
  t.match(await pay(page), /Please check the card details/);
  t.equal(await page.textContent('#card-number-error'), 'Card number invalid or missing.', 'fields_in_error names the card number');
  // The shop marks its (hidden) input red: the hosted field shows it (polled: it follows by a message).
  const numberFrame = page.frames().find((f) => f.url().includes('/role/number/'));
  const red = await numberFrame?.waitForFunction(() => getComputedStyle(document.getElementById('number') as Element).borderTopColor === 'rgb(180, 35, 24)', null, { timeout: 10_000 });
  t.ok(red, 'the hosted card number turns red');
  if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, 'hosted-session-error.png') });
  await typeCard(page, { number: PAN, month: '01', year: '39' });
  t.match(await pay(page), /^Payment approved/, 'corrected, the same session pays');

  // The session's history shows the update from the hosted fields.
  const admin = basic('admin', ADMIN_PASSWORD);
  const stream = encodeURIComponent(`session-${M1.id}:${approvedSession}`);
  const history = await call(gateway.url, 'GET', `/admin/api/history?stream=${stream}`, admin);
  t.equal(history.status, 200, history.text);
  t.match(history.text, 'SessionUpdated');
  t.match(history.text, `/form/version/100/merchant/${M1.id}/session/${approvedSession}`);

  const seen = await page.evaluate(() => (window as unknown as { seenMessages: string[] }).seenMessages);
  t.ok(seen.length > 10, 'the page heard from the frames');
  t.same(seen.filter((m) => m.includes(PAN) || m.includes(BAD_PAN) || m.includes(CSC) || m.includes('5123 4567')), [], 'no card value in any message to the page');
  t.ok(shopRequests.some((r) => r.includes('/pay')), 'the page asked its server to pay');
  t.same(shopRequests.filter((r) => r.includes(PAN) || r.includes(CSC)), [], 'no card value in the page\'s own requests');
  t.same(errors, [], 'no script error');

  // What the gateway serves afterwards: the session, the orders, the timeline.
  const afterwards = [
    await call(gateway.url, 'GET', `/api/rest/version/100/merchant/${M1.id}/session/${approvedSession}`, merchantAuth),
    retrieved,
    await call(gateway.url, 'GET', '/admin/api/events?limit=500', admin),
    history,
  ];
  for (const answer of afterwards) t.notOk(answer.text.includes(PAN) || answer.text.includes(`"${CSC}"`), 'no card value served afterwards');

  await context.close();
  t.equal(await gateway.stop(), 0);
  for (const [name, text] of haystacks(dir, gateway, shop)) {
    t.notOk(text.includes(PAN) || text.includes(BAD_PAN), `${name}: no card number`);
    const at = text.search(new RegExp(`["'=:]${CSC}["'&,}]`));
    t.notOk(at >= 0, `${name}: no security code`, { context: text.slice(Math.max(0, at - 300), at + 100) });
  }
});
