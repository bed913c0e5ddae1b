// Update Session authenticated by the session itself, as Mastercard's mobile SDKs send it from the
// payer's device (plugins/session-auth.ts): from version 50 Basic merchant.<id> with the session id
// as the password, before 50 no credentials and apiOperation UPDATE_PAYER_DATA. Only that
// operation, only the merchant's own live session, only the payer's data; nothing else opens.
import t from 'tap';
import { basic, buildTestApp, M1, M2, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expect401, expectInvalid, type App } from './http.fixture.js';

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
  expect401(t, await bare(id, M1.apiPassword), 'the API password without the scheme: not a Basic header elsewhere either');
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
