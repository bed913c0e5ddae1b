// Repeated authentication failures from one client are refused for a while (429 REQUEST_REJECTED).
import t from 'tap';
import { basic, buildTestApp, cardBody, M1, M2, tokenAuth, tokenPath } from '../helpers/app.js';

t.test('beyond AUTH_FAILURE_LIMIT failures a client is refused, even with good credentials', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 5 } });
  const attempt = (authorization: string, remoteAddress = '10.9.8.7', merchantId = M1.id) =>
    app.inject({ method: 'POST', url: tokenPath(merchantId), headers: { authorization }, payload: cardBody(), remoteAddress });
  for (let i = 0; i < 5; i++) t.equal((await attempt(basic(`merchant.${M1.id}`, `guess-${i}`))).statusCode, 401);
  const refused = await attempt(tokenAuth(M1));
  t.equal(refused.statusCode, 429, 'the right password no longer helps this client');
  t.same(refused.json(), { error: { cause: 'REQUEST_REJECTED', supportCode: refused.headers['x-request-id'] }, result: 'ERROR' });
  t.equal(refused.headers['retry-after'], '60');
  t.equal((await attempt(tokenAuth(M2), '10.9.8.8', M2.id)).statusCode, 201, 'another client is served');
  t.equal((await app.gateway.store.readAll()).length, 1, 'a refused request records nothing');
});
