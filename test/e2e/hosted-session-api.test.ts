// session.js's public API in headless Chromium, on merchant pages served from localhost (another
// site than the gateway's 127.0.0.1) against the real server process: configure and the
// initialized callback; the event callbacks with (selector, role); validate; setFocus;
// setFocusStyle, setHoverStyle, setPlaceholderStyle inside the frames; a change of the merchant
// input's style carried over; <select> expiry fields; a second scope collecting only a security
// code; a configuration without frameEmbeddingMitigation refused; nothing refused by the frames'
// Content-Security-Policy. And a page written from the reference's payment page example
// (test/fixtures/hosted-session/reference-page.html), only the gateway's address, the merchant and
// the session filled in: its console reports each status as the reference's handler does.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import type { Frame, Page } from 'playwright-core';
import { basic, M1, MERCHANTS } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { CHROMIUM, field, launch, servePage } from './hosted-session.fixture.js';

const auth = basic(`merchant.${M1.id}`, M1.apiPassword);
type Logged = [string, ...unknown[]];

function merchantPage(gateway: string, session: string, saved: string): string {
  const months = ['01', '02', '03', '04', '05'].map((m) => `<option value="${m}">${m}</option>`).join('');
  return `<!doctype html><html><head><script src="${gateway}/form/version/100/merchant/${M1.id}/session.js"></script></head><body>
<input id="n" readonly placeholder="Card number" style="width: 300px; height: 40px; border: 1px solid rgb(0, 0, 0)">
<select id="m" readonly><option value="">MM</option>${months}</select>
<select id="y" readonly><option value="">YY</option><option value="2039">2039</option></select>
<input id="c" readonly><input id="saved" readonly><input id="other" readonly>
<script>
window.log = [];
const note = (...entry) => window.log.push(entry);
const callbacks = (name) => ({ initialized: (r) => note(name + ':initialized', r), formSessionUpdate: (r) => note(name + ':update', r) });
PaymentSession.configure({ session: '${session}', fields: { card: { number: '#n', expiryMonth: '#m', expiryYear: '#y', securityCode: '#c' } },
  frameEmbeddingMitigation: ['javascript'], callbacks: callbacks('main'), interaction: { displayControl: { formatCard: 'PLAIN' } } });
for (const name of ['onFocus', 'onBlur', 'onChange', 'onMouseOver', 'onMouseOut', 'onValidityChange', 'onEmptinessChange']) {
  PaymentSession[name](['card.number'], (selector, second) => note(name, selector, second));
}
PaymentSession.setFocusStyle(['card.number'], { borderColor: 'rgb(255, 0, 0)' });
PaymentSession.setHoverStyle(['card.number'], { backgroundColor: 'rgb(0, 0, 255)' });
PaymentSession.setPlaceholderStyle(['card.number'], { color: 'rgb(0, 128, 0)' });
PaymentSession.configure({ session: '${saved}', fields: { card: { securityCode: '#saved' } }, frameEmbeddingMitigation: ['csp'], callbacks: callbacks('saved') }, 'saved');
PaymentSession.configure({ session: '${saved}', fields: { card: { number: '#other' } }, callbacks: callbacks('bad') }, 'bad');
</script></body></html>`;
}

const log = (page: Page) => page.evaluate(() => (window as unknown as { log: Logged[] }).log);
async function logged(page: Page, name: string): Promise<Logged[]> {
  await page.waitForFunction((n) => (window as unknown as { log: Logged[] }).log.some((e) => e[0] === n), name, { timeout: 30_000 });
  return (await log(page)).filter((e) => e[0] === name);
}
const frameOf = (page: Page, role: string, nth = 0): Frame => page.frames().filter((f) => f.url().includes(`/role/${role}/`))[nth] as Frame;
const style = (frame: Frame, role: string, prop: string, pseudo?: string) =>
  frame.evaluate(([r, p, s]) => getComputedStyle(document.getElementById(r as string) as Element, s ?? null).getPropertyValue(p as string), [role, prop, pseudo]);

