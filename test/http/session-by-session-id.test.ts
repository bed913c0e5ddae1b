// Update Session authenticated by the session itself, as Mastercard's mobile SDKs send it from the
// payer's device (plugins/session-auth.ts): from version 50 Basic merchant.<id> with the session id
// as the password, before 50 no credentials and apiOperation UPDATE_PAYER_DATA. Only that
// operation, only the merchant's own live session, only the payer's data; nothing else opens.
import { PassThrough } from 'node:stream';
import t from 'tap';
import { basic, buildTestApp, M1, M2, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expect401, expectInvalid, type App } from './http.fixture.js';
import { control, controlApp, createSession, TEST1, TEST10 } from './test-control.fixture.js';

const sessionUrl = (m: { id: string }, version: number, id = '') => `/api/rest/version/${version}/merchant/${m.id}/session${id ? `/${id}` : ''}`;
const card = { sourceOfFunds: { provided: { card: { nameOnCard: 'Test Payer', number: '5123450000000008', securityCode: '100', expiry: { month: '05', year: '31' } } } }, device: { browser: 'Gateway-Android-SDK/1.1.5' } };

async function newSession(app: App, m = M1, version = 53): Promise<string> {
  const res = await app.inject({ method: 'POST', url: sessionUrl(m, version), headers: { authorization: tokenAuth(m) } });
  return res.json().session.id as string;
}
const bySession = (app: App, id: string, payload: object, { m = M1, version = 53, password = id } = {}) =>
  app.inject({ method: 'PUT', url: sessionUrl(m, version, id), headers: { authorization: basic(`merchant.${m.id}`, password) }, payload });

t.test('the session id authenticates its own Update Session from version 50; the card is then in the session', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const res = await bySession(app, id, card);
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().session.updateStatus, 'SUCCESS');
  t.equal(res.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  const held = await app.inject({ method: 'GET', url: sessionUrl(M1, 53, id), headers: { authorization: tokenAuth(M1) } });
  t.equal(held.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'Retrieve Session (the merchant) sees the card');
});

t.test('the iOS SDK\'s header: the same credentials, base64 without the Basic scheme', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const bare = (sessionId: string, password: string) => app.inject({
    method: 'PUT', url: sessionUrl(M1, 53, sessionId), payload: { ...card, device: { browser: 'Gateway-iOS-SDK/1.2.1' } },
    headers: { authorization: Buffer.from(`merchant.${M1.id}:${password}`).toString('base64'), 'user-agent': 'Gateway-iOS-SDK/1.2.1' },
  });
  const res = await bare(id, id);
  t.equal(res.statusCode, 200, res.body);
  t.equal(res.json().session.updateStatus, 'SUCCESS');
  // A header without the scheme is read as Basic on every route (test/http/auth-schemeless.test.ts).
  t.equal((await bare(id, M1.apiPassword)).statusCode, 200, 'the API password without the scheme: the merchant\'s Update Session');
  expect401(t, await bare(id, 'not-the-password-0123456789'), 'a wrong password without the scheme');
  expect401(t, await app.inject({ method: 'GET', url: sessionUrl(M1, 53, id), headers: { authorization: Buffer.from(`merchant.${M1.id}:${id}`).toString('base64') } }), 'Retrieve Session');
});

