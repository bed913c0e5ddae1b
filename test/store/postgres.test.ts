// The event store contract against the PostgreSQL adapter on a real server (a throwaway one from
// the machine's packages: test/helpers/postgres.ts), and what only this adapter promises:
// positions seen in commit order under concurrent writers of several pools, the schema created
// once by concurrent first starts, several adapters on one database, a dropped LISTEN connection,
// and errors that never show the URL's password.
import t, { type Test } from 'tap';
import pg from 'pg';
import { StorageFault, StoreUnreachable } from '../../domain/errors.js';
import { ConfigError, DEFAULT_NOTIFICATIONS, loadConfig, parseEventStore } from '../../config.js';
import { openGateway } from '../../root.js';
import { parseMerchants } from '../../merchants.js';
import { MERCHANTS } from '../helpers/app.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { SCHEMA_VERSION } from '../../store/postgres/schema.js';
import { sleep, waitFor } from '../helpers/poll.js';
import { eventStoreContract, events, expectWrongRevision } from './contract.js';
import { postgresForFile } from '../helpers/postgres.js';

t.test('EVENT_STORE=postgres:// and postgresql:// select PostgreSQL; a bad URL is one ConfigError line without the password', async (t) => {
  t.same(parseEventStore('postgres://gw:pw@db.example:5432/tokengate'), { kind: 'postgres', url: 'postgres://gw:pw@db.example:5432/tokengate' });
  t.same(parseEventStore('postgresql://gw@localhost/tg?sslmode=disable'), { kind: 'postgres', url: 'postgresql://gw@localhost/tg?sslmode=disable' });
  t.same(parseEventStore('postgres:///tg?host=/var/run/postgresql'), { kind: 'postgres', url: 'postgres:///tg?host=/var/run/postgresql' }, 'a unix socket');
  t.same(loadConfig({ EVENT_STORE: 'postgres://gw:pw@127.0.0.1:5432/tg' }).eventStore, { kind: 'postgres', url: 'postgres://gw:pw@127.0.0.1:5432/tg' });
  for (const bad of ['postgres://gw:hunter2-secret@db:notaport/tg', 'postgres://gw:hunter2-secret@/tg', 'postgres://gw:hunter2%zz-secret@db/tg', 'postgres://gw:hunter2-secret@db/a/b', 'postgress://gw:hunter2-secret@db/tg', 'postgres://db:x/tg?user=gw&password=hunter2-secret']) {
    const error = (() => { try { parseEventStore(bad); return undefined; } catch (e) { return e; } })();
    t.type(error, ConfigError, bad.replace('hunter2-secret', '…'));
    t.match((error as Error).message, /^EVENT_STORE /, 'names the variable');
    t.notMatch((error as Error).message, /hunter2/, 'never shows the password');
    t.notMatch((error as Error).message, /\n/, 'one line');
  }
});

t.test('a gateway on an unreachable PostgreSQL does not start: one line naming the server without its password', async (t) => {
  const dir = t.testdir();
  const merchants = parseMerchants(MERCHANTS, 'test merchants');
  const error = await openGateway({ kind: 'postgres', url: 'postgres://gw:hunter2-secret@127.0.0.1:1/tg' }, merchants, {
    readModelsFile: `${dir}/read-models.db`, keysFile: `${dir}/keys.db`, unknownResolutionDelayMs: 5000, schemeTokenDelayMs: 2000, sessionLifetimeMs: 900_000,
    notifications: DEFAULT_NOTIFICATIONS,
  }).then(() => undefined, (e: unknown) => e);
  t.ok(error instanceof Error, 'refused');
  t.match((error as Error).message, /the event store postgres:\/\/127\.0\.0\.1:1\/tg cannot be opened/);
  t.notMatch((error as Error).message, /hunter2/);
});

const server = postgresForFile(t);

function openStore(t: Test, url: string, options: ConstructorParameters<typeof PostgresEventStore>[1] = {}): PostgresEventStore {
  const store = new PostgresEventStore(url, options);
  t.teardown(() => store.close());
  return store;
}

const summary = (e: RecordedEvent) => `${e.stream}@${e.revision}#${e.position}`;

