// UNKNOWN becomes final: the reactor appends PaymentOutcomeResolved after
// UNKNOWN_RESOLUTION_DELAY_MS (even amount in minor units: APPROVED, odd: DECLINED); totals, the
// orders read model and identical repeats follow; pending resolutions resume after a restart;
// two gateways on one store resolve once; replaying the store reproduces the final state.
import { join } from 'node:path';
import t from 'tap';
import { openDatabase, SqliteReadModelTables } from '../../store/sqlite.js';
import { ReadModels } from '../../projections/read-models.js';
import { PROJECTIONS } from '../../root.js';
import { buildTestApp, M1 } from '../helpers/app.js';
import { MERCHANTS_WITH_RULES, newOrderId, payAs, payBody, storedCard, type App } from './pay-triggers.fixture.js';
import { streams } from '../../domain/events.js';
import { sleep, waitFor } from '../helpers/poll.js';

process.env.UNKNOWN_RESOLUTION_DELAY_MS = '100';

const typesOf = async (app: App, order: string) => (await app.gateway.store.readStream(streams.order(M1.id, order))).map((e) => e.type);

const orderDoc = (app: App, order: string) => app.gateway.readModels.get<{ status: string; totalCapturedAmount: number; transactions: Array<{ gatewayCode: string }> }>('orders', `${M1.id}/${order}`);

// On SQLite too: there the order is read from the store's memory, which must follow the resolution.
for (const [storeName, eventStore] of [['memory', { kind: 'memory' }], ['sqlite', { kind: 'sqlite', path: ':memory:' }]] as const) t.test(`an even amount resolves APPROVED: totals, status, read model and repeats follow (${storeName})`, async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES, eventStore });
  const token = await storedCard(app, M1, 5, 37);
  const order = newOrderId();
  const first = await payAs(app, M1, token, payBody('12.50'), order, 'tx-1');
  t.equal(first.json().response.gatewayCode, 'UNKNOWN');
  t.equal(first.json().order.status, 'INITIATED');
  // A repeat before the resolution (100 ms later).
  const early = (await payAs(app, M1, token, payBody('12.50'), order, 'tx-1')).json();
  t.ok(['UNKNOWN', 'APPROVED'].includes(early.response.gatewayCode), `a repeat before or after the resolution (${early.response.gatewayCode})`);
  await waitFor(async () => (await typesOf(app, order)).includes('PaymentOutcomeResolved'), 'the resolution');
  t.strictSame(await typesOf(app, order), ['PaymentRecorded', 'PaymentOutcomeResolved']);
  const doc = await orderDoc(app, order);
  t.equal(doc?.status, 'CAPTURED', 'the read model follows');
  t.equal(doc?.totalCapturedAmount, 1250);
  t.equal(doc?.transactions[0]?.gatewayCode, 'APPROVED');
  const repeat = (await payAs(app, M1, token, payBody('12.50'), order, 'tx-1')).json();
  t.equal(repeat.response.gatewayCode, 'APPROVED', 'an identical repeat answers the final outcome');
  t.equal(repeat.result, 'SUCCESS');
  t.equal(repeat.response.acquirerCode, '00');
  t.match(repeat.transaction.authorizationCode, /^([0-9]{2}[A-Z]){2}$/);
  t.equal(repeat.order.totalCapturedAmount, 12.5);
  t.equal(repeat.order.status, 'CAPTURED');
  const next = (await payAs(app, M1, await storedCard(app, M1, 1, 39), payBody('1.00'), order, 'tx-2')).json();
  t.equal(next.order.totalCapturedAmount, 13.5, 'a later transaction adds to the resolved totals');
});

t.test('an odd amount resolves DECLINED; the other transactions of the order keep their money', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const order = newOrderId();
  await payAs(app, M1, await storedCard(app, M1, 1, 39), payBody('10.00'), order, 'tx-1');
  const unknown = await storedCard(app, M1, 5, 37);
  t.equal((await payAs(app, M1, unknown, payBody('12.51'), order, 'tx-2')).json().result, 'UNKNOWN');
  await waitFor(async () => (await typesOf(app, order)).includes('PaymentOutcomeResolved'), 'the resolution');
  const repeat = (await payAs(app, M1, unknown, payBody('12.51'), order, 'tx-2')).json();
  t.equal(repeat.response.gatewayCode, 'DECLINED');
  t.equal(repeat.result, 'FAILURE');
  t.notOk('authorizationCode' in repeat.transaction);
  t.equal(repeat.order.totalCapturedAmount, 10);
  t.equal((await orderDoc(app, order))?.status, 'CAPTURED');
});

t.test('pending resolutions resume after a restart; two gateways on one file resolve once; replay equals live', async (t) => {
  const dir = t.testdir({});
  const eventStore = { kind: 'sqlite' as const, path: join(dir, 'gateway.db') };
  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '600000';
  const before = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES, eventStore });
  const token = await storedCard(before, M1, 5, 37);
  const orders = [newOrderId(), newOrderId()];
  for (const order of orders) t.equal((await payAs(before, M1, token, payBody('20.00'), order)).json().result, 'UNKNOWN');
  await sleep(200); // time passes, and the resolution (due in 10 minutes) must not come
  t.strictSame(await typesOf(before, orders[0]!), ['PaymentRecorded'], 'not resolved before its time');
  await before.close();

  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '50';
  const [one, two] = await Promise.all([
    buildTestApp(t, { merchants: MERCHANTS_WITH_RULES, eventStore }),
    buildTestApp(t, { merchants: MERCHANTS_WITH_RULES, eventStore }),
  ]);
  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '100';
  for (const order of orders) {
    await waitFor(async () => (await typesOf(one!, order)).includes('PaymentOutcomeResolved'), `the resolution of ${order}`);
  }
  await sleep(300); // time for the other gateway to try too: a second resolution must not come
  for (const order of orders) t.strictSame(await typesOf(two!, order), ['PaymentRecorded', 'PaymentOutcomeResolved'], 'resolved once');
  await waitFor(async () => (await orderDoc(one!, orders[1]!))?.status === 'CAPTURED', 'the read model');

  // Replay: a fresh read model built from the whole store equals the live one.
  const replayed = new ReadModels(new SqliteReadModelTables(openDatabase(':memory:')), one!.gateway.store, PROJECTIONS);
  await replayed.catchUp();
  t.strictSame(replayed.all('orders'), one!.gateway.readModels.all('orders'), 'replaying the store reproduces the final state');
});
