// The screenshots of docs/timeline-and-cli.md, taken again: starts the real server (dist/server.js)
// on a fresh SQLite file with the demo merchants, their notifications sent to a local receiver,
// runs the failing checkout of scripts/demo-checkout.ts, and photographs the pages in Debian's
// Chromium (/usr/bin/chromium, playwright-core; no browser is downloaded):
//   docs/timeline.png       the events, newest first (1400×900)
//   docs/journal.png        the checkout's requests (its correlation id), the refused refund opened
//   docs/history.png        the order of the checkout: its steps and the refused refund, opened
//   docs/history-as-of.png  the UNKNOWN payment's order as of its first step
//   docs/history-mobile.png the order at 375 px wide
// and Hosted Checkout's payment page (scripts/checkout-screenshots.ts: the example shop of
// examples/hosted-checkout/ paying through the same gateway, the second demo merchant with 3-D
// Secure on its payment page): docs/hosted-checkout.png, -declined.png, -3ds.png, -mobile.png.
// Usage: npm run screenshots  (builds first). Talks only to 127.0.0.1.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from 'playwright-core';
import { checkoutScreenshots } from './checkout-screenshots.js';
import { failingCheckout } from './demo-checkout.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = join(ROOT, 'docs');
const PASSWORD = 'screenshots-admin-password';

async function receiver() {
  const server = createServer((req, res) => { req.resume(); req.on('end', () => res.writeHead(200).end('ok')); });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function startGateway(dir: string, origin: string) {
  const demo = JSON.parse(readFileSync(join(ROOT, 'config', 'merchants.demo.json'), 'utf8')) as { merchants: Array<Record<string, any>> };
  for (const m of demo.merchants) if (m.notifications) m.notifications = { ...m.notifications, url: `${origin}/notifications`, allowedUrls: [`${origin}/`] };
  // The payment page's 3-D Secure challenge: a merchant whose profile turns it on.
  if (demo.merchants[1]) demo.merchants[1].checkout = { threeDSecure: true };
  writeFileSync(join(dir, 'merchants.json'), JSON.stringify(demo));
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'server.js')], {
    env: {
      ...process.env, HOST: '127.0.0.1', PORT: '0', EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'),
      ADMIN_PASSWORD: PASSWORD, UNKNOWN_RESOLUTION_DELAY_MS: '300', LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += String(chunk);
      const match = /gateway\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) resolve(match[1]);
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('exit', (code) => reject(new Error(`the gateway exited with ${code}:\n${output}`)));
  });
  return { child, url, merchant: demo.merchants[0] as { id: string; apiPassword: string }, merchants: demo.merchants as Array<{ id: string; apiPassword: string }> };
}

async function until(what: string, check: () => Promise<boolean>) {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function shoot(page: Page, url: string, ready: string, file: string, prepare?: () => Promise<void>) {
  await page.goto(url);
  await page.locator(ready).first().waitFor({ timeout: 30_000 });
  if (prepare) await prepare();
  await page.screenshot({ path: join(DOCS, file) });
  process.stdout.write(`docs/${file}\n`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'tokengate-screenshots-'));
  const hook = await receiver();
  const gateway = await startGateway(dir, hook.origin);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] });
  try {
    const checkout = await failingCheckout(gateway.url, gateway.merchant);
    const admin = `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}`;
    await until('the UNKNOWN payment resolved and the notifications delivered', async () => {
      const res = await fetch(`${gateway.url}/admin/api/events?category=notification&limit=500`, { headers: { authorization: admin } });
      const events = (await res.json() as { events: Array<{ type: string }> }).events;
      return events.filter((e) => e.type === 'NotificationDelivered').length >= 6;
    });
    const context = await browser.newContext({ httpCredentials: { username: 'admin', password: PASSWORD }, viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const order = encodeURIComponent(`order-${gateway.merchant.id}:${checkout.orderId}`);
    await shoot(page, `${gateway.url}/admin/timeline`, 'li.event[data-type="PaymentOutcomeResolved"]', 'timeline.png');
    await shoot(page, `${gateway.url}/admin/timeline?view=requests&correlationId=${checkout.correlationId}`, 'li.request.refused', 'journal.png',
      () => page.locator('li.request.refused', { hasText: 'REFUND' }).locator(':scope > .row').click());
    await shoot(page, `${gateway.url}/admin/history?stream=${order}`, 'li.step.refused', 'history.png',
      () => page.locator('li.step.refused > .row').click());
    const unknown = encodeURIComponent(`order-${gateway.merchant.id}:${checkout.unknownOrderId}`);
    await shoot(page, `${gateway.url}/admin/history?stream=${unknown}`, 'li.step', 'history-as-of.png', async () => {
      await page.locator('li.step').first().locator(':scope > .row').click();
      await page.getByRole('button', { name: /State as of step 1/ }).click();
      await page.locator('#as-of:not([hidden])').waitFor();
    });
    await page.setViewportSize({ width: 375, height: 812 });
    await shoot(page, `${gateway.url}/admin/history?stream=${order}`, 'li.step.refused', 'history-mobile.png');
    await context.close();
    await checkoutScreenshots(browser, ROOT, gateway.url, gateway.merchants);
  } finally {
    await browser.close();
    gateway.child.kill('SIGTERM');
    hook.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
