// The pragmas every SQLite file of tokengate opens with (events, keys, read models).
import Database from 'better-sqlite3';

/** Open a SQLite database with the pragmas every file of tokengate uses. */
export function openDatabase(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('busy_timeout = 5000');
  if (path !== ':memory:') enableWal(db);
  db.pragma('synchronous = FULL');
  return db;
}

/** The file SQLite opened for the main database (symbolic links resolved); '' in memory. */
export function databaseFile(db: Database.Database): string {
  return (db.pragma('database_list') as Array<{ name: string; file: string }>).find((d) => d.name === 'main')?.file ?? '';
}

/**
 * Switch a file to WAL. Two processes that open the same new file at the same moment (two
 * gateways started together) may both hold a shared lock and both need the exclusive one: SQLite
 * then answers one of them SQLITE_BUSY at once, without its busy timeout (waiting would deadlock).
 * That one waits a few milliseconds and tries again; by then the file is in WAL mode.
 */
export function enableWal(db: Pick<Database.Database, 'pragma'>): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 1; ; attempt++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 100) throw error;
      Atomics.wait(pause, 0, 0, 5 + Math.random() * 20);
    }
  }
}

/**
 * Run `work` on `db` with synchronous=NORMAL (no fsync in its commit; in WAL mode a power cut may
 * lose it, never corrupt the file), then back to the connection's own setting.
 */
export function relaxedSync<T>(db: Pick<Database.Database, 'pragma'>, work: () => T): T {
  const synchronous = db.pragma('synchronous', { simple: true }) as number;
  if (synchronous > 1) db.pragma('synchronous = NORMAL');
  try {
    return work();
  } finally {
    if (synchronous > 1) db.pragma(`synchronous = ${synchronous}`);
  }
}
