// On PostgreSQL, two instances sharing one database: the order API's PAY with sourceOfFunds.token
// decides on the token as the instance's memory holds it, without reading the log's head, and its
// append is checked on the server against the token's revision it decided on (as Pay with token:
// postgres-pay-condition.test.ts). While the other instance's notifications are held back, a
// token deleted on one instance is refused on the other exactly as on the first.
import t, { type Test } from 'tap';
import { streams } from '../../domain/streams.js';
import { waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { countHeadReads, type Held, holdNotifications, storeOf } from '../helpers/postgres-instances.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { buildTestApp, createToken, M1, tokenAuth, tokenPath } from '../helpers/app.js';

const server = postgresForFile(t);
type App = Awaited<ReturnType<typeof buildTestApp>>;

const NOT_FOUND = '{"error":{"cause":"INVALID_REQUEST","explanation":"Token not found","field":"sourceOfFunds.token","validationType":"INVALID"},"result":"ERROR"}';

/** Counts the head reads asked on behalf of an order API transaction (by the functions in its stack). */
const countOrderApiHeadReads = (t: Test) =>
  countHeadReads(t, /\b(orderApiRequest|commandFacts|initiatingFacts|tokenSourceRead|PayableCards|handleOrderCommand)\b/);

const pay = (app: App, token: string, order: string, transaction: string) => app.inject({
  method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${transaction}`, headers: { authorization: tokenAuth(M1) },
  payload: { apiOperation: 'PAY', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } },
});

/** Pays on `b` until its memory holds the token's stream (each pay a new order; each sent by `run`, when its notifications are held). */
async function warm(t: Test, b: App, token: string, prefix: string, run: Held['run'] = (request) => request()): Promise<void> {
  const stream = streams.token(M1.repository.id, token);
  let paid = 0;
  await waitFor(async () => {
    paid += 1;
    const reply = await run(() => pay(b, token, `${prefix}${String(paid).padStart(3, '0')}`, '1'));
    if (reply.statusCode !== 201) t.fail(`a pay on the other instance: ${reply.body}`);
    return storeOf(b).cachedStream(stream) !== undefined;
  }, 'the other instance holding the token in memory');
}

if (server) {
  t.test('PostgreSQL: an order API PAY on a token memory holds reads no head', async (t) => {
    const { a, b } = await twoGateways(t, server, 'oapi_quiet');
    const token = await createToken(a, M1);
    await warm(t, b, token, 'oapi-quiet-');
    const counter = countOrderApiHeadReads(t);
    const quiet = await pay(b, token, 'oapi-quiet-paid', '1');
    t.equal(quiet.statusCode, 201, quiet.body);
    t.equal(counter.reads, 0, 'no head read for a PAY on a token memory holds');
  });

  t.test('PostgreSQL: a token deleted on one instance is refused on the other as on the first, its notifications held', async (t) => {
    const { a, b } = await twoGateways(t, server, 'oapi_delete');
    const token = await createToken(a, M1);
    const held = await holdNotifications(t, b);
    await warm(t, b, token, 'oapi-del-', held.run);
    const first = await held.run(() => pay(b, token, 'oapi-del-first', '1'));
    t.equal(first.statusCode, 201, first.body);

    const deleted = await a.inject({ method: 'DELETE', url: `${tokenPath(M1.id)}/${token}`, headers: { authorization: tokenAuth(M1) } });
    t.equal(deleted.statusCode, 200, deleted.body);
    const stale = storeOf(b).cachedStream(streams.token(M1.repository.id, token));
    t.equal(stale?.at(-1)?.type, 'TokenCreated', 'the other instance still holds the token as before the delete');
    const refused = await held.run(() => pay(b, token, 'oapi-del-refused', '1'));
    const repeatOnB = await held.run(() => pay(b, token, 'oapi-del-first', '1'));
    held.release();
    const onA = await pay(a, token, 'oapi-del-on-a', '1');
    const repeatOnA = await pay(a, token, 'oapi-del-first', '1');
    t.equal(onA.body, NOT_FOUND, 'refused on the deleting instance');
    t.equal(refused.statusCode, 400, refused.body);
    t.equal(refused.body, onA.body, 'refused alike on the other');
    t.equal(repeatOnB.statusCode, repeatOnA.statusCode, `the repeat answered alike on both: ${repeatOnB.body}`);
    t.equal(repeatOnB.body, repeatOnA.body, 'with the same body');
    const order = await b.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/oapi-del-refused`, headers: { authorization: tokenAuth(M1) } });
    t.equal(order.statusCode, 400, `nothing recorded for the refused PAY: ${order.body}`);
  });
}
