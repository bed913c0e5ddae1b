// Storage faults: a store that cannot write (a full disk, a read-only file or file system, an I/O
// error, a corrupt file, a file that cannot be opened, a failed sync). The gateway then answers
// Check Gateway SHUTDOWN and refuses writes with 503 SERVER_BUSY (plugins/errors.ts); a full disk
// heals (the next write that succeeds ends it), every other fault lasts until a restart.

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

export class StorageFault extends Error {
  override name = 'StorageFault';
  /**
   * @param message what happened, for the log (may name the store, never request data)
   * @param code SQLite's or the system's code (SQLITE_FULL, SQLITE_IOERR_WRITE, EIO, ...)
   * @param heals a full disk: the next write that succeeds ends the fault; else until a restart
   */
  constructor(message: string, readonly code: string, readonly heals: boolean, options?: { cause?: unknown }) {
    super(message, options);
  }
  /** The reason shown to clients (503 SERVER_BUSY explanation). */
  get reason(): string {
    return faultReason(this.code);
  }
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
  return new StorageFault(`${what} cannot write: ${faultReason(code)} (${code}: ${(error as Error).message})${heals ? '' : '; restart tokengate'}`, code, heals, { cause: error });
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
