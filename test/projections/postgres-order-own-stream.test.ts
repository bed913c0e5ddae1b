// On PostgreSQL, two instances sharing one database: a transaction on an existing order decides on
// the order as the instance's memory holds it, without reading the log's head (the command
// handler's own stream read unconfirmed, promise 8), its append checked on the server by the
// order's expected revision. While the other instance's notifications are held back, that memory
// is behind: an order captured on one instance is captured and refunded on the other exactly as
// on the first (a stale append refused and decided again; a refusal on the stale order decided
// again on the careful read). Retrieve Order keeps its head read (postgres-read-your-writes.test.ts).
import t, { type Test } from 'tap';
import { streams } from '../../domain/streams.js';
import { postgresForFile } from '../helpers/postgres.js';
import { countHeadReads, holdNotifications, storeOf } from '../helpers/postgres-instances.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';

const server = postgresForFile(t);
type App = Awaited<ReturnType<typeof buildTestApp>>;
type Body = Record<string, any>;

const put = (app: App, order: string, transaction: string, payload: Record<string, unknown>) => app.inject({
  method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${transaction}`, headers: { authorization: tokenAuth(M1) }, payload,
});
const capture = (amount: string) => ({ apiOperation: 'CAPTURE', transaction: { amount, currency: 'USD' } });
const refund = (amount: string) => ({ apiOperation: 'REFUND', transaction: { amount, currency: 'USD' } });

async function ok(t: Test, reply: Promise<Awaited<ReturnType<App['inject']>>>, what: string): Promise<Body> {
  const res = await reply;
  if (res.statusCode !== 201) t.comment(res.body);
  t.equal(res.statusCode, 201, what);
  return res.json() as Body;
}

/** An order authorized for 100.00 on `b` (so its memory holds the order's stream). */
async function authorizedOn(t: Test, a: App, b: App, order: string): Promise<void> {
  const token = await createToken(a, M1);
  await ok(t, put(b, order, 'auth-1', { apiOperation: 'AUTHORIZE', order: { amount: '100.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } }), 'authorized');
  t.ok(storeOf(b).cachedStream(streams.order(M1.id, order)), 'the instance holds the order it wrote');
}

/** That `b`'s memory is behind the order's `events` (its notifications and other reads held: it cannot have learnt of them). */
function expectBehind(t: Test, b: App, order: string, events: number): void {
  const held = storeOf(b).cachedStream(streams.order(M1.id, order))?.length;
  t.ok(held !== undefined && held < events, `the other instance holds ${held ?? 'none'} of the order's ${events} events`);
}

if (server) {
  t.test('PostgreSQL: a CAPTURE on an order the instance holds reads no head', async (t) => {
    const { a, b } = await twoGateways(t, server, 'own_quiet');
    await authorizedOn(t, a, b, 'own-quiet-1');
    const counter = countHeadReads(t, /\b(handleCommand|handleOrderCommand|orderApiRequest|commandFacts)\b/);
    const body = await ok(t, put(b, 'own-quiet-1', 'cap-1', capture('40.00')), 'captured');
    t.equal(body.order.totalCapturedAmount, 40);
    t.equal(counter.reads, 0, 'no head read for a CAPTURE on an order memory holds');
  });

  t.test('PostgreSQL: captured on one instance, its notifications held from the other: a CAPTURE there counts it', async (t) => {
    const { a, b } = await twoGateways(t, server, 'own_capture');
    await authorizedOn(t, a, b, 'own-cap-1');
    const held = await holdNotifications(t, b);
    await ok(t, put(a, 'own-cap-1', 'cap-1', capture('40.00')), 'captured on the first');
    expectBehind(t, b, 'own-cap-1', 2);
    const body = await ok(t, held.run(() => put(b, 'own-cap-1', 'cap-2', capture('60.00'))), 'the rest captured on the other');
    held.release();
    t.equal(body.order.status, 'CAPTURED', 'fully captured');
    t.equal(body.order.totalCapturedAmount, 100, 'both captures counted');
  });

  t.test('PostgreSQL: captured on one instance, its notifications held from the other: a REFUND there of more than it last saw captured succeeds', async (t) => {
    const { a, b } = await twoGateways(t, server, 'own_refund');
    await authorizedOn(t, a, b, 'own-ref-1');
    await ok(t, put(b, 'own-ref-1', 'cap-1', capture('50.00')), 'captured on the other');
    const held = await holdNotifications(t, b);
    await ok(t, put(a, 'own-ref-1', 'cap-2', capture('50.00')), 'the rest captured on the first');
    expectBehind(t, b, 'own-ref-1', 3);
    const body = await ok(t, held.run(() => put(b, 'own-ref-1', 'ref-1', refund('80.00'))), 'refunded on the other');
    held.release();
    t.equal(body.transaction.type, 'REFUND');
    t.equal(body.order.totalCapturedAmount, 100);
    t.equal(body.order.totalRefundedAmount, 80, 'refunded 80 of the 100 captured');
  });
}
