// On PostgreSQL, two instances sharing one database: a write acknowledged on one is seen by a
// read asked afterwards on the other, even while the other has not yet handled that commit's
// notification (held back here, with every other way its memory could learn of that commit: the
// moment memory.ts describes is certain, and lasts as long as the test needs).
// Retrieve Order shows a payment made on the other instance, and a token deleted there cannot be
// paid with, although the instance's memory still holds the stream as it was before.
import t from 'tap';
import { streams } from '../../domain/streams.js';
import { waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { holdNotifications, storeOf } from '../helpers/postgres-instances.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { buildTestApp, createToken, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';

const server = postgresForFile(t);
type App = Awaited<ReturnType<typeof buildTestApp>>;

const pay = (app: App, token: string, order: string, transaction: string) => app.inject({
  method: 'PUT', url: payPath(M1.id, token, order, transaction), headers: { authorization: payAuth(M1) },
  payload: { apiOperation: 'PAY', correlationId: 'read-your-writes', transaction: { amount: '10.00', currency: 'USD' } },
});

const retrieveOrder = (app: App, order: string) =>
  app.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${M1.id}/order/${order}`, headers: { authorization: payAuth(M1) } });

if (server) {
  t.test('PostgreSQL: a payment acknowledged on one instance is seen at once by Retrieve Order on the other', async (t) => {
    const { a, b } = await twoGateways(t, server, 'ryw_order');
    const token = await createToken(a, M1);
    const order = '20000000001';
    const first = await pay(a, token, order, '1');
    t.equal(first.statusCode, 201, first.body);
    const stream = streams.order(M1.id, order);
    const held = await holdNotifications(t, b);
    await waitFor(async () => {
      t.equal((await held.run(() => retrieveOrder(b, order))).statusCode, 200, 'retrieved on the other instance');
      return storeOf(b).cachedStream(stream) !== undefined;
    }, 'the other instance holding the order in memory');

    const before = storeOf(b).cachedStream(stream)?.length;
    const second = await pay(a, token, order, '2');
    t.equal(second.statusCode, 201, second.body);
    t.equal(storeOf(b).cachedStream(stream)?.length, before, "the other instance's memory still holds the order as before the payment");
    const reply = await held.run(() => retrieveOrder(b, order));
    t.equal(reply.statusCode, 200, reply.body);
    t.match(reply.json(), { result: 'SUCCESS', totalCapturedAmount: 20 }, 'both payments, the second made on the other instance');
    t.equal((reply.json() as { transaction: unknown[] }).transaction.length, 2, 'both transactions listed');
    held.release();
  });

  t.test('PostgreSQL: a token deleted on one instance cannot be paid with on the other right after', async (t) => {
    const { a, b } = await twoGateways(t, server, 'ryw_token');
    const token = await createToken(a, M1);
    const stream = streams.token(M1.repository.id, token);
    const held = await holdNotifications(t, b);
    let paid = 0;
    await waitFor(async () => {
      paid += 1;
      const reply = await held.run(() => pay(b, token, `3000000000${paid}`, '1'));
      t.equal(reply.statusCode, 201, 'paid on the other instance');
      return storeOf(b).cachedStream(stream) !== undefined;
    }, 'the other instance holding the token in memory');

    const deleted = await a.inject({ method: 'DELETE', url: `${tokenPath(M1.id)}/${token}`, headers: { authorization: tokenAuth(M1) } });
    t.equal(deleted.statusCode, 200, deleted.body);
    t.equal(storeOf(b).cachedStream(stream)?.at(-1)?.type, 'TokenCreated', "the other instance's memory still holds the token as before the delete");
    const onB = await held.run(() => pay(b, token, '40000000001', '1'));
    held.release();
    const onA = await pay(a, token, '40000000002', '1');
    t.not(onA.statusCode, 201, 'the instance that deleted it refuses it');
    t.equal(onB.statusCode, onA.statusCode, `refused on the other instance too: ${onB.body}`);
    t.same(onB.json(), onA.json(), 'with the same answer');
  });
}
