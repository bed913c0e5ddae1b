// WORKERS=2 on PostgreSQL (a throwaway server, test/helpers/postgres.ts; skipped, and said so,
// without Debian's postgresql): the two workers share the database; 50 identical pays record one
// payment, both workers answer, an UNKNOWN payment is resolved once, SIGTERM exits 0, and no local
// file is made.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { SERVER, startGateway } from '../helpers/gateway-process.js';
import { postgresForFile } from '../helpers/postgres.js';
import { call } from '../helpers/server.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { streams } from '../../domain/events.js';
import { eventually, sleep } from '../helpers/poll.js';

const server = postgresForFile(t);

if (server) {
  /** The event types of a stream, read from the database with the adapter. */
  const typesOf = async (url: string, stream: string) => {
    const store = new PostgresEventStore(url);
    try {
      return (await store.readStream(stream)).map((e) => e.type);
    } finally {
      await store.close();
    }
  };

  t.test('two workers on one database', async (t) => {
    const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
    const url = await server.get().createDatabase('workers');
    const gateway = await startGateway([SERVER], {
      WORKERS: '2', EVENT_STORE: url, MERCHANTS_FILE: join(dir, 'merchants.json'), UNKNOWN_RESOLUTION_DELAY_MS: '300',
      // Files a postgres:// gateway must not make: checked below.
      READ_MODELS_FILE: join(dir, 'read-models.db'), KEYS_FILE: join(dir, 'keys.db'),
    });
    t.teardown(() => gateway.stop('SIGKILL'));
    await gateway.until(() => gateway.stdout().includes('"msg":"tokengate ready"'), "the primary's ready line");
    t.match(gateway.block, 'tokengate is ready (2 worker processes)');
    t.match(gateway.block, /store {10}postgres:\/\/127\.0\.0\.1:\d+\/workers/, 'the store, without credentials');
    t.notMatch(gateway.block, server.get().password, 'the database password is not printed');
    const pids = gateway.logs().filter((l) => l.msg === 'worker started').map((l) => l.workerPid as number);
    t.equal(pids.length, 2);

    const created = await call(gateway.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
    t.equal(created.status, 201, created.text);
    const token = created.json().token as string;
    const body = { apiOperation: 'PAY', transaction: { amount: '3.00', currency: 'USD' } };
    const replies = await Promise.all(Array.from({ length: 50 }, () =>
      call(gateway.url, 'PUT', payPath(M1.id, token, '20000000001', 'tx-1'), payAuth(M1), body)));
    t.same([...new Set(replies.map((r) => r.status))], [201], replies.find((r) => r.status !== 201)?.text ?? 'every reply 201');
    t.equal(new Set(replies.map((r) => r.text)).size, 1, 'one body');
    t.same(await typesOf(url, streams.order(M1.id, '20000000001')), ['PaymentRecorded'], 'exactly one payment');
    const answeredBy = () => new Set(gateway.logs().filter((l) => l.msg === 'request').map((l) => l.pid as number));
    await gateway.until(() => answeredBy().size >= 2, 'request lines from both workers', 20_000).catch(() => undefined);
    t.same([...answeredBy()].sort(), [...pids].sort(), 'both workers answered requests');

    const unknownCard = await call(gateway.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '5', '37'));
    const paid = await call(gateway.url, 'PUT', payPath(M1.id, unknownCard.json().token as string, '20000000002', '1'), payAuth(M1), body);
    t.equal(paid.json().result, 'UNKNOWN', paid.text);
    const stream = streams.order(M1.id, '20000000002');
    await eventually(async () => (await typesOf(url, stream)).includes('PaymentOutcomeResolved'), { intervalMs: 100 });
    // Both workers' timers were due at the same instant; give the slower one time to try and lose:
    // a second resolution must not come.
    await sleep(1000);
    t.same(await typesOf(url, stream), ['PaymentRecorded', 'PaymentOutcomeResolved'], 'one resolution in the log');

    t.equal(await gateway.stop(), 0, 'SIGTERM: a clean exit');
    t.notOk(existsSync(join(dir, 'read-models.db')) || existsSync(join(dir, 'keys.db')), 'no local file');
  });
}
