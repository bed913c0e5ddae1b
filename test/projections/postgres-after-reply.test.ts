// The PostgreSQL read models are written after the reply (projections/read-models.ts over store/postgres/read-model-tables.ts): a pay
// and a create are answered while the read models cannot be written at all (another session holds
// their checkpoint rows), and a read of them waits until they can: then it sees every write
// answered before it, made by its own instance or by another one on the same database.
import pg from 'pg';
import t from 'tap';
import { postgresForFile } from '../helpers/postgres.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { cardBody, createToken, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { sleep } from '../helpers/poll.js';

const server = postgresForFile(t);

if (server) {
  t.test('PostgreSQL: answers do not wait for the read models; reads do, and see every write answered before them', async (t) => {
    const { url, a, b } = await twoGateways(t, server, 'after_reply');
    const token = await createToken(a, M1, '5123450000000008', '1', '39');
    const retrieve = (app: typeof a, id: string) => app.inject({ method: 'GET', url: `${tokenPath(M1.id)}/${id}`, headers: { authorization: tokenAuth(M1) } });
    t.equal((await retrieve(b, token)).statusCode, 200, 'a token created on one instance is read on the other');

    // Another session holds every read model's checkpoint row: no catch-up can write.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    t.teardown(() => blocker.end());
    await blocker.query('BEGIN');
    await blocker.query('SELECT name FROM read_model_checkpoints FOR UPDATE');

    const paid = await a.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } } });
    t.equal(paid.statusCode, 201, `a pay is answered while the read models are locked: ${paid.body}`);
    const created = await a.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody('4508750015741019', '1', '39') });
    t.equal(created.statusCode, 201, `so is a create: ${created.body}`);
    const fresh = created.json().token as string;

    let answered = false;
    const onB = retrieve(b, fresh).then((reply) => { answered = true; return reply; });
    const onA = retrieve(a, fresh);
    await sleep(300); // time passes, and the read must still wait: waiting is the test
    t.notOk(answered, 'a read of the read models waits while they cannot catch up');
    await blocker.query('COMMIT');
    const [fromB, fromA] = await Promise.all([onB, onA]);
    t.equal(fromB.statusCode, 200, `then the other instance reads the new token: ${fromB.body}`);
    t.equal(fromB.json().token, fresh);
    t.equal(fromA.statusCode, 200, 'and so does the one that created it');
    t.same(fromA.json(), fromB.json(), 'the same document on both');
  });
}
