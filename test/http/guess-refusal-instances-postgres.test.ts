// Two gateway instances on one PostgreSQL database: a PAY naming a 3-D Secure authentication
// recorded by the other instance is taken (the refusal decided on the order guessed new is made
// again on the order as read: services/command-handler.ts); the same PAY sent to both at once
// records one payment, answered alike; a PAY naming an authentication the order lacks is refused
// alike on either. The SQLite file's case: guess-refusal-instances.test.ts.
import t from 'tap';
import type { EventStoreConfig } from '../../config.js';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { postgresForFile } from '../helpers/postgres.js';
import { authenticate, cardSource, payBody, put } from './three-d-secure.fixture.js';

const server = postgresForFile(t);
const FRICTIONLESS = '5123456789012346';

if (server) {
  t.test('3-D Secure on one instance; PAYs naming it on both at once, and a wrong one on the other', async (t) => {
    const url = await server.get().createDatabase('guess');
    const eventStore = { kind: 'postgres', url } as EventStoreConfig;
    const one = await buildTestApp(t, { eventStore });
    const other = await buildTestApp(t, { eventStore });
    const orderId = 'order-3ds-pg';
    const { payer } = await authenticate({ app: one, orderId }, FRICTIONLESS);
    t.equal(payer.json().authentication?.['3ds2']?.transactionStatus, 'Y', 'authenticated on the first');

    const wrong = await put({ app: other, orderId }, 'pay-0', payBody('a2', cardSource(FRICTIONLESS)));
    t.equal(wrong.statusCode, 400, wrong.body);
    t.match(wrong.json(), { error: { field: 'authentication.transactionId', validationType: 'INVALID' } });
    t.equal((await put({ app: one, orderId }, 'pay-0', payBody('a2', cardSource(FRICTIONLESS)))).body, wrong.body, 'refused alike on the other');

    const body = payBody('a1', cardSource(FRICTIONLESS));
    const answers = await Promise.all([put({ app: other, orderId }, 'pay-1', body), put({ app: one, orderId }, 'pay-1', body)]);
    for (const answer of answers) {
      t.equal(answer.statusCode, 201, answer.body);
      t.match(answer.json(), { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' }, authentication: { transactionId: 'a1' } });
    }
    t.equal(answers[0].json().transaction.receipt, answers[1].json().transaction.receipt, 'one payment, answered to both');
    const order = (await other.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${orderId}`, headers: { authorization: tokenAuth(M1) } })).json();
    t.equal(order.transaction.filter((x: { transaction: { type: string } }) => x.transaction.type === 'PAYMENT').length, 1, 'one payment recorded');
  });
}
