// PostgreSQL's errors as the port's (domain/errors.ts), so that nothing above the store knows
// SQLSTATE codes, and a URL named without its credentials. What a request gets:
//   - the server cannot be reached, restarts, refuses connections, or the connection drops
//     (class 08, 57P0x, 53300, socket errors, the pool's connect timeout): StoreUnreachable, 503;
//   - contention (a lock or statement timeout, a deadlock, a serialization failure): StoreBusy, 503;
//   - the server cannot write (disk full 53100, I/O error 58030, a read-only server 25006,
//     corrupt data XX001/XX002): StorageFault, 503, Check Gateway SHUTDOWN while it lasts; it
//     heals with the next commit that succeeds (the server, not this process, holds the data:
//     a restart of tokengate would change nothing).
// Anything else (a bug, a schema mismatch) is left as it is.
import { StorageFault, StoreBusy, StoreUnreachable } from '../../domain/errors.js';

const UNREACHABLE_CODES = new Set([
  '57P01', '57P02', '57P03', '53300', '53400', // admin/crash shutdown, cannot connect now, too many connections
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOENT',
]);
const BUSY_CODES = new Set(['40001', '40P01', '55P03', '57014']);
const FAULT_REASONS: Record<string, string> = {
  '53100': 'the disk is full',
  '58030': 'an I/O error',
  '25006': 'the store is read-only',
  'XX001': 'the store is corrupt',
  'XX002': 'the store is corrupt',
};

/** What `pg` and node say when a connection ends or cannot be made (no SQLSTATE). */
const CONNECTION_MESSAGES = /Connection terminated|terminating connection|connection is closed|Client has encountered a connection error|timeout exceeded when trying to connect|Client was closed|not queryable|Connection ended|socket hang up/i;

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
};

/** The connection that ran into this error cannot be trusted again (it is destroyed, not reused). */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof StoreUnreachable) return true;
  const code = codeOf(error);
  if (code !== undefined && (code.startsWith('08') || UNREACHABLE_CODES.has(code))) return true;
  return code === undefined && error instanceof Error && CONNECTION_MESSAGES.test(error.message);
}

/** The error after which the same call may succeed later (the server back, the lock free). */
export function isTransient(error: unknown): boolean {
  const code = codeOf(error);
  return isConnectionError(error) || (code !== undefined && (BUSY_CODES.has(code) || code in FAULT_REASONS)) ||
    error instanceof StoreBusy || error instanceof StorageFault;
}

/** A postgres:// URL without its user name and password, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    parsed.search = '';
    return parsed.toString();
  } catch {
    return 'postgres://(an invalid URL)';
  }
}

/** The server's message (never a URL: `pg` does not put one in its errors), in one line. */
const detail = (error: unknown): string => {
  const e = error as { message?: unknown; code?: unknown } | null;
  const message = typeof e?.message === 'string' && e.message !== '' ? e.message : String(error);
  const code = codeOf(error);
  return `${message}${code !== undefined && !message.includes(code) ? ` (${code})` : ''}`.replace(/\s*\n\s*/g, ' ');
};

/** The event store cannot reach the server (named without credentials). */
export class PostgresUnavailableError extends StoreUnreachable {
  override name = 'PostgresUnavailableError';
  constructor(readonly target: string, cause: unknown) {
    super(`PostgreSQL at ${target} is unavailable: ${detail(cause)}`, { cause });
  }
}

/** The port's error for an error of the server or the connection (`target`: the redacted URL). */
export function translatePgError(error: unknown, target: string, what = 'the event store'): unknown {
  if (error instanceof StoreUnreachable || error instanceof StoreBusy || error instanceof StorageFault) return error;
  const code = codeOf(error);
  if (isConnectionError(error)) return new PostgresUnavailableError(target, error);
  if (code !== undefined && BUSY_CODES.has(code)) return new StoreBusy(`${what} is busy: ${detail(error)}`, code, { cause: error });
  const reason = code === undefined ? undefined : FAULT_REASONS[code];
  if (code !== undefined && reason !== undefined) {
    return new StorageFault(`${what} (PostgreSQL at ${target}) cannot write: ${reason} (${detail(error)})`, code, true, { cause: error, reason });
  }
  return error;
}
