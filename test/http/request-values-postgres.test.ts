// A NUL character in an id on PostgreSQL, which cannot hold one in text (error 22021 on an order id
// of the path, a session id of the body, the admin search...: a 500): every path and query
// parameter of every operation, and every body member naming a stream, is a 400 naming it, on a
// database that holds a token and an order, as on the other stores (request-values.test.ts);
// free text with a NUL is stored (escaped, in JSON) and answered.
import t from 'tap';
import { postgresForFile } from '../helpers/postgres.js';
import { buildTestApp, cardBody, createToken, M1, tokenAuth, tokenPath } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';
import type { EventStoreConfig } from '../../config.js';
import { ADMIN_PASSWORD, expectNulRefusedEverywhere } from './request-values.fixture.js';

const server = postgresForFile(t);

if (server) {
  t.test('on PostgreSQL: a NUL in any parameter or body id is a 400 naming it, in free text it is kept', async (t) => {
    const url = await server.get().createDatabase('nul');
    const app = await buildTestApp(t, { eventStore: { kind: 'postgres', url } as EventStoreConfig, adminPassword: ADMIN_PASSWORD, testControl: true });
    const token = await createToken(app);
    const paid = await app.inject({
      method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/1/transaction/1`, headers: { authorization: tokenAuth(M1) },
      payload: { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { token } },
    });
    t.equal(paid.statusCode, 201, paid.body);
    const cases = await expectNulRefusedEverywhere(t, app);
    t.ok(cases > 100, `${cases} parameters and fields`);
    const before = await app.gateway.store.headPosition();
    // Valid requests but for a NUL in an id of the body.
    const order = (id: string, body: Record<string, unknown>) => app.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${id}/transaction/1`, headers: { authorization: tokenAuth(M1) }, payload: body });
    const pay = { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' } };
    expectInvalid(t, await order('2', { ...pay, session: { id: 'SESSION\u0000' } }), { field: 'session.id', explanation: /NUL/ }, 'session.id of a PAY');
    expectInvalid(t, await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: { ...cardBody(), referenceOrderId: '1\u0000' } }), { field: 'referenceOrderId', explanation: /NUL/ }, 'referenceOrderId');
    t.equal(await app.gateway.store.headPosition(), before, 'nothing recorded');
    const text = await order('3', { ...pay, order: { ...pay.order, reference: 'a\u0000b' }, sourceOfFunds: { token } });
    t.equal(text.statusCode, 201, `free text with a NUL is stored: ${text.body}`);
    t.equal(text.json().order.reference, 'a\u0000b');
    const again = await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/3`, headers: { authorization: tokenAuth(M1) } });
    t.equal(again.json().reference, 'a\u0000b', 'and read back');
    const health = await app.inject({ method: 'GET', url: '/api/rest/version/100/information' });
    t.equal(health.json().status, 'OPERATING', 'the gateway still operating');
  });
}
