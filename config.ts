// The run contract (../shared/guide/architecture.md): HOST, PORT, EVENT_STORE, MERCHANTS_FILE,
// LOG_LEVEL, and every other variable tokengate reads: here alone. Read once at start-up; a bad
// value stops the process with a clear message. The composition root (root.ts) opens the
// gateway from it.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hostNames } from './lib/host-names.js';
import { adminPasswordProblem, isLoopbackHost } from './admin-access.js';
import { DEFAULT_JOURNAL, type JournalSettings } from './services/journal/journal.js';


export type EventStoreConfig =
  | { kind: 'sqlite'; path: string; durability?: 'group' | 'commit' }
  | { kind: 'memory' }
  | { kind: 'kurrentdb'; url: string }
  /** postgres:// or postgresql:// (user, password, host, port, database; libpq's query parameters). */
  | { kind: 'postgres'; url: string };

/** What the composition root (root.ts) opens the gateway with, beside the event store. */
export interface GatewaySettings {
  /** READ_MODELS_FILE: a KurrentDB gateway's read models and checkpoints (default ./data/read-models.db). */
  readModelsFile: string;
  /** KEYS_FILE: a KurrentDB gateway's key store, shared by every instance on that store (default ./data/keys.db). */
  keysFile: string;
  /**
   * KEYS_STORE: a KurrentDB gateway's key store in PostgreSQL instead (postgres://…), shared by
   * instances on several machines with no shared file (docs/stores.md).
   */
  keysStore?: string | undefined;
  /** UNKNOWN_RESOLUTION_DELAY_MS: when an UNKNOWN payment is resolved (default 5 s). */
  unknownResolutionDelayMs: number;
  /** SCHEME_TOKEN_DELAY_MS: when a scheme token is finished after the request (default 2 s). */
  schemeTokenDelayMs: number;
  /** SESSION_LIFETIME_MS: a session's lifetime (default 15 minutes). */
  sessionLifetimeMs: number;
  /** NOTIFICATION_RETRY_DELAY_MS, NOTIFICATION_MAX_ATTEMPTS, NOTIFICATION_TIMEOUT_MS (docs/notifications.md). */
  notifications: { retryDelayMs: number; maxAttempts: number; timeoutMs: number };
}

export const DEFAULT_UNKNOWN_RESOLUTION_DELAY_MS = 5000;
export const DEFAULT_SCHEME_TOKEN_DELAY_MS = 2000;
/** 15 minutes: the real gateway's usual session lifetime. */
export const DEFAULT_SESSION_LIFETIME_MS = 15 * 60_000;
/** Webhook notifications: a first retry after a minute (doubling up to 4 hours), 10 attempts (about 8.5 hours), 10 s to answer. */
export const DEFAULT_NOTIFICATIONS = { retryDelayMs: 60_000, maxAttempts: 10, timeoutMs: 10_000 };

export interface Config extends GatewaySettings {
  host: string;
  port: number;
  eventStore: EventStoreConfig;
  merchantsFile: string;
  logLevel: string;
  /**
   * ADMIN_PASSWORD: password of the admin timeline API and page (user `admin`). Unset: on a
   * loopback HOST the server generates one at start (admin-access.ts); elsewhere they are disabled.
   */
  adminPassword: string | undefined;
  /** ADMIN_HOSTS (comma-separated names): Host names the admin pages answer besides IP addresses, localhost and HOST. */
  adminHosts: string[];
  /** TEST_CONTROL (on or off): the test-control API under /admin/api/ (default: on for a loopback HOST, off elsewhere). */
  testControl: boolean;
  /** WORKERS (or `tokengate serve --workers N`): gateway processes on the one port (1: no cluster). */
  workers: number;
  limits: Limits;
  /** TLS_CERT_FILE, TLS_KEY_FILE (serve HTTPS) and TLS_CLIENT_CA_FILE (ask for client certificates). */
  tls: TlsFiles | undefined;
  /** JOURNAL_SIZE (0: no journal) and JOURNAL_MAX_AGE_MS: the request journal (services/journal/journal.ts). */
  journal: JournalSettings;
}

export interface TlsFiles { certFile: string; keyFile: string; clientCaFile: string | undefined }

