// Reads of the PostgreSQL read models keep the documents they read (projections/doc-cache.ts):
// a document read again is answered without a query of the tables, and yet every read still sees
// every write answered before it, on its own instance and on another one sharing the database
// (an update, a delete).
import t, { type Test } from 'tap';
import { PostgresReadModelTables } from '../../store/postgres/read-model-tables.js';
import { postgresForFile } from '../helpers/postgres.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { cardBody, createToken, M1, tokenAuth, tokenPath } from '../helpers/app.js';

const server = postgresForFile(t);

/** Counts the documents read from the PostgreSQL tables (every instance's), by key. */
function countTableReads(t: Test): Map<string, number> {
  const reads = new Map<string, number>();
  const original = PostgresReadModelTables.prototype.get;
  PostgresReadModelTables.prototype.get = function get(this: PostgresReadModelTables, projection: string, key: string) {
    reads.set(`${projection}/${key}`, (reads.get(`${projection}/${key}`) ?? 0) + 1);
    return original.call(this, projection, key);
  };
  t.teardown(() => { PostgresReadModelTables.prototype.get = original; });
  return reads;
}

if (server) {
  t.test('PostgreSQL: a token read again is answered from the cache, and every instance sees each update and the delete', async (t) => {
    const { a, b } = await twoGateways(t, server, 'doc_cache');
    const reads = countTableReads(t);
    const token = await createToken(a, M1, '5123450000000008', '1', '39');
    const retrieve = (app: typeof a) => app.inject({ method: 'GET', url: `${tokenPath(M1.id)}/${token}`, headers: { authorization: tokenAuth(M1) } });
    const expiryOn = async (app: typeof a) => {
      const reply = await retrieve(app);
      t.equal(reply.statusCode, 200, reply.body);
      return (reply.json() as { sourceOfFunds: { provided: { card: { expiry: string } } } }).sourceOfFunds.provided.card.expiry;
    };
    const update = async (app: typeof a, month: string) => {
      const reply = await app.inject({ method: 'PUT', url: `${tokenPath(M1.id)}/${token}`, headers: { authorization: tokenAuth(M1) }, payload: cardBody('5123450000000008', month, '39') });
      t.equal(reply.statusCode, 201, `updated (Tokenize answers 201): ${reply.body}`);
    };

    for (let i = 0; i < 10; i++) {
      t.equal(await expiryOn(a), '0139');
      t.equal(await expiryOn(b), '0139');
    }
    const tableReads = [...reads].filter(([key]) => key.startsWith('tokens/'));
    t.equal(tableReads.length, 1, 'one document read');
    t.equal(tableReads[0]?.[1], 2, 'twenty retrieves on two instances read the tables twice: once per instance');

    await update(a, '5');
    t.equal(await expiryOn(a), '0539', 'the instance that updated the token reads the update');
    t.equal(await expiryOn(b), '0539', 'so does the other');
    await update(b, '7');
    t.equal(await expiryOn(b), '0739', 'updated on the other instance, read there');
    t.equal(await expiryOn(a), '0739', 'and on the first');
    t.equal(await expiryOn(a), '0739', 'read again from the cache');

    const deleted = await b.inject({ method: 'DELETE', url: `${tokenPath(M1.id)}/${token}`, headers: { authorization: tokenAuth(M1) } });
    t.equal(deleted.statusCode, 200, `deleted: ${deleted.body}`);
    for (const app of [a, b]) {
      const gone = await retrieve(app);
      t.equal(gone.statusCode, 400, `a deleted token is not served from a cache: ${gone.body}`);
      t.match(gone.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'tokenid', validationType: 'INVALID' } });
    }
  });
}
