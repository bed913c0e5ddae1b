// The events table's rows as the PostgreSQL adapter reads them (event-store.ts, append-commit.ts).
import { frozen } from '../../lib/json.js';
import type { RecordedEvent } from '../event-store.js';

export interface Row {
  position: string;
  id: string;
  stream: string;
  revision: string;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  created: Date;
}

export const COLUMNS = 'position, id, stream, revision, type, data, metadata, created';

export const toRecorded = (row: Row): RecordedEvent => ({
  id: row.id, type: row.type, data: row.data, metadata: row.metadata, stream: row.stream,
  revision: BigInt(row.revision), position: BigInt(row.position), created: row.created.toISOString(),
});

/** A row as an event shared by every reader of the store's memory: frozen, deeply. */
export const frozenRecorded = (row: Row): RecordedEvent => frozen(toRecorded(row));
