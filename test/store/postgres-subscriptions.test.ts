// The PostgreSQL store's live subscriptions (store/postgres/subscriptions.ts): another instance's
// commits are read from the server at most once per `gatherMs`, those of that moment together; the
// first after a quiet moment at once; every event delivered once, in order, this instance's own too.
import t, { type Test } from 'tap';
import pg from 'pg';
import type { ReadAllOptions, RecordedEvent, Subscription } from '../../store/event-store.js';
import { PostgresEventStore, type PostgresStoreOptions } from '../../store/postgres/event-store.js';
import { waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { events } from './contract.js';

const server = postgresForFile(t);

function openStore(t: Test, url: string, options: PostgresStoreOptions = {}): PostgresEventStore {
  const store = new PostgresEventStore(url, options);
  t.teardown(() => store.close());
  return store;
}

/**
 * `store`'s reads of the log that its memory did not answer (its subscriptions ask memory first)
 * and that brought events (a read woken by LISTEN coming up finds none).
 */
function countReads(store: PostgresEventStore): () => number {
  let reads = 0;
  const readAll = store.readAll.bind(store);
  store.readAll = async (options?: ReadAllOptions) => {
    const events = await readAll(options);
    if (events.length > 0) reads += 1;
    return events;
  };
  return () => reads;
}

/** A subscription of `store` from the start, live, its LISTEN connection (named `name`-listen) up. */
async function follow(t: Test, url: string, store: PostgresEventStore, name: string): Promise<RecordedEvent[] & { subscription: Subscription }> {
  const received: RecordedEvent[] = [];
  const subscription = store.subscribeAll({}, { onEvent: (e) => { received.push(e); } });
  t.teardown(() => subscription.close());
  await subscription.caughtUp;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  t.teardown(() => admin.end());
  await waitFor(async () => (await admin.query(
    "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database() AND state = 'idle' AND (query LIKE 'LISTEN%' OR query LIKE 'SELECT coalesce(max(position)%')",
    [`${name}-listen`])).rows[0].n === 1, `${name}'s LISTEN`);
  return Object.assign(received, { subscription });
}

const positions = (list: readonly RecordedEvent[]) => list.map((e) => e.position);

if (server) {
  t.test("the first commit of another instance after a quiet moment is read at once, whatever gatherMs", async (t) => {
    const url = await server.get().createDatabase('first');
    // Ten minutes between reads, no poll: only a read made at once can bring the commit in time.
    const a = openStore(t, url, { pollIntervalMs: 600_000, gatherMs: 600_000, applicationName: 'sub-a' });
    const b = openStore(t, url);
    const received = await follow(t, url, a, 'sub-a');
    const reads = countReads(a);
    await b.append('first-1', events(2), { expectedRevision: 'no_stream' });
    await waitFor(() => received.length === 2, "b's commit at a");
    t.same(positions(received), [1n, 2n]);
    t.equal(reads(), 1, 'one read of the server');
  });

  t.test("another instance's commits that follow within gatherMs are read together; nothing lost, nothing twice, in order", async (t) => {
    const url = await server.get().createDatabase('gathered');
    const a = openStore(t, url, { pollIntervalMs: 600_000, gatherMs: 1_500, applicationName: 'sub-b' });
    const b = openStore(t, url);
    const received = await follow(t, url, a, 'sub-b');
    const reads = countReads(a);
    await b.append('gathered-0', events(1), { expectedRevision: 'no_stream' });
    await waitFor(() => received.length === 1, "b's first commit at a");
    // Ten commits, each its own transaction and notification, one after another.
    for (let i = 1; i <= 10; i++) await b.append(`gathered-${i}`, events(1), { expectedRevision: 'no_stream' });
    // And one of a's own after them: it reaches a's subscription once the commits before it are read.
    await a.append('gathered-a', events(1), { expectedRevision: 'no_stream' });
    await waitFor(() => received.length === 12, 'every commit at a');
    t.same(positions(received), Array.from({ length: 12 }, (_, i) => BigInt(i + 1)), 'positions 1..12, once each, in order');
    t.equal(received[11]?.stream, 'gathered-a');
    // Read one by one, the ten would have taken ten reads (eleven with the first); gathered, the
    // first read and the one put off until 1.5 s after it (one more if the ten took longer).
    t.ok(reads() <= 3, `the ten commits read together (${reads()} reads of the server in all)`);
  });

  t.test('a subscription closed while a read is put off stops at once', async (t) => {
    const url = await server.get().createDatabase('closed');
    const a = openStore(t, url, { pollIntervalMs: 600_000, gatherMs: 600_000, applicationName: 'sub-c' });
    const b = openStore(t, url);
    const received = await follow(t, url, a, 'sub-c');
    await b.append('closed-1', events(1));
    await waitFor(() => received.length === 1, "b's first commit at a");
    await b.append('closed-2', events(1));
    await received.subscription.close();
    t.same(positions(received), [1n], 'the put-off read never made');
  });
}
