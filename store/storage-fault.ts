// Storage faults: a store that cannot write (a full disk, a read-only file or file system, an I/O
// error, a corrupt file, a file that cannot be opened, a failed sync). The gateway then answers
// Check Gateway SHUTDOWN and refuses writes with 503 SERVER_BUSY (plugins/errors.ts); a full disk
// heals (the next write that succeeds ends it), every other fault lasts until a restart.
//
// The SQLite adapters (store/sqlite/, store/keys/) translate SQLite's codes here into the
// port's errors (domain/errors.ts): StorageFault, and StoreBusy for a file another connection
// holds locked longer than the busy timeout. Nothing above the store knows SQLite's codes.
import { StorageFault, StoreBusy } from '../domain/errors.js';

/** SQLite's result codes (and extended codes) that say the file cannot be written. */
const SQLITE_FAULT = /^SQLITE_(FULL|IOERR|READONLY|CORRUPT|CANTOPEN|NOTADB|PERM)(_|$)/;

/** What the fault means, in words a client may read (no path, no file content). */
export function faultReason(code: string): string {
  if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return 'the disk is full';
  if (code.startsWith('SQLITE_READONLY') || code === 'EROFS' || code === 'SQLITE_PERM' || code === 'EACCES' || code === 'EPERM') return 'the store is read-only';
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return 'the store file is corrupt';
  if (code.startsWith('SQLITE_CANTOPEN') || code === 'ENOTDIR' || code === 'EISDIR' || code === 'ENOENT') return 'the store file cannot be opened';
  return 'an I/O error';
}

/** The code of a storage fault (SQLITE_FULL, SQLITE_IOERR_*, SQLITE_READONLY*, ...), or undefined. */
export function storageFaultCode(error: unknown): string | undefined {
  if (error instanceof StorageFault) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && SQLITE_FAULT.test(code) ? code : undefined;
}

/**
 * The error as a StorageFault when it is one (`what` names the store: 'the event store', 'the key
 * store'); undefined for any other error (a conflict, a busy store, a bug).
 */
export function asStorageFault(error: unknown, what: string): StorageFault | undefined {
  if (error instanceof StorageFault) return error;
  const code = storageFaultCode(error);
  if (code === undefined) return undefined;
  const heals = code === 'SQLITE_FULL';
  return new StorageFault(`${what} cannot write: ${faultReason(code)} (${code}: ${(error as Error).message})${heals ? '' : '; restart tokengate'}`, code, heals, { cause: error, reason: faultReason(code) });
}

/** A fault that lasts until a restart (a failed sync: the system's code, e.g. EIO), its reason told by its code. */
export const lastingFault = (message: string, code: string, cause: unknown): StorageFault =>
  new StorageFault(message, code, false, { cause, reason: faultReason(code) });

/**
 * SQLite's SQLITE_BUSY (another connection held the file's write lock longer than the busy
 * timeout) as the port's StoreBusy (503 SERVER_BUSY: the client repeats the request); undefined
 * for any other error.
 */
export function asStoreBusy(error: unknown): StoreBusy | undefined {
  if (error instanceof StoreBusy) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code !== 'SQLITE_BUSY') return undefined;
  return new StoreBusy(`the store is busy (${code}: ${(error as Error).message})`, code, { cause: error });
}

/**
 * An error of a SQLite file (`what` names it: 'the event store', 'the key store') as the port's:
 * a StorageFault, a StoreBusy, or the error unchanged (a conflict, a bug).
 */
export function translateSqliteError(error: unknown, what: string): unknown {
  return asStorageFault(error, what) ?? asStoreBusy(error) ?? error;
}

/** One line on why a store cannot be opened at start-up (no stack trace). */
export class StoreUnavailable extends Error {
  override name = 'StoreUnavailable';
}

/** An error's message and code in one line (for StoreUnavailable). */
export function oneLine(error: unknown): string {
  const e = error as { message?: unknown; code?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : String(error);
  const code = typeof e?.code === 'string' && !message.includes(e.code) ? ` (${e.code})` : '';
  return `${message}${code}`.replace(/\s*\n\s*/g, ' ');
}

/**
 * The port's error for an error of a SQLite file that did not pass through an adapter (a statement
 * run on the event store's connection by the read models): a StorageFault or a StoreBusy, else
 * undefined. The adapters translate their own errors; this is the last resort of the renderer.
 */
export function asStoreError(error: unknown): StorageFault | StoreBusy | undefined {
  return asStorageFault(error, 'the event store') ?? asStoreBusy(error);
}
