// One page of events applied to the PostgreSQL read models (store/postgres/read-models.ts runs it
// in a transaction): which documents the page touches, and what they become. Pure: the caller
// reads the checkpoints and the documents, and writes what this returns.
import type { RecordedEvent } from '../event-store.js';
import type { Projection } from '../../projections/projection.js';

/** The page's writes: documents put and removed, each projection's new checkpoint, a column per array. */
export interface PageWrites {
  put: { projection: string[]; key: string[]; doc: string[] };
  removed: { projection: string[]; key: string[] };
  checkpoints: { name: string[]; version: number[]; position: string[] };
}

/** A document's key in `before` (projection and key). */
export const docKey = (projection: string, key: string) => `${projection}\u0000${key}`;

/**
 * The documents to read before evolving: each (projection, key) an event after its projection's
 * checkpoint (`stored`) touches, unless the projection says no document can exist before it.
 */
export function documentsToRead(projections: readonly Projection[], events: readonly RecordedEvent[], stored: ReadonlyMap<string, bigint>): Array<[string, string]> {
  const wanted: Array<[string, string]> = [];
  for (const p of projections) {
    const from = stored.get(p.name) ?? 0n;
    const touched = new Set<string>();
    for (const event of events) {
      if (event.position <= from || !p.handles.has(event.type)) continue;
      for (const key of p.keysOf(event)) {
        if (touched.has(key)) continue;
        touched.add(key);
        if (!p.isNew?.(event, key)) wanted.push([p.name, key]);
      }
    }
  }
  return wanted;
}

/**
 * Every projection's events after its checkpoint evolved from the documents read (`before`, by
 * docKey): the writes, and `stored` moved to each projection's new checkpoint.
 */
export function evolvePage(projections: readonly Projection[], events: readonly RecordedEvent[], stored: Map<string, bigint>, before: ReadonlyMap<string, string>): PageWrites {
  const writes: PageWrites = { put: { projection: [], key: [], doc: [] }, removed: { projection: [], key: [] }, checkpoints: { name: [], version: [], position: [] } };
  for (const p of projections) {
    let position = stored.get(p.name) ?? 0n;
    const cache = new Map<string, unknown>();
    for (const event of events) {
      if (event.position <= position) continue;
      position = event.position;
      if (!p.handles.has(event.type)) continue;
      for (const key of p.keysOf(event)) {
        const doc = cache.has(key) ? cache.get(key) : before.get(docKey(p.name, key));
        const prior = cache.has(key) ? doc : typeof doc === 'string' ? JSON.parse(doc) : undefined;
        cache.set(key, p.evolve(prior, event, key));
      }
    }
    for (const [key, doc] of cache) {
      if (doc === undefined) { writes.removed.projection.push(p.name); writes.removed.key.push(key); }
      else { writes.put.projection.push(p.name); writes.put.key.push(key); writes.put.doc.push(p.serialize ? p.serialize(doc) : JSON.stringify(doc)); }
    }
    writes.checkpoints.name.push(p.name); writes.checkpoints.version.push(p.version); writes.checkpoints.position.push(String(position));
    stored.set(p.name, position);
  }
  return writes;
}
