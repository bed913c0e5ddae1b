// Two gateway instances on one SQLite file (as WORKERS=2 or two gateways on one store): a payment
// opening an order is decided first on an order guessed new, and a refusal so decided is made
// again on the order as read (services/command-handler.ts). What a client sees must not depend on
// which instance takes the request: concurrent identical PAYs record one payment and answer it
// twice alike; a refused PAY and its repeat answer alike on either; a CAPTURE of an unknown order
// answers as on one instance.
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { authenticate, cardSource, payBody, put, type Flow } from './three-d-secure.fixture.js';
import type { App } from './http.fixture.js';

const FRICTIONLESS = '5123456789012346';

async function twoInstances(t: Test) {
  const dir = t.testdir({});
  const eventStore = { kind: 'sqlite' as const, path: join(dir, 'gateway.db') };
  return [await buildTestApp(t, { eventStore }), await buildTestApp(t, { eventStore })] as const;
}
const retrieve = (app: App, orderId: string) =>
  app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/order/${orderId}`, headers: { authorization: tokenAuth(M1) } });
/** An answer without its times (two answers of one record differ in nothing else). */
const timeless = (body: string) => body.replace(/"(timeOfRecord|lastUpdatedTime|creationTime|timeOfLastUpdate)":"[^"]*"/g, '"$1":""');

t.test('the same PAY, naming an authentication made on one instance, sent to both at once: one payment, answered alike', async (t) => {
  const [one, other] = await twoInstances(t);
  const orderId = 'order-3ds-race';
  await authenticate({ app: one, orderId }, FRICTIONLESS);
  const body = payBody('a1', cardSource(FRICTIONLESS));
  const answers = await Promise.all([put({ app: one, orderId }, 'pay-1', body), put({ app: other, orderId }, 'pay-1', body)]);
  for (const answer of answers) t.equal(answer.statusCode, 201, answer.body);
  t.equal(timeless(answers[0].body), timeless(answers[1].body), 'both answer the one payment');
  for (const app of [one, other]) {
    const order = (await retrieve(app, orderId)).json();
    t.equal(order.transaction.filter((x: { transaction: { type: string } }) => x.transaction.type === 'PAYMENT').length, 1, 'one payment recorded');
  }
});

t.test('a PAY naming an authentication the order does not have: refused alike on either instance, and its repeat too', async (t) => {
  const [one, other] = await twoInstances(t);
  const orderId = 'order-3ds-wrong';
  await authenticate({ app: one, orderId }, FRICTIONLESS);
  const wrong = payBody('a2', cardSource(FRICTIONLESS));
  const first = await put({ app: other, orderId }, 'pay-1', wrong);
  t.equal(first.statusCode, 400, first.body);
  t.match(first.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'authentication.transactionId', validationType: 'INVALID' } });
  for (const app of [other, one]) {
    const again = await put({ app, orderId }, 'pay-1', wrong);
    t.equal(again.body, first.body, 'the repeat answered alike');
  }
  const right = await put({ app: other, orderId }, 'pay-1', payBody('a1', cardSource(FRICTIONLESS)));
  t.equal(right.statusCode, 201, `then the PAY naming the right one is taken: ${right.body}`);
  // A new order, named nowhere: the refusal made on the guess stands as on one instance.
  const single = await buildTestApp(t);
  const [onOther, alone] = [await put({ app: other, orderId: 'order-none' }, 'pay-1', wrong), await put({ app: single, orderId: 'order-none' }, 'pay-1', wrong)];
  t.equal(onOther.statusCode, 400);
  t.equal(onOther.body, alone.body, 'a new order: answered as by a gateway alone');
});

t.test('a CAPTURE of an unknown order, and of an order only the other instance took: answered as by one gateway', async (t) => {
  const [one, other] = await twoInstances(t);
  const single: Flow = { app: await buildTestApp(t), orderId: 'order-unknown' };
  const capture = { apiOperation: 'CAPTURE', transaction: { amount: '12.50', currency: 'USD' } };
  const alone = await put(single, 'cap-1', capture);
  const onOther = await put({ app: other, orderId: 'order-unknown' }, 'cap-1', capture);
  t.equal(onOther.statusCode, alone.statusCode, onOther.body);
  t.equal(onOther.body, alone.body, 'the unknown order: the same answer');
  const orderId = 'order-auth';
  const authorized = await put({ app: one, orderId }, 'auth-1', payBody(undefined, cardSource(FRICTIONLESS), '12.50', 'AUTHORIZE'));
  t.equal(authorized.statusCode, 201, authorized.body);
  const captured = await put({ app: other, orderId }, 'cap-1', capture);
  t.equal(captured.statusCode, 201, captured.body);
  t.match(captured.json(), { result: 'SUCCESS', transaction: { type: 'CAPTURE' } });
});
