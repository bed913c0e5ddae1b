// Repeated wrong passwords lock the CREDENTIAL being guessed (a merchant id), not the client's
// address: 429 REQUEST_REJECTED with Retry-After, the correct password too, until the window has
// passed; other merchants behind the same address are served.
import t, { type Test } from 'tap';
import { AuthFailures, type SharedFailure } from '../../plugins/auth-failures.js';
import { basic, buildTestApp, cardBody, createToken, M1, M2, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
const ADDRESS = '10.9.8.7';

const createAs = (app: App, authorization: string, merchantId = M1.id, remoteAddress = ADDRESS) =>
  app.inject({ method: 'POST', url: tokenPath(merchantId), headers: { authorization }, payload: cardBody(), remoteAddress });

const payAs = (app: App, authorization: string, merchantId: string, token: string, orderId: string, remoteAddress = ADDRESS) =>
  app.inject({
    method: 'PUT', url: payPath(merchantId, token, orderId, '1'), headers: { authorization }, remoteAddress,
    payload: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } },
  });

/** Run `fn` with the clock `ms` ahead (the lock window is 60 s; no test waits for it). */
async function later<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const realNow = Date.now;
  Date.now = () => realNow() + ms;
  try {
    return await fn();
  } finally {
    Date.now = realNow;
  }
}

/**
 * Run `fn` with the clock stopped where it is: a lock's 60 s window then lasts however long a
 * loaded machine takes over the requests (10,200 of them took over 60 s with two suites at once).
 */
async function clockStopped<T>(fn: () => Promise<T>): Promise<T> {
  const realNow = Date.now;
  const at = realNow();
  Date.now = () => at;
  try {
    return await fn();
  } finally {
    Date.now = realNow;
  }
}

function expectRejected(t: Test, res: Awaited<ReturnType<App['inject']>>, what: string) {
  t.equal(res.statusCode, 429, `${what}: 429`);
  t.same(res.json(), { error: { cause: 'REQUEST_REJECTED', supportCode: res.headers['x-request-id'] }, result: 'ERROR' }, `${what}: gateway body`);
  const retryAfter = Number(res.headers['retry-after']);
  t.ok(retryAfter >= 1 && retryAfter <= 60, `${what}: Retry-After in seconds (${res.headers['retry-after']})`);
}

t.test('30 wrong passwords lock merchant A, not merchant B behind the same address', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 30 } });
  const tokenB = await createToken(app, M2);
  await clockStopped(async () => {
    for (let i = 0; i < 30; i++) t.equal((await createAs(app, basic(`merchant.${M1.id}`, `guess-${i}`))).statusCode, 401);
    const before = (await app.gateway.store.readAll()).length;

    // Merchant B, same address, correct password: served (token creation and pay).
    t.equal((await createAs(app, tokenAuth(M2), M2.id)).statusCode, 201, "B's correct password from the same address creates a token");
    t.equal((await payAs(app, payAuth(M2), M2.id, tokenB, '10000000001')).statusCode, 201, "B's correct password from the same address pays");

    // Merchant A: locked, its correct password too, from any address and with either user id rule.
    const refused = await createAs(app, tokenAuth(M1));
    expectRejected(t, refused, "A's correct password");
    t.equal(refused.headers['retry-after'], '60', 'the lock has just started: 60 s to go');
    expectRejected(t, await createAs(app, tokenAuth(M1), M1.id, '192.0.2.1'), "A's correct password from another address");
    expectRejected(t, await payAs(app, payAuth(M1), M1.id, '9999999999999999', '10000000002'), "pay with A's correct password (blank user id)");
    expectRejected(t, await payAs(app, basic(`merchant.${M1.id}`, 'another-guess'), M1.id, '9999999999999999', '10000000003'), 'one more guess');
    t.equal((await app.gateway.store.readAll()).length, before + 2, "refused requests record nothing (the 2 events are B's)");

    // Still locked just before the window ends; served once it has passed.
    expectRejected(t, await later(50_000, () => createAs(app, tokenAuth(M1))), 'after 50 s');
    const after = await later(61_000, () => createAs(app, tokenAuth(M1)));
    t.equal(after.statusCode, 201, `after the window A's correct password is served: ${after.body}`);
  });
});

t.test('pay with the blank user id guesses the password of the merchant in the path', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 5 } });
  const tokenA = await createToken(app, M1);
  const tokenB = await createToken(app, M2);
  for (let i = 0; i < 5; i++) t.equal((await payAs(app, basic('', `guess-${i}`), M1.id, tokenA, '10000000001')).statusCode, 401);
  expectRejected(t, await payAs(app, payAuth(M1), M1.id, tokenA, '10000000001'), "A's correct password on A's path");
  expectRejected(t, await createAs(app, tokenAuth(M1)), 'token creation as merchant.A');
  t.equal((await payAs(app, payAuth(M2), M2.id, tokenB, '10000000002')).statusCode, 201, 'B is served');
});

t.test('what guesses no password does not count: missing or malformed headers, impossible user ids, right password on the wrong path', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 3 } });
  for (let i = 0; i < 5; i++) {
    t.equal((await app.inject({ method: 'POST', url: tokenPath(M1.id), payload: cardBody(), remoteAddress: ADDRESS })).statusCode, 401);
    t.equal((await createAs(app, 'Basic !!!')).statusCode, 401);
    t.equal((await createAs(app, basic('', M1.apiPassword))).statusCode, 401, 'blank user id for token creation');
    t.equal((await createAs(app, basic('someone', 'x'))).statusCode, 401);
    t.equal((await createAs(app, tokenAuth(M1), M2.id)).statusCode, 401, "A's correct password on B's path");
  }
  t.equal((await createAs(app, tokenAuth(M1))).statusCode, 201, 'A is not locked');
  t.equal((await createAs(app, tokenAuth(M2), M2.id)).statusCode, 201, 'B is not locked');
});