t.test('refused (401, nothing recorded): another id, an unknown or foreign session, other operations, the wrong version for each way', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const other = await newSession(app);
  const foreign = await newSession(app, M2);
  const v49 = await newSession(app, M1, 49);
  const head = await app.gateway.store.headPosition();
  expect401(t, await bySession(app, id, card, { password: other }), 'another session\'s id as the password');
  expect401(t, await bySession(app, `SESSION${'0'.repeat(24)}`, card), 'a session that does not exist');
  expect401(t, await bySession(app, foreign, card), 'another merchant\'s session on this merchant\'s path');
  expect401(t, await bySession(app, foreign, card, { m: M2, password: id }), 'this merchant\'s session id on another\'s path');
  expect401(t, await app.inject({ method: 'GET', url: sessionUrl(M1, 53, id), headers: { authorization: basic(`merchant.${M1.id}`, id) } }), 'Retrieve Session');
  expect401(t, await app.inject({ method: 'POST', url: sessionUrl(M1, 53), headers: { authorization: basic(`merchant.${M1.id}`, id) } }), 'Create Session');
  expect401(t, await app.inject({
    method: 'PUT', url: `/api/rest/version/53/merchant/${M1.id}/order/${uniqueId()}/transaction/1`, headers: { authorization: basic(`merchant.${M1.id}`, id) },
    payload: { apiOperation: 'PAY', session: { id }, order: { amount: '1.00', currency: 'USD' } },
  }), 'a PAY naming the session');
  expect401(t, await bySession(app, v49, card, { version: 49 }), 'the session id as the password before version 50');
  const none = (version: number, sessionId: string, payload: object) => app.inject({ method: 'PUT', url: sessionUrl(M1, version, sessionId), payload });
  expect401(t, await none(53, id, { ...card, apiOperation: 'UPDATE_PAYER_DATA' }), 'UPDATE_PAYER_DATA without credentials from version 50');
  expect401(t, await none(49, v49, card), 'no credentials and no UPDATE_PAYER_DATA before 50');
  expect401(t, await none(49, `SESSION${'1'.repeat(24)}`, { ...card, apiOperation: 'UPDATE_PAYER_DATA' }), 'UPDATE_PAYER_DATA for a session that does not exist');
  t.equal(await app.gateway.store.headPosition(), head, 'no refusal appended anything');
  const ok = await none(49, v49, { ...card, apiOperation: 'UPDATE_PAYER_DATA' });
  t.equal(ok.statusCode, 200, `UPDATE_PAYER_DATA without credentials before 50 (${ok.body})`);
});

t.test('the payer, holding only the session id, may not change the order, the token or the 3-D Secure settings', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const head = await app.gateway.store.headPosition();
  for (const [field, payload] of [
    ['order', { order: { amount: '0.01', currency: 'USD' } }],
    ['sourceOfFunds.token', { sourceOfFunds: { token: '9000000000000001' } }],
    ['authentication', { authentication: { redirectResponseUrl: 'https://example.com/' } }],
  ] as const) {
    expectInvalid(t, await bySession(app, id, payload), { field, explanation: /authenticated with the session id may update only the payer's data/ }, field);
  }
  t.equal(await app.gateway.store.headPosition(), head, 'nothing recorded');
  const merchant = await app.inject({ method: 'PUT', url: sessionUrl(M1, 53, id), headers: { authorization: tokenAuth(M1) }, payload: { order: { amount: '5.00', currency: 'USD' }, device: { browser: 'shop' } } });
  t.equal(merchant.statusCode, 200, `the merchant's own credentials still may (${merchant.body})`);
});

t.test('what the headers refuse is refused before the body is read: 401, whatever the body, and a body that never ends is not awaited', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const v49 = await newSession(app, M1, 49);
  const head = await app.gateway.store.headPosition();
  const raw = (url: string, payload: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'PUT', url, headers: { 'content-type': 'application/json', ...headers }, payload });
  // No credentials from version 50 can never pass: not parsed, not checked for size or card numbers.
  expect401(t, await raw(sessionUrl(M1, 53, id), 'not json'), 'no credentials from 50, a body that is not JSON');
  expect401(t, await raw(sessionUrl(M1, 53, id), JSON.stringify({ x: 'a'.repeat(100_000) })), 'no credentials from 50, a body past BODY_LIMIT');
  expect401(t, await raw(sessionUrl(M1, 53, id), JSON.stringify({ correlationId: '5123450000000008' })), 'no credentials from 50, a card number in the body');
  expect401(t, await raw(sessionUrl(M1, 49, v49), 'not json', { authorization: basic(`merchant.${M1.id}`, v49) }), 'the session id as the password before 50');
  expect401(t, await raw(sessionUrl({ id: 'NOSUCHMERCHANT' }, 49, v49), 'not json'), 'a merchant that does not exist');
  expect401(t, await raw(sessionUrl(M1, 49, `SESSION%00${'0'.repeat(23)}`), 'not json'), 'a session id that is none (NUL)');
  expect401(t, await raw(sessionUrl(M1, 49, 'short'), 'not json'), 'a session id that is none (too short)');
  // A body that never ends, without credentials from version 50: answered without waiting for it.
  const slow = new PassThrough();
  slow.write('{"sourceOfFunds":');
  const answered = app.inject({ method: 'PUT', url: sessionUrl(M1, 53, id), headers: { 'content-type': 'application/json', 'content-length': '1000' }, payload: slow });
  const hang = new Promise<'hang'>((resolve) => { const timer = setTimeout(() => resolve('hang'), 20_000); timer.unref(); });
  const first = await Promise.race([answered, hang]);
  slow.end();
  if (first === 'hang') t.fail('a slow body without credentials from version 50 was awaited');
  else expect401(t, first, 'a slow body without credentials from version 50');
  t.equal(await app.gateway.store.headPosition(), head, 'nothing recorded');
});

