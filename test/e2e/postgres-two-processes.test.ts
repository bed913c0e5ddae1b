// End to end on PostgreSQL, two gateway processes (server.js of the test build) on one database of a
// throwaway server (test/helpers/postgres.ts): 50 identical pays spread over both record one
// payment and answer one body. One killed under load: postgres-kill.test.ts.
import t from 'tap';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { postgresForFile } from '../helpers/postgres.js';
import { envFor, typesOf } from './postgres.fixture.js';
import { streams } from '../../domain/events.js';

const server = postgresForFile(t);

if (server) {

  t.test('two gateway processes on one database: 50 identical pays spread over both record one payment', async (t) => {
    const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
    const url = await server.get().createDatabase('e2e_two');
    const a = await startServer(envFor(dir, url, 'a'));
    t.teardown(() => a.stop('SIGKILL'));
    const created = await call(a.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
    t.equal(created.status, 201, created.text);
    const token = created.json().token as string;
    const b = await startServer(envFor(dir, url, 'b'));
    t.teardown(() => b.stop('SIGKILL'));

    const body = { apiOperation: 'PAY', transaction: { amount: '3.00', currency: 'USD' } };
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) =>
      call(i % 2 ? a.url : b.url, 'PUT', payPath(M1.id, token, '20000000001', 'tx-1'), payAuth(M1), body)));
    t.same([...new Set(replies.map((r) => r.status))], [201], replies.find((r) => r.status !== 201)?.text ?? 'every reply 201');
    t.equal(new Set(replies.map((r) => r.text)).size, 1, 'one body from both processes');
    t.same(await typesOf(url, streams.order(M1.id, '20000000001')), [['PaymentRecorded']], 'exactly one payment');
    t.equal(await b.stop(), 0);
    t.equal(await a.stop(), 0);
  });
}
