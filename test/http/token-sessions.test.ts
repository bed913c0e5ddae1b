// Issue 3, item 2: Create Session and Update Session (version 100), and session.id /
// session.version in Create or Update Token. Sessions are event-sourced; the card number is
// sealed; the security code is sealed under a key of its own that is destroyed after use.
import { join } from 'node:path';
import t from 'tap';
import { M1, M2, basic } from '../helpers/app.js';
import { expectInvalid, expect401 } from './http.fixture.js';
import { filesHolding, keyBytes, keyIdOf, storeFiles, windowsThatOpen } from './shredding.fixture.js';
import { app, create, storeText, type App, type Merchant } from './token-api.fixture.js';

const auth = (m: Merchant) => ({ authorization: basic(`merchant.${m.id}`, m.apiPassword) });
const sessionPath = (m: Merchant, id?: string) => `/api/rest/version/100/merchant/${m.id}/session${id ? `/${id}` : ''}`;
const newSession = (a: App, m: Merchant = M1, payload: unknown = {}) => a.inject({ method: 'POST', url: sessionPath(m), headers: auth(m), payload: payload as Record<string, unknown> });
const updateSession = (a: App, id: string, card: Record<string, unknown>, m: Merchant = M1) =>
  a.inject({ method: 'PUT', url: sessionPath(m, id), headers: auth(m), payload: { sourceOfFunds: { type: 'CARD', provided: { card } } } });

t.test('Create Session answers a session id of 31-35 characters and a version of 10', async (t) => {
  const a = await app(t);
  const res = await newSession(a, M1, { correlationId: 'c-1', session: { authenticationLimit: 5 } });
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  t.equal(body.result, 'SUCCESS');
  t.equal(body.merchant, M1.id);
  t.equal(body.correlationId, 'c-1');
  t.ok(body.session.id.length >= 31 && body.session.id.length <= 35, `id ${body.session.id}`);
  t.match(body.session.id, /^[\x20-\x7e]+$/);
  t.equal(body.session.version.length, 10);
  t.equal(body.session.authenticationLimit, 5);
  t.not((await newSession(a)).json().session.id, body.session.id, 'each session its own id');
  const events = await a.gateway.store.readAll();
  t.equal(events[0]?.stream, `session-${M1.id}:${body.session.id}`, 'stream session-<merchantId>:<sessionId>');
  t.equal(events[0]?.type, 'SessionCreated');
  expect401(t, await a.inject({ method: 'POST', url: sessionPath(M1), headers: auth(M2), payload: {} }), "another merchant's credentials", 'Authenticated entity not authorised to perform operation for target entity');
  expectInvalid(t, await newSession(a, M1, { session: { authenticationLimit: 99 } }), { field: 'session.authenticationLimit' });
});

t.test('Update Session stores card fields, masks them, changes the version; the events hold no clear number or code', async (t) => {
  const a = await app(t);
  const created = (await newSession(a)).json().session as { id: string; version: string };
  const res = await updateSession(a, created.id, { number: '5123450000000008', expiry: { month: '5', year: '39' }, securityCode: '100', nameOnCard: 'Jane Q' });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json();
  t.equal(body.session.id, created.id);
  t.equal(body.session.updateStatus, 'SUCCESS');
  t.not(body.session.version, created.version, 'a new version');
  t.equal(body.session.version.length, 10);
  t.same(body.sourceOfFunds.provided.card, { brand: 'MASTERCARD', expiry: { month: '5', year: '39' }, fundingMethod: 'CREDIT', nameOnCard: 'Jane Q', number: '512345xxxxxx0008', scheme: 'MASTERCARD', securityCode: 'xxx' });
  const text = await storeText(a);
  t.notMatch(text, '5123450000000008', 'no clear card number in any event');
  t.notMatch(text, /"securityCode":"100"/, 'no clear security code');
  t.equal((await a.gateway.store.readAll()).at(-1)?.type, 'SessionUpdated');
  expectInvalid(t, await updateSession(a, created.id, { number: '5123450000000009' }), { field: 'sourceOfFunds.provided.card.number' }, 'Luhn');
  expectInvalid(t, await updateSession(a, 'SESSION000000000000000000000000', { nameOnCard: 'x' }), { field: 'sessionId' }, 'unknown session');
  expectInvalid(t, await updateSession(a, created.id, { nameOnCard: 'x' }, M2), { field: 'sessionId' }, "another merchant's session is unknown to it");
});

