// Issue 15, item 3: card numbers are masked per the merchant's cardNumberMasking or 6.4, whichever
// is stricter (the spec's rule for card.number), in every answer that shows one: the pay answer
// (card.number and sourceOfFunds.provided.card.number), its identical repeat, Retrieve Order,
// Retrieve Transaction, Update Session, and the token answers. The events keep the 6.4 mask only:
// the stricter mask is applied when answering, so a repeat answers byte for byte what the first did.
import t, { type Test } from 'tap';
import { M1, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { MASK04, app, card, create, retrieve, storeText, type App, type Merchant } from './token-api.fixture.js';

const orderUrl = (m: string, o: string) => `/api/rest/version/3/merchant/${m}/order/${o}`;
const payBody = { apiOperation: 'PAY', correlationId: 'mask-test', transaction: { amount: '10.00', currency: 'USD' } };
const pay = (a: App, m: Merchant, token: string, orderId: string, txn = '1') =>
  a.inject({ method: 'PUT', url: payPath(m.id, token, orderId, txn), headers: { authorization: payAuth(m) }, payload: payBody });

/** Every card number an answer shows (card.number, sourceOfFunds.provided.card.number, per transaction). */
function numbersIn(body: Record<string, any>): string[] {
  const one = (x: Record<string, any>) => [x.card?.number, x.sourceOfFunds?.provided?.card?.number].filter((n) => n !== undefined);
  return [...one(body), ...(Array.isArray(body.transaction) ? body.transaction.flatMap(one) : [])];
}

async function payAndRetrieve(t: Test, a: App, m: Merchant, number: string, orderId: string) {
  const token = (await create(a, m, { sourceOfFunds: { type: 'CARD', provided: { card: card(number) } } })).json().token as string;
  const first = await pay(a, m, token, orderId);
  t.equal(first.statusCode, 201, first.body);
  const repeat = await pay(a, m, token, orderId);
  t.equal(repeat.statusCode, 201, repeat.body);
  t.equal(repeat.body, first.body, 'an identical repeat answers byte for byte what the first answered');
  const order = await a.inject({ method: 'GET', url: orderUrl(m.id, orderId), headers: { authorization: payAuth(m) } });
  t.equal(order.statusCode, 200, order.body);
  const txn = await a.inject({ method: 'GET', url: `${orderUrl(m.id, orderId)}/transaction/1`, headers: { authorization: payAuth(m) } });
  t.equal(txn.statusCode, 200, txn.body);
  const retrieved = await retrieve(a, m, token);
  return { first, repeat, order, txn, retrieved };
}

t.test('a 0.4 merchant: xxxxxxxxxxxx0008 in the pay answer, its repeat, Retrieve Order and Retrieve Transaction', async (t) => {
  const a = await app(t);
  const answers = await payAndRetrieve(t, a, MASK04, '5123450000000008', '10000000401');
  for (const [what, res] of Object.entries(answers)) {
    const numbers = numbersIn(res.json());
    t.ok(numbers.length > 0, `${what} shows a card number`);
    for (const n of numbers) t.equal(n, 'xxxxxxxxxxxx0008', `${what}: masked 0.4`);
    t.notMatch(res.body, '512345', `${what}: not even the first six digits`);
  }
  t.equal(numbersIn(answers.order.json()).length, 2, 'Retrieve Order shows the transaction\'s card and its source of funds');
  // Never more than the 6.4 mask is stored: the stricter one is an answering-time matter.
  const events = await storeText(a);
  t.match(events, '512345xxxxxx0008', 'the payment recorded the 6.4 mask');
  t.notMatch(events, '5123450000000008', 'and never the number');
});

t.test('a 6.4 merchant is unchanged: 512345xxxxxx0008 everywhere', async (t) => {
  const a = await app(t);
  const answers = await payAndRetrieve(t, a, M1, '5123450000000008', '10000000402');
  for (const [what, res] of Object.entries(answers)) {
    const numbers = numbersIn(res.json());
    t.ok(numbers.length > 0, `${what} shows a card number`);
    for (const n of numbers) t.equal(n, '512345xxxxxx0008', `${what}: masked 6.4`);
  }
});

t.test('Update Session answers the card number masked per the merchant (0.4), 6.4 by default', async (t) => {
  const a = await app(t);
  for (const [m, expected] of [[MASK04, 'xxxxxxxxxxxx1019'], [M1, '450875xxxxxx1019']] as const) {
    const created = await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${m.id}/session`, headers: { authorization: tokenAuth(m) }, payload: {} });
    t.equal(created.statusCode, 201, created.body);
    const id = created.json().session.id as string;
    const updated = await a.inject({
      method: 'PUT', url: `/api/rest/version/100/merchant/${m.id}/session/${id}`, headers: { authorization: tokenAuth(m) },
      payload: { sourceOfFunds: { provided: { card: card('4508750015741019') } } },
    });
    t.equal(updated.statusCode, 200, updated.body);
    t.equal(updated.json().sourceOfFunds.provided.card.number, expected, `${m.id}: ${expected}`);
  }
});
