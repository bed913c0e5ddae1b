// One page of events folded into the read models' writes (the tables' adapter runs it in a
// transaction: store/read-model-tables.ts, PageUpdate). Pure: the adapter reads the checkpoints
// and the documents, and writes what this returns.
import type { ProjectedEvent } from '../store/event-store.js';
import type { DataShape } from '../store/projection-feed.js';
import type { PageUpdate, PageWrites } from '../store/read-model-tables.js';
import type { Projection } from './projection.js';

/** What `events` do to the documents of `projections`. */
export function pageUpdate(projections: readonly Projection[], events: readonly ProjectedEvent[]): PageUpdate {
  return {
    models: projections,
    toRead: (checkpoints) => documentsToRead(projections, events, checkpoints),
    evolve: (checkpoints, before) => evolvePage(projections, events, checkpoints, before),
  };
}

/**
 * The documents to read before evolving: each (projection, key) an event after its projection's
 * checkpoint touches, unless the projection says no document can exist before it.
 */
function documentsToRead(projections: readonly Projection[], events: readonly ProjectedEvent[], checkpoints: ReadonlyMap<string, bigint>): Array<[string, string]> {
  const wanted: Array<[string, string]> = [];
  for (const p of projections) {
    const from = checkpoints.get(p.name) ?? 0n;
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
 * Every projection's events after its checkpoint, evolved from the documents `before` gives (a
 * document several events touch is read and written once). Undefined when the events do not
 * follow every checkpoint: the events between are not applied yet, and these must wait for them.
 */
function evolvePage(projections: readonly Projection[], events: readonly ProjectedEvent[], checkpoints: ReadonlyMap<string, bigint>, before: (projection: string, key: string) => string | undefined): PageWrites | undefined {
  const first = events[0];
  if (first === undefined) return undefined;
  for (const p of projections) if ((checkpoints.get(p.name) ?? 0n) < first.position - 1n) return undefined;
  const writes: PageWrites = { put: { projection: [], key: [], doc: [] }, removed: { projection: [], key: [] }, checkpoints: { name: [], version: [], position: [] } };
  for (const p of projections) {
    let position = checkpoints.get(p.name) ?? 0n;
    const docs = new Map<string, unknown>();
    for (const event of events) {
      if (event.position <= position) continue;
      position = event.position;
      if (!p.handles.has(event.type)) continue;
      for (const key of p.keysOf(event)) {
        let doc: unknown;
        if (docs.has(key)) doc = docs.get(key);
        else if (!p.isNew?.(event, key)) {
          const text = before(p.name, key);
          doc = text === undefined ? undefined : JSON.parse(text);
        }
        docs.set(key, p.evolve(doc, event, key));
      }
    }
    for (const [key, doc] of docs) {
      if (doc === undefined) {
        writes.removed.projection.push(p.name);
        writes.removed.key.push(key);
      } else {
        writes.put.projection.push(p.name);
        writes.put.key.push(key);
        writes.put.doc.push(p.serialize ? p.serialize(doc) : JSON.stringify(doc));
      }
    }
    writes.checkpoints.name.push(p.name);
    writes.checkpoints.version.push(p.version);
    writes.checkpoints.position.push(position);
  }
  return writes;
}

/**
 * What `projections` read of each event type's data: the union of their `reads`, 'all' where one
 * of them reads the type whole (declares nothing for it); a type none of them handles, nothing.
 */
export function dataShape(projections: readonly Projection[]): DataShape {
  const shape = new Map<string, readonly string[] | 'all'>();
  for (const p of projections) {
    for (const type of p.handles) {
      const reads = p.reads?.[type];
      const before = shape.get(type);
      if (reads === undefined || before === 'all') shape.set(type, 'all');
      else shape.set(type, before === undefined ? reads : [...new Set([...before, ...reads])]);
    }
  }
  return shape;
}