t.test('a token from a session; request values override session values; a stale version is INVALID_REQUEST', async (t) => {
  const a = await app(t);
  const { id } = (await newSession(a)).json().session as { id: string };
  const updated = (await updateSession(a, id, { number: '4508750015741019', expiry: { month: '1', year: '39' }, nameOnCard: 'Session Name' })).json();
  const version = updated.session.version as string;

  const fromSession = await create(a, M1, { session: { id, version }, sourceOfFunds: { type: 'CARD' } });
  t.equal(fromSession.statusCode, 201, fromSession.body);
  t.same(fromSession.json().sourceOfFunds.provided.card, { brand: 'VISA', expiry: '0139', fundingMethod: 'CREDIT', nameOnCard: 'Session Name', number: '450875xxxxxx1019', scheme: 'VISA' });
  t.notMatch(await storeText(a), '4508750015741019', 'the token event seals the number too');
  const tokenEvent = (await a.gateway.store.readAll()).find((e) => e.type === 'TokenCreated');
  t.same((tokenEvent?.data as { origin?: unknown }).origin, { sessionId: id }, 'the event says where the card came from');

  const overridden = await create(a, M1, { session: { id }, sourceOfFunds: { type: 'CARD', provided: { card: { expiry: { month: '5', year: '39' } } } } });
  t.equal(overridden.json().sourceOfFunds.provided.card.expiry, '0539', 'explicit expiry over the session');
  t.equal(overridden.json().sourceOfFunds.provided.card.number, '450875xxxxxx1019', 'number from the session');

  await updateSession(a, id, { nameOnCard: 'Changed' });
  const before = await a.gateway.store.headPosition();
  expectInvalid(t, await create(a, M1, { session: { id, version }, sourceOfFunds: { type: 'CARD' } }), { field: 'session.version', validationType: 'INVALID' }, 'stale version');
  t.equal(await a.gateway.store.headPosition(), before, 'nothing stored');
  expectInvalid(t, await create(a, M1, { session: { id: 'SESSION999999999999999999999999' }, sourceOfFunds: { type: 'CARD' } }), { field: 'session.id' }, 'unknown session');
  expectInvalid(t, await create(a, M2, { session: { id }, sourceOfFunds: { type: 'CARD' } }), { field: 'session.id' }, "another merchant's session");
  expectInvalid(t, await create(a, M1, { session: { version }, sourceOfFunds: { type: 'CARD', provided: { card: { number: '4508750015741019', expiry: { month: '1', year: '39' } } } } }),
    { field: 'session.id', validationType: 'MISSING' }, 'a version without a session');

  const empty = (await newSession(a)).json().session.id as string;
  expectInvalid(t, await create(a, M1, { session: { id: empty }, sourceOfFunds: { type: 'CARD' } }),
    { field: 'sourceOfFunds.provided.card.number', validationType: 'MISSING' }, 'the combination must be a complete card');
});

t.test("the session's security code is used once (acquirer verification), then its key is destroyed", async (t) => {
  const a = await app(t);
  const { id } = (await newSession(a)).json().session as { id: string };
  await updateSession(a, id, { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '102' });
  const updated = (await a.gateway.store.readAll()).find((e) => e.type === 'SessionUpdated');
  const sealed = (updated?.data as { card: { securityCodeSealed: string } }).card.securityCodeSealed;
  t.equal(a.gateway.sealer.open(sealed), '102', 'sealed in the event until used');
  const first = await create(a, M1, { session: { id }, sourceOfFunds: { type: 'CARD' }, transaction: { currency: 'USD' } });
  t.equal(first.json().response.gatewayCode, 'EXTERNAL_VERIFICATION_DECLINED_INVALID_CSC', 'the session code 102 was verified (NO_MATCH)');
  t.equal(a.gateway.sealer.open(sealed), undefined, 'then destroyed: no event can reveal it');
  const second = await create(a, M1, { session: { id }, sourceOfFunds: { type: 'CARD' }, transaction: { currency: 'USD' } });
  t.equal(second.json().response.gatewayCode, 'EXTERNAL_VERIFICATION_SUCCESSFUL', 'a second use has no code left (NOT_PRESENT)');
});

