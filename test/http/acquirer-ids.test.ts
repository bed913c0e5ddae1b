// Answers a test can repeat: the acquirer's references (transaction.authorizationCode, receipt,
// stan, acquirer.transactionId) come from the merchant, order and transaction ids, so two fresh
// gateways on fresh stores given the same requests answer the same ones (on both order paths, and
// for an UNKNOWN made final); and none of them, nor the acquirer's ids or the response codes,
// holds the security code the request sent.
import { join } from 'node:path';
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { buildTestApp, createToken, M1, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import type { App } from './http.fixture.js';
import { eventually } from '../helpers/poll.js';

process.env.UNKNOWN_RESOLUTION_DELAY_MS = '0';

type Body = Record<string, any>;
const orderUrl = (order: string, txn: string) => `/api/rest/version/100/merchant/${M1.id}/order/${encodeURIComponent(order)}/transaction/${encodeURIComponent(txn)}`;
const put = (a: App, order: string, txn: string, payload: Record<string, unknown>) =>
  a.inject({ method: 'PUT', url: orderUrl(order, txn), headers: { authorization: tokenAuth(M1) }, payload });
const v3 = (a: App, token: string, order: string, txn: string, payload: Record<string, unknown>) =>
  a.inject({ method: 'PUT', url: payPath(M1.id, token, order, txn), headers: { authorization: payAuth(M1) }, payload });
const card = (month: string, securityCode?: string) =>
  ({ type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month, year: '39' }, ...(securityCode ? { securityCode } : {}) } } });

/** The acquirer's references of an answer. */
const references = (body: Body) => ({
  authorizationCode: body.transaction?.authorizationCode, receipt: body.transaction?.receipt, stan: body.transaction?.stan,
  acquirerTransactionId: body.transaction?.acquirer?.transactionId,
});

/** The same requests, on a fresh gateway: the references of every answer, in order. */
async function session(t: Test, a: App): Promise<unknown[]> {
  const token = await createToken(a);
  const out: unknown[] = [];
  const answer = async (res: Promise<Awaited<ReturnType<App['inject']>>>) => {
    const r = await res;
    t.equal(r.statusCode, 201, r.body);
    out.push(references(r.json() as Body));
    return r.json() as Body;
  };
  await answer(v3(a, token, '10000000001', '1', { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' }, card: { securityCode: '100' } }));
  await answer(put(a, 'order-A', 'auth', { apiOperation: 'AUTHORIZE', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: card('1', '100') }));
  await answer(put(a, 'order-A', 'capture', { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD' } }));
  await answer(put(a, 'order-A', 'refund', { apiOperation: 'REFUND', transaction: { amount: '4.00', currency: 'USD' } }));
  await answer(put(a, 'order-A', 'void', { apiOperation: 'VOID', transaction: { targetTransactionId: 'refund' } }));
  await answer(put(a, 'order-B', 'verify', { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: card('1') }));
  // Expiry 05/37: UNKNOWN, made final (an even amount: APPROVED) with an authorization code.
  const unknown = await answer(put(a, 'order-C', '1', { apiOperation: 'PAY', order: { amount: '12.50', currency: 'USD' }, sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '5', year: '37' } } } } }));
  t.equal(unknown.response.gatewayCode, 'UNKNOWN');
  const resolved = await eventually(async () => (await a.inject({ method: 'GET', url: orderUrl('order-C', '1'), headers: { authorization: tokenAuth(M1) } })).json() as Body,
    { until: (body) => body.response.gatewayCode !== 'UNKNOWN', intervalMs: 20 });
  t.equal(resolved.response.gatewayCode, 'APPROVED', 'made final');
  out.push(references(resolved));
  return out;
}

t.test('two fresh gateways (memory, SQLite) given the same requests answer the same acquirer references', async (t) => {
  const memory = await session(t, await buildTestApp(t));
  const sqlite = await session(t, await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(t.testdir(), 'gateway.db') } }));
  t.strictSame(sqlite, memory, 'the same references, answer by answer');
  t.equal(new Set(memory.map((r) => JSON.stringify(r))).size, memory.length, 'each transaction its own');
  // A client's recorded exchanges hold these: they must not change from one version to the next.
  t.strictSame(memory[0], { authorizationCode: '48P79F', receipt: '99Z27X69T13Q', stan: '54B97W', acquirerTransactionId: '3EE55FCEE7FFAAECAD80' },
    'the README\'s first payment (TESTMERCHANT01, order 10000000001, transaction 1)');
});

t.test('no acquirer reference or response code of an answer holds the security code the request sent', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  let n = 0;
  await fc.assert(fc.asyncProperty(fc.stringMatching(/^[0-9]{3,4}$/), fc.stringMatching(/^[0-9A-Za-z-]{1,40}$/), async (securityCode, order) => {
    n++;
    const answers = [
      await put(a, order, `t${n}`, { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: card('1', securityCode) }),
      await v3(a, token, String(30_000_000_000 + n), '1', { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' }, card: { securityCode } }),
    ];
    for (const res of answers) {
      if (res.statusCode !== 201) throw new Error(res.body);
      const body = res.json() as Body;
      // Not checked: the day's batch, date and settlementDate, and the constant timeZone "+0000"
      // (a security code 000 or 0000 is in it whatever the gateway does).
      const { batch: _batch, date: _date, settlementDate: _settled, timeZone: _zone, ...acquirer } = body.transaction.acquirer as Record<string, unknown>;
      const fields = JSON.stringify([references(body), acquirer, body.response]);
      if (fields.includes(securityCode)) throw new Error(`${securityCode} in ${fields}`);
    }
  }), { numRuns: 60 });
  t.pass('none in 120 answers');
});
