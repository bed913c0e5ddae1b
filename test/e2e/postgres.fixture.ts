// Shared by the end-to-end tests on PostgreSQL (postgres.test.ts, postgres-two-processes.test.ts,
// postgres-kill.test.ts): a gateway process's environment on a database, and the event types of
// streams read back with the adapter. Named *.fixture.ts so tap does not run it as a test file.
import { join } from 'node:path';
import { PostgresEventStore } from '../../store/postgres/event-store.js';

/** The environment of gateway `instance` on `url`; the file settings name files a postgres:// gateway must not make (the tests check). */
export const envFor = (dir: string, url: string, instance: string) => ({
  EVENT_STORE: url,
  MERCHANTS_FILE: join(dir, 'merchants.json'),
  READ_MODELS_FILE: join(dir, `read-models-${instance}.db`),
  KEYS_FILE: join(dir, 'keys.db'),
});

/** The event types of each stream, read from the database with the adapter. */
export async function typesOf(url: string, ...streamNames: string[]): Promise<string[][]> {
  const store = new PostgresEventStore(url);
  try {
    return await Promise.all(streamNames.map(async (stream) => (await store.readStream(stream)).map((e) => e.type)));
  } finally {
    await store.close();
  }
}
