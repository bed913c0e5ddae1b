// The payment page's Pay as a flaky network and an impatient payer send it: two /pay at once on one
// checkout (a double click) make one payment, and both are answered with its outcome; a /pay whose
// connection drops while the payment is under way is recorded once, and its retry (or any later
// click) is answered from the record, paying nothing. The payments are slow on purpose: the
// merchant's rule (order.reference 'slow') adds 2 s of acquirer latency, so the requests overlap.
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { buildTestApp } from '../helpers/app.js';
import { eventually } from '../helpers/poll.js';
import { rawRequest, sendAndDrop } from '../helpers/raw.js';
import { MERCHANTS_WITH_RULES, RULES } from './pay-triggers.fixture.js';
import { checkoutBody, newCheckout, PAN, pay, queryOf, retrieveOrder, typeCard, view } from './hosted-checkout.fixture.js';
import type { App } from './http.fixture.js';

const slow = () => checkoutBody({}, {}, { reference: 'slow' });
const transactionsOf = async (a: App, orderId: string) =>
  ((await retrieveOrder(a, orderId, RULES)).json().transaction as Array<{ transaction: { id: string }; result: string }>).map((x) => [x.transaction.id, x.result]);

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
