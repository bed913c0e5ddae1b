// Two gateways on one PostgreSQL database, as two instances of one deployment: each its own app,
// store connections and memory, the log and tables shared. For the tests of what one instance
// sees of the other's writes.
import type { Test } from 'tap';
import type { EventStoreConfig } from '../../config.js';
import { ALL_MERCHANTS } from '../http/token-api.fixture.js';
import { buildTestApp } from './app.js';
import type { RunningPostgres } from './postgres.js';

/** A new database `name` on the file's server, and two gateways on it (every test merchant). */
export async function twoGateways(t: Test, server: { get(): RunningPostgres }, name: string) {
  const url = await server.get().createDatabase(name);
  const eventStore = { kind: 'postgres', url } as EventStoreConfig;
  const a = await buildTestApp(t, { eventStore, merchants: ALL_MERCHANTS });
  const b = await buildTestApp(t, { eventStore, merchants: ALL_MERCHANTS });
  return { url, a, b };
}
