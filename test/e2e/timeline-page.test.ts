// The timeline page in headless Chromium (Debian's /usr/bin/chromium via playwright-core):
// open it, create a token and a payment, and see both events appear live.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { chromium } from 'playwright-core';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { streams } from '../../domain/events.js';

const CHROMIUM = '/usr/bin/chromium';

t.test('the timeline page shows new events live', { skip: existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium` }, async (t) => {
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
  const context = await browser.newContext({ httpCredentials: { username: 'admin', password: 'admin-secret-for-the-test' } });
  const page = await context.newPage();
  // The pages work under their Content-Security-Policy: Chromium reports each thing it refuses.
  const refused: string[] = [];
  page.on('console', (message) => { if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text()); });
  const opened = await page.goto(`${server.url}/admin/timeline`);
  t.match(opened?.headers()['content-security-policy'], /script-src 'sha256-/, 'the page is served with its policy');
  t.equal(opened?.headers()['x-frame-options'], 'DENY');
  await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('following live'));
  t.equal(await page.locator('tr.event').count(), 0, 'an empty store shows no events');

  const created = await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
  const token = created.json().token as string;
  const paid = await call(server.url, 'PUT', payPath(M1.id, token, '10000000001', '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '9.99', currency: 'USD' } });
  t.equal(paid.status, 201);

  await page.locator('tr.event[data-type="PaymentRecorded"]').waitFor({ timeout: 30_000 });
  const types = await page.locator('tr.event').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.type));
  t.same(types, ['TokenCreated', 'PaymentRecorded'], 'both events appear, in order');

  await page.locator('tr.event[data-type="TokenCreated"]').click();
  const payload = await page.locator('tr.payload pre').textContent();
  t.match(payload, '512345xxxxxx0008', 'the payload shows the masked number');
  t.match(payload, '[sealed]', 'the sealed number is hidden');
  t.notMatch(payload, '5123450000000008', 'the card number is not on the page');

  // Filtering by stream reloads the list with only that stream.
  await page.fill('input[name=stream]', streams.order(M1.id, '10000000001'));
  await page.click('#filters button[type=submit]');
  await page.waitForFunction(() => document.querySelectorAll('tr.event').length === 1);
  t.equal(await page.locator('tr.event').getAttribute('data-type'), 'PaymentRecorded');
  await page.screenshot({ path: join(dir, 'timeline.png') });
  t.same(refused, [], 'nothing refused by the Content-Security-Policy');
});
