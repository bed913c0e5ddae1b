// The read models' tables: every projection's documents and its checkpoint (the last $all position
// applied), written in one transaction (projections/read-models.ts runs the catch-ups and replays).
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { ProjectedEvent } from '../store/event-store.js';
import type { Projection } from './projection.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS projection_checkpoints (
  name     TEXT PRIMARY KEY,
  version  INTEGER NOT NULL,
  position INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS read_models (
  projection TEXT NOT NULL,
  key        TEXT NOT NULL,
  doc        TEXT NOT NULL,
  PRIMARY KEY (projection, key)
) WITHOUT ROWID;`;

export class ReadModelTables {
  private readonly stmt;
  /** The checkpoints this process last wrote or read (a stale, lower value is harmless: see applyRows). */
  readonly known = new Map<string, bigint>();

  /**
   * `live`: the projections kept current by catch-ups (minCheckpoint, applyRows' default); the
   * others (apply: 'onRead') are brought up by their reads. Default: every one.
   */
  constructor(readonly db: Database.Database, private readonly projections: readonly Projection[], private readonly live: readonly Projection[] = projections) {
    db.exec(SCHEMA);
    this.stmt = {
      checkpoint: db.prepare<[string], { version: number; position: number }>('SELECT version, position FROM projection_checkpoints WHERE name = ?'),
      setCheckpoint: db.prepare('INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position'),
      get: db.prepare<[string, string], { doc: string }>('SELECT doc FROM read_models WHERE projection = ? AND key = ?'),
      put: db.prepare('INSERT INTO read_models (projection, key, doc) VALUES (?, ?, ?) ON CONFLICT(projection, key) DO UPDATE SET doc = excluded.doc'),
      remove: db.prepare('DELETE FROM read_models WHERE projection = ? AND key = ?'),
      drop: db.prepare('DELETE FROM read_models WHERE projection = ?'),
      all: db.prepare<[string], { key: string; doc: string }>('SELECT key, doc FROM read_models WHERE projection = ? ORDER BY key'),
      prefixed: db.prepare<[string, string, string], { key: string; doc: string }>('SELECT key, doc FROM read_models WHERE projection = ? AND key >= ? AND key < ? ORDER BY key'),
    };
  }

  /** The version and position stored for a projection, if any. */
  stored(name: string): { version: number; position: number } | undefined {
    return this.stmt.checkpoint.get(name);
  }

  checkpoint(name: string): bigint {
    return BigInt(this.stored(name)?.position ?? 0);
  }

  /** Drop a projection's documents and checkpoint, so the next catch-up replays from the start. */
  reset(projection: Projection): void {
    this.db.transaction(() => {
      this.stmt.drop.run(projection.name);
      this.stmt.setCheckpoint.run(projection.name, projection.version, 0);
    })();
    this.known.set(projection.name, 0n);
  }

  get<Doc>(projection: string, key: string): Doc | undefined {
    const row = this.stmt.get.get(projection, key);
    return row ? (JSON.parse(row.doc) as Doc) : undefined;
  }

  /** Every document of a projection, ordered by key (for hashing and export). */
  all(projection: string): Array<{ key: string; doc: string }> {
    return this.stmt.all.all(projection);
  }

  /** Documents of a projection whose key starts with `prefix` (an ASCII text), ordered by key. */
  withPrefix(projection: string, prefix: string): Array<{ key: string; doc: string }> {
    return this.stmt.prefixed.all(projection, prefix, `${prefix}\u{10FFFF}`);
  }

  /** SHA-256 over every document of every projection, in key order: equal hashes, equal models. */
  hash(): string {
    const digest = createHash('sha256');
    for (const p of this.projections) {
      for (const row of this.all(p.name)) digest.update(`${p.name}\u0000${row.key}\u0000${row.doc}\n`);
    }
    return digest.digest('hex');
  }

  /**
   * Where the next catch-up reads from: the lowest checkpoint this process last wrote or read.
   * A stale (lower) value is harmless: applyRows re-reads the checkpoints in its transaction and
   * skips what another process already applied; it saves two queries per request.
   */
  minCheckpoint(of: readonly Projection[] = this.live): bigint {
    let min: bigint | undefined;
    for (const p of of) {
      let position = this.known.get(p.name);
      if (position === undefined) {
        position = this.checkpoint(p.name);
        this.known.set(p.name, position);
      }
      if (min === undefined || position < min) min = position;
    }
    return min ?? 0n;
  }

  /**
   * `checkpoints`: the stored ones, when the caller has just read them in this transaction.
   * `only`: these projections (default: the live ones).
   */
  applyRows(events: readonly ProjectedEvent[], checkpoints?: ReadonlyMap<string, bigint>, only: readonly Projection[] = this.live): void {
    for (const p of only) {
      let position = checkpoints?.get(p.name) ?? this.checkpoint(p.name);
      const cache = new Map<string, unknown>();
      for (const event of events) {
        if (event.position <= position) continue;
        position = event.position;
        if (!p.handles.has(event.type)) continue;
        for (const key of p.keysOf(event)) {
          const before = cache.has(key) ? cache.get(key) : p.isNew?.(event, key) ? undefined : this.get(p.name, key);
          const after = p.evolve(before, event, key);
          cache.set(key, after);
        }
      }
      for (const [key, doc] of cache) {
        if (doc === undefined) this.stmt.remove.run(p.name, key);
        else this.stmt.put.run(p.name, key, p.serialize ? p.serialize(doc) : JSON.stringify(doc));
      }
      this.stmt.setCheckpoint.run(p.name, p.version, Number(position));
      this.known.set(p.name, position);
    }
  }
}
