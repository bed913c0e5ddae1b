// The history page in headless Chromium (Debian's /usr/bin/chromium via playwright-core): from a
// row of the timeline, one click to the history of an order paid with a card expiring 05/37
// (UNKNOWN, resolved later by the reactor): its steps in the gateway's words, UNKNOWN in amber;
// opened, the request behind each, the state after each (what changed highlighted); the
// notifications each sent to a local receiver, one line under it, hidden by a switch; the state as
// of a step; search by transaction id and by correlation id. scripts/screenshots.ts takes the
// screenshots of docs/.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { chromium } from 'playwright-core';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { streams } from '../../domain/events.js';
import { eventually } from '../helpers/poll.js';
import { budget } from '../helpers/slowdown.js';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'admin-secret-for-the-test';
const ADMIN = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;

async function send(url: string, method: string, path: string, authorization: string, body: unknown, correlation?: string) {
  const res = await fetch(url + path, {
    method, body: JSON.stringify(body),
    headers: { authorization, 'content-type': 'application/json', ...(correlation ? { 'x-correlation-id': correlation } : {}) },
  });
  const json = await res.json() as Record<string, any>;
  if (res.status !== 201) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

t.test('from the timeline to an UNKNOWN payment’s history, its resolution, as-of and search', { skip: existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium` }, async (t) => {
  // The merchant's notifications go to a local receiver.
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const merchants = { merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id ? { ...m, notifications: { url: `${receiver.origin}/webhook`, secret: 'e2e-history-notification-secret-0123' } } : m)) };
  const dir = t.testdir({ 'merchants.json': JSON.stringify(merchants) });
  const server = await startServer({
    EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), ADMIN_PASSWORD: PASSWORD,
    UNKNOWN_RESOLUTION_DELAY_MS: '200',
  });
  t.teardown(() => server.stop('SIGKILL'));

  // A card expiring 05/37 answers UNKNOWN; the reactor resolves it 200 ms later (12.50: even, APPROVED).
  const token = (await send(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('2223000000000007', '5', '37'), 'checkout-42')).token as string;
  const paid = await send(server.url, 'PUT', payPath(M1.id, token, '10000000003', '7'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } }, 'checkout-42');
  t.equal(paid.response.gatewayCode, 'UNKNOWN');
  // Later in the same checkout, another card stored: an event of another stream, same correlation id.
  const saved = (await send(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('4508750015741019', '1', '39'), 'checkout-42')).token as string;
  // And an order of the order API, for a fuller timeline.
  const other = (await send(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'))).token as string;
  const orderApi = `/api/rest/version/100/merchant/${M1.id}/order/20000000001/transaction`;
  await send(server.url, 'PUT', `${orderApi}/auth-1`, tokenAuth(M1), { apiOperation: 'AUTHORIZE', order: { amount: '100.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token: other } });
  await send(server.url, 'PUT', `${orderApi}/cap-1`, tokenAuth(M1), { apiOperation: 'CAPTURE', transaction: { amount: '100.00', currency: 'USD' } });
  const order = streams.order(M1.id, '10000000003');
  // The payment resolved, and the four notifications (the payment, its resolution, the authorization, the capture) delivered.
  await receiver.waitFor(4);
  await eventually(async () => {
    const events = await call(server.url, 'GET', '/admin/api/events?category=notification&limit=500', ADMIN);
    return events.json().events.filter((e: { type: string }) => e.type === 'NotificationDelivered').length === 4;
  }, { intervalMs: 20 });

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ httpCredentials: { username: 'admin', password: PASSWORD }, viewport: { width: 1200, height: 800 } });
  context.setDefaultTimeout(budget(30_000)); // a bound on a hang, sized for the machine's load
  const page = await context.newPage();
  // The pages work under their Content-Security-Policy: Chromium reports each thing it refuses.
  const refused: string[] = [];
  page.on('console', (message) => { if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text()); });
  const opened = await page.goto(`${server.url}/admin/timeline`);
  t.match(opened?.headers()['content-security-policy'], /script-src 'sha256-/, 'the page is served with its policy');
  t.equal(opened?.headers()['x-frame-options'], 'DENY');
  await page.locator('li.event[data-type="PaymentOutcomeResolved"]').waitFor({ timeout: budget(30_000) });
  // The notifications are under the events that caused them, one line each, not rows of their own.
  t.equal(await page.locator('#events > li.event.notification').count(), 0, 'no notification event is a row of its own');
  t.match(await page.locator('li.event[data-type="PaymentOutcomeResolved"] ul.notes').innerText(), /Notification delivered: HTTP 200 in \d+ ms \(attempt 1\)/);
  await page.locator('#notifications').uncheck();
  t.equal(await page.locator('ul.notes:visible').count(), 0, 'the Notifications switch hides them');
  await page.locator('#notifications').check();

  // One click from the payment's row.
  await page.locator('li.event[data-type="PaymentRecorded"] > .row a.history').click();
  await page.waitForURL(/\/admin\/history\?stream=/);
  await page.locator('li.step').nth(1).waitFor({ timeout: budget(30_000) });
  t.equal(await page.locator('#history-title').textContent(), `Order 10000000003 of merchant ${M1.id}`);
  t.same(await page.locator('li.step').evaluateAll((steps) => steps.map((s) => (s as HTMLElement).dataset.type)), ['PaymentRecorded', 'PaymentOutcomeResolved'],
    'the UNKNOWN payment, then its resolution');
  const [first, second] = [page.locator('li.step').nth(0), page.locator('li.step').nth(1)];
  t.match(await first.locator(':scope > .row').innerText(), /#1 PAY 12\.50 USD → UNKNOWN \(91\)[\s\S]*decided by expiry 05\/37 in the test acquirer's table/, 'one line: what happened, and why');
  t.match(await first.getAttribute('class'), 'tone-pending', 'UNKNOWN in amber');
  t.match(await second.locator(':scope > .row').innerText(), /#2 UNKNOWN resolved → APPROVED \(00\)[\s\S]*decided by the unknown-resolver: amount in minor units is even: APPROVED/);
  t.match(await first.locator('ul.notes').innerText(), /Notification delivered: HTTP 200/, 'the notification it sent, one line under it');
  t.equal(await first.locator(':scope > .detail').count(), 1, 'the step the timeline linked to, opened');
  t.equal(await second.locator('.detail').count(), 0, 'the other compact, one line');
  await page.locator('#expanded').check();
  const firstText = await first.innerText();
  t.match(firstText, `PUT ${payPath(M1.id, token, '10000000003', '7')}`, 'the request that caused it');
  t.match(firstText, 'correlation checkout-42');
  t.match(firstText, 'After: INITIATED', 'the order after the UNKNOWN payment');
  t.match(firstText, 'captured 0.00 USD');
  t.match(firstText, /Caused later: step 2 \(PaymentOutcomeResolved\), notification-TESTMERCHANT01:\S+: NotificationScheduled → NotificationAttempted → NotificationDelivered/);
  t.equal(await first.locator('td.now', { hasText: 'UNKNOWN' }).count() > 0, true, 'what changed: the UNKNOWN outcome, highlighted');
  const secondText = await second.innerText();
  t.match(secondText, 'Caused by the unknown-resolver reactor', 'the resolution came from the reactor');
  t.match(secondText, 'Follows step 1 (PaymentRecorded)');
  t.match(secondText, 'After: CAPTURED', 'the order after the resolution');
  t.match(secondText, 'captured 12.50 USD');
  t.same(await second.locator('td.now').allInnerTexts().then((cells) => [...new Set(cells.filter((c) => ['APPROVED', 'CAPTURED', '12.50 USD'].includes(c)))].sort()),
    ['12.50 USD', 'APPROVED', 'CAPTURED'], 'what changed: gateway code, status, total captured');

  const notifications = page.locator('li.step ul.notes li.notification[data-type="NotificationDelivered"]');
  t.equal(await notifications.count(), 2, 'both notifications delivered: the payment’s and its resolution’s, each under its step');
  t.match(await first.locator('ul.notes li.notification').innerText(), 'Scheduled → Attempted → Delivered');
  t.equal(await page.locator('#related li.group', { has: page.locator('li[data-type^="Notification"]') }).count(), 0, 'not repeated among the other streams');
  const later = page.locator('#related li.group', { has: page.locator('li.event[data-type="TokenCreated"]') });
  t.match(await later.innerText(), 'same correlation id checkout-42', 'what happened later in another stream of that checkout');
  t.match(await later.innerText(), streams.token(M1.repository.id, saved));

  // As of the first step: the state then, the payment still UNKNOWN.
  await first.getByRole('button', { name: /State as of step 1/ }).click();
  await page.locator('#as-of:not([hidden])').waitFor();
  const asOf = await page.locator('#as-of').innerText();
  t.match(asOf, 'As of step 1: PaymentRecorded');
  t.match(asOf, 'revision 0');
  t.match(asOf, /transactions\.0\.gatewayCode\s+UNKNOWN/);
  t.notMatch(asOf, 'APPROVED', 'not yet approved then');
  const html = await page.content();
  t.notMatch(html, '2223000000000007', 'no card number on the page');
  t.notMatch(html, '4508750015741019', 'nor the other one');
  t.match(html, '222300xxxxxx0007', 'the card number masked');

  // Search by transaction id: one order, opened at once.
  await page.goto(`${server.url}/admin/history`);
  await page.fill('#q', 'cap-1');
  await page.press('#q', 'Enter');
  await page.waitForFunction(() => document.getElementById('history-title')?.textContent === 'Order 20000000001 of merchant TESTMERCHANT01');
  t.same(await page.locator('li.step > .row .summary').allInnerTexts(), ['#1 AUTHORIZE 100.00 USD → APPROVED (00)', '#2 CAPTURE 100.00 USD → APPROVED (00)'], 'the order API: each transaction by its operation');
  await page.locator('#expanded').check();
  t.same(await page.locator('li.step').evaluateAll((steps) => steps.map((s) => (s.querySelector('.after') as HTMLElement).innerText)), [
    'After: AUTHORIZED · authorized 100.00 USD · captured 0.00 USD · refunded 0.00 USD',
    'After: CAPTURED · authorized 100.00 USD · captured 100.00 USD · refunded 0.00 USD',
  ], 'the order API: each transaction a step with the status and totals after it');

  // Search by correlation id: the token and the order of that checkout, one click to either.
  await page.fill('#q', 'checkout-42');
  await page.click('form#search button[type=submit]');
  await page.locator('#result-list li').nth(1).waitFor();
  const found = await page.locator('#result-list a').allInnerTexts();
  t.same(found.filter((s) => !s.startsWith('notification-')).sort(), [order, streams.token(M1.repository.id, token), streams.token(M1.repository.id, saved)].sort(), 'the streams of that correlation id');
  t.equal(found.filter((s) => s.startsWith(`notification-${M1.id}:`)).length, 2, 'and the notifications of the payment and of its resolution');
  await page.getByRole('link', { name: order }).click();
  await page.locator('li.step').nth(1).waitFor();
  t.equal(await page.locator('#history-title').textContent(), `Order 10000000003 of merchant ${M1.id}`);

  // The timeline's own search box: an order id, straight to its history.
  await page.goto(`${server.url}/admin/timeline`);
  await page.getByRole('textbox', { name: 'Order id, token, transaction id or correlation id' }).fill('20000000001');
  await page.getByRole('button', { name: 'Find history' }).click();
  await page.waitForFunction(() => document.getElementById('history-title')?.textContent === 'Order 20000000001 of merchant TESTMERCHANT01');
  t.equal(await page.locator('li.step').count(), 2, 'from the timeline by order id');
  t.same(refused, [], 'nothing refused by the Content-Security-Policy');
});
