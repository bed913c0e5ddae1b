// The SQLite adapter of the event store port (store/sqlite/, store/sqlite/README.md): what the
// composition root, the key store and tests use of it.
export { SqliteEventStore } from './sqlite/event-store.js';
export type { PagesAheadOptions, SqliteStoreOptions } from './sqlite/options.js';
export type { CommitListener } from './sqlite/commit-listener.js';
export { databaseFile, enableWal, openDatabase, relaxedSync } from './sqlite/database.js';