const skip = existsSync(CHROMIUM) ? false : `no ${CHROMIUM}`;

async function startGateway(t: Test) {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const gateway = await startServer({ EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json') });
  t.teardown(() => gateway.stop('SIGKILL'));
  const newSession = async () => (await call(gateway.url, 'POST', `/api/rest/version/100/merchant/${M1.id}/session`, auth, {})).json().session.id as string;
  return { gateway, newSession };
}

t.test('session.js: configure, callbacks, validate, focus, styles, selects, scopes', { skip }, async (t) => {
  const { gateway, newSession } = await startGateway(t);
  const [session, saved] = [await newSession(), await newSession()];
  const browser = await launch(t);
  const page = await browser.newPage();
  const refused: string[] = [];
  page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) refused.push(m.text()); });
  await page.goto(await servePage(t, merchantPage(gateway.url, session, saved)));

  t.same((await logged(page, 'main:initialized'))[0], ['main:initialized', { status: 'ok' }]);
  t.same((await logged(page, 'saved:initialized'))[0], ['saved:initialized', { status: 'ok' }], 'a second scope');
  const bad = (await logged(page, 'bad:initialized'))[0];
  t.match(bad, ['bad:initialized', { status: 'system_error', message: /frameEmbeddingMitigation/ }], 'no clickjacking defence named: refused');

  const number = frameOf(page, 'number');
  t.equal(await style(number, 'number', 'color', '::placeholder'), 'rgb(0, 128, 0)', 'setPlaceholderStyle');
  await page.evaluate(() => PaymentSession.setFocus('card.number'));
  t.same((await logged(page, 'onFocus'))[0], ['onFocus', '#n', 'number'], 'setFocus focuses the field: onFocus(selector, role)');
  t.equal(await style(number, 'number', 'border-top-color'), 'rgb(255, 0, 0)', 'setFocusStyle while focused');
  await page.keyboard.type('4111');
  t.same((await logged(page, 'onEmptinessChange'))[0], ['onEmptinessChange', '#n', { isEmpty: false }]);
  const validated = await page.evaluate(() => new Promise((resolve) => PaymentSession.validate('card', resolve)));
  t.match(validated, { card: { isValid: false, number: { isValid: false, isIncomplete: true }, expiryMonth: { isValid: false, errorReason: 'EMPTY' } } }, 'validate');
  await page.keyboard.type('111111111111');
  t.match((await logged(page, 'onValidityChange')).at(-1), ['onValidityChange', '#n', { isValid: true }]);
  await field(page, 'expiryMonth').focus();
  await field(page, 'expiryMonth').selectOption('05');
  await field(page, 'expiryYear').selectOption('2039');
  t.same((await logged(page, 'onBlur'))[0], ['onBlur', '#n', 'number']);
  t.same((await logged(page, 'onChange'))[0], ['onChange', '#n', 'number']);
  t.equal(await style(number, 'number', 'border-top-color'), 'rgb(0, 0, 0)', 'the input\'s own border again once blurred');
  await field(page, 'number').hover();
  t.same((await logged(page, 'onMouseOver'))[0], ['onMouseOver', '#n', 'number']);
  t.equal(await style(number, 'number', 'background-color'), 'rgb(0, 0, 255)', 'setHoverStyle');
  // The merchant restyles its (hidden) input: the frame follows.
  await page.evaluate(() => { (document.getElementById('n') as HTMLElement).style.borderColor = 'rgb(0, 128, 0)'; });
  await number.waitForFunction(() => getComputedStyle(document.getElementById('number') as Element).borderTopColor === 'rgb(0, 128, 0)');

  await page.evaluate(() => PaymentSession.updateSessionFromForm('card'));
  const [, updated] = (await logged(page, 'main:update'))[0] as [string, Record<string, any>];
  t.equal(updated.status, 'ok');
  t.same(updated.sourceOfFunds.provided.card.expiry, { month: '5', year: '39' }, 'the selects\' values');
  t.equal(updated.sourceOfFunds.provided.card.number, '411111xxxxxx1111');
  t.notOk(updated.sourceOfFunds.provided.card.securityCode, 'no security code typed: none');

  // The main scope's security code field holds 999; the saved card's scope, 321.
  const codes = page.locator('iframe.gw-proxy-securityCode');
  await codes.nth(0).contentFrame().locator('#securityCode').pressSequentially('999');
  await codes.nth(1).contentFrame().locator('#securityCode').pressSequentially('321');
  await page.evaluate(() => PaymentSession.updateSessionFromForm('card', undefined, 'saved'));
  const [, savedUpdate] = (await logged(page, 'saved:update'))[0] as [string, Record<string, any>];
  t.same(savedUpdate.sourceOfFunds.provided.card, { securityCode: 'xxx' }, 'the scope sends its own field only');
  t.equal(savedUpdate.session.id, saved);
  const retrieved = await call(gateway.url, 'GET', `/api/rest/version/100/merchant/${M1.id}/session/${session}`, auth);
  t.notOk(retrieved.json().sourceOfFunds.provided.card.securityCode, 'the main session got no security code from the other scope');
  t.same(refused, [], 'nothing refused by the Content-Security-Policy');
});

