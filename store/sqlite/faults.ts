// Writes SQLite refused for the file's sake. A lasting one (SQLITE_IOERR*, SQLITE_READONLY*,
// SQLITE_CORRUPT*, SQLITE_CANTOPEN, ...) refuses every later append at once, until a restart. A
// full disk (SQLITE_FULL) heals: appends are still tried, and the first batch that commits ends it.
import type { StorageFault } from '../../domain/errors.js';
import { asStorageFault } from '../storage-fault.js';

export class WriteFaults {
  lasting: StorageFault | undefined;
  fullDisk: StorageFault | undefined;

  /**
   * A storage fault among a write's errors is kept (logged once) and returned; other errors
   * return undefined. `poisoned`: the store already refuses appends for another reason (a failed
   * sync), which is the one reported.
   */
  note(error: unknown, what: string, poisoned: boolean): StorageFault | undefined {
    const fault = asStorageFault(error, what);
    if (fault === undefined) return undefined;
    if (fault.heals) {
      if (this.fullDisk === undefined) process.emitWarning(fault.message);
      this.fullDisk = fault;
    } else if (this.lasting === undefined && !poisoned) {
      this.lasting = fault;
      process.emitWarning(fault.message);
    }
    return fault;
  }

  /** A batch committed: the disk has room again. */
  committed(): void {
    this.fullDisk = undefined;
  }
}
