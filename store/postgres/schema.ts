// The event store's tables, created on the first start and upgraded in place. Every process that
// opens the database runs migrate(); a session advisory lock makes concurrent first starts take
// turns (CREATE TABLE IF NOT EXISTS alone is not safe against a concurrent CREATE of the same
// table: one of them fails on pg_type's unique index). Versions are kept per component in
// tokengate_schema, so the key store and the read models keep theirs in the same table.
import type pg from 'pg';

/** Advisory lock keys of tokengate (pg_advisory_lock(bigint)): 'tgmigrat' and 'tgappend' in ASCII. */
export const MIGRATION_LOCK = 0x74676d6967726174n;
export const APPEND_LOCK = 0x7467617070656e64n;

/** The channel that append transactions NOTIFY on commit (payload: the new head position). */
export const CHANNEL = 'tokengate_events';

export const COMPONENT = 'events';

/** Each entry upgrades the schema from its index to the next version; never edit a released one. */
const MIGRATIONS: readonly string[] = [
  // 1: the log. position is the global order ($all), assigned under APPEND_LOCK (see README.md);
  // id is unique across streams (a repeated id in another stream is a conflict).
  `CREATE TABLE IF NOT EXISTS tokengate_events (
     position  bigint      PRIMARY KEY,
     id        text        NOT NULL UNIQUE,
     stream    text        NOT NULL,
     revision  bigint      NOT NULL,
     type      text        NOT NULL,
     data      json        NOT NULL,
     metadata  json        NOT NULL,
     created   timestamptz NOT NULL,
     UNIQUE (stream, revision)
   )`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Creates the version table and runs the missing migrations of `component`, under the migration lock. */
export async function migrate(client: pg.ClientBase, component = COMPONENT, migrations: readonly string[] = MIGRATIONS): Promise<void> {
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    await client.query('CREATE TABLE IF NOT EXISTS tokengate_schema (component text PRIMARY KEY, version integer NOT NULL)');
    const found = await client.query<{ version: number }>('SELECT version FROM tokengate_schema WHERE component = $1', [component]);
    const version = found.rows[0]?.version ?? 0;
    if (version > migrations.length) {
      throw new Error(`the database's ${component} schema is version ${version}, newer than this tokengate knows (${migrations.length}): upgrade tokengate`);
    }
    for (let v = version; v < migrations.length; v++) {
      await client.query('BEGIN');
      try {
        await client.query(migrations[v] as string);
        await client.query(
          `INSERT INTO tokengate_schema (component, version) VALUES ($1, $2)
           ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version`, [component, v + 1]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]).catch(() => undefined);
  }
}
