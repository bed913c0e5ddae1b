// The SQLite adapter of the event store port (store/sqlite/, store/sqlite/README.md): what the
// composition root, the key store and tests use of it.
export { SqliteEventStore } from './sqlite/event-store.js';
export type { PagesAheadOptions, SqliteStoreOptions } from './sqlite/options.js';
export { SqliteReadModelTables } from './sqlite/read-model-tables.js';
export { databaseFile, enableWal, openDatabase } from './sqlite/database.js';
