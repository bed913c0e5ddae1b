// The events table's rows as the PostgreSQL adapter reads them (event-store.ts, append-commit.ts).
import pg from 'pg';
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
  /** timestamptz as the server writes it (ROW_TYPES). */
  created: string;
}

export const COLUMNS = 'position, id, stream, revision, type, data, metadata, created';

/** The store's connections' settings its reads of `created` rely on (what PostgreSQL writes: ISO, in UTC). */
export const TIME_SETTINGS = '-c DateStyle=ISO -c TimeZone=UTC';

const TIMESTAMPTZ = 1184;
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ) as (text: string) => Date;

/** The types a read of rows parses: `created` left as its text (isoCreated), the others as pg does. */
export const ROW_TYPES = {
  getTypeParser: ((oid: number, format?: string) =>
    (oid === TIMESTAMPTZ ? (text: string) => text : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
};

const UTC_ISO = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;

/**
 * A timestamptz's text as Date.toISOString writes the instant: '2026-11-28 17:43:09.38+00' (ISO
 * style, UTC: TIME_SETTINGS) is '2026-11-28T17:43:09.380Z' by slicing, the fraction cut to
 * milliseconds as a Date cuts it; any other form (another zone, a year past 9999, BC) through a Date.
 */
export function isoCreated(text: string): string {
  if (!UTC_ISO.test(text)) return parseTimestamptz(text).toISOString();
  const fraction = text.length === 22 ? '000' : `${text.slice(20, -3)}00`.slice(0, 3);
  return `${text.slice(0, 10)}T${text.slice(11, 19)}.${fraction}Z`;
}


export const toRecorded = (row: Row): RecordedEvent => ({
  id: row.id, type: row.type, data: row.data, metadata: row.metadata, stream: row.stream,
  revision: BigInt(row.revision), position: BigInt(row.position), created: isoCreated(row.created),
});

/** A row as an event shared by every reader of the store's memory: frozen, deeply. */
export const frozenRecorded = (row: Row): RecordedEvent => frozen(toRecorded(row));
