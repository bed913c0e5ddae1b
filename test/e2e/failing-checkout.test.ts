// Debugging a failing checkout in headless Chromium (Debian's /usr/bin/chromium via
// playwright-core), as a developer would: the shop's requests (scripts/demo-checkout.ts: an
// order authorized and captured, a refund of more than was captured refused, a payment declined
// by the card's expiry, one UNKNOWN, a request in a currency that does not exist) and then the
// pages. What the person sees: in the Requests view the refused refund in red with the rule that
// refused it; on the order's page, between its steps, the same refused request in red with its body
// and its rule, linked to the journal; a declined payment says DECLINED and its rule; notifications
// one line under the transaction that sent them; the compact and expanded views; and all of it
// readable at 375 px wide.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { chromium, type Page } from 'playwright-core';
import { M1, MERCHANTS } from '../helpers/app.js';
import { startServer } from '../helpers/server.js';
import { startReceiver } from '../helpers/receiver.js';
import { failingCheckout } from '../../scripts/demo-checkout.js';
import { budget } from '../helpers/slowdown.js';
import { waitFor } from '../helpers/poll.js';

const CHROMIUM = '/usr/bin/chromium';
const PASSWORD = 'admin-secret-for-the-test';
const RED = 'rgb(180, 35, 24)';
/** An input's placeholder, and whether it fits in the box (measured as a span in the input's font). */
const placeholderFit = (page: Page, selector: string) => page.locator(selector).evaluate((input: HTMLInputElement) => {
  const style = getComputedStyle(input);
  const span = document.body.appendChild(Object.assign(document.createElement('span'), { textContent: input.placeholder }));
  Object.assign(span.style, { font: style.font, letterSpacing: style.letterSpacing, whiteSpace: 'pre', position: 'absolute' });
  const width = span.getBoundingClientRect().width;
  span.remove();
  return { placeholder: input.placeholder, fits: width <= input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) };
});
const colorOf = (page: Page, selector: string) => page.locator(selector).first().evaluate((node) => getComputedStyle(node).color);
/** WCAG's contrast ratio of two rgb() colours. */
function contrast(a: string, b: string): number {
  const luminance = (rgb: string) => {
    const [r, g, b] = (rgb.match(/\d+/g) ?? []).slice(0, 3).map((c) => { const v = Number(c) / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  };
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

t.test('a failing checkout, debugged from the pages', { skip: existsSync(CHROMIUM) ? false : `no ${CHROMIUM}: apt-get install chromium` }, async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const merchants = { merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id ? { ...m, notifications: { url: `${receiver.origin}/webhook`, secret: 'e2e-checkout-notification-secret-01' } } : m)) };
  const dir = t.testdir({ 'merchants.json': JSON.stringify(merchants) });
  const server = await startServer({
    EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), ADMIN_PASSWORD: PASSWORD, UNKNOWN_RESOLUTION_DELAY_MS: '200',
  });
  t.teardown(() => server.stop('SIGKILL'));
  const checkout = await failingCheckout(server.url, M1);
  t.equal(checkout.refusedRefund.status, 400, 'the shop got a 400 for its refund');
  // AUTHORIZE, CAPTURE, REFUND, the declined PAY, the UNKNOWN PAY and its resolution: six notifications.
  await receiver.waitFor(6);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ httpCredentials: { username: 'admin', password: PASSWORD }, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const refusedByPolicy: string[] = [];
  page.on('console', (message) => { if (/Content Security Policy|Refused to/i.test(message.text())) refusedByPolicy.push(message.text()); });

  await t.test('the Requests view: the refused refund in red, with the rule that refused it', async (t) => {
    await page.goto(`${server.url}/admin/timeline`);
    await page.getByRole('link', { name: 'Requests' }).click();
    await page.locator('li.request').first().waitFor({ timeout: budget(30_000) });
    await page.fill('input[name=status]', '4xx');
    await page.click('#request-filters button[type=submit]');
    await page.waitForFunction(() => Array.from(document.querySelectorAll('li.request')).every((r) => (r as HTMLElement).dataset.status?.startsWith('4')));
    const refund = page.locator('li.request', { hasText: 'REFUND 60.00 USD refused' });
    t.equal(await refund.count(), 1, 'the refused refund, found by its status class');
    t.match(await refund.locator(':scope > .row').innerText(), /400[\s\S]*REFUND 60\.00 USD refused[\s\S]*refused by transaction\.amount: Value '60\.00' is invalid\. The amount exceeds the order's captured amount not yet refunded/);
    t.equal(await colorOf(page, 'li.request.refused > .row .summary'), RED, 'in red');
    await refund.locator(':scope > .row').click();
    const opened = await refund.locator('.detail').innerText();
    t.match(opened, /"apiOperation": "REFUND"[\s\S]*"amount": "60\.00"/, 'its request body');
    t.match(opened, /Events it caused: none/i, 'it recorded nothing');
    t.notMatch(await page.content(), '5123450000000008', 'no card number on the page');
    await refund.getByRole('link', { name: 'Order 20000000001 →' }).click();
    await page.waitForURL(/\/admin\/history\?stream=/);
  });

  await t.test("the order's page: the refused request between the steps, red, with its body and rule", async (t) => {
    await page.locator('li.step.refused').waitFor({ timeout: budget(30_000) });
    t.equal(await page.locator('#history-title').textContent(), `Order ${checkout.orderId} of merchant ${M1.id}`);
    const lines = await page.locator('#steps > li > .row .summary').allInnerTexts();
    t.same(lines, ['#1 AUTHORIZE 80.00 USD → APPROVED (00)', '#2 CAPTURE 50.00 USD → APPROVED (00)', '400 REFUND 60.00 USD refused', '#3 REFUND 20.00 USD → APPROVED (00)'],
      'the steps in the gateway’s words, the refusal where it happened');
    const refused = page.locator('li.step.refused');
    t.match(await refused.locator(':scope > .row').innerText(), "refused by transaction.amount: Value '60.00' is invalid. The amount exceeds the order's captured amount not yet refunded");
    t.equal(await colorOf(page, 'li.step.refused > .row .summary'), RED, 'in red');
    t.match(await page.locator('#summary').innerText(), '1 refused');
    t.equal(await refused.locator('.detail').count(), 0, 'compact: one line until opened');
    await refused.locator(':scope > .row').click();
    const detail = await refused.locator('.detail').innerText();
    t.match(detail, "Refused (400) on transaction.amount: Value '60.00' is invalid. The amount exceeds the order's captured amount not yet refunded");
    t.match(detail, /Request body[\s\S]*"apiOperation": "REFUND"[\s\S]*"amount": "60\.00"/i, 'its body');
    t.match(detail, /Answer 400[\s\S]*"field": "transaction\.amount"/i, 'the answer the shop got');
    t.match(detail, `correlation ${checkout.correlationId}`);
    // Notifications: one line under the step that sent each.
    t.match(await page.locator('li.step[data-type="OrderTransactionRecorded"]').first().locator('ul.notes').innerText(), /Notification delivered: HTTP 200/);
    // Later, in other streams: nothing but those notifications, which it says rather than "Nothing yet".
    t.equal(await page.locator('#related').innerText(), 'Only the notifications, shown under the steps that sent them.');
    t.match(await page.locator('#related-note').innerText(), /\b3 notifications are shown under the steps that sent them, not here\./);
    await page.locator('#notifications').uncheck();
    t.equal(await page.locator('ul.notes:visible').count(), 0, 'hidden by the Notifications switch');
    await page.locator('#notifications').check();
    // Expanded: every step with its request's body; compact again.
    await page.locator('#expanded').check();
    t.equal(await page.locator('#steps > li.step > .detail:visible').count(), 4);
    t.match(await page.locator('#step-3 > .detail').innerText(), /After: PARTIALLY_REFUNDED[\s\S]*Request body[\s\S]*"amount": "20\.00"/i, 'an accepted step shows its request from the journal too');
    // What changed: the old value struck through, still readable (WCAG AA, 4.5:1 on its white).
    const before = await page.locator('#step-3 td.before').first().evaluate((node) => getComputedStyle(node).color);
    t.ok(contrast(before, 'rgb(255, 255, 255)') >= 4.5, `the old value's contrast ${contrast(before, 'rgb(255, 255, 255)').toFixed(2)}:1`);
    await page.locator('#expanded').uncheck();
    t.equal(await page.locator('#steps > li.step > .detail:visible').count(), 0);
    // Linked both ways: from the refusal to its entry in the journal, opened.
    await refused.locator(':scope > .row').click();
    await refused.getByRole('link', { name: 'In the request journal →' }).click();
    await page.locator(`li.request[data-id="${checkout.refusedRefund.requestId}"] .detail`).waitFor({ timeout: budget(30_000) });
    t.pass('the journal opened at that request');
  });

  await t.test('the declined payment: DECLINED, red, and the rule that declined it', async (t) => {
    await page.goto(`${server.url}/admin/timeline`);
    const declined = page.locator('li.event', { hasText: 'PAY 12.50 USD → DECLINED (05)' });
    await declined.waitFor({ timeout: budget(30_000) });
    t.match(await declined.locator(':scope > .row').innerText(), "decided by expiry 05/39 in the test acquirer's table");
    t.equal(await declined.locator(':scope > .row .summary').evaluate((node) => getComputedStyle(node).color), RED);
    t.match(await page.locator('li.event', { hasText: 'PAY 12.50 USD → UNKNOWN (91)' }).getAttribute('class'), 'tone-pending', 'the UNKNOWN one amber');
    t.equal(await page.locator('#events > li.event.notification').count(), 0, 'no notification is a row of its own');
    t.equal(await page.locator('#events ul.notes li.notification').count(), 6, 'each under the transaction that sent it');
    await page.locator('#failures').check();
    const shown = await page.locator('#events > li.event:visible > .row .summary').allInnerTexts();
    t.same(shown, ['PAY 12.50 USD → UNKNOWN (91)', 'PAY 12.50 USD → DECLINED (05)'], 'Problems only: the failure and the outcome not final when recorded');
    // The token's history: the declined payment, and the request refused on it (currency FUF).
    await declined.locator(':scope > .row').click();
    await declined.getByRole('link', { name: 'The request →' }).click();
    const entry = page.locator('li.request', { hasText: 'PAY 12.50 USD' }).first();
    await entry.locator('.detail').waitFor({ timeout: budget(30_000) });
    t.match(await entry.locator('.detail').innerText(), /Events it caused[\s\S]*PaymentRecorded/i, 'the request behind the payment, and the event it caused');
    await page.goto(`${server.url}/admin/history?q=${checkout.declinedToken}`);
    await page.locator('li.step.refused').waitFor({ timeout: budget(30_000) });
    t.match(await page.locator('li.step.refused > .row').innerText(), /PAY 12\.50 FUF refused[\s\S]*refused by transaction\.currency/);
    t.match(await page.locator('li.step:not(.refused) > .row .summary').allInnerTexts(), ['#1 Token created', '#2 PAY 12.50 USD → DECLINED (05)']);
  });

  await t.test('an order whose only request was refused: its page shows that request', async (t) => {
    await page.goto(`${server.url}/admin/timeline?view=requests&status=400`);
    const fuf = page.locator('li.request', { hasText: 'PAY 12.50 FUF refused' });
    await fuf.waitFor({ timeout: budget(30_000) });
    await fuf.getByRole('link', { name: 'Order 10000000009 →' }).click();
    await page.locator('li.step.refused').waitFor({ timeout: budget(30_000) });
    t.equal(await page.locator('#history-title').textContent(), `Order 10000000009 of merchant ${M1.id}`);
    t.match(await page.locator('#summary').innerText(), 'Nothing recorded: every request on it was refused');
    t.match(await page.locator('li.step.refused > .row').innerText(), /PAY 12\.50 FUF refused[\s\S]*refused by transaction\.currency/);
  });

  // Two more mistakes of the shop, under their own correlation id: a mistyped path (404, whose
  // explanation lists every path, a long unbroken text) and a wrong password. Neither records an event.
  const mistyped = `/api/rest/version/100/merchant/${M1.id}/ordr/${checkout.orderId}`;
  const shop = (path: string, authorization: string) => fetch(server.url + path, { headers: { authorization, 'x-correlation-id': 'checkout-43' } });
  t.equal((await shop(mistyped, `Basic ${Buffer.from(`merchant.${M1.id}:${M1.apiPassword}`).toString('base64')}`)).status, 404);
  t.equal((await shop(`/api/rest/version/100/merchant/${M1.id}/order/20000000077`, `Basic ${Buffer.from(`merchant.${M1.id}:not-the-password-0123456789`).toString('base64')}`)).status, 401);

  await t.test('a correlation id whose requests were all refused: the events and the history say so, and link to the journal', async (t) => {
    await page.goto(`${server.url}/admin/timeline?correlationId=checkout-43`);
    const empty = page.locator('#events li.empty');
    await empty.waitFor({ timeout: budget(30_000) });
    t.match(await empty.innerText(), 'No event matches correlation id checkout-43', 'nothing matches the filter, said so (not "no events yet")');
    await empty.getByRole('link', { name: 'the requests with correlation id checkout-43 →' }).click();
    await page.locator('li.request').nth(1).waitFor({ timeout: budget(30_000) });
    const lines = await page.locator('li.request > .row .summary').allInnerTexts();
    t.same(lines, ['401 RETRIEVE_ORDER refused', `404 GET v100 ordr/${checkout.orderId} refused`], 'both refused requests, the 404 named by its path without the common prefix');

    await page.goto(`${server.url}/admin/history?q=checkout-43`);
    await page.locator('#results:not([hidden])').waitFor({ timeout: budget(30_000) });
    t.equal(await page.locator('#results-title').textContent(), 'Nothing recorded for checkout-43');
    t.match(await page.locator('#results').innerText(), 'The request journal has 2 requests with correlation id checkout-43, 2 refused');
    await page.getByRole('link', { name: 'see them in the journal →' }).click();
    await page.locator('li.request').nth(1).waitFor({ timeout: budget(30_000) });
    t.equal(await page.locator('li.request').count(), 2, 'the journal, searched by that correlation id');
    await page.goto(`${server.url}/admin/timeline?view=requests&correlationId=checkout-43&status=404`);
    await page.waitForFunction(() => document.getElementById('status')?.textContent?.includes('refused'));
    t.match(await page.locator('#status').textContent(), /^1 request · 1 refused/, 'one request, in the singular');
  });

  await t.test('a repeat refused for a different body: opened, it says what differs from the request that recorded it, linked', async (t) => {
    const path = `/api/rest/version/100/merchant/${M1.id}/order/20000000044/transaction/pay-1`;
    const shopPay = (amount: string) => fetch(server.url + path, {
      method: 'PUT',
      headers: { authorization: `Basic ${Buffer.from(`merchant.${M1.id}:${M1.apiPassword}`).toString('base64')}`, 'content-type': 'application/json', 'x-correlation-id': 'checkout-44' },
      body: JSON.stringify({ apiOperation: 'PAY', order: { amount, currency: 'USD' }, sourceOfFunds: { type: 'CARD', token: checkout.token } }),
    });
    const paid = await shopPay('1.00');
    t.equal(paid.status, 201);
    // Its events named under it in the journal (the log may hand them over just after the answer).
    const admin = { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` };
    const paidEntry = async () => (await (await fetch(`${server.url}/admin/api/requests/${paid.headers.get('x-request-id')}`, { headers: admin })).json()) as { events?: unknown[] };
    await waitFor(paidEntry, 'the PAY’s events in the journal', { until: (entry) => (entry.events?.length ?? 0) > 0 });
    const retried = await shopPay('2.00');
    t.equal(retried.status, 400, 'the retry with another amount is refused');
    const retriedId = String(retried.headers.get('x-request-id'));
    await page.goto(`${server.url}/admin/timeline?view=requests&correlationId=checkout-44&open=${encodeURIComponent(retriedId)}`);
    const note = page.locator(`li.request[data-id="${retriedId}"] .detail .differs`);
    await note.waitFor({ timeout: budget(30_000) });
    t.match(await note.innerText(), /^Differs from the request that recorded it \([^)]+\):\s*order\.amount: 1\.00 → 2\.00$/, 'the field, its value then and now');
    await note.getByRole('link', { name: 'the request that recorded it' }).click();
    const original = page.locator(`li.request[data-id="${String(paid.headers.get('x-request-id'))}"] .detail`);
    await original.waitFor({ timeout: budget(30_000) });
    t.match(await original.innerText(), /"amount": "1\.00"/, 'the link opens the PAY that recorded it');
  });

  await t.test('a request’s path shows its order and transaction ids, not a cut-off prefix', async (t) => {
    await page.goto(`${server.url}/admin/timeline?view=requests&correlationId=${checkout.correlationId}`);
    const refund = page.locator('li.request', { hasText: 'REFUND 60.00 USD refused' });
    await refund.waitFor({ timeout: budget(30_000) });
    const chip = refund.locator(':scope > .row .chip');
    t.equal(await chip.innerText(), `PUT v100 order/${checkout.orderId}/transaction/ref-1`);
    t.ok(await chip.evaluate((node) => node.scrollWidth <= node.clientWidth), 'shown whole, not cut by an ellipsis');
    t.equal(await chip.getAttribute('title'), `PUT /api/rest/version/100/merchant/${M1.id}/order/${checkout.orderId}/transaction/ref-1`, 'the whole path as its title');
    await page.goto(`${server.url}/admin/history?q=${checkout.declinedToken}`);
    const step = page.locator('li.step[data-type="PaymentRecorded"] > .row .chip[title]');
    await step.waitFor({ timeout: budget(30_000) });
    t.equal(await step.innerText(), `PUT …/order/${checkout.declinedOrderId}/transaction/1`, 'a long path: its leading segments dropped, its ids kept');
  });

  await t.test('by keyboard: Tab reaches a row, its focus ring is drawn inside the list, Enter and Space open and close it, Tab goes on to its links', async (t) => {
    await page.goto(`${server.url}/admin/timeline`);
    await page.locator('li.event').first().waitFor({ timeout: budget(30_000) });
    const line = page.locator('#events > li.event').first().locator(':scope > .row');
    const toggle = line.getByRole('button');
    t.equal(await toggle.count(), 1, 'the row is opened by one button');
    t.equal(await toggle.evaluate((node) => node.tagName), 'BUTTON', 'a real button, not a div playing one');
    t.equal(await toggle.locator('a, button, input').count(), 0, 'nothing interactive inside it: its links are beside it');
    t.equal(await line.getAttribute('role'), null, 'the row itself is no button');
    for (let i = 0; i < 40 && !(await toggle.evaluate((node) => node === document.activeElement)); i++) await page.keyboard.press('Tab');
    t.ok(await toggle.evaluate((node) => node === document.activeElement), "the first row's button takes the focus");
    const ring = await line.evaluate((node) => {
      const style = getComputedStyle(node);
      const out = parseFloat(style.outlineOffset) + parseFloat(style.outlineWidth);
      const r = node.getBoundingClientRect();
      const list = node.closest('ol')!.getBoundingClientRect();
      return { style: style.outlineStyle, inside: r.left - out >= list.left && r.right + out <= list.right && r.top - out >= list.top };
    });
    t.not(ring.style, 'none', 'a focus ring around the row');
    t.ok(ring.inside, 'drawn inside the list, which clips what is outside it');
    await page.keyboard.press('Enter');
    t.equal(await toggle.getAttribute('aria-expanded'), 'true', 'Enter opens the row');
    t.ok(await line.locator('xpath=following-sibling::div[contains(@class, "detail")]').isVisible(), 'its detail shown');
    await page.keyboard.press('Space');
    t.equal(await toggle.getAttribute('aria-expanded'), 'false', 'Space closes it');
    await page.keyboard.press('Tab');
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'History →', 'Tab goes on to the link of the row');
    t.ok(await line.locator('a.history').evaluate((node) => node === document.activeElement), 'of that row');
    // Text selected in the row by dragging over it (an amount, an id to copy) leaves it closed.
    const words = (await line.locator('.summary').boundingBox())!;
    await page.mouse.move(words.x + 2, words.y + words.height / 2);
    await page.mouse.down();
    await page.mouse.move(words.x + words.width - 2, words.y + words.height / 2, { steps: 5 });
    await page.mouse.up();
    t.equal(await page.evaluate(() => String(getSelection())), await line.locator('.summary').textContent(), 'its words selected');
    t.equal(await toggle.getAttribute('aria-expanded'), 'false', 'the row not opened by the selection');
    await line.locator('.summary').click();
    t.equal(await toggle.getAttribute('aria-expanded'), 'true', 'a click then opens it');
  });

  await t.test('at 375 px wide: nothing wider than the screen, the refusal readable', async (t) => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(`${server.url}/admin/history?stream=${encodeURIComponent(`order-${M1.id}:${checkout.orderId}`)}`);
    const refused = page.locator('li.step.refused');
    await refused.waitFor({ timeout: budget(30_000) });
    await refused.locator(':scope > .row').click();
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'no sideways scrolling');
    const box = await refused.locator('.refusal').boundingBox();
    t.ok(box && box.x >= 0 && box.x + box.width <= 375, 'the refusal within the screen');
    await page.goto(`${server.url}/admin/timeline?view=requests`);
    await page.locator('li.request').first().waitFor({ timeout: budget(30_000) });
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'the Requests view too');
    // The 404's explanation (every path the gateway knows, no spaces in them) wraps within the screen.
    const notFound = page.locator('li.request[data-status="404"]');
    await notFound.locator(':scope > .row').click();
    const refusal = notFound.locator('.detail .refusal');
    const wide = await refusal.evaluate((node) => ({ right: node.getBoundingClientRect().right, clipped: node.scrollWidth > node.clientWidth }));
    t.ok(wide.right <= 375 && !wide.clipped, `the 404's refusal within the screen, whole (right edge ${wide.right})`);
    t.ok(await notFound.locator('.detail .rule').evaluate((node) => node.getBoundingClientRect().right <= 375), 'its path and ids too');
    t.same(await page.locator('li.request > .row .chip').evaluateAll((chips) => chips.filter((c) => c.scrollWidth > c.clientWidth).map((c) => c.textContent)), [],
      'every path chip wraps, its end (the ids) not cut off');
    await page.goto(`${server.url}/admin/timeline`);
    await page.locator('li.event').first().waitFor({ timeout: budget(30_000) });
    t.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'and the events');
    // The search boxes' placeholders, whole: the top bar's, and the history page's.
    t.same(await placeholderFit(page, '.topbar input[name=q]'), { placeholder: 'Order, token or correlation id', fits: true }, "the top bar's search box says what it takes, not cut off");
    await page.goto(`${server.url}/admin/history`);
    t.same(await placeholderFit(page, '#q'), { placeholder: '10000000001, checkout-42', fits: true }, "the history page's too");
    await page.setViewportSize({ width: 1280, height: 800 });
    // The page fits its placeholders again on the resize event, which the browser fires on its next frame.
    const widePlaceholder = '10000000001, 9150459040889617, checkout-42, order-TESTMERCHANT01:10000000001';
    await page.waitForFunction((text) => document.querySelector<HTMLInputElement>('#q')?.placeholder === text, widePlaceholder, { timeout: budget(10_000) }).catch(() => undefined);
    t.same(await placeholderFit(page, '#q'), { placeholder: '10000000001, 9150459040889617, checkout-42, order-TESTMERCHANT01:10000000001', fits: true }, 'wide, the whole one');
    await page.goto(`${server.url}/admin/timeline`);
    t.same(await placeholderFit(page, '.topbar input[name=q]'), { placeholder: 'Order id, token, transaction or correlation id', fits: true }, "the top bar's too");
  });
  await t.test('after a restart: the request journal (in memory) has none of the requests before it, and the pages say why', async (t) => {
    t.equal(await server.stop(), 0, 'stopped cleanly');
    const again = await startServer({
      EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), ADMIN_PASSWORD: PASSWORD, UNKNOWN_RESOLUTION_DELAY_MS: '200',
    });
    t.teardown(() => again.stop('SIGKILL'));
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${again.url}/admin/history?stream=${encodeURIComponent(`order-${M1.id}:${checkout.orderId}`)}`);
    await page.locator('#step-1').waitFor({ timeout: budget(30_000) });
    await page.locator('#step-1 > .row').click();
    t.match(await page.locator('#step-1 > .detail').innerText(),
      "No request body or answer: the request journal is kept in memory: requests from before the gateway’s last start, or past its size or age limit, are not kept.", 'a step: why its request is not shown');
    t.equal(await page.locator('#step-1 h4', { hasText: 'Request body' }).count(), 0);
    // The events' link to their request: the journal says it has it no longer, and why.
    await page.goto(`${again.url}/admin/timeline`);
    const declined = page.locator('li.event', { hasText: 'PAY 12.50 USD → DECLINED (05)' });
    await declined.waitFor({ timeout: budget(30_000) });
    await declined.locator(':scope > .row').click();
    await declined.getByRole('link', { name: 'The request →' }).click();
    const note = page.locator('#not-kept');
    await note.waitFor({ timeout: budget(30_000) });
    t.match(await note.innerText(), /^Request \S+ is not in the journal: the request journal is kept in memory: requests from before the gateway’s last start/);
  });
  t.same(refusedByPolicy, [], 'nothing refused by the Content-Security-Policy');
});
