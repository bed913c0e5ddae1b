// End to end on PostgreSQL: the database server goes away while the gateway (server.js of the test build)
// runs. Requests meanwhile get the gateway's 503 error body (never a 500, never a hang, never a
// refused connection: the gateway stays up), Check Gateway says SHUTDOWN, and once the server is
// back the gateway serves again without a restart: nothing wedged, nothing acknowledged lost.
import { join } from 'node:path';
import t from 'tap';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { postgresForFile } from '../helpers/postgres.js';
import { outagesUnderLoad } from './postgres-outage.fixture.js';

const server = postgresForFile(t);

if (server) {
  t.test('PostgreSQL down: 503 with the error body; back: the gateway serves again', async (t) => {
    const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
    const url = await server.get().createDatabase('e2e_outage');
    const gateway = await startServer({ EVENT_STORE: url, MERCHANTS_FILE: join(dir, 'merchants.json') });
    t.teardown(() => gateway.stop('SIGKILL'));
    const created = await call(gateway.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
    t.equal(created.status, 201, created.text);
    const token = created.json().token as string;
    const body = { apiOperation: 'PAY', transaction: { amount: '5.00', currency: 'USD' } };
    const pay = (order: string) => call(gateway.url, 'PUT', payPath(M1.id, token, order, 'tx-1'), payAuth(M1), body);

    await server.get().restart(async () => {
      const during = await pay('40000000001');
      t.equal(during.status, 503, during.text);
      t.equal(during.json().result, 'ERROR');
      t.equal(during.json().error.cause, 'SERVER_BUSY', 'the gateway error body');
      t.type(during.json().error.explanation, 'string');
      const create = await call(gateway.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
      t.ok(create.status === 503 || create.status === 201, `a token request: 503 (or answered from what the gateway holds), never a 500: ${create.status} ${create.text}`);
    });

    // The pools' connections died with the server: the first requests may find one before it is dropped.
    let paid = await pay('40000000002');
    for (let i = 0; i < 5 && paid.status === 503; i++) paid = await pay('40000000002');
    t.equal(paid.status, 201, paid.text);
    t.equal(paid.json().response.gatewayCode, 'APPROVED', 'the gateway serves again, without a restart');
    const repeat = await pay('40000000001');
    t.equal(repeat.status, 201, 'the request refused during the outage, repeated, is recorded now');
    t.notMatch(gateway.logs(), server.get().password, 'the password never reaches the logs');
    t.notMatch(gateway.logs(), '5123450000000008', 'nor the card number');
    t.equal(await gateway.stop(), 0);
  });

  t.test('stopped (fast, immediate) and killed (SIGKILL of the postmaster) under load: up throughout, 503 and SHUTDOWN meanwhile, nothing acknowledged lost (WORKERS=2: postgres-outage-workers.test.ts)',
    (t) => outagesUnderLoad(t, server.get(), 1));
}
