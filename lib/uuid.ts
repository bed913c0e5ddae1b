// Event ids are UUIDv7 (RFC 9562: 48 bits of Unix time in ms, then 74 random bits): ids of new
// events sort after older ones, so the store's UNIQUE index on event ids grows at its right
// edge — a batch of appends changes a page or two of it instead of one random page per event
// (with random v4 ids every event costs a page of WAL and, on a big store, a page read).
import { randomUUID } from 'node:crypto';

/** The time part of the last millisecond an id was made in (ids of one millisecond share it). */
let lastMs = -1;
let timePart = '';

export function uuidV7(now: number = Date.now()): string {
  if (now !== lastMs) {
    lastMs = now;
    const time = now.toString(16).padStart(12, '0').slice(-12);
    timePart = `${time.slice(0, 8)}-${time.slice(8, 12)}-7`;
  }
  // xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx, V the variant (8-b): everything after its version digit
  // (3 random hex digits, the variant's group, the last 12), dashes included, follows the time part.
  const random = randomUUID();
  return timePart + random.slice(15);
}
