// The example shops of examples/ (hosted-session/ unless told another) as a child process, for the browser tests.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Test } from 'tap';
import { chromium, type Browser, type Page } from 'playwright-core';
import { M1, MERCHANTS } from '../helpers/app.js';
import { startServer, type RunningServer } from '../helpers/server.js';

const SHOP = fileURLToPath(new URL('../../examples/hosted-session/server.mjs', import.meta.url));
/** The server of examples/3ds/ (card fields of its own, 3-D Secure, a confirmation page). */
export const THREE_DS_SHOP = fileURLToPath(new URL('../../examples/3ds/server.mjs', import.meta.url));

export interface Shop {
  /** On `localhost`: another site than the gateway's 127.0.0.1, as a real shop's page is. */
  url: string;
  logs: () => string;
  stop: () => Promise<void>;
}

export async function startShop(env: Record<string, string>, script = SHOP): Promise<Shop> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => { output += String(chunk); });
  child.stderr.on('data', (chunk) => { output += String(chunk); });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`the shop did not start:\n${output}`)); }, 30_000);
    child.stdout.on('data', () => {
      const match = /Merchant shop at (http:\/\/localhost:\d+\/)/.exec(output);
      if (match?.[1]) { clearTimeout(timer); resolve(match[1]); }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`the shop exited with ${code}:\n${output}`)); });
  });
  return {
    url,
    logs: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

export const CHROMIUM = '/usr/bin/chromium';

export async function launch(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  return browser;
}

/** The input of a hosted field, in the gateway's frame (class gw-proxy-<role>, the input's id the role). */
export const field = (page: Page, role: string) => page.frameLocator(`iframe.gw-proxy-${role}`).locator(`#${role}`);

/** A merchant's page served from a server of its own, on localhost: another site than the gateway's 127.0.0.1. */
export async function servePage(t: Test, html: string): Promise<string> {
  const server = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(html));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => server.close());
  return `http://localhost:${(server.address() as AddressInfo).port}/checkout`;
}

export const ADMIN_PASSWORD = 'admin-secret-for-the-test';

/** A gateway process (SQLite in a test directory, trace logs) and an example shop (`script`) paying through it as M1. */
export async function gatewayAndShop(t: Test, env: Record<string, string> = {}, script = SHOP): Promise<{ dir: string; gateway: RunningServer; shop: Shop }> {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const gateway = await startServer({
    EVENT_STORE: `sqlite:${join(dir, 'data', 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), ADMIN_PASSWORD, LOG_LEVEL: 'trace', ...env,
  });
  t.teardown(() => gateway.stop('SIGKILL'));
  const shop = await startShop({ GATEWAY_URL: gateway.url, MERCHANT_ID: M1.id, API_PASSWORD: M1.apiPassword }, script);
  t.teardown(() => shop.stop());
  return { dir, gateway, shop };
}

export interface Card { number: string; month: string; year: string; securityCode?: string; name?: string }

/** The shop's page, once its hosted fields are ready; the session id it was given. */
export async function openShop(page: Page, shop: Shop) {
  await page.goto(shop.url);
  await page.locator('#pay-button:enabled').waitFor({ timeout: 30_000 });
  return /session: '(SESSION[0-9]+)'/.exec(await page.content())?.[1] as string;
}

export async function typeCard(page: Page, card: Card) {
  await field(page, 'number').fill('');
  await field(page, 'number').pressSequentially(card.number);
  await field(page, 'expiryMonth').fill(card.month);
  await field(page, 'expiryYear').fill(card.year);
  if (card.securityCode) await field(page, 'securityCode').pressSequentially(card.securityCode);
  if (card.name) await field(page, 'nameOnCard').pressSequentially(card.name);
}

/** Pay, and the result the page shows. */
export async function pay(page: Page): Promise<string> {
  await page.click('#pay-button');
  await page.locator('#result.approved, #result.failed, #result.cancelled').waitFor({ timeout: 30_000 });
  return (await page.textContent('#result')) ?? '';
}
