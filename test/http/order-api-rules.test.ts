// Issue 15 item 5: a merchant's own rules (docs/triggers.md, "Merchant rules") on the order API of
// versions 1-100 but the deactivated ones as on version 3: latency holds the order (another
// transaction meanwhile is LOCK_FAILURE, not recorded; an identical repeat waits and answers the
// record), SERVER_BUSY is a 503 that records nothing, SERVER_FAILED records and loses only the
// first answer.
import t from 'tap';
import { streams } from '../../domain/events.js';
import { buildTestApp, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { MERCHANTS_WITH_RULES, RULES } from './pay-triggers.fixture.js';
import { eventually } from '../helpers/poll.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
const base = `/api/rest/version/72/merchant/${RULES.id}`;
const put = (a: App, order: string, txn: string, payload: Record<string, unknown>) =>
  a.inject({ method: 'PUT', url: `${base}/order/${order}/transaction/${txn}`, headers: { authorization: tokenAuth(RULES) }, payload });
const card = { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } };
const authorize = (reference: string, amount = '20.00') => ({ apiOperation: 'AUTHORIZE', order: { amount, currency: 'USD', reference }, sourceOfFunds: card });
const types = async (a: App, order: string) => (await a.gateway.store.readStream(streams.order(RULES.id, order))).map((e) => e.type);

t.test('latency: the order is held; another transaction meanwhile is LOCK_FAILURE, an identical repeat gets the one record', async (t) => {
  const a = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const order = uniqueId();
  const slow = put(a, order, 'auth', authorize('slow'));
  // Let the first request hold the order before the others arrive.
  await eventually(async () => (await types(a, order)).includes('PaymentStarted'));
  t.same(await types(a, order), ['PaymentStarted'], 'the order is held while the acquirer "thinks"');
  const [other, repeat] = await Promise.all([put(a, order, 'other', authorize('x', '1.00')), put(a, order, 'auth', authorize('slow'))]);
  t.equal(other.statusCode, 201, other.body);
  t.equal(other.json().response.gatewayCode, 'LOCK_FAILURE', 'another transaction: LOCK_FAILURE');
  t.equal(other.json().result, 'FAILURE');
  const first = await slow;
  t.equal(first.statusCode, 201, first.body);
  t.equal(first.json().response.gatewayCode, 'APPROVED');
  t.equal(repeat.statusCode, 201);
  t.same(repeat.json().transaction, first.json().transaction, 'the identical repeat answers the same transaction');
  t.same(await types(a, order), ['PaymentStarted', 'OrderTransactionRecorded'], 'recorded once; the LOCK_FAILURE not at all');
  // The order is free again.
  const capture = await put(a, order, 'cap', { apiOperation: 'CAPTURE', transaction: { amount: '20.00', currency: 'USD' } });
  t.equal(capture.json().order.status, 'CAPTURED', capture.body);
});

t.test('SERVER_BUSY: 503, nothing recorded; SERVER_FAILED: 500, recorded once, the repeat answers it', async (t) => {
  const a = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const busyOrder = uniqueId();
  const busy = await put(a, busyOrder, '1', authorize('busy'));
  t.equal(busy.statusCode, 503);
  t.equal(busy.json().error.cause, 'SERVER_BUSY');
  t.same(await types(a, busyOrder), [], 'nothing recorded');

  const lostOrder = uniqueId();
  const lost = await put(a, lostOrder, '1', { ...authorize('lost'), apiOperation: 'PAY' });
  t.equal(lost.statusCode, 500);
  t.equal(lost.body, `{"error":{"cause":"SERVER_FAILED","supportCode":"${String(lost.headers['x-request-id'])}"},"result":"ERROR"}`);
  const again = await put(a, lostOrder, '1', { ...authorize('lost'), apiOperation: 'PAY' });
  t.equal(again.statusCode, 201, again.body);
  t.equal(again.json().order.status, 'CAPTURED');
  t.same(await types(a, lostOrder), ['OrderTransactionRecorded'], 'recorded once, at the first request');
  const rule = await put(a, uniqueId(), '1', authorize('x', '13.13'));
  t.equal(rule.json().response.gatewayCode, 'INSUFFICIENT_FUNDS', "a rule's gatewayCode");
});
