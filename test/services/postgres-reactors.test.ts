// Reactors exactly once across instances, against a real PostgreSQL: two gateways on one database
// both run every reactor (no lock, no lease: each reactor appends with the revision it read, so
// the second instance's append conflicts, it re-reads, finds the work done, and appends nothing).
// An UNKNOWN payment (expiry 05/37) is resolved once, a scheme token provisioned once; with one
// gateway closed before its work was due, the other does it.
import t from 'tap';
import { eventually, sleep } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { createToken, M1, payAuth, payPath } from '../helpers/app.js';
import { SCHEME } from '../http/token-api.fixture.js';

const server = postgresForFile(t);

if (server) {
  t.test('two gateways on one PostgreSQL database: each UNKNOWN resolved once, each scheme token provisioned once', async (t) => {
    const DELAY = 800;
    process.env.UNKNOWN_RESOLUTION_DELAY_MS = String(DELAY);
    process.env.SCHEME_TOKEN_DELAY_MS = String(DELAY);
    t.teardown(() => { delete process.env.UNKNOWN_RESOLUTION_DELAY_MS; delete process.env.SCHEME_TOKEN_DELAY_MS; });
    const { a, b } = await twoGateways(t, server, 'reactors');
    const events = async (type: string, stream?: string) =>
      (await b.gateway.store.readAll()).filter((e) => e.type === type && (stream === undefined || e.stream === stream));
    const pay = (app: typeof a, token: string, orderId: string) => app.inject({
      method: 'PUT', url: payPath(M1.id, token, orderId, '1'), headers: { authorization: payAuth(M1) },
      payload: { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } },
    });

    // A token made on one pays on the other: the keys and read models are shared.
    const token = await createToken(a, M1, '2223000000000007', '5', '37');
    const started = Date.now();
    const first = await pay(b, token, '10000000001');
    t.equal(first.json().result, 'UNKNOWN', 'a card expiring 05/37 is answered UNKNOWN');
    const schemeToken = await createToken(a, SCHEME as typeof M1, '5123450000000008', '1', '39');

    const schemeStreamOf = async () => (await events('TokenCreated')).find((e) => (e.data as { token?: string }).token === schemeToken)?.stream;
    // Wait for the first resolution and the first provisioning (however loaded the machine)...
    await eventually(async () => (await events('PaymentOutcomeResolved')).length > 0, { intervalMs: 50 });
    await eventually(async () => {
      const stream = await schemeStreamOf();
      return stream !== undefined && (await events('SchemeTokenStatusChanged', stream)).length > 0;
    }, { intervalMs: 50 });
    // ...then both instances' timers are due; let both finish (a second resolution or
    // provisioning would be appended within this time), then stop both (stopping waits for work
    // under way).
    await sleep(Math.max(1500, started + 3 * DELAY + 1500 - Date.now())); // the window a duplicate would need, which must not come
    const resolved = await events('PaymentOutcomeResolved');
    t.equal(resolved.length, 1, 'exactly one PaymentOutcomeResolved with both gateways running');
    const schemeStream = await schemeStreamOf();
    t.ok(schemeStream);
    t.equal((await events('SchemeTokenStatusChanged', schemeStream)).length, 1, 'the scheme token provisioned once');
    await a.gateway.readModels.catchUp();
    const order = await a.gateway.readModels.get<{ status: string }>('orders', `${M1.id}/10000000001`);
    t.equal(order?.status, 'CAPTURED', 'the shared read model shows the payment resolved');

    // The gateway that took the next payment dies before its resolution is due: the other one resolves it.
    const second = await pay(a, token, '10000000002');
    t.equal(second.json().result, 'UNKNOWN');
    await a.close();
    await eventually(async () => (await events('PaymentOutcomeResolved')).length >= 2, { intervalMs: 50 });
    const after = await events('PaymentOutcomeResolved');
    t.equal(after.length, 2, 'the surviving gateway resolved the next UNKNOWN payment');
    t.equal(new Set(after.map((e) => e.stream)).size, 2, 'one resolution per payment');
  });
}
