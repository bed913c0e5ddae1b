// End to end on PostgreSQL, two gateway processes (server.js of the test build) on one database of a
// throwaway server (test/helpers/postgres.ts): one SIGKILLed under load while the other serves;
// every acknowledged pay is recorded, and answered the same, after a restart.
import t from 'tap';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { postgresForFile } from '../helpers/postgres.js';
import { envFor, typesOf } from './postgres.fixture.js';
import { streams } from '../../domain/events.js';

const server = postgresForFile(t);

if (server) {

  t.test('one process SIGKILLed under load, the other serving: every acknowledged pay is there after a restart', async (t) => {
    const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
    const url = await server.get().createDatabase('e2e_kill');
    const a = await startServer(envFor(dir, url, 'a'));
    t.teardown(() => a.stop('SIGKILL'));
    const created = await call(a.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
    t.equal(created.status, 201, created.text);
    const token = created.json().token as string;
    let b = await startServer(envFor(dir, url, 'b'));
    t.teardown(() => b.stop('SIGKILL'));

    const acknowledged: Array<{ order: string; text: string; by: 'a' | 'b' }> = [];
    const body = { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } };
    let next = 0;
    const payTo = async (by: 'a' | 'b') => {
      const order = String(30000000000 + next++);
      try {
        const reply = await call(by === 'a' ? a.url : b.url, 'PUT', payPath(M1.id, token, order, 'tx-1'), payAuth(M1), body);
        if (reply.status === 201) acknowledged.push({ order, text: reply.text, by });
      } catch {
        // The killed process's connection dropped: not acknowledged.
      }
    };
    // Bounded load: 3 clients on each process, 10 pays each; b is killed after the first replies.
    let killed = false;
    const onA = Array.from({ length: 3 }, async () => { for (let i = 0; i < 10; i++) await payTo('a'); });
    const onB = Array.from({ length: 3 }, async () => {
      for (let i = 0; i < 10 && !killed; i++) {
        await payTo('b');
        if (acknowledged.length >= 6 && !killed) { killed = true; b.child.kill('SIGKILL'); }
      }
    });
    await Promise.all([...onA, ...onB]);
    t.ok(killed, 'b was killed under load');
    t.equal(acknowledged.filter((r) => r.by === 'a').length, 30, 'a answered every one of its 30 pays while b died');

    b = await startServer(envFor(dir, url, 'b'));
    const missing: string[] = [];
    const recorded = await typesOf(url, ...acknowledged.map(({ order }) => streams.order(M1.id, order)));
    for (const [i, { order, text }] of acknowledged.entries()) {
      if (!recorded[i]?.includes('PaymentRecorded')) missing.push(order);
      const repeat = await call(b.url, 'PUT', payPath(M1.id, token, order, 'tx-1'), payAuth(M1), body);
      if (repeat.text !== text) missing.push(`${order} (answered differently)`);
    }
    t.same(missing, [], `all ${acknowledged.length} acknowledged pays are recorded and answered the same after the restart`);
    t.equal(await b.stop(), 0);
    t.equal(await a.stop(), 0);
  });
}