/** Overload protection and request limits (see plugins/limits.ts). */
export interface Limits {
  /** AUTH_FAILURE_LIMIT: wrong passwords for one credential (a merchant id, or admin) per minute before it is locked for a minute (429). */
  authFailureLimit: number;
  /**
   * MAX_IN_FLIGHT: requests in progress beyond which new ones get 503 SERVER_BUSY. A request counts
   * from when its whole body has arrived until it is answered or its connection closes; Check
   * Gateway does not count (plugins/limits.ts).
   */
  maxInFlight: number;
  /** MAX_EVENT_LOOP_DELAY_MS: event-loop delay beyond which new requests get 503 SERVER_BUSY (0: off). */
  maxEventLoopDelayMs: number;
  /** BODY_LIMIT: largest request body in bytes (413 beyond). */
  bodyLimit: number;
  /** REQUEST_TIMEOUT_MS: time to receive a whole request (headers and body). */
  requestTimeoutMs: number;
}

export const DEFAULT_LIMITS: Limits = { authFailureLimit: 30, maxInFlight: 1024, maxEventLoopDelayMs: 0, bodyLimit: 65_536, requestTimeoutMs: 30_000 };

function positiveInteger(env: NodeJS.ProcessEnv, name: string, fallback: number, allowZero = false): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) throw new ConfigError(`${name} '${text}' is not a whole number${allowZero ? '' : ' above 0'}`);
  return value;
}

const here = dirname(fileURLToPath(import.meta.url));
/** The project's folder: this one from source, its parent from a build (dist/, or a test run's own). */
export const PROJECT_ROOT = existsSync(join(here, 'package.json')) ? here : dirname(here);
export const DEMO_MERCHANTS_FILE = join(PROJECT_ROOT, 'config', 'merchants.demo.json');

const DEFAULT_EVENT_STORE = 'sqlite:./data/gateway.db';
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function parseEventStore(value: string): EventStoreConfig {
  if (value === 'memory:' || value === 'memory') return { kind: 'memory' };
  if (value.startsWith('sqlite:')) {
    const path = value.slice('sqlite:'.length);
    if (!path) throw new ConfigError('EVENT_STORE=sqlite:<path> needs a path');
    return { kind: 'sqlite', path };
  }
  if (value.startsWith('kurrentdb://') || value.startsWith('esdb://')) return { kind: 'kurrentdb', url: value };
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) return { kind: 'postgres', url: checkPostgresUrl(value) };
  throw new ConfigError(`EVENT_STORE '${withoutCredentials(value)}' is not one of sqlite:<path>, memory:, kurrentdb://host:port, postgres://user:password@host:port/database`);
}

