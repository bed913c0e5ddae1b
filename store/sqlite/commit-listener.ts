// The inline projection hook: a listener told of every batch inside its transaction, so the read
// models on the same connection commit with the events (one transaction, one sync) and the
// catch-up after the append finds nothing left to read.
import type Database from 'better-sqlite3';
import type { RecordedEvent } from '../event-store.js';
import type { CommitListener } from '../projection-feed.js';

/**
 * A teller of `db`'s commits: tells a listener of a batch's events, in a savepoint. A listener
 * that fails is undone and `failed` is told (the read models could not write: a full disk, an I/O
 * error); when SQLite rolled the whole transaction back, the error is thrown. (The savepoint's
 * function is made once: better-sqlite3 builds several functions for each transaction made.)
 */
export function listenerTeller(db: Database.Database) {
  const savepoint = db.transaction((listener: CommitListener, events: readonly RecordedEvent[]) => listener.written(events));
  return (listener: CommitListener | undefined, events: readonly RecordedEvent[], failed: (error: unknown) => void): void => {
    if (listener === undefined || events.length === 0) return;
    try {
      savepoint(listener, events);
    } catch (error) {
      if (!db.inTransaction) throw error;
      listener.rolledBack();
      failed(error);
      process.emitWarning(`a commit listener failed (its writes were undone, the events are committed): ${String(error)}`);
    }
  };
}
