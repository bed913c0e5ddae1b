// No merchant can use, read or learn about another merchant's tokens, orders or events: every
// cross-merchant attempt is answered exactly as if the thing did not exist, or refused outright.
import t from 'tap';
import { basic, buildTestApp, createToken, M1, M2, payAuth, payPath, tokenAuth } from '../helpers/app.js';

t.test("a merchant cannot reach another merchant's tokens, orders or events", async (t) => {
  const app = await buildTestApp(t, { adminPassword: 'admin-password-isolation' });
  const token = await createToken(app, M1);
  const body = { apiOperation: 'PAY', transaction: { amount: '5.00', currency: 'USD' } };
  t.equal((await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: body })).statusCode, 201);
  const head = await app.gateway.store.headPosition();
  const unknownToken = '9000000000000008';
  const same = (a: { body: string }, b: { body: string }, what: string, x = token, y = unknownToken) =>
    t.equal(a.body.replaceAll(x, 'ID'), b.body.replaceAll(y, 'ID'), what);
  const as2 = (method: 'GET' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: { authorization: method === 'PUT' || url.includes('/order/') ? payAuth(M2) : tokenAuth(M2) }, ...(payload ? { payload } : {}) });

  // Use: paying with M1's token on M2's account.
  same(await as2('PUT', payPath(M2.id, token, '10000000002', '1'), body), await as2('PUT', payPath(M2.id, unknownToken, '10000000002', '1'), body), 'pay: like an unknown token');
  // Read: retrieve M1's token through M2's repository.
  same(await as2('GET', `/api/rest/version/100/merchant/${M2.id}/token/${token}`), await as2('GET', `/api/rest/version/100/merchant/${M2.id}/token/${unknownToken}`), 'retrieve token: like an unknown token');
  // Change: delete M1's token through M2's repository.
  same(await as2('DELETE', `/api/rest/version/100/merchant/${M2.id}/token/${token}`), await as2('DELETE', `/api/rest/version/100/merchant/${M2.id}/token/${unknownToken}`), 'delete token: like an unknown token');
  // Orders: M1's order under M2's path is not found; M1's path with M2's credentials is refused.
  same(await as2('GET', `/api/rest/version/3/merchant/${M2.id}/order/10000000001`), await as2('GET', `/api/rest/version/3/merchant/${M2.id}/order/10000000009`), 'retrieve order: like an unknown order', '10000000001', '10000000009');
  t.equal((await as2('GET', `/api/rest/version/3/merchant/${M1.id}/order/10000000001`)).statusCode, 401);
  t.equal((await as2('GET', `/api/rest/version/3/merchant/${M1.id}/order/10000000001/transaction/1`)).statusCode, 401);
  t.equal((await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000003', '1'), headers: { authorization: payAuth(M2) }, payload: body })).statusCode, 401, "M2's password on M1's path");
  t.equal((await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/token/${token}`, headers: { authorization: tokenAuth(M2) } })).statusCode, 401);
  // Events: the timeline needs the admin password; no merchant's credentials open it.
  for (const authorization of [tokenAuth(M1), tokenAuth(M2), payAuth(M2), basic('admin', M2.apiPassword)]) {
    t.equal((await app.inject({ method: 'GET', url: '/admin/api/events', headers: { authorization } })).statusCode, 401);
  }
  t.equal(await app.gateway.store.headPosition(), head, 'no attempt recorded anything');
  t.equal((await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/token/${token}`, headers: { authorization: tokenAuth(M1) } })).statusCode, 200, 'the token is untouched');
});