/** A URL-like value with `user:password@` and a `password=` parameter cut out (a message must never show a password). */
const withoutCredentials = (value: string): string =>
  value.replace(/\/\/[^/?#]*@/, '//…@').replace(/([?&]password=)[^&#]*/gi, '$1…');

/** The URL as given, once it is one `pg` can use; else a one-line ConfigError that never shows the password. */
function checkPostgresUrl(value: string, variable = 'EVENT_STORE'): string {
  const problem = (what: string) =>
    new ConfigError(`${variable} ${withoutCredentials(value)} is not a usable PostgreSQL URL (${what}): postgres://user:password@host:port/database`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw problem('it cannot be parsed; percent-encode special characters of the user and password');
  }
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
    decodeURIComponent(url.pathname);
  } catch {
    throw problem('a bad percent-encoding');
  }
  // A unix socket is named by ?host=/path (libpq's form) when the URL has no host.
  if (url.hostname === '' && !url.searchParams.get('host')) throw problem('no host');
  if (url.pathname.slice(1).includes('/')) throw problem('the database name contains a slash');
  return value;
}

/** SQLITE_DURABILITY: `group` (default; one fdatasync off the event loop for every commit before it) or `commit` (an fsync in each commit). */
function withDurability(store: EventStoreConfig, value: string | undefined): EventStoreConfig {
  if (value === undefined || value === '') return store;
  if (value !== 'group' && value !== 'commit') throw new ConfigError(`SQLITE_DURABILITY '${value}' is not one of group, commit`);
  return store.kind === 'sqlite' ? { ...store, durability: value } : store;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? '8080');
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`PORT '${env.PORT}' is not a port number`);
  const logLevel = env.LOG_LEVEL ?? 'info';
  if (!LOG_LEVELS.has(logLevel)) throw new ConfigError(`LOG_LEVEL '${logLevel}' is not one of ${[...LOG_LEVELS].join(', ')}`);
  const adminPassword = env.ADMIN_PASSWORD || undefined;
  const adminProblem = adminPassword === undefined ? undefined : adminPasswordProblem(adminPassword);
  if (adminProblem) throw new ConfigError(adminProblem);
  const adminHosts = hostNames(env.ADMIN_HOSTS);
  if ('bad' in adminHosts) throw new ConfigError(`ADMIN_HOSTS: '${adminHosts.bad}' is not a host name (a comma-separated list of names, without ports)`);
  const settings = loadGatewaySettings(env);
  const eventStore = loadEventStore(env);
  const host = env.HOST ?? '127.0.0.1';
  // Elsewhere the keys have their place already (the SQLite file's .keys, the PostgreSQL database):
  // a KEYS_STORE there would be silently ignored, while its operator believes the keys are in it.
  if (settings.keysStore !== undefined && eventStore.kind !== 'kurrentdb') {
    throw new ConfigError(`KEYS_STORE applies to a kurrentdb:// EVENT_STORE only (the ${eventStore.kind} store keeps its keys itself): unset it`);
  }
  return {
    host,
    port,
    eventStore,
    merchantsFile: env.MERCHANTS_FILE ?? DEMO_MERCHANTS_FILE,
    logLevel,
    adminPassword,
    adminHosts: adminHosts.names,
    testControl: testControlFromEnv(env, host),
    limits: {
      maxInFlight: positiveInteger(env, 'MAX_IN_FLIGHT', DEFAULT_LIMITS.maxInFlight),
      maxEventLoopDelayMs: positiveInteger(env, 'MAX_EVENT_LOOP_DELAY_MS', DEFAULT_LIMITS.maxEventLoopDelayMs, true),
      bodyLimit: positiveInteger(env, 'BODY_LIMIT', DEFAULT_LIMITS.bodyLimit),
      requestTimeoutMs: positiveInteger(env, 'REQUEST_TIMEOUT_MS', DEFAULT_LIMITS.requestTimeoutMs),
      authFailureLimit: positiveInteger(env, 'AUTH_FAILURE_LIMIT', DEFAULT_LIMITS.authFailureLimit),
    },
    tls: tlsFiles(env),
    workers: workersFromEnv(env),
    journal: journalFromEnv(env),
    ...settings,
  };
}

/** At most a million entries (memory grows with it: bodies up to 16 KB are kept, a payment's entry holds ≈ 2 KB). */
const MAX_JOURNAL_SIZE = 1_000_000;

/** JOURNAL_SIZE: 0 to MAX_JOURNAL_SIZE entries; JOURNAL_MAX_AGE_MS: 1 ms to a day. */
function journalFromEnv(env: NodeJS.ProcessEnv): JournalSettings {
  const size = positiveInteger(env, 'JOURNAL_SIZE', DEFAULT_JOURNAL.size, true);
  if (size > MAX_JOURNAL_SIZE) throw new ConfigError(`JOURNAL_SIZE '${size}' is not a whole number from 0 to ${MAX_JOURNAL_SIZE}`);
  const maxAgeMs = delayFromEnv(env, 'JOURNAL_MAX_AGE_MS', DEFAULT_JOURNAL.maxAgeMs);
  if (maxAgeMs === 0) throw new ConfigError("JOURNAL_MAX_AGE_MS '0' is not a number of milliseconds from 1 to 86400000 (JOURNAL_SIZE=0 turns the journal off)");
  return { size, maxAgeMs };
}

/**
 * TEST_CONTROL: `on` or `off`; unset, on where only this machine can reach the gateway (a loopback
 * HOST), off elsewhere: a reset there would erase what a whole team's tests see (routes/admin-control.ts).
 */
export function testControlFromEnv(env: NodeJS.ProcessEnv, host: string): boolean {
  const text = env.TEST_CONTROL;
  if (text === undefined || text === '') return isLoopbackHost(host);
  if (text !== 'on' && text !== 'off') throw new ConfigError(`TEST_CONTROL '${text}' is not one of on, off`);
  return text === 'on';
}

/** More would only queue on the same cores and the same store: a typo (`640`), not a plan. */
export const MAX_WORKERS = 64;

/** WORKERS: a whole number from 1 to MAX_WORKERS (default 1: one process, no cluster). */
export function workersFromEnv(env: NodeJS.ProcessEnv): number {
  const text = env.WORKERS;
  if (text === undefined || text === '') return 1;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > MAX_WORKERS) {
    throw new ConfigError(`WORKERS '${text}' is not a whole number from 1 to ${MAX_WORKERS}`);
  }
  return value;
}

