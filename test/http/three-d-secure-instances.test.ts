// 3-D Secure on one gateway instance, the PAY naming it on another (WORKERS=2, or any shared
// store): the instance that takes the PAY holds nothing of the order in memory, and must read it
// rather than decide on an order guessed new (where no authentication exists, and a refusal
// would be answered). The same for a refusal's other reasons: decided on the order as it is.
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { authenticate, cardSource, payBody, put, type Flow } from './three-d-secure.fixture.js';

const FRICTIONLESS = '5123456789012346';

t.test('Initiate and Authenticate Payer on one gateway, the PAY naming the authentication on another: approved', async (t) => {
  const dir = t.testdir({});
  const eventStore = { kind: 'sqlite' as const, path: join(dir, 'gateway.db') };
  const one = await buildTestApp(t, { eventStore });
  const other = await buildTestApp(t, { eventStore });
  const orderId = 'order-3ds-1';
  const { payer } = await authenticate({ app: one, orderId }, FRICTIONLESS);
  t.equal(payer.json().authentication?.['3ds2']?.transactionStatus, 'Y', 'frictionless: authenticated on the first');

  const onOther: Flow = { app: other, orderId };
  const paid = await put(onOther, 'pay-1', payBody('a1', cardSource(FRICTIONLESS)));
  t.equal(paid.statusCode, 201, paid.body);
  t.match(paid.json(), { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' }, authentication: { transactionId: 'a1', '3ds2': { transactionStatus: 'Y' } } });

  const unknown = await put({ app: other, orderId: 'order-3ds-2' }, 'pay-1', payBody('a1', cardSource(FRICTIONLESS)));
  t.equal(unknown.statusCode, 400, 'an order with no authentication: still refused');
  t.match(unknown.json(), { error: { field: 'authentication.transactionId', validationType: 'INVALID' } });
});
