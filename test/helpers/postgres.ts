// A throwaway PostgreSQL server for the tests that need a real one (scripts/postgres-server.ts,
// shared with the benchmark). One server per test FILE: start it in t.before, stop it in
// t.teardown; each test makes its own database with createDatabase(), so tests stay independent.
//
//   const pg = postgresForFile(t);                         // skips the file loudly when not installed
//   const url = await pg.get().createDatabase('contract'); // inside a test
import pg from 'pg';
import type { Test } from 'tap';
import { postgresAvailable, SKIP_MESSAGE, startPostgres, type RunningPostgres } from '../../scripts/postgres-server.js';

export * from '../../scripts/postgres-server.js';

/** What the helper uses of a test: tap's root `t` (TAP) and its subtests (Test) both have it. */
type TapLike = Pick<Test, 'skip' | 'before' | 'teardown' | 'comment'>;

/**
 * One server for this test file: started in t.before, stopped in t.teardown. Returns undefined
 * (and skips the file with a loud message) when PostgreSQL is not installed; the server is
 * usable inside the tests (after t.before has run), through the returned handle.
 */
export function postgresForFile(t: TapLike): { get(): RunningPostgres } | undefined {
  if (!postgresAvailable()) {
    console.error(`\n*** ${SKIP_MESSAGE} ***\n`);
    t.comment(SKIP_MESSAGE);
    t.skip(SKIP_MESSAGE, () => {}); // a skipped subtest's function is never called
    return undefined;
  }
  let server: RunningPostgres | undefined;
  t.before(async () => { server = await startPostgres(); });
  t.teardown(async () => { await server?.stop(); });
  return {
    get() {
      if (server === undefined) throw new Error('the PostgreSQL server is started in t.before: use it inside a test');
      return server;
    },
  };
}

/** The rows of one statement on a connection of its own to `url`, closed after. */
export async function rowsOf<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}