t.test('an unknown merchant id answers like a known one, and a spray of them keeps memory bounded', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 3 } });
  await clockStopped(async () => {
    // A known merchant locked before the spray stays locked after it (a spray cannot evict it).
    for (let i = 0; i < 3; i++) await createAs(app, basic(`merchant.${M1.id}`, `guess-${i}`));
    // Unknown ids: 401 up to the limit, then 429, exactly like a known id (no enumeration oracle).
    const unknown = (id: string) => createAs(app, basic(`merchant.${id}`, 'guess'), id);
    for (let i = 0; i < 3; i++) t.equal((await unknown('NOSUCHMERCHANT')).statusCode, 401);
    expectRejected(t, await unknown('NOSUCHMERCHANT'), 'an unknown id after the limit');

    const spray = 10_200;
    for (let i = 0; i < spray; i++) {
      const res = await unknown(`SPRAY${i}`);
      if (res.statusCode !== 401) { t.fail(`spray ${i}: ${res.statusCode} ${res.body}`); break; }
    }
    t.ok(app.authFailures.size <= 10_000 + 1, `failures held for at most 10000 unknown ids and the known ones (${app.authFailures.size})`);
    expectRejected(t, await createAs(app, tokenAuth(M1)), 'A is still locked after the spray');
    t.equal((await createAs(app, tokenAuth(M2), M2.id)).statusCode, 201, 'B, behind the same address as the spray, is served');
  });
});

t.test('AuthFailures: the unknown table is capped, known credentials are never evicted, a lock lasts one window', async (t) => {
  const failures = new AuthFailures(3, 60_000, 100);
  const now = 1_000_000;
  for (let i = 0; i < 3; i++) failures.record('merchant.KNOWN', true, now);
  for (let i = 0; i < 50_000; i++) failures.record(`merchant.U${i}`, false, now + i);
  t.equal(failures.size, 101, '100 unknown ids and the known one');
  t.equal(failures.lockedFor('merchant.KNOWN', now + 1), 59_999);
  t.equal(failures.lockedFor('merchant.KNOWN', now + 60_000), 0, 'unlocked after the window');
  t.equal(failures.lockedFor('merchant.U0', now), 0, 'the oldest unknown ids were evicted');
  for (let i = 0; i < 2; i++) failures.record('merchant.KNOWN', true, now + 60_000 + i);
  t.equal(failures.lockedFor('merchant.KNOWN', now + 60_002), 0, 'a fresh window after the lock: 2 failures of 3');
});

t.test('AuthFailures shared between workers: each failure told once, a told one counted but not told again', async (t) => {
  const told: SharedFailure[] = [];
  const here = new AuthFailures(3, 60_000);
  const there = new AuthFailures(3, 60_000);
  here.onFailure = (failure) => told.push(failure);
  there.onFailure = () => t.fail('a failure told by another worker is not told again');
  const now = 1_000_000;
  here.record('merchant.A', true, now);
  here.record('merchant.A', true, now + 1);
  t.same(told, [{ credential: 'merchant.A', exists: true, at: now }, { credential: 'merchant.A', exists: true, at: now + 1 }]);
  for (const failure of told) there.shared(failure);
  t.equal(there.lockedFor('merchant.A', now + 2), 0, 'two of three: not locked');
  there.shared({ credential: 'merchant.A', exists: true, at: now + 2 });
  t.equal(there.lockedFor('merchant.A', now + 3), 59_999, "the third, another worker's, locks it for a window from its time");
  t.equal(here.lockedFor('merchant.A', now + 3), 0, 'nothing told back: the first worker counts what it was told');
});

t.test('AuthFailures handed to a worker that starts: the same counts, locks and windows as the registry they came from', async (t) => {
  const limit = 3;
  const from = new AuthFailures(limit, 60_000, 2);
  const now = 1_000_000;
  // Failures at 0, 50, 100 and 105 s: the window that began at 0 s ends at 60 s, so those of
  // 100 and 105 s count in the window begun at 100 s (two of three: not locked).
  for (const at of [0, 50_000, 100_000, 105_000]) from.record('merchant.A', true, now + at);
  for (let i = 0; i < limit; i++) from.record('merchant.LOCKED', true, now + 110_000);
  for (const id of ['U1', 'U2', 'U3']) from.record(`merchant.${id}`, false, now + 110_000);
  const to = new AuthFailures(limit, 60_000, 2);
  to.restore(from.snapshot());
  t.same(to.snapshot(), from.snapshot(), 'the same entries, in the same order');
  t.equal(to.size, 4, 'the known ones and the two unknown ones the registry keeps');
  const at = now + 125_000;
  t.equal(to.lockedFor('merchant.A', at), 0, 'not locked: two failures in the current window, as in the registry it came from');
  t.equal(from.lockedFor('merchant.A', at), 0);
  t.equal(to.lockedFor('merchant.LOCKED', at), from.lockedFor('merchant.LOCKED', at), 'a lock holds as long');
  t.ok(to.lockedFor('merchant.LOCKED', at) > 0);
  to.record('merchant.A', true, at);
  from.record('merchant.A', true, at);
  t.ok(to.lockedFor('merchant.A', at) > 0 && to.lockedFor('merchant.A', at) === from.lockedFor('merchant.A', at), 'the next failure locks both alike');
});
