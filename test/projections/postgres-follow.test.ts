// Read models on PostgreSQL's shared tables with the PostgreSQL store as their feed (as a gateway
// runs them: projections/behind.ts): each instance applies what it commits; an instance that only
// follows another does no read model write for the other's events, and still reads everything
// (its reads catch up first); what no process applies (a process without read models, the CLI) is
// applied by the look every instance makes, without a read.
import t, { type Test } from 'tap';
import { postgresForFile } from '../helpers/postgres.js';
import { buildTestApp, createToken, M1, payAuth, payPath } from '../helpers/app.js';
import { ALL_MERCHANTS } from '../http/token-api.fixture.js';
import { PROJECTIONS } from '../../root.js';
import { ReadModels } from '../../projections/read-models.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { PostgresReadModelTables } from '../../store/postgres/read-model-tables.js';
import { eventually, waitFor } from '../helpers/poll.js';

const server = postgresForFile(t);

/** The models a gateway keeps current on shared tables (the orders model is brought up by its reads). */
const LIVE = PROJECTIONS.filter((p) => p.apply !== 'onRead').map((p) => p.name);

/** A workload's events (tokens, pays, an UNKNOWN resolved) and the hash of the read models they make. */
async function workload(t: Test): Promise<{ events: RecordedEvent[]; hash: string }> {
  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '0';
  t.teardown(() => { delete process.env.UNKNOWN_RESOLUTION_DELAY_MS; });
  const app = await buildTestApp(t, { eventStore: { kind: 'memory' }, merchants: ALL_MERCHANTS });
  const pay = (token: string, orderId: string) => app.inject({
    method: 'PUT', url: payPath(M1.id, token, orderId, '1'), headers: { authorization: payAuth(M1) },
    payload: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } },
  });
  const approved = await createToken(app, M1, '5123450000000008', '1', '39');
  const unknown = await createToken(app, M1, '2223000000000007', '5', '37');
  for (let i = 0; i < 6; i++) await pay(approved, `5000000000${i}`);
  await pay(unknown, '50000000010');
  const store = app.gateway.store;
  await eventually(async () => (await store.readAll()).some((e) => e.type === 'PaymentOutcomeResolved'));
  await app.gateway.readModels.catchUp();
  return { events: await store.readAll(), hash: await app.gateway.readModels.hash() };
}

/** `events` appended to `store` in order, each its own commit. */
async function copy(store: PostgresEventStore, events: readonly RecordedEvent[]): Promise<void> {
  for (const e of events) await store.append(e.stream, [{ id: e.id, type: e.type, data: e.data, metadata: e.metadata }]);
}

function open(t: Test, url: string, lookMs?: number) {
  const store = new PostgresEventStore(url);
  const tables = new PostgresReadModelTables(url);
  const models = new ReadModels(tables, store, PROJECTIONS, { feed: store, ...(lookMs === undefined ? {} : { lookMs }) });
  t.teardown(async () => { await models.stop(); await tables.close(); await store.close(); });
  return { store, tables, models };
}

/** Whether every live model's stored checkpoint is at `head` (read from the tables: no catch-up). */
const storedAt = async (tables: PostgresReadModelTables, head: bigint) => [...(await tables.checkpoints(LIVE)).values()].every((p) => p === head);

if (server) {
  t.test('an instance applies what it commits; another that only follows writes nothing for it, and reads it all', async (t) => {
    const { events, hash } = await workload(t);
    const url = await server.get().createDatabase('follow_own');
    const a = open(t, url);
    // b does not look for what no one applied (ten minutes): only being told of a's commits could make it write.
    const b = open(t, url, 600_000);
    await Promise.all([a.models.start(), b.models.start()]);
    let writes = 0;
    const write = b.tables.write.bind(b.tables);
    b.tables.write = (update) => { writes += 1; return write(update); };
    const heard: RecordedEvent[] = [];
    const subscription = b.store.subscribeAll({}, { onEvent: (e) => { heard.push(e); } });
    t.teardown(() => subscription.close());

    await copy(a.store, events);
    const head = await a.store.headPosition();
    await waitFor(() => storedAt(a.tables, head), "a's models written through its commits, without a read");
    await waitFor(() => heard.length === events.length, "b heard of a's commits");
    // (b's models were told of a's commits when b heard of them, before this change: they wrote within a moment.)
    t.notOk(await eventually(() => writes > 0, { timeoutMs: 1_500 }), 'b wrote nothing for them');
    // A read of b's catches up first: from the checkpoints as stored, so it finds nothing to write.
    t.equal(await b.models.checkpoint('tokens'), head, "b's read sees the tokens model through the head");
    t.equal(writes, 0, 'its catch-up started where a left off: no page to write');
    t.equal(await b.models.hash(), hash, "b's reads see every model as a whole log makes it");
    t.equal(await a.models.hash(), hash);
  });

  t.test('what no process applies (one without read models) is applied by the look of an instance that only follows, without a read', async (t) => {
    const { events, hash } = await workload(t);
    const url = await server.get().createDatabase('follow_look');
    const writer = new PostgresEventStore(url);
    t.teardown(() => writer.close());
    const b = open(t, url, 100);
    await b.models.start();
    await copy(writer, events);
    const head = await writer.headPosition();
    await waitFor(() => storedAt(b.tables, head), "b's look applies the log through its head");
    t.equal(await b.models.hash(), hash, 'the models a whole log makes');
  });
}
