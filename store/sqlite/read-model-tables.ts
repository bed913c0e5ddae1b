// The read models' tables in SQLite (the port: store/read-model-tables.ts): in the events' file on
// the store's connection, or in a file of their own (KurrentDB, memory). Synchronous: a read is
// one query, and a page's write joins the events' commit when the store's commit listener makes it.
import type Database from 'better-sqlite3';
import type { LocalTables, ModelVersion, PageUpdate, PageWrites, TableRow } from '../read-model-tables.js';
import { relaxedSync } from './database.js';

type Checkpoints = ReadonlyMap<string, bigint> | undefined;

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

export class SqliteReadModelTables implements LocalTables {
  readonly shared = false;
  private readonly stmt;
  /** One transaction around `work` (made once: better-sqlite3 builds a few functions for each). */
  private readonly transaction: Database.Transaction<(work: () => Checkpoints | void) => Checkpoints | void>;

  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmt = {
      checkpoint: db.prepare<[string], { version: number; position: number }>('SELECT version, position FROM projection_checkpoints WHERE name = ?'),
      setCheckpoint: db.prepare('INSERT INTO projection_checkpoints (name, version, position) VALUES (?, ?, ?) ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position'),
      get: db.prepare<[string, string], { doc: string }>('SELECT doc FROM read_models WHERE projection = ? AND key = ?'),
      put: db.prepare('INSERT INTO read_models (projection, key, doc) VALUES (?, ?, ?) ON CONFLICT(projection, key) DO UPDATE SET doc = excluded.doc'),
      remove: db.prepare('DELETE FROM read_models WHERE projection = ? AND key = ?'),
      drop: db.prepare('DELETE FROM read_models WHERE projection = ?'),
      all: db.prepare<[string], TableRow>('SELECT key, doc FROM read_models WHERE projection = ? ORDER BY key'),
      prefixed: db.prepare<[string, string, string], TableRow>('SELECT key, doc FROM read_models WHERE projection = ? AND key >= ? AND key < ? ORDER BY key'),
    };
    this.transaction = db.transaction((work: () => Checkpoints | void) => work());
  }

  get open(): boolean {
    return this.db.open;
  }

  checkpoint(name: string): bigint {
    return BigInt(this.stmt.checkpoint.get(name)?.position ?? 0);
  }

  reset(models: readonly ModelVersion[], changedOnly = false): void {
    this.transaction.immediate(() => {
      for (const model of models) {
        const stored = this.stmt.checkpoint.get(model.name);
        if (changedOnly && (stored === undefined || stored.version === model.version)) continue;
        this.stmt.drop.run(model.name);
        this.stmt.setCheckpoint.run(model.name, model.version, 0);
      }
    });
  }

  get(projection: string, key: string): string | undefined {
    return this.stmt.get.get(projection, key)?.doc;
  }

  rows(projection: string, prefix?: string): TableRow[] {
    return prefix === undefined ? this.stmt.all.all(projection) : this.stmt.prefixed.all(projection, prefix, `${prefix}\u{10FFFF}`);
  }

  write(update: PageUpdate): Checkpoints {
    const work = (): Checkpoints => {
      const checkpoints = new Map<string, bigint>();
      for (const model of update.models) checkpoints.set(model.name, this.checkpoint(model.name));
      const writes = update.evolve(checkpoints, (projection, key) => this.get(projection, key));
      return writes === undefined ? undefined : this.written(writes);
    };
    // In the store's commit (its listener): a savepoint of that transaction, synced as it is.
    if (this.db.inTransaction) return this.transaction(work) as Checkpoints;
    // Derived and checkpointed with their documents: no fsync of their own (a power cut loses at
    // most a catch-up, redone from the events).
    return relaxedSync(this.db, () => this.transaction.immediate(work) as Checkpoints);
  }

  private written(writes: PageWrites): ReadonlyMap<string, bigint> {
    const { put, removed, checkpoints } = writes;
    for (let i = 0; i < removed.key.length; i++) this.stmt.remove.run(removed.projection[i], removed.key[i]);
    for (let i = 0; i < put.key.length; i++) this.stmt.put.run(put.projection[i], put.key[i], put.doc[i]);
    const after = new Map<string, bigint>();
    checkpoints.name.forEach((name, i) => {
      const position = checkpoints.position[i] ?? 0n;
      this.stmt.setCheckpoint.run(name, checkpoints.version[i], Number(position));
      after.set(name, position);
    });
    return after;
  }
}