t.test('the credential lock: nothing the session way refuses is counted, and a locked merchant\'s payers still update their sessions', async (t) => {
  const app = await buildTestApp(t, { limits: { authFailureLimit: 3 } });
  const id = await newSession(app);
  const v49 = await newSession(app, M1, 49);
  for (let i = 0; i < 5; i++) {
    const unknown = `SESSION${String(i).padStart(24, '0')}`;
    expect401(t, await bySession(app, unknown, card), `an unknown session (${i})`);
    expect401(t, await bySession(app, v49, card, { version: 49 }), `the session id as the password before 50 (${i})`);
    expect401(t, await app.inject({ method: 'PUT', url: sessionUrl(M1, 53, id), payload: { ...card, apiOperation: 'UPDATE_PAYER_DATA' } }), `no credentials from 50 (${i})`);
  }
  const served = await app.inject({ method: 'GET', url: sessionUrl(M1, 53, id), headers: { authorization: tokenAuth(M1) } });
  t.equal(served.statusCode, 200, 'none of them counted: the merchant is served');
  // Another session's id is a wrong API password for merchant.<id>, checked and counted as any.
  for (let i = 0; i < 3; i++) expect401(t, await bySession(app, id, card, { password: v49 }), `another session's id as the password (${i})`);
  t.equal((await app.inject({ method: 'GET', url: sessionUrl(M1, 53, id), headers: { authorization: tokenAuth(M1) } })).statusCode, 429, 'the merchant is locked');
  // The lock guards the API password, which the session way never checks: the payer's update still goes through.
  t.equal((await bySession(app, id, card)).statusCode, 200, 'from version 50, the session id as the password');
  t.equal((await app.inject({ method: 'PUT', url: sessionUrl(M1, 49, v49), payload: { ...card, apiOperation: 'UPDATE_PAYER_DATA' } })).statusCode, 200, 'before 50, UPDATE_PAYER_DATA');
});