if (server) {
  t.test('contract', async (t) => {
    // One database, emptied for each test of the contract (its previous store is closed by then):
    // each store starts on a database without tables and creates them, as on a first start.
    const url = await server.get().createDatabase('contract');
    eventStoreContract(t, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
      } finally {
        await client.end();
      }
      return { store: new PostgresEventStore(url), reopen: async () => new PostgresEventStore(url) };
    }, { durable: true });
  });

  t.test('positions are seen in commit order with concurrent writers in several pools: no reader or subscriber ever skips an event', async (t) => {
    const url = await server.get().createDatabase('commit_order');
    const writers = Array.from({ length: 4 }, () => openStore(t, url, { poolSize: 4 }));
    const reader = openStore(t, url);
    const subscriber = openStore(t, url, { pollIntervalMs: 20 });

    const delivered: RecordedEvent[] = [];
    const sub = subscriber.subscribeAll({}, { onEvent: (e) => { delivered.push(e); } });
    t.teardown(() => sub.close());
    await sub.caughtUp;

    const seen: RecordedEvent[] = [];
    let writing = true;
    const polling = (async () => {
      for (let rounds = 0; rounds < 100_000 && writing; rounds++) {
        seen.push(...await reader.readAll({ fromPosition: seen.at(-1)?.position ?? 0n }));
      }
      seen.push(...await reader.readAll({ fromPosition: seen.at(-1)?.position ?? 0n }));
    })();

    // Each writer keeps several appends in flight at once (its batches and its pool's
    // connections), the four of them at the same time: 4 × 20 rounds × 3 appends of 1-3 events.
    let expected = 0;
    await Promise.all(writers.map(async (store, w) => {
      for (let round = 0; round < 20; round++) {
        const appends = [1, 2, 3].map((n) => {
          expected += n;
          return store.append(`w${w}-s${round % 5}-${n}`, events(n));
        });
        await Promise.all(appends);
      }
    }));
    writing = false;
    await polling;

    const log = await reader.readAll();
    t.equal(log.length, expected, 'every appended event is in the log');
    t.same(log.map((e) => e.position), log.map((_, i) => BigInt(i + 1)), 'positions 1..n without a gap');
    t.same(seen.map(summary), log.map(summary), 'the polling reader saw every event once, in position order');
    await waitFor(() => delivered.length >= expected, 'the subscription to deliver every event');
    await sleep(50); // room for a duplicate to arrive, which must not
    t.same(delivered.map(summary), log.map(summary), 'the subscription delivered every event once, in order');
  });

  t.test('the schema is created once by concurrent first starts and left alone by later ones', async (t) => {
    const url = await server.get().createDatabase('schema');
    const first = Array.from({ length: 4 }, () => openStore(t, url));
    // Four adapters reach an empty database at the same time: each creates or upgrades the schema.
    const heads = await Promise.all(first.map((store) => store.headPosition()));
    t.same(heads, [0n, 0n, 0n, 0n], 'every one started');
    await first[0]?.append('schema-1', events(2), { expectedRevision: 'no_stream' });

    const again = openStore(t, url);
    t.equal(await again.headPosition(), 2n, 'a later start keeps the events');
    await expectWrongRevision(t, again.append('schema-1', events(1), { expectedRevision: 'no_stream' }),
      { stream: 'schema-1', expected: 'no_stream', actual: 1n }, 'and their revisions');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    const { rows } = await client.query("SELECT component, version FROM tokengate_schema WHERE component = 'events'");
    t.same(rows, [{ component: 'events', version: SCHEMA_VERSION }], 'one version row');
  });

  t.test("two adapters on one database: each sees the other's appends through subscribeAll (woken by NOTIFY) and its revisions", async (t) => {
    const url = await server.get().createDatabase('two');
    // No poll worth the name: only the NOTIFY of the other's commit can wake the subscription in time.
    const a = openStore(t, url, { pollIntervalMs: 600_000, applicationName: 'tokengate-a' });
    const b = openStore(t, url, { pollIntervalMs: 600_000 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    t.teardown(() => admin.end());
    // a's LISTEN connection (application_name tokengate-a-listen) has run its LISTEN, and then the
    // read of the head that follows it on that connection (store/postgres/listener.ts).
    const listening = async () => (await admin.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'tokengate-a-listen' AND datname = current_database() AND state = 'idle' AND (query LIKE 'LISTEN%' OR query LIKE 'SELECT coalesce(max(position)%')")).rows[0].n === 1;
    const received: RecordedEvent[] = [];
    const sub = a.subscribeAll({}, { onEvent: (e) => { received.push(e); } });
    t.teardown(() => sub.close());
    await sub.caughtUp;
    await waitFor(listening, "a's LISTEN");

    const r = await b.append('two-1', events(2), { expectedRevision: 'no_stream' });
    await waitFor(() => received.length === 2, "b's events at a");
    t.same(received.map(summary), ['two-1@0#1', 'two-1@1#2']);
    t.equal(r.position, 2n);
    await expectWrongRevision(t, a.append('two-1', events(1), { expectedRevision: 0n }),
      { stream: 'two-1', expected: 0n, actual: 1n }, "a sees b's revision");
    await a.append('two-1', events(1), { expectedRevision: 1n });
    await waitFor(() => received.length === 3, "a's own event");

    // The listening connection is cut (the server ends it): the adapter reconnects, and the
    // subscription goes on with what was appended meanwhile.
    const killed = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tokengate-a-listen' AND datname = current_database()");
    t.ok(killed.rowCount !== null && killed.rowCount >= 1, 'the listening connection was ended');
    await b.append('two-2', events(1));
    await waitFor(() => received.length === 4, 'the event appended while the listener was cut');
    await waitFor(listening, "a's LISTEN again");
    await b.append('two-3', events(1));
    await waitFor(() => received.length === 5, 'an event after the listener reconnected');
    t.same(received.map(summary), (await b.readAll()).map(summary), 'everything once, in order');
  });

  t.test('appends of one event-loop turn share a transaction, each conflict failing only its own append', async (t) => {
    const url = await server.get().createDatabase('batch');
    const store = openStore(t, url);
    await store.append('taken', events(1));
    const settled = await Promise.allSettled([
      store.append('b-1', events(2), { expectedRevision: 'no_stream' }),
      store.append('taken', events(1), { expectedRevision: 'no_stream' }),
      store.append('b-1', events(1), { expectedRevision: 1n }), // sees the first append of its own batch
      store.append('b-2', [{ ...events(1)[0]!, data: { bad: '\u0000 is fine in json' } }]),
    ]);
    t.same(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    t.teardown(() => client.end());
    const { rows } = await client.query('SELECT DISTINCT xmin::text AS x FROM tokengate_events WHERE position > 1');
    t.equal(rows.length, 1, 'the accepted appends of the turn were written by one transaction');
    t.same((await store.readStream('b-1')).map((e) => e.revision), [0n, 1n, 2n]);
  });

  t.test('an unreachable server or a wrong password: 503 StoreUnreachable, never the password in a message', async (t) => {
    const { port, password } = server.get();
    const secret = 'S3cr3t-pw-never-shown';
    const closed = openStore(t, `postgres://tokengate:${secret}@127.0.0.1:1/nope`);
    const error = await closed.append('x', events(1)).then(() => undefined, (e: unknown) => e);
    t.type(error, StoreUnreachable, 'an unreachable server is StoreUnreachable (503)');
    t.notMatch(String((error as Error).message), secret, 'no password in the message');
    t.match((error as Error).message, /127\.0\.0\.1:1/, 'the message names the server');
    t.equal(closed.failure, undefined, 'not a lasting failure');

    const wrong = openStore(t, `postgres://tokengate:${secret}@127.0.0.1:${port}/postgres`);
    const refused = await wrong.readAll().then(() => undefined, (e: unknown) => e);
    t.ok(refused instanceof Error, 'a wrong password is refused');
    t.notMatch(String((refused as Error).message), secret);
    t.notMatch(String((refused as Error).message), password);
  });

  t.test('a server that refuses writes (read-only) is a StorageFault: 503, `failure` set until a batch commits again', async (t) => {
    const url = await server.get().createDatabase('readonly');
    const store = openStore(t, url);
    await store.append('ro-1', events(1));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    t.teardown(() => admin.end());
    const database = new URL(url).pathname.slice(1);
    // New sessions of the database are read-only; the store's open sessions are ended, so it reconnects into one.
    await admin.query(`ALTER DATABASE ${database} SET default_transaction_read_only = on`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    const first = await store.append('ro-1', events(1)).then(() => undefined, (e: unknown) => e);
    const refused = first instanceof StoreUnreachable ? await store.append('ro-1', events(1)).then(() => undefined, (e: unknown) => e) : first;
    t.type(refused, StorageFault, 'a write the server refuses is a StorageFault');
    t.equal((refused as StorageFault).statusCode, 503);
    t.match((refused as StorageFault).explanation, /read-only/, 'its explanation names the reason');
    t.equal(store.failure, refused, 'failure says why (Check Gateway: SHUTDOWN)');
    t.same((await store.readStream('ro-1')).length, 1, 'reads still work');

    await admin.query(`ALTER DATABASE ${database} SET default_transaction_read_only = off`);
    await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()");
    let healed: unknown;
    for (let i = 0; i < 3 && (healed = await store.append('ro-1', events(1)).then(() => 'ok', (e: unknown) => e)) !== 'ok'; i++);
    t.equal(healed, 'ok', 'writes work again');
    t.equal(store.failure, undefined, 'and failure is cleared');
  });
}
