// A rebuilt read model is byte-for-byte the live one, after a mixed workload: tokens created,
// updated and deleted, payments approved, declined and UNKNOWN then resolved, scheme tokens
// provisioned later and then suspended by the issuer; the order API's transactions and sessions.
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, cardBody, createToken, M1, payAuth, payPath, tokenAuth, tokenPath, UNIQUE } from '../helpers/app.js';
import { ALL_MERCHANTS, SCHEME } from '../http/token-api.fixture.js';
import { eventually } from '../helpers/poll.js';

t.test('rebuild after a mixed workload equals the live read models', async (t) => {
  process.env.UNKNOWN_RESOLUTION_DELAY_MS = '0';
  process.env.SCHEME_TOKEN_DELAY_MS = '50';
  t.teardown(() => { delete process.env.UNKNOWN_RESOLUTION_DELAY_MS; delete process.env.SCHEME_TOKEN_DELAY_MS; });
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(t.testdir(), 'gateway.db') }, merchants: ALL_MERCHANTS });
  const pay = (token: string, orderId: string, txn: string, amount: string) => app.inject({
    method: 'PUT', url: payPath(M1.id, token, orderId, txn), headers: { authorization: payAuth(M1) },
    payload: { apiOperation: 'PAY', transaction: { amount, currency: 'USD' } },
  });
  const approved = await createToken(app, M1, '5123450000000008', '1', '39');
  const declined = await createToken(app, M1, '4508750015741019', '5', '39');
  const unknown = await createToken(app, M1, '2223000000000007', '5', '37');
  await pay(approved, '10000000001', '1', '10.00');
  await pay(declined, '10000000002', '1', '10.00');
  await pay(approved, '10000000002', '2', '10.00');
  await pay(unknown, '10000000003', '1', '12.50');
  await pay(unknown, '10000000004', '1', '12.51');
  const unique = (month: string) => app.inject({ method: 'POST', url: tokenPath(UNIQUE.id), headers: { authorization: tokenAuth(UNIQUE) }, payload: cardBody('4012000033330026', month, '39') });
  await unique('1');
  const updated = (await unique('2')).json().token as string;
  await app.inject({ method: 'DELETE', url: `/api/rest/version/100/merchant/${UNIQUE.id}/token/${updated}`, headers: { authorization: tokenAuth(UNIQUE) } });

  // The order API of versions 1-100 but the deactivated ones: authorize → capture → refund → void
  // of the refund, a PAY from a session (its amount too), a card in the request, and an UNKNOWN
  // (05/37) resolved later.
  const modern = (order: string, txn: string, payload: Record<string, unknown>) => app.inject({
    method: 'PUT', url: `/api/rest/version/90/merchant/${M1.id}/order/${order}/transaction/${txn}`, headers: { authorization: tokenAuth(M1) }, payload,
  });
  const usd = (amount: string) => ({ amount, currency: 'USD' });
  await modern('modern-1', 'a', { apiOperation: 'AUTHORIZE', order: usd('50.00'), sourceOfFunds: { token: approved } });
  await modern('modern-1', 'c', { apiOperation: 'CAPTURE', transaction: usd('30.00') });
  await modern('modern-1', 'r', { apiOperation: 'REFUND', transaction: usd('5.00') });
  await modern('modern-1', 'v', { apiOperation: 'VOID', transaction: { targetTransactionId: 'r' } });
  const session = (await app.inject({ method: 'POST', url: `/api/rest/version/90/merchant/${M1.id}/session`, headers: { authorization: tokenAuth(M1) } })).json().session.id;
  await app.inject({ method: 'PUT', url: `/api/rest/version/90/merchant/${M1.id}/session/${session}`, headers: { authorization: tokenAuth(M1) }, payload: { order: usd('8.00'), sourceOfFunds: { token: approved } } });
  await modern('modern-2', '1', { apiOperation: 'PAY', session: { id: session } });
  await modern('modern-3', '1', { apiOperation: 'PAY', order: usd('4.00'), sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } });
  await modern('modern-4', '1', { apiOperation: 'AUTHORIZE', order: usd('6.00'), sourceOfFunds: { token: unknown } });

  // Scheme tokens: provisioned asynchronously, then (04/35) suspended by the issuer.
  await createToken(app, SCHEME as typeof M1, '5123450000000008', '1', '39');
  await createToken(app, SCHEME as typeof M1, '4508750015741019', '4', '35');

  // Wait for the reactors: the three UNKNOWN payments resolved, three scheme-token changes (bounded).
  await eventually(async () => {
    const events = await app.gateway.store.readAll();
    const resolved = events.filter((e) => e.type === 'PaymentOutcomeResolved').length;
    const schemeChanges = events.filter((e) => e.type === 'SchemeTokenStatusChanged').length;
    return resolved === 3 && schemeChanges >= 3;
  });
  await app.gateway.readModels.catchUp();
  const types = new Set((await app.gateway.store.readAll()).map((e) => e.type));
  for (const type of ['TokenCreated', 'TokenUpdated', 'TokenDeleted', 'PaymentRecorded', 'PaymentOutcomeResolved', 'AccountIdentifierReserved', 'SchemeTokenStatusChanged', 'OrderTransactionRecorded', 'SessionCreated', 'SessionUpdated']) {
    t.ok(types.has(type), `the workload wrote ${type}`);
  }
  const live = app.gateway.readModels.hash();
  const result = await app.gateway.readModels.rebuild();
  t.equal(result.events, (await app.gateway.store.readAll()).length, 'every event replayed');
  t.equal(app.gateway.readModels.hash(), live, 'byte for byte the same read models');
  const order = await app.gateway.readModels.get<{ status: string; totalCapturedAmount: number }>('orders', `${M1.id}/10000000003`);
  t.equal(order?.status, 'CAPTURED', 'the resolved UNKNOWN payment counts after the rebuild');
  const modernOrder = await app.gateway.readModels.get<{ status: string; totalCapturedAmount: number; totalRefundedAmount: number }>('orders', `${M1.id}/modern-1`);
  t.same([modernOrder?.status, modernOrder?.totalCapturedAmount, modernOrder?.totalRefundedAmount], ['PARTIALLY_CAPTURED', 3000, 0], 'the order API order after the rebuild (its refund voided)');
});
