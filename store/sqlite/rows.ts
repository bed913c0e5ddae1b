// The events table, its statements, and its rows as the port's events.
import Database from 'better-sqlite3';
import type { ProjectedEvent, RecordedEvent } from '../event-store.js';

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position   INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id   TEXT    NOT NULL UNIQUE,
  stream     TEXT    NOT NULL,
  revision   INTEGER NOT NULL,
  type       TEXT    NOT NULL,
  data       TEXT    NOT NULL,
  metadata   TEXT    NOT NULL,
  created    TEXT    NOT NULL,
  UNIQUE (stream, revision)
);`;

export interface Row {
  position: number; event_id: string; stream: string; revision: number;
  type: string; data: string; metadata: string; created: string;
}

/** The statements of the events table, prepared on `db`. */
export function prepareStatements(db: Database.Database) {
  return {
    currentRevision: db.prepare<[string], { revision: number | null }>('SELECT MAX(revision) AS revision FROM events WHERE stream = ?'),
    byEventId: db.prepare<[string], { stream: string; revision: number; position: number }>('SELECT stream, revision, position FROM events WHERE event_id = ?'),
    insert: db.prepare('INSERT INTO events (event_id, stream, revision, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)'),
    readStream: db.prepare<[string, number, number, string], Row>(
      'SELECT * FROM events WHERE stream = ? AND revision >= ? AND revision <= ? AND created <= ? ORDER BY revision'),
    readAll: db.prepare<[number, number], Row>('SELECT * FROM events WHERE position > ? ORDER BY position LIMIT ?'),
    readProjected: db.prepare<[number, number], [number, string, number, string, string, string]>(
      'SELECT position, stream, revision, type, data, created FROM events WHERE position > ? ORDER BY position LIMIT ?').raw(true),
    head: db.prepare<[], { position: number | null }>('SELECT MAX(position) AS position FROM events'),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck(),
  };
}

export type Statements = ReturnType<typeof prepareStatements>;

export const toRecorded = (row: Row): RecordedEvent => ({
  id: row.event_id,
  type: row.type,
  data: JSON.parse(row.data) as unknown,
  metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
  stream: row.stream,
  revision: BigInt(row.revision),
  position: BigInt(row.position),
  created: row.created,
});

export { frozen } from '../../lib/json.js';

export const isUniqueViolation = (error: unknown): boolean =>
  error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE';

/** Rows of `readProjected` (or the log reader, with its `parse` of the data: log-reader.ts dataReader) as the events a projection folds: the data parsed. */
export function projected(rows: ReadonlyArray<readonly [number, string, number, string, string, string]>, parse?: (type: string, text: string) => unknown): ProjectedEvent[] {
  const events = new Array<ProjectedEvent>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const [position, stream, revision, type, data, created] = rows[i]!;
    events[i] = { type, data: parse ? parse(type, data) : JSON.parse(data) as unknown, stream, revision: BigInt(revision), position: BigInt(position), created };
  }
  return events;
}
