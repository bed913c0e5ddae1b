// The events table's rows as the PostgreSQL adapter reads them (event-store.ts, append-commit.ts).
import pg from 'pg';
import { frozen } from '../../lib/json.js';
import type { EventMetadata, RecordedEvent } from '../event-store.js';
import { DATA_TEXT, METADATA_TEXT } from '../event-text.js';

export interface Row {
  position: string;
  id: string;
  stream: string;
  revision: string;
  type: string;
  /** The `json` column's text (ROW_TYPES): PostgreSQL checked it when the row was written. */
  data: string;
  metadata: string;
  /** timestamptz as the server writes it (ROW_TYPES). */
  created: string;
}

export const COLUMNS = 'position, id, stream, revision, type, data, metadata, created';

/** The store's connections' settings its reads of `created` rely on (what PostgreSQL writes: ISO, in UTC). */
export const TIME_SETTINGS = '-c DateStyle=ISO -c TimeZone=UTC';

const TIMESTAMPTZ = 1184;
const JSON_TYPES = new Set([114, 3802]); // json, jsonb
const parseTimestamptz = pg.types.getTypeParser(TIMESTAMPTZ) as (text: string) => Date;
const asText = (text: string): string => text;

/**
 * The types a read of rows parses: `created` left as its text (isoCreated), data and metadata as
 * their JSON text (parsed when an event's reader first asks: frozenRecorded), the others as pg does.
 */
export const ROW_TYPES = {
  getTypeParser: ((oid: number, format?: string) =>
    (oid === TIMESTAMPTZ || JSON_TYPES.has(oid) ? asText : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser,
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

/** A row as an event of the caller's own (parsed now, not frozen): a read of part of a stream. */
export const toRecorded = (row: Row): RecordedEvent => ({
  id: row.id, type: row.type, data: JSON.parse(row.data) as unknown, metadata: JSON.parse(row.metadata) as EventMetadata, stream: row.stream,
  revision: BigInt(row.revision), position: BigInt(row.position), created: isoCreated(row.created),
});

/**
 * A row as an event shared by every reader of the store's memory: frozen, deeply. Its data and
 * metadata are parsed when first read, once: the parse is most of what a row costs, and most
 * readers of another instance's events look at their type and position only (the reactors'
 * filters, the metrics; a reactor may look at the text first: store/event-text.ts). They are own
 * enumerable members all the same, so a spread, a copy or a comparison reads them. A text that does
 * not parse (PostgreSQL's json type refuses one at the write, so none should reach here) throws
 * JSON.parse's error at each read of that member.
 */
export function frozenRecorded(row: Row): RecordedEvent {
  let dataText: string | undefined = row.data;
  let metadataText: string | undefined = row.metadata;
  let data: unknown;
  let metadata: EventMetadata | undefined;
  const event = {
    id: row.id,
    type: row.type,
    get data(): unknown {
      if (dataText !== undefined) {
        data = frozen(JSON.parse(dataText) as unknown);
        dataText = undefined;
      }
      return data;
    },
    get metadata(): EventMetadata {
      if (metadataText !== undefined) {
        metadata = frozen(JSON.parse(metadataText) as EventMetadata);
        metadataText = undefined;
      }
      return metadata as EventMetadata;
    },
    stream: row.stream, revision: BigInt(row.revision), position: BigInt(row.position), created: isoCreated(row.created),
  };
  // Not enumerable: no spread, comparison or copy sees them (store/event-text.ts).
  Object.defineProperty(event, DATA_TEXT, { value: () => dataText });
  Object.defineProperty(event, METADATA_TEXT, { value: () => metadataText });
  return Object.freeze(event);
}
