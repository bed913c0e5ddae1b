// The example shop of examples/hosted-session/ as a child process, for the browser tests.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { chromium, type Browser, type Page } from 'playwright-core';

const SHOP = fileURLToPath(new URL('../../examples/hosted-session/server.mjs', import.meta.url));

export interface Shop {
  /** On `localhost`: another site than the gateway's 127.0.0.1, as a real shop's page is. */
  url: string;
  logs: () => string;
  stop: () => Promise<void>;
}

export async function startShop(env: Record<string, string>): Promise<Shop> {
  const child = spawn(process.execPath, [SHOP], { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