t.test('the reference\'s payment page example works with only the gateway\'s address, merchant and session filled in', { skip }, async (t) => {
  const { gateway, newSession } = await startGateway(t);
  const session = await newSession();
  const template = readFileSync(fileURLToPath(new URL('../fixtures/hosted-session/reference-page.html', import.meta.url)), 'utf8');
  const values: Record<string, string> = { GATEWAY: gateway.url, MERCHANT: M1.id, SESSION: session };
  const browser = await launch(t);
  const page = await browser.newPage();
  const lines: string[] = [];
  page.on('console', (m) => lines.push(m.text()));
  /** Polled until the page logs the line (a bound of 30 s, not a timing). */
  const logged = async (line: string) => {
    const deadline = Date.now() + 30_000;
    while (!lines.includes(line)) {
      if (Date.now() > deadline) throw new Error(`not logged within 30 s: ${line}; logged: ${lines.join(' | ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  await page.goto(await servePage(t, template.replace(/\{\{([A-Z]+)\}\}/g, (_, name: string) => values[name] as string)));
  await logged('initialized: ok');
  await field(page, 'number').pressSequentially('5123450000000009');
  await page.click('#payButton');
  for (const line of ['Session update failed with field errors.', 'Card number invalid or missing.', 'Expiry year invalid or missing.', 'Expiry month invalid or missing.']) await logged(line);
  t.pass('fields in error, each reported');
  await field(page, 'number').fill('');
  await field(page, 'number').pressSequentially('5123450000000008');
  await field(page, 'expiryMonth').pressSequentially('1');
  await field(page, 'expiryYear').pressSequentially('39');
  await field(page, 'securityCode').pressSequentially('100');
  await page.click('#payButton');
  for (const line of [`Session updated with data: ${session}`, 'Security code was provided.', 'The user entered a Mastercard credit card.']) await logged(line);
  t.pass('ok, with the security code and the scheme');
  const paid = await call(gateway.url, 'PUT', `/api/rest/version/100/merchant/${M1.id}/order/reference-page-1/transaction/1`, auth, {
    apiOperation: 'PAY', order: { amount: '12.00', currency: 'USD' }, session: { id: session },
  });
  t.equal(paid.json().response?.gatewayCode, 'APPROVED', 'the merchant\'s server pays with the session');
});

declare const PaymentSession: {
  setFocus(role: string, scope?: string): void;
  validate(type: string, callback: (result: unknown) => void, scope?: string): void;
  updateSessionFromForm(type: string, localBrand?: string, scope?: string): void;
};
