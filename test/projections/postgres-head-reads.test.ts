// On PostgreSQL a retrieve reads the log's head once: the read model read catches up to it and
// checks its cache against it, with no second read before or after; and it still sees every
// write answered before it, on either of two instances sharing the database. Retrieve Order reads
// the head only when memory holds the order (store/postgres/memory.ts), else reads the stream.
import t, { type Test } from 'tap';
import { postgresForFile } from '../helpers/postgres.js';
import { countHeadReads } from '../helpers/postgres-instances.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { cardBody, createToken, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';

const server = postgresForFile(t);

/**
 * Counts the head reads that `retrieveToken` or the order API's retrieve asked (their calls in
 * the stack: the reactors' and the read models' own timers run meanwhile and are not counted).
 */
const countRetrieveHeadReads = (t: Test) => countHeadReads(t, /\b(retrieveToken|retrieveOrderApi)\b/);

if (server) {
  t.test('PostgreSQL: Retrieve Token reads the head once, and sees every write answered before it on both instances', async (t) => {
    const { a, b } = await twoGateways(t, server, 'head_reads');
    const counter = countRetrieveHeadReads(t);
    const token = await createToken(a, M1, '5123450000000008', '1', '39');
    const expiryOn = async (app: typeof a, label: string) => {
      const before = counter.reads;
      const reply = await app.inject({ method: 'GET', url: `${tokenPath(M1.id)}/${token}`, headers: { authorization: tokenAuth(M1) } });
      t.equal(reply.statusCode, 200, reply.body);
      t.equal(counter.reads - before, 1, `${label}: one read of the head`);
      return (reply.json() as { sourceOfFunds: { provided: { card: { expiry: string } } } }).sourceOfFunds.provided.card.expiry;
    };
    const update = async (app: typeof a, month: string) => {
      const reply = await app.inject({ method: 'PUT', url: `${tokenPath(M1.id)}/${token}`, headers: { authorization: tokenAuth(M1) }, payload: cardBody('5123450000000008', month, '39') });
      t.equal(reply.statusCode, 201, reply.body);
    };

    t.equal(await expiryOn(a, 'first retrieve, the instance that created it'), '0139');
    t.equal(await expiryOn(b, 'first retrieve, the other instance'), '0139');
    t.equal(await expiryOn(a, 'again (cached)'), '0139');
    await update(b, '5');
    t.equal(await expiryOn(a, 'after an update on the other instance'), '0539', 'the update on b is seen on a at once');
    await update(a, '7');
    t.equal(await expiryOn(b, 'after an update on the first instance'), '0739', 'the update on a is seen on b at once');
    t.equal(await expiryOn(a, 'on the instance that updated'), '0739');
  });

  t.test('PostgreSQL: Retrieve Order reads the head once to answer from memory, not at all to read its stream', async (t) => {
    const { a, b } = await twoGateways(t, server, 'head_reads_order');
    const counter = countRetrieveHeadReads(t);
    const token = await createToken(a, M1);
    const order = '10000000001';
    const paid = await a.inject({ method: 'PUT', url: payPath(M1.id, token, order, '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', correlationId: 'head-reads', transaction: { amount: '10.00', currency: 'USD' } } });
    t.equal(paid.statusCode, 201, paid.body);
    // a holds the order it wrote: the head tells it heard of every commit before the retrieve; b reads the stream.
    for (const [app, name, reads] of [[a, 'a', 1], [b, 'b', 0]] as const) {
      const before = counter.reads;
      const reply = await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}`, headers: { authorization: tokenAuth(M1) } });
      t.equal(reply.statusCode, 200, reply.body);
      t.match(reply.json(), { result: 'SUCCESS', id: order, totalCapturedAmount: 10 }, `the order as paid on a, retrieved on ${name}`);
      t.equal(counter.reads - before, reads, `${reads} read(s) of the head on ${name}`);
    }
  });
}
