// Repeated wrong passwords lock the CREDENTIAL being guessed (a merchant id), not the client's
// address: 429 REQUEST_REJECTED with Retry-After, the correct password too, until the window has
// passed; other merchants behind the same address are served.
import t, { type Test } from 'tap';
import { AuthFailures, type SharedFailure } from '../../plugins/auth.js';
import { AuthFailureHistory } from '../../cluster.js';
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

function expectRejected(t: Test, res: Awaited<ReturnType<App['inject']>>, what: string) {
  t.equal(res.statusCode, 429, `${what}: 429`);
  t.same(res.json(), { error: { cause: 'REQUEST_REJECTED', supportCode: res.headers['x-request-id'] }, result: 'ERROR' }, `${what}: gateway body`);
  const retryAfter = Number(res.headers['retry-after']);
  t.ok(retryAfter >= 1 && retryAfter <= 60, `${what}: Retry-After in seconds (${res.headers['retry-after']})`);
}

t.test('30 wrong passwords lock merchant A, not merchant B behind the same address', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 30 } });
  const tokenB = await createToken(app, M2);
  for (let i = 0; i < 30; i++) t.equal((await createAs(app, basic(`merchant.${M1.id}`, `guess-${i}`))).statusCode, 401);
  const before = (await app.gateway.store.readAll()).length;

  // Merchant B, same address, correct password: served (token creation and pay).
  t.equal((await createAs(app, tokenAuth(M2), M2.id)).statusCode, 201, "B's correct password from the same address creates a token");
  t.equal((await payAs(app, payAuth(M2), M2.id, tokenB, '10000000001')).statusCode, 201, "B's correct password from the same address pays");

  // Merchant A: locked, its correct password too, from any address and with either user id rule.
  const refused = await createAs(app, tokenAuth(M1));
  expectRejected(t, refused, "A's correct password");
  // (60 unless the machine took over a second since the lock began: CI's parallel load.)
  t.ok(['58', '59', '60'].includes(refused.headers['retry-after'] as string), `the lock has just started: about 60 s to go (${refused.headers['retry-after']})`);
  expectRejected(t, await createAs(app, tokenAuth(M1), M1.id, '192.0.2.1'), "A's correct password from another address");
  expectRejected(t, await payAs(app, payAuth(M1), M1.id, '9999999999999999', '10000000002'), "pay with A's correct password (blank user id)");
  expectRejected(t, await payAs(app, basic(`merchant.${M1.id}`, 'another-guess'), M1.id, '9999999999999999', '10000000003'), 'one more guess');
  t.equal((await app.gateway.store.readAll()).length, before + 2, "refused requests record nothing (the 2 events are B's)");

  // Still locked just before the window ends; served once it has passed.
  expectRejected(t, await later(50_000, () => createAs(app, tokenAuth(M1))), 'after 50 s');
  const after = await later(61_000, () => createAs(app, tokenAuth(M1)));
  t.equal(after.statusCode, 201, `after the window A's correct password is served: ${after.body}`);
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

t.test("AuthFailureHistory: what a worker starting later is told, the last two minutes' failures, bounded", async (t) => {
  const history = new AuthFailureHistory(120_000, 5);
  const failure = (i: number, at: number): SharedFailure => ({ credential: `merchant.M${i}`, exists: false, at });
  const now = 1_000_000;
  for (let i = 0; i < 3; i++) history.add(failure(i, now + i), now + i);
  t.same(history.recent(now + 10).map((f) => f.credential), ['merchant.M0', 'merchant.M1', 'merchant.M2'], 'oldest first');
  t.same(history.recent(now + 120_001).map((f) => f.credential), ['merchant.M1', 'merchant.M2'], 'older than two minutes: dropped; two minutes old: kept');
  for (let i = 3; i < 10; i++) history.add(failure(i, now + 120_001), now + 120_001);
  t.same(history.recent(now + 120_001).map((f) => f.credential), ['merchant.M5', 'merchant.M6', 'merchant.M7', 'merchant.M8', 'merchant.M9'], 'at most 5: the oldest dropped first');
  const many = new AuthFailureHistory(120_000, 1_000);
  for (let i = 0; i < 5_000; i++) many.add(failure(i, now), now);
  const kept = many.recent(now);
  t.equal(kept.length, 1_000);
  t.equal(kept[0]!.credential, 'merchant.M4000', 'after compactions, the newest 1,000 in order');
  t.equal(kept.at(-1)!.credential, 'merchant.M4999');
  // Replayed into a fresh worker's registry, the kept failures lock what they locked.
  const replayed = new AuthFailures(3, 60_000);
  const lockHistory = new AuthFailureHistory();
  for (let i = 0; i < 3; i++) lockHistory.add({ credential: 'merchant.A', exists: true, at: now + i }, now + i);
  for (const f of lockHistory.recent(now + 30_000)) replayed.shared(f);
  t.ok(replayed.lockedFor('merchant.A', now + 30_000) > 0, 'a lock set before the worker started holds in it');
});
