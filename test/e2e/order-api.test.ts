// End to end (issue 15): the real server process, driven as a shop's client library drives the
// order API of version 100: Create Session (no body) → Update Session with a card → Create Token
// from the session → AUTHORIZE with the token (UUID order id) → CAPTURE → REFUND → VOID of the
// refund → Retrieve Order; a restart on the same file keeps the order; the card number never
// reaches the logs.
import { join } from 'node:path';
import t from 'tap';
import { M1, MERCHANTS, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { call, startServer } from '../helpers/server.js';

t.test('the order API end to end, across a restart', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const env = { EVENT_STORE: `sqlite:${join(dir, 'data', 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json') };
  const auth = tokenAuth(M1);
  const base = `/api/rest/version/100/merchant/${M1.id}`;
  const order = uniqueId();
  const txn = (id: string) => `${base}/order/${order}/transaction/${id}`;

  const first = await startServer(env);
  t.teardown(() => first.stop('SIGKILL'));
  const session = await call(first.url, 'POST', `${base}/session`, auth);
  t.equal(session.status, 201, session.text);
  const sessionId = session.json().session.id as string;
  const updated = await call(first.url, 'PUT', `${base}/session/${sessionId}`, auth, { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } });
  t.equal(updated.status, 200, updated.text);
  const created = await call(first.url, 'POST', `${base}/token`, auth, { session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } });
  t.equal(created.status, 201, created.text);
  const token = created.json().token as string;

  const authorized = await call(first.url, 'PUT', txn('1'), auth, { apiOperation: 'AUTHORIZE', order: { amount: 50.0, currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } });
  t.equal(authorized.status, 201, authorized.text);
  t.equal(authorized.json().order.status, 'AUTHORIZED');
  const captured = await call(first.url, 'PUT', txn('2'), auth, { apiOperation: 'CAPTURE', transaction: { amount: '50.00', currency: 'USD' } });
  t.equal(captured.json().order.status, 'CAPTURED', captured.text);
  const refunded = await call(first.url, 'PUT', txn('3'), auth, { apiOperation: 'REFUND', transaction: { amount: '20.00', currency: 'USD' } });
  t.equal(refunded.json().order.status, 'PARTIALLY_REFUNDED', refunded.text);
  t.equal(await first.stop(), 0, 'exits cleanly on SIGTERM');
  t.notMatch(first.logs(), '5123450000000008', 'the card number never reaches the logs');

  const second = await startServer(env);
  t.teardown(() => second.stop('SIGKILL'));
  const repeat = await call(second.url, 'PUT', txn('3'), auth, { apiOperation: 'REFUND', transaction: { amount: '20.00', currency: 'USD' } });
  t.equal(repeat.text, refunded.text, 'the recorded refund answers byte for byte after the restart');
  const voided = await call(second.url, 'PUT', txn('4'), auth, { apiOperation: 'VOID', transaction: { targetTransactionId: '3' } });
  t.equal(voided.json().transaction.type, 'VOID_REFUND', voided.text);
  t.equal(voided.json().order.status, 'CAPTURED');
  const retrieved = await call(second.url, 'GET', `${base}/order/${order}`, auth);
  t.equal(retrieved.status, 200, retrieved.text);
  t.same(retrieved.json().transaction.map((x: { transaction: { type: string } }) => x.transaction.type), ['AUTHORIZATION', 'CAPTURE', 'REFUND', 'VOID_REFUND']);
  t.equal(retrieved.json().totalRefundedAmount, 0);
  t.equal(await second.stop(), 0);
});
