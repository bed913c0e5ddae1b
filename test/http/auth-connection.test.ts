// A kept-alive connection remembers the last Authorization header whose password matched, so its
// next requests with the same header are not hashed again (plugins/auth.ts). What it remembers
// must never let through what a fresh check would refuse: another merchant's path, another
// operation's user id rule, a changed password, a locked credential.
import { Agent, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { basic, buildTestApp, cardBody, createToken, M1, M2, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';

interface Answer { status: number; body: { result?: string; error?: { cause?: string; explanation?: string } }; reused: boolean }

/** Requests on ONE kept-alive connection (an agent with a single socket). */
function connection(port: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const send = (method: string, path: string, authorization: string, body: unknown) => new Promise<Answer>((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest({ host: '127.0.0.1', port, method, path, agent, headers: { authorization, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { data += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) as Answer['body'], reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end(text);
  });
  return { send, close: () => agent.destroy() };
}

const PAY = { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } };

t.test('a remembered header passes only where a fresh check passes it', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 3 } });
  const tokenA = await createToken(app, M1);
  const tokenB = await createToken(app, M2);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const one = connection(port);
  t.teardown(one.close);

  t.equal((await one.send('PUT', payPath(M1.id, tokenA, '10000000001', '1'), payAuth(M1), PAY)).status, 201, "A's pay (blank user id): served, its header remembered");
  const again = await one.send('PUT', payPath(M1.id, tokenA, '10000000002', '1'), payAuth(M1), PAY);
  t.equal(again.status, 201, 'the same header again: served');
  t.ok(again.reused, 'on the same connection');

  const otherMerchant = await one.send('PUT', payPath(M2.id, tokenB, '10000000003', '1'), payAuth(M1), PAY);
  t.equal(otherMerchant.status, 401, "A's password with a blank user id on B's path: 401 (B's password is checked)");
  t.equal(otherMerchant.body.error?.cause, 'INVALID_REQUEST');
  t.ok(otherMerchant.reused, 'on the same connection');

  const blankOnCreate = await one.send('POST', tokenPath(M1.id), payAuth(M1), cardBody());
  t.equal(blankOnCreate.status, 401, 'the blank user id that paid cannot create a token (merchant.<id> is required)');

  t.equal((await one.send('POST', tokenPath(M1.id), tokenAuth(M1), cardBody('4508750015741019'))).status, 201, "A creates a token as merchant.A: remembered");
  const namedOnOther = await one.send('POST', tokenPath(M2.id), tokenAuth(M1), cardBody());
  t.equal(namedOnOther.status, 401, "merchant.A's header on B's path: 401");
  t.equal(namedOnOther.body.error?.explanation, 'Authenticated entity not authorised to perform operation for target entity');
  t.equal((await one.send('PUT', payPath(M1.id, tokenA, '10000000004', '1'), tokenAuth(M1), PAY)).status, 201, 'merchant.A may pay on its own path too');

  // Same length, one character off: refused (and counted).
  const good = tokenAuth(M1);
  const off = good.slice(0, -2) + (good.at(-2) === 'A' ? 'B' : 'A') + good.at(-1);
  t.equal(off.length, good.length);
  t.equal((await one.send('POST', tokenPath(M1.id), off, cardBody())).status, 401, 'a header one character off: 401');
  t.equal((await one.send('POST', tokenPath(M1.id), basic(`merchant.${M1.id}`, `${M1.apiPassword}x`), cardBody())).status, 401, 'a longer password: 401');
  t.equal((await one.send('POST', tokenPath(M1.id), basic(`merchant.${M1.id}`, M1.apiPassword.slice(0, -1)), cardBody())).status, 401, 'a shorter password: 401');

  // The third failure locked merchant.A: its remembered, correct header is refused now.
  const locked = await one.send('PUT', payPath(M1.id, tokenA, '10000000005', '1'), tokenAuth(M1), PAY);
  t.equal(locked.status, 429, "A's remembered header while A is locked: 429");
  t.equal(locked.body.error?.cause, 'REQUEST_REJECTED');
  t.ok(locked.reused, 'on the same connection');
  t.equal((await one.send('PUT', payPath(M2.id, tokenB, '10000000006', '1'), payAuth(M2), PAY)).status, 201, 'B on the same connection: served');
});

t.test('a connection remembers nothing for another connection, and nothing that failed', async (t) => {
  const app = await buildTestApp(t);
  const tokenA = await createToken(app, M1);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  const first = connection(port);
  const second = connection(port);
  t.teardown(() => { first.close(); second.close(); });
  t.equal((await first.send('PUT', payPath(M1.id, tokenA, '10000000001', '1'), payAuth(M1), PAY)).status, 201, 'first connection: served');
  t.equal((await second.send('PUT', payPath(M1.id, tokenA, '10000000002', '1'), basic('', 'not-the-password'), PAY)).status, 401, 'second connection, wrong password: 401');
  t.equal((await second.send('PUT', payPath(M1.id, tokenA, '10000000002', '1'), basic('', 'not-the-password'), PAY)).status, 401, 'again: 401 (a failure is not remembered)');
  t.equal((await second.send('PUT', payPath(M1.id, tokenA, '10000000003', '1'), payAuth(M1), PAY)).status, 201, 'second connection, the right password: served');
});
