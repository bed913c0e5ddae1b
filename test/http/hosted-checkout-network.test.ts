// The payment page's Pay as a flaky network and an impatient payer send it: two /pay at once on one
// checkout (a double click) make one payment, and both are answered with its outcome; a /pay whose
// connection drops while the payment is under way is recorded once, and its retry (or any later
// click) is answered from the record, paying nothing. The payments are slow on purpose: the
// merchant's rule (order.reference 'slow') adds 2 s of acquirer latency, so the requests overlap.
// And a new checkout for an order that already has transactions pays for itself.
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';
import { rawRequest, sendAndDrop } from '../helpers/raw.js';
import { MERCHANTS_WITH_RULES, RULES } from './pay-triggers.fixture.js';
import { checkoutBody, newCheckout, PAN, pay, queryOf, retrieveOrder, typeCard, view } from './hosted-checkout.fixture.js';
import type { App } from './http.fixture.js';

const slow = () => checkoutBody({}, {}, { reference: 'slow' });
const transactionsOf = async (a: App, orderId: string, m: { id: string; apiPassword: string } = RULES) =>
  ((await retrieveOrder(a, orderId, m)).json().transaction as Array<{ transaction: { id: string }; result: string }>).map((x) => [x.transaction.id, x.result]);

t.test('two /pay at once on one checkout: one payment, both answered with its outcome', async (t) => {
  const a = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const c = await newCheckout(a, slow(), RULES);
  t.equal((await typeCard(a, c.session.id, PAN, '1', '39', RULES.id)).statusCode, 200);
  const [x, y] = await Promise.all([pay(a, c.session.id), pay(a, c.session.id)]);
  t.equal(x.statusCode, 200, x.body);
  t.equal(x.json().next, 'return');
  t.equal(queryOf(x.json().url).resultIndicator, c.successIndicator, 'paid');
  t.same({ status: y.statusCode, body: y.json() }, { status: 200, body: x.json() }, 'the other click: the same answer');
  t.same(await transactionsOf(a, c.orderId), [['1', 'SUCCESS']], 'one payment');
  const later = await pay(a, c.session.id);
  t.same({ status: later.statusCode, body: later.json() }, { status: 200, body: x.json() }, 'a click after it: the record\'s answer, nothing paid');
  t.same(await transactionsOf(a, c.orderId), [['1', 'SUCCESS']]);

  // Declined with attempts left: one attempt used, both told to retry.
  const d = await newCheckout(a, slow(), RULES);
  await typeCard(a, d.session.id, PAN, '5', '39', RULES.id);
  const both = await Promise.all([pay(a, d.session.id), pay(a, d.session.id)]);
  for (const res of both) t.match(res.json(), { next: 'retry', gatewayCode: 'DECLINED', attemptsLeft: 2 }, 'declined: retry, two attempts left');
  t.same(await transactionsOf(a, d.orderId), [['1', 'FAILURE']], 'one attempt made');
  t.equal((await view(a, d.session.id)).json().attemptsLeft, 2);
});

t.test('a /pay whose connection drops mid-request: the payment recorded once, the retry answered from the record', async (t) => {
  const a = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const c = await newCheckout(a, slow(), RULES);
  await typeCard(a, c.session.id, PAN, '1', '39', RULES.id);
  await a.listen({ port: 0, host: '127.0.0.1' });
  const { port } = a.server.address() as AddressInfo;
  // The whole request sent, then the connection gone while the acquirer takes its 2 s.
  await sendAndDrop(port, rawRequest('POST', `/checkout/api/${c.session.id}/pay`, {}, '{}'));
  t.ok(await eventually(async () => (await view(a, c.session.id)).json().status === 'PAID'), 'the payment went on without its client');
  const retry = await pay(a, c.session.id);
  t.equal(retry.statusCode, 200, retry.body);
  t.equal(retry.json().next, 'return', 'the retry sends the payer on');
  t.equal(queryOf(retry.json().url).resultIndicator, c.successIndicator, 'with the successful payment\'s indicator');
  t.same(await transactionsOf(a, c.orderId), [['1', 'SUCCESS']], 'paid once');
  const types = (await a.gateway.store.readStream(`session-${RULES.id}:${c.session.id}`)).map((e) => e.type);
  t.equal(types.filter((type) => type === 'CheckoutCompleted').length, 1, 'completed once');
});

t.test('a new checkout for an order that has transactions: its payments take the next free ids, each checkout paying for itself', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  // A shop initiates a new checkout each time the payer comes back to pay the same order.
  const body = checkoutBody();
  const first = await newCheckout(a, body);
  await typeCard(a, first.session.id, PAN, '5', '39');
  t.equal((await pay(a, first.session.id)).json().next, 'retry', 'the first checkout\'s attempt declined');
  const second = await newCheckout(a, { ...body });
  await typeCard(a, second.session.id);
  const paid = await pay(a, second.session.id);
  t.equal(paid.json().next, 'return', `the second checkout pays (${paid.body})`);
  t.equal(queryOf(paid.json().url).resultIndicator, second.successIndicator, 'with its own successIndicator');
  t.same(await transactionsOf(a, first.orderId, M1), [['1', 'FAILURE'], ['2', 'SUCCESS']], 'its payment is transaction 2');

  // Paid by a stored token in one checkout, the same token in another of the same order is a
  // payment of that checkout, never the first one's record read as its own.
  const tokenBody = checkoutBody({}, { operation: 'AUTHORIZE', tokens: [token] });
  const one = await newCheckout(a, tokenBody, M1, 99);
  t.equal((await pay(a, one.session.id, { token })).json().next, 'return');
  const two = await newCheckout(a, { ...tokenBody }, M1, 99);
  const again = await pay(a, two.session.id, { token });
  t.equal(again.json().next, 'return', again.body);
  t.same(await transactionsOf(a, one.orderId, M1), [['1', 'SUCCESS'], ['2', 'SUCCESS']], 'two authorizations, one per checkout');

  // The merchant's own transaction "1" on the order first.
  const own = checkoutBody();
  const made = await a.inject({
    method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${own.order.id}/transaction/1`, headers: { authorization: tokenAuth(M1) },
    payload: { apiOperation: 'AUTHORIZE', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { token } },
  });
  t.equal(made.statusCode, 201, made.body);
  const three = await newCheckout(a, own);
  await typeCard(a, three.session.id);
  t.equal(queryOf((await pay(a, three.session.id)).json().url).resultIndicator, three.successIndicator);
  t.same((await transactionsOf(a, own.order.id, M1)).map(([id]) => id), ['1', '2'], 'the checkout\'s payment is transaction 2');
});