/** The gateway's settings from the environment (see GatewaySettings). */
export function loadGatewaySettings(env: NodeJS.ProcessEnv = process.env): GatewaySettings {
  const unknownResolutionDelayMs = delayFromEnv(env, 'UNKNOWN_RESOLUTION_DELAY_MS', DEFAULT_UNKNOWN_RESOLUTION_DELAY_MS);
  const schemeTokenDelayMs = delayFromEnv(env, 'SCHEME_TOKEN_DELAY_MS', DEFAULT_SCHEME_TOKEN_DELAY_MS);
  const sessionLifetimeMs = delayFromEnv(env, 'SESSION_LIFETIME_MS', DEFAULT_SESSION_LIFETIME_MS);
  if (sessionLifetimeMs === 0) throw new ConfigError("SESSION_LIFETIME_MS '0' is not a number of milliseconds from 1 to 86400000");
  const notifications = {
    retryDelayMs: delayFromEnv(env, 'NOTIFICATION_RETRY_DELAY_MS', DEFAULT_NOTIFICATIONS.retryDelayMs),
    maxAttempts: positiveInteger(env, 'NOTIFICATION_MAX_ATTEMPTS', DEFAULT_NOTIFICATIONS.maxAttempts),
    timeoutMs: positiveInteger(env, 'NOTIFICATION_TIMEOUT_MS', DEFAULT_NOTIFICATIONS.timeoutMs),
  };
  if (notifications.maxAttempts > 100) throw new ConfigError(`NOTIFICATION_MAX_ATTEMPTS '${notifications.maxAttempts}' is not a whole number from 1 to 100`);
  if (notifications.timeoutMs > 120_000) throw new ConfigError(`NOTIFICATION_TIMEOUT_MS '${notifications.timeoutMs}' is not a number of milliseconds from 1 to 120000`);
  return { ...loadStoreFiles(env), unknownResolutionDelayMs, schemeTokenDelayMs, sessionLifetimeMs, notifications };
}

/** READ_MODELS_FILE and KEYS_FILE (what the stores open beside the event store, on KurrentDB). */
export function loadStoreFiles(env: NodeJS.ProcessEnv = process.env): Pick<GatewaySettings, 'readModelsFile' | 'keysFile' | 'keysStore'> {
  return { readModelsFile: env.READ_MODELS_FILE ?? './data/read-models.db', keysFile: env.KEYS_FILE ?? './data/keys.db', keysStore: loadKeysStore(env) };
}

/** KEYS_STORE: unset, or a postgres:// (postgresql://) URL. */
function loadKeysStore(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.KEYS_STORE;
  if (value === undefined || value === '') return undefined;
  if (!value.startsWith('postgres://') && !value.startsWith('postgresql://')) {
    throw new ConfigError(`KEYS_STORE '${withoutCredentials(value)}' is not a postgres://user:password@host:port/database URL`);
  }
  return checkPostgresUrl(value, 'KEYS_STORE');
}

/** EVENT_STORE (or `spec`, the CLI's --store) with SQLITE_DURABILITY. */
export function loadEventStore(env: NodeJS.ProcessEnv = process.env, spec?: string): EventStoreConfig {
  return withDurability(parseEventStore(spec ?? env.EVENT_STORE ?? DEFAULT_EVENT_STORE), env.SQLITE_DURABILITY);
}

function tlsFiles(env: NodeJS.ProcessEnv): TlsFiles | undefined {
  const certFile = env.TLS_CERT_FILE || undefined;
  const keyFile = env.TLS_KEY_FILE || undefined;
  const clientCaFile = env.TLS_CLIENT_CA_FILE || undefined;
  if (!certFile && !keyFile && !clientCaFile) return undefined;
  if (!certFile || !keyFile) throw new ConfigError('HTTPS needs both TLS_CERT_FILE and TLS_KEY_FILE');
  return { certFile, keyFile, clientCaFile };
}

/**
 * A delay in whole milliseconds from the environment, 0 to one day (UNKNOWN_RESOLUTION_DELAY_MS,
 * SCHEME_TOKEN_DELAY_MS, SESSION_LIFETIME_MS).
 */
export function delayFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 86_400_000) {
    throw new ConfigError(`${name} '${text}' is not a number of milliseconds from 0 to 86400000`);
  }
  return value;
}
