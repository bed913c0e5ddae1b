// The timeline page in headless Chromium (Debian's /usr/bin/chromium via playwright-core): open
// it, create a token and a payment, and see both appear live, newest first, in the gateway's words;
// a row opened shows its fields, card numbers masked; a full page scrolled down still shows a new
// event when following live; a filter; the compact and expanded views; the filters' placeholders
// whole at 1280 and 375 px.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { chromium, type Page } from 'playwright-core';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { streams } from '../../domain/events.js';
import { budget } from '../helpers/slowdown.js';

const CHROMIUM = '/usr/bin/chromium';

t.test('the timeline page shows new events live, newest first, in the gateway’s words', { skip: existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium` }, async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const server = await startServer({
    EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), ADMIN_PASSWORD: 'admin-secret-for-the-test',
  });
  t.teardown(() => server.stop('SIGKILL'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ httpCredentials: { username: 'admin', password: 'admin-secret-for-the-test' }, viewport: { width: 1200, height: 700 } });
  context.setDefaultTimeout(budget(30_000)); // a bound on a hang, sized for the machine's load
  const page = await context.newPage();
  // The pages work under their Content-Security-Policy: Chromium reports each thing it refuses.
  const refused: string[] = [];
  page.on('console', (message) => { if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text()); });
  const opened = await page.goto(`${server.url}/admin/timeline`);
  t.match(opened?.headers()['content-security-policy'], /script-src 'sha256-/, 'the page is served with its policy');
  t.equal(opened?.headers()['x-frame-options'], 'DENY');
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('following live'));
  t.equal(await page.locator('li.event').count(), 0, 'an empty store shows no events');
  t.match(await page.locator('#events').innerText(), 'No events yet');

  const created = await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
  const token = created.json().token as string;
  const paid = await call(server.url, 'PUT', payPath(M1.id, token, '10000000001', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '9.99', currency: 'USD' } });
  t.equal(paid.status, 201);

  await page.locator('li.event[data-type="PaymentRecorded"]').waitFor({ timeout: budget(30_000) });
  const types = await page.locator('li.event').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.type));
  t.same(types, ['PaymentRecorded', 'TokenCreated'], 'both events appear, newest first');
  const payment = page.locator('li.event[data-type="PaymentRecorded"] > .row');
  t.match(await payment.innerText(), /PAY 9\.99 USD → APPROVED \(00\)[\s\S]*decided by expiry 01\/39 in the test acquirer's table/, 'what happened and which rule decided');
  t.match(await page.locator('li.event[data-type="TokenCreated"] > .row').innerText(), 'Token created · 512345xxxxxx0008 MASTERCARD 01/39');
  t.equal(await page.locator('li.event .detail').count(), 0, 'compact: one line per event, no fields shown');

  await page.locator('li.event[data-type="TokenCreated"] > .row').click();
  const fields = page.locator('li.event[data-type="TokenCreated"] table.fields');
  t.match(await fields.innerText(), /sourceOfFunds\.card\.number\s+512345xxxxxx0008/, 'opened: its fields, the number masked');
  const payload = await page.locator('li.event[data-type="TokenCreated"] .detail pre').textContent();
  t.match(payload, '[sealed]', 'the sealed number is hidden');
  t.notMatch(await page.content(), '5123450000000008', 'the card number is not on the page');

  // Expanded: every row's fields; compact again: none.
  await page.locator('#expanded').check();
  t.equal(await page.locator('li.event .detail:visible').count(), 2, 'expanded: both rows show their fields');
  await page.locator('#expanded').uncheck();
  t.equal(await page.locator('li.event .detail:visible').count(), 0, 'compact again');

  // A page full of events, scrolled to its end: a new event still comes into view, at the top.
  for (let i = 0; i < 25; i++) await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
  await page.waitForFunction(() => document.querySelectorAll('li.event').length === 27, undefined, { timeout: budget(30_000) });
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  const second = await call(server.url, 'PUT', payPath(M1.id, token, '10000000002', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '5.00', currency: 'USD' } });
  t.equal(second.status, 201);
  const newest = page.locator('li.event').first();
  await page.waitForFunction(() => (document.querySelector('li.event') as HTMLElement | null)?.innerText.includes('PAY 5.00 USD'), undefined, { timeout: budget(30_000) });
  await page.waitForFunction(() => { const r = document.querySelector('li.event')!.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; }, undefined, { timeout: budget(10_000) });
  t.match(await newest.innerText(), 'PAY 5.00 USD → APPROVED (00)', 'the new payment on top, in view');

  // Filtering by stream reloads the list with only that stream.
  await page.fill('input[name=stream]', streams.order(M1.id, '10000000001'));
  await page.click('#filters button[type=submit]');
  await page.waitForFunction(() => document.querySelectorAll('li.event').length === 1);
  t.equal(await page.locator('li.event').getAttribute('data-type'), 'PaymentRecorded');

  // Each view's filter boxes say what they take, never cut off: the whole placeholder where it fits,
  // else the short one (the views are hidden when the page's first fitting runs).
  const EVENTS = { stream: 'order-merchant:id', category: 'order, token, session', correlationId: 'or a request id', merchantId: 'TESTMERCHANT01' };
  const REQUESTS = { status: '400, 4xx', operation: 'PAY, REFUND', path: '/order/20000000001', correlationId: 'checkout-42', merchant: 'TESTMERCHANT01' };
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    for (const [view, shown] of [['', EVENTS], ['?view=requests', REQUESTS]] as const) {
      await page.goto(`${server.url}/admin/timeline${view}`);
      const boxes = await filterPlaceholders(page);
      t.same(Object.fromEntries(boxes.map((b) => [b.name, b.placeholder])), shown, `${width} px, ${view ? 'requests' : 'events'}: the placeholders shown`);
      t.same(boxes.filter((b) => !b.fits).map((b) => `${b.name}: ${b.placeholder}`), [], `${width} px, ${view ? 'requests' : 'events'}: each fits its box`);
    }
  }
  t.same(refused, [], 'nothing refused by the Content-Security-Policy');
});

/** The shown filter boxes' placeholders, and whether each fits its box (measured as a span in the input's font). */
const filterPlaceholders = (page: Page) => page.locator('form.toolbar:visible input:not([type=checkbox])').evaluateAll((inputs) => inputs.map((node) => {
  const input = node as HTMLInputElement;
  const style = getComputedStyle(input);
  const span = document.body.appendChild(Object.assign(document.createElement('span'), { textContent: input.placeholder }));
  Object.assign(span.style, { font: style.font, letterSpacing: style.letterSpacing, whiteSpace: 'pre', position: 'absolute' });
  const width = span.getBoundingClientRect().width;
  span.remove();
  return { name: input.name, placeholder: input.placeholder, fits: width <= input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
}));
