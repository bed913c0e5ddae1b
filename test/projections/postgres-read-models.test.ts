// The read models in PostgreSQL (the runner over store/postgres/read-model-tables.ts), against a real server: after a
// mixed workload they hold byte for byte what the SQLite read models hold (same hash), a rebuild
// equals the live models, two instances sharing the tables apply each event once (catching up at
// the same time), and one instance sees the other's writes (polled, within a generous bound).
import t from 'tap';
import { postgresForFile } from '../helpers/postgres.js';
import { buildTestApp, cardBody, createToken, M1, payAuth, payPath, tokenAuth, tokenPath, UNIQUE } from '../helpers/app.js';
import { ALL_MERCHANTS } from '../http/token-api.fixture.js';
import { PROJECTIONS } from '../../root.js';
import { ReadModels } from '../../projections/read-models.js';
import { PostgresReadModelTables } from '../../store/postgres/read-model-tables.js';
import { eventually } from '../helpers/poll.js';

const server = postgresForFile(t);

if (server) {
  t.test('PostgreSQL read models: equal to SQLite\'s, rebuild equals live, two instances share them', async (t) => {
    process.env.UNKNOWN_RESOLUTION_DELAY_MS = '0';
    t.teardown(() => { delete process.env.UNKNOWN_RESOLUTION_DELAY_MS; });
    // The workload runs on a gateway with an in-memory log and SQLite read models (the reference);
    // the PostgreSQL read models follow that same log.
    const app = await buildTestApp(t, { eventStore: { kind: 'memory' }, merchants: ALL_MERCHANTS });
    const store = app.gateway.store;
    const url = await server.get().createDatabase('read_models');
    // Small pages: catch-ups of several pages, and two instances interleaving them.
    const tablesA = new PostgresReadModelTables(url);
    const tablesB = new PostgresReadModelTables(url);
    const a = new ReadModels(tablesA, store, PROJECTIONS, { page: 7 });
    const b = new ReadModels(tablesB, store, PROJECTIONS, { page: 5 });
    t.teardown(async () => { await a.stop(); await b.stop(); await tablesA.close(); await tablesB.close(); });

    const pay = (token: string, orderId: string, amount: string) => app.inject({
      method: 'PUT', url: payPath(M1.id, token, orderId, '1'), headers: { authorization: payAuth(M1) },
      payload: { apiOperation: 'PAY', transaction: { amount, currency: 'USD' } },
    });
    const approved = await createToken(app, M1, '5123450000000008', '1', '39');
    const unknown = await createToken(app, M1, '2223000000000007', '5', '37');
    for (let i = 0; i < 10; i++) await pay(approved, `1000000000${i}`, '10.00');
    await pay(unknown, '20000000001', '12.50');
    const unique = (month: string) => app.inject({ method: 'POST', url: tokenPath(UNIQUE.id), headers: { authorization: tokenAuth(UNIQUE) }, payload: cardBody('4012000033330026', month, '39') });
    await unique('1');
    const updated = (await unique('2')).json().token as string;
    await app.inject({ method: 'DELETE', url: `/api/rest/version/100/merchant/${UNIQUE.id}/token/${updated}`, headers: { authorization: tokenAuth(UNIQUE) } });
    await eventually(async () => (await store.readAll()).some((e) => e.type === 'PaymentOutcomeResolved'));

    // Both start at once on empty tables: they catch up together, each event applied once.
    await Promise.all([a.start(), b.start()]);
    await app.gateway.readModels.catchUp();
    const reference = await app.gateway.readModels.hash();
    t.equal(await a.hash(), reference, 'the same documents as the SQLite read models');
    t.equal(await b.hash(), reference);
    const head = await store.headPosition();
    for (const p of PROJECTIONS) t.equal(await b.checkpoint(p.name), head, `${p.name} checkpoint at the head`);

    const rebuilt = await a.rebuild();
    t.equal(rebuilt.events, (await store.readAll()).length, 'every event replayed');
    t.equal(await a.hash(), reference, 'rebuild equals live');

    // A write seen by both: a catches up after it (as its command handler does), b without being told.
    const later = await createToken(app, M1, '4508750015741019', '1', '39');
    const key = `${M1.id}/${later}`;
    const tokenKey = (await app.gateway.readModels.all('tokens')).map((r) => r.key).find((k) => k.endsWith(later));
    t.ok(tokenKey, 'the reference holds the new token');
    await a.catchUp(await store.headPosition());
    t.ok(await a.get('tokens', tokenKey!), 'the writer\'s instance answers its write at once');
    const seen = await eventually(async () => (await b.get('tokens', tokenKey!)) !== undefined, { intervalMs: 20 });
    t.ok(seen, `the other instance sees it (${key})`);
    // Many writes while both follow the log: still each applied once.
    for (let i = 0; i < 15; i++) await pay(later, `3000000000${i}`, '1.00');
    await Promise.all([a.catchUp(), b.catchUp()]);
    await app.gateway.readModels.catchUp();
    t.equal(await b.hash(), await app.gateway.readModels.hash(), 'still equal after concurrent catch-ups');
    t.same((await a.withPrefix('orders', `${M1.id}/3000000000`)).length, 15, 'withPrefix reads a range of keys');

    // A replay up to a position (tokengate replay --until-position): every read shows that moment
    // (no catch-up) until the next catch-up, as on SQLite.
    const full = await a.hash();
    const until = (await store.headPosition()) - 10n;
    await a.rebuild({ untilPosition: until, everyModel: true });
    await app.gateway.readModels.rebuild({ untilPosition: until, everyModel: true });
    const then = await a.hash();
    t.not(then, full, 'the models up to the position are not the models now');
    t.equal(then, await app.gateway.readModels.hash(), "the same as SQLite's replayed to the same position");
    t.equal(await a.checkpoint(PROJECTIONS[0]!.name), until, 'its checkpoint read as it is');
    await a.catchUp();
    t.equal(await a.hash(), full, 'a catch-up brings them to now');
  });

  t.test('PostgreSQL: an \'onRead\' model (orders) is not written while serving, and its first read brings it up', async (t) => {
    const app = await buildTestApp(t, { eventStore: { kind: 'memory' }, merchants: ALL_MERCHANTS });
    const store = app.gateway.store;
    const url = await server.get().createDatabase('on_read');
    const tables = new PostgresReadModelTables(url);
    const models = new ReadModels(tables, store, PROJECTIONS, { page: 4 });
    t.teardown(async () => { await models.stop(); await tables.close(); });
    await models.start();
    const token = await createToken(app, M1, '5123450000000008', '1', '39');
    for (let i = 0; i < 6; i++) {
      await app.inject({
        method: 'PUT', url: payPath(M1.id, token, `4000000000${i}`, '1'), headers: { authorization: payAuth(M1) },
        payload: { apiOperation: 'PAY', transaction: { amount: '3.00', currency: 'USD' } },
      });
    }
    const head = await store.headPosition();
    t.equal(await models.checkpoint('tokens'), head, 'a read of another model catches the live ones up');
    t.equal(await tables.checkpoint('orders'), 0n, 'the orders model untouched by the catch-ups');
    t.equal((await tables.rows('orders')).length, 0, 'no order document written');
    t.equal(await models.checkpoint('orders'), head, 'its first read brings it to the head');
    await app.gateway.readModels.catchUp();
    t.same(await models.get('orders', `${M1.id}/40000000005`), await app.gateway.readModels.get('orders', `${M1.id}/40000000005`), 'the same document as SQLite\'s');
  });
}