t.test('the journal names the merchant and the operation, and keeps no credentials; a card number in the path id is refused before any session is looked up', async (t) => {
  const app = await buildTestApp(t);
  const id = await newSession(app);
  const v49 = await newSession(app, M1, 49);
  t.equal((await bySession(app, id, card)).statusCode, 200);
  t.equal((await app.inject({ method: 'PUT', url: sessionUrl(M1, 49, v49), payload: { ...card, apiOperation: 'UPDATE_PAYER_DATA' } })).statusCode, 200);
  expect401(t, await bySession(app, `SESSION${'2'.repeat(24)}`, card), 'an unknown session');
  expect401(t, await bySession(app, v49, card, { version: 49 }), 'refused on the headers (the session id as the password before 50)');
  const entries = [...app.journal.newestFirst()].filter((e) => e.method === 'PUT');
  t.equal(entries.length, 4, 'each update journaled');
  const credentials = [id, v49].map((sessionId) => Buffer.from(`merchant.${M1.id}:${sessionId}`).toString('base64'));
  for (const entry of entries) {
    t.equal(entry.merchant, M1.id, `${entry.status}: the merchant named`);
    t.equal(entry.operation, 'UPDATE_SESSION', `${entry.status}: the operation`);
    const kept = JSON.stringify([entry, app.journal.answerOf(entry)]);
    t.notOk(credentials.some((c) => kept.includes(c)) || /authorization|Basic /i.test(kept), `${entry.status}: no Authorization header kept`);
    t.notOk(kept.includes('5123450000000008'), `${entry.status}: no card number`);
  }
  const withCard = `5123450000000008-${'0'.repeat(14)}`;
  const head = await app.gateway.store.headPosition();
  const reads: string[] = [];
  const store = app.gateway.store;
  const readStream = store.readStream.bind(store);
  store.readStream = (stream, options) => { reads.push(stream); return readStream(stream, options); };
  expectInvalid(t, await bySession(app, withCard, card), { field: 'sessionId' }, 'the session id as the password, a card number in it');
  expectInvalid(t, await app.inject({ method: 'PUT', url: sessionUrl(M1, 49, withCard), payload: { ...card, apiOperation: 'UPDATE_PAYER_DATA' } }), { field: 'sessionId' }, 'no credentials, a card number in it');
  t.same(reads.filter((s) => s.includes('5123450000000008')), [], 'no stream named with it read');
  t.equal(await app.gateway.store.headPosition(), head, 'nothing recorded');
});

t.test('merchant ids that extend one another (TEST1, TEST10): a session opens only its own merchant\'s path; an expired one opens nothing', async (t) => {
  const app = await controlApp(t);
  const s1 = await createSession(app, TEST1);
  const s10 = await createSession(app, TEST10);
  const as = (m: { id: string }, user: string, sessionId: string, version = 53) =>
    app.inject({ method: 'PUT', url: sessionUrl(m, version, sessionId), headers: { authorization: basic(`merchant.${user}`, sessionId) }, payload: card });
  expect401(t, await as(TEST10, TEST10.id, s1), 'TEST1\'s session on TEST10\'s path, as TEST10');
  expect401(t, await as(TEST10, TEST1.id, s1), 'TEST1\'s session on TEST10\'s path, as TEST1');
  expect401(t, await as(TEST1, TEST1.id, s10), 'TEST10\'s session on TEST1\'s path, as TEST1');
  expect401(t, await as(TEST1, TEST10.id, s1), 'TEST1\'s session on its path, as TEST10');
  expect401(t, await app.inject({ method: 'PUT', url: sessionUrl(TEST1, 49, s10), payload: { ...card, apiOperation: 'UPDATE_PAYER_DATA' } }), 'TEST10\'s session on TEST1\'s path, no credentials');
  t.equal((await control(app, 'POST', `/merchants/${TEST1.id}/clock/advance`, { milliseconds: 16 * 60_000 })).statusCode, 200, 'TEST1\'s clock past the session\'s lifetime');
  expect401(t, await as(TEST1, TEST1.id, s1), 'TEST1\'s expired session, its id as the password');
  expect401(t, await app.inject({ method: 'PUT', url: sessionUrl(TEST1, 49, s1), payload: { ...card, apiOperation: 'UPDATE_PAYER_DATA' } }), 'TEST1\'s expired session, no credentials');
  t.equal((await as(TEST10, TEST10.id, s10)).statusCode, 200, 'TEST10\'s session, on its own clock, still opens');
});
