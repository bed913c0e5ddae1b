// End to end: the real server process on a SQLite file; create a token, pay, stop, start again
// on the same file, and find the token usable and the order intact.
import { join } from 'node:path';
import t from 'tap';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';

t.test('a restart on the same SQLite file loses nothing', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const env = { EVENT_STORE: `sqlite:${join(dir, 'data', 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json') };

  const first = await startServer(env);
  t.teardown(() => first.stop('SIGKILL'));
  const created = await call(first.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
  t.equal(created.status, 201, created.text);
  const token = created.json().token as string;
  const payBody = { apiOperation: 'PAY', transaction: { amount: '25.00', currency: 'USD' }, order: { reference: 'cart-1' } };
  const paid = await call(first.url, 'PUT', payPath(M1.id, token, '10000000001', 'txn-1'), payAuth(M1), payBody);
  t.equal(paid.status, 201, paid.text);
  t.equal(paid.json().result, 'SUCCESS');
  const declinedToken = (await call(first.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('4508750015741019', '5', '39'))).json().token as string;
  const declined = await call(first.url, 'PUT', payPath(M1.id, declinedToken, '10000000002', 'txn-1'), payAuth(M1), payBody);
  t.equal(declined.json().response.gatewayCode, 'DECLINED');
  t.equal(await first.stop(), 0, 'exits cleanly on SIGTERM');
  t.notMatch(first.logs(), '5123450000000008', 'the card number never reaches the logs');

  const second = await startServer(env);
  t.teardown(() => second.stop('SIGKILL'));
  const repeat = await call(second.url, 'PUT', payPath(M1.id, token, '10000000001', 'txn-1'), payAuth(M1), payBody);
  t.equal(repeat.status, 201);
  t.equal(repeat.text, paid.text, 'the recorded payment answers byte for byte after the restart');
  const again = await call(second.url, 'PUT', payPath(M1.id, token, '10000000003', 'txn-1'), payAuth(M1), payBody);
  t.equal(again.json().response.gatewayCode, 'APPROVED', 'the token still pays');
  const next = await call(second.url, 'PUT', payPath(M1.id, token, '10000000001', 'txn-2'), payAuth(M1), { ...payBody, transaction: { amount: '5.00', currency: 'USD' } });
  t.equal(next.status, 201);
  t.equal(next.json().order.totalCapturedAmount, 30, 'the order kept its first payment');
  t.equal(next.json().order.reference, 'cart-1');
  t.equal(await second.stop(), 0);
});
