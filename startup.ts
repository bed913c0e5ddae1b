// The start-up block: what a person needs once the gateway is ready, in a few lines: where it
// answers, the API reference, the timeline and how to log in, the merchant to try it with, the
// store. Written to stderr by server.ts (one process) or cluster.ts (the primary, once for all
// workers): stdout carries the JSON log lines (pino) that programs read, stderr is where a
// program talks to the person who started it; so the block is always written, whatever
// LOG_LEVEL says, and never mixed into the JSON.
import { randomBytes } from 'node:crypto';
import { relative, resolve } from 'node:path';
import { ADMIN_PASSWORD_MIN_LENGTH, type AdminAccess } from './admin-access.js';
import { DEMO_MERCHANTS_FILE, type EventStoreConfig } from './config.js';
import type { Merchants } from './merchants.js';
import { storeName } from './root.js';

/** A password for this run: 18 random bytes, 24 characters of base64url (above ADMIN_PASSWORD_MIN_LENGTH). */
export function generateAdminPassword(): string {
  return randomBytes(18).toString('base64url');
}

export interface StartupInfo {
  host: string;
  port: number;
  tls: boolean;
  access: AdminAccess;
  merchantsFile: string;
  merchants: Merchants;
  eventStore: EventStoreConfig;
  workers: number;
}

/** Every interface: the URL names the loopback address, which reaches it from this machine. */
const UNSPECIFIED = new Set(['0.0.0.0', '::', '[::]', '']);

/** The gateway's base URL as a person on this machine would type it. */
function baseUrl(info: Pick<StartupInfo, 'host' | 'port' | 'tls'>): string {
  const host = UNSPECIFIED.has(info.host) ? '127.0.0.1' : info.host;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return `${info.tls ? 'https' : 'http'}://${shown}:${info.port}`;
}

/** Whether MERCHANTS_FILE is the bundled demo file (its passwords are public: printed). */
function isDemoFile(file: string): boolean {
  return resolve(file) === resolve(DEMO_MERCHANTS_FILE);
}

/** The block, lines ending in '\n'. A custom merchants file's passwords are never printed. */
export function startupBlock(info: StartupInfo): string {
  const url = baseUrl(info);
  const row = (label: string, text: string) => `  ${label.padEnd(14)} ${text}`;
  const more = (text: string) => `  ${''.padEnd(14)} ${text}`;
  const lines = [`tokengate is ready${info.workers > 1 ? ` (${info.workers} worker processes)` : ''}`];
  lines.push(row('gateway', UNSPECIFIED.has(info.host) ? `${url}  (listening on every interface, HOST=${info.host || '""'})` : url));
  lines.push(row('API reference', `${url}/documentation`));
  const access = info.access;
  if (access.state === 'closed') {
    lines.push(row('timeline', `closed: HOST=${info.host} is reachable from other machines;`));
    lines.push(more(`set ADMIN_PASSWORD (${ADMIN_PASSWORD_MIN_LENGTH} characters or more) to open ${url}/admin/timeline`));
  } else {
    lines.push(row('timeline', `${url}/admin/timeline`));
    lines.push(more(access.generated
      ? `user admin, password ${access.password}  (generated for this run; ADMIN_PASSWORD sets your own)`
      : 'user admin, password: your ADMIN_PASSWORD'));
  }
  const [first, ...others] = info.merchants.list;
  if (isDemoFile(info.merchantsFile) && first) {
    lines.push(row('demo merchant', `${first.id}, API password ${first.apiPassword}`));
    const file = relative(process.cwd(), DEMO_MERCHANTS_FILE) || DEMO_MERCHANTS_FILE;
    if (others.length > 0) lines.push(more(`(${others.length} more in ${file})`));
  } else {
    const count = info.merchants.list.length;
    lines.push(row('merchants', `${count} merchant${count === 1 ? '' : 's'} from ${info.merchantsFile}`));
  }
  lines.push(row('store', storeName(info.eventStore)));
  return `${lines.join('\n')}\n`;
}