/** The sealed values of the session's latest SessionUpdated. */
async function sessionSealed(a: App, id: string) {
  const updated = (await a.gateway.store.readAll()).filter((e) => e.type === 'SessionUpdated' && (e.data as { sessionId: string }).sessionId === id).at(-1);
  return (updated?.data as { card: { numberSealed: string; securityCodeSealed?: string } }).card;
}

t.test("after a clean stop, no file of the store opens a used session's security code", async (t) => {
  const dir = t.testdir();
  const a = await app(t, { eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') } });
  const { id } = (await newSession(a)).json().session as { id: string };
  t.equal((await updateSession(a, id, { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' })).statusCode, 200);
  const { securityCodeSealed } = await sessionSealed(a, id);
  const key = keyBytes(join(dir, 'gateway.db.keys'), keyIdOf(securityCodeSealed as string));
  const res = await create(a, M1, { session: { id }, sourceOfFunds: { type: 'CARD' }, transaction: { currency: 'USD' } });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().response.gatewayCode, 'EXTERNAL_VERIFICATION_SUCCESSFUL', 'the code was used');
  await a.close();
  const files = storeFiles(dir);
  t.same(filesHolding(files, key), [], "the code's key is in no file");
  t.same(windowsThatOpen(files, securityCodeSealed as string), [], 'no 32 bytes of any file open the sealed code');
});

t.test("deleting a token made from a session forgets the session's card: no new token from it, nothing in the files", async (t) => {
  const dir = t.testdir();
  const a = await app(t, { eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') } });
  const { id } = (await newSession(a)).json().session as { id: string };
  t.equal((await updateSession(a, id, { number: '4508750015741019', expiry: { month: '1', year: '39' } })).statusCode, 200);
  const { numberSealed } = await sessionSealed(a, id);
  const key = keyBytes(join(dir, 'gateway.db.keys'), keyIdOf(numberSealed));
  const made = await create(a, M1, { session: { id }, sourceOfFunds: { type: 'CARD' } });
  t.equal(made.statusCode, 201, made.body);
  const token = made.json().token as string;
  // Another session with the same card, never used for a token: deleting the token leaves it.
  const { id: other } = (await newSession(a)).json().session as { id: string };
  await updateSession(a, other, { number: '4508750015741019', expiry: { month: '1', year: '39' } });

  const deleted = await a.inject({ method: 'DELETE', url: `/api/rest/version/100/merchant/${M1.id}/token/${token}`, headers: auth(M1) });
  t.equal(deleted.statusCode, 200, deleted.body);
  t.equal(a.gateway.sealer.open(numberSealed), undefined, "the session's number can no longer be read");
  const before = await a.gateway.store.headPosition();
  expectInvalid(t, await create(a, M1, { session: { id }, sourceOfFunds: { type: 'CARD' } }), { field: 'session.id' }, 'the session makes no new token');
  t.equal(await a.gateway.store.headPosition(), before, 'nothing stored');
  t.equal((await create(a, M1, { session: { id: other }, sourceOfFunds: { type: 'CARD' } })).statusCode, 201, 'another session is not affected');
  const renewed = await updateSession(a, id, { number: '5123450000000008', expiry: { month: '1', year: '39' } });
  t.equal(renewed.statusCode, 200, 'the session takes a new card');
  t.equal((await create(a, M1, { session: { id }, sourceOfFunds: { type: 'CARD' } })).json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'and makes a token of the new card');

  await a.close();
  const files = storeFiles(dir);
  t.same(filesHolding(files, key), [], "the session's number key is in no file");
  t.same(windowsThatOpen(files, numberSealed), [], "no 32 bytes of any file open the session's sealed number");
});
