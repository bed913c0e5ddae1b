// Two gateways on one PostgreSQL database share the keys and the read models (no local file): a
// card stored as a unique card from both at once is one token, a token deleted on one is deleted
// for the other and its card can no longer be opened by either, and what one writes the other
// answers at once. Against a real server; skipped loudly without one.
import t from 'tap';
import pg from 'pg';
import { eventually, sleep } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { cardBody, M1, payAuth, payPath, tokenAuth, tokenPath, UNIQUE } from '../helpers/app.js';

const server = postgresForFile(t);

if (server) {
  t.test('two gateways on one database: one token per unique card, a deletion forgotten by both', async (t) => {
    const { url, a, b } = await twoGateways(t, server, 'shared_keys');
    // A client repeats a 503 SERVER_BUSY, as its body asks: on a loaded machine, one of sixteen
    // creates of one card at once may run out of turns waiting for the claim it met.
    const create = async (app: typeof a) => {
      for (let attempt = 1; ; attempt++) {
        const res = await app.inject({ method: 'POST', url: tokenPath(UNIQUE.id), headers: { authorization: tokenAuth(UNIQUE) }, payload: cardBody('4012000033330026', '1', '39') });
        if (res.statusCode !== 503 || attempt === 10) return res;
        await sleep(20 * attempt); // a client that backs off before it repeats
      }
    };

    const replies = await Promise.all(Array.from({ length: 16 }, (_, i) => create(i % 2 === 0 ? a : b)));
    t.same([...new Set(replies.map((r) => r.statusCode))], [201]);
    const tokens = new Set(replies.map((r) => r.json().token as string));
    t.equal(tokens.size, 1, 'one token for the card, whichever gateway answered');
    const [token] = [...tokens] as [string];
    const reservations = await count(url, 'SELECT count(*)::int AS n FROM account_reservations');
    t.equal(reservations, 1, 'one reservation in the shared key store');

    // Created through A, retrieved and paid through B at once (its read models and keys are A's).
    const retrieved = await b.inject({ method: 'GET', url: `${tokenPath(UNIQUE.id)}/${token}`, headers: { authorization: tokenAuth(UNIQUE) } });
    t.equal(retrieved.statusCode, 200, 'the other gateway answers the token at once');
    t.equal(retrieved.json().sourceOfFunds.provided.card.number, '401200xxxxxx0026');

    const deleted = await a.inject({ method: 'DELETE', url: `${tokenPath(UNIQUE.id)}/${token}`, headers: { authorization: tokenAuth(UNIQUE) } });
    t.equal(deleted.statusCode, 200);
    const after = await b.inject({ method: 'GET', url: `${tokenPath(UNIQUE.id)}/${token}`, headers: { authorization: tokenAuth(UNIQUE) } });
    t.equal(after.statusCode, 400, 'deleted for the other gateway too');
    // Its reservation released and its card key destroyed in the shared key store (shredding: the
    // request's own, or either gateway's shredder).
    await eventually(async () => (await count(url, 'SELECT count(*)::int AS n FROM account_reservations')) === 0, { intervalMs: 20 });
    t.equal(await count(url, 'SELECT count(*)::int AS n FROM account_reservations'), 0, 'the reservation released');
    const again = await create(b);
    t.equal(again.statusCode, 201);
    t.not(again.json().token, token, 'the card stored again is a new token');

    // A pay on B of a token made on A.
    const other = (await a.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody('5123450000000008', '1', '39') })).json().token as string;
    const paid = await b.inject({ method: 'PUT', url: payPath(M1.id, other, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } } });
    t.equal(paid.json().result, 'SUCCESS', 'the other gateway opens the card to pay');
  });
}

async function count(url: string, sql: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { return (await client.query<{ n: number }>(sql)).rows[0]!.n; } finally { await client.end(); }
}
