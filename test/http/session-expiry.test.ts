// Sessions expire as the real gateway's do (SESSION_LIFETIME_MS, 15 minutes by default; short
// here): from its recorded expiresAt a session is refused like an unknown one, and the expiry
// reactor destroys its keys and appends SessionExpired, also for a session that expired while the
// gateway was stopped (at the next start). The decisions themselves are tested with explicit times.
import { join } from 'node:path';
import t from 'tap';
import { decideCreateSession, decideExpireSession, evolveSession, initialSessionState, usable, type SessionState } from '../../domain/session/session.js';
import type { SessionEvent } from '../../domain/events.js';
import { DEFAULT_SESSION_LIFETIME_MS, loadGatewaySettings } from '../../config.js';

const sessionLifetimeMs = (env: NodeJS.ProcessEnv) => loadGatewaySettings(env).sessionLifetimeMs;
import { M1, basic } from '../helpers/app.js';
import { expectInvalid } from './http.fixture.js';
import { filesHolding, keyBytes, keyIdOf, storeFiles, windowsThatOpen } from './shredding.fixture.js';
import { app, create, type App } from './token-api.fixture.js';
import { sleep, waitFor } from '../helpers/poll.js';

// Long enough for a create and an update under CI's load (four files at once on two cores).
const LIFETIME_MS = 6000;
process.env.SESSION_LIFETIME_MS = String(LIFETIME_MS);

const auth = { authorization: basic(`merchant.${M1.id}`, M1.apiPassword) };
const sessionPath = (id?: string) => `/api/rest/version/100/merchant/${M1.id}/session${id ? `/${id}` : ''}`;
const card = { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' };

async function sessionWithCard(a: App) {
  const created = await a.inject({ method: 'POST', url: sessionPath(), headers: auth, payload: {} });
  const id = created.json().session.id as string;
  const updated = await a.inject({ method: 'PUT', url: sessionPath(id), headers: auth, payload: { sourceOfFunds: { type: 'CARD', provided: { card } } } });
  const events = await a.gateway.store.readAll();
  const sealed = (events.findLast((e) => e.type === 'SessionUpdated')?.data as { card: { numberSealed: string; securityCodeSealed: string } }).card;
  const createdEvent = events.find((e) => e.type === 'SessionCreated' && (e.data as { sessionId: string }).sessionId === id);
  return { id, updated, sealed, createdData: createdEvent?.data as { createdAt: string; expiresAt: string } };
}

const expired = async (a: App, id: string) => (await a.gateway.store.readAll()).some((e) => e.type === 'SessionExpired' && (e.data as { sessionId: string }).sessionId === id);

t.test('the decisions: expiresAt recorded at creation, usable before it, SessionExpired from it on', async (t) => {
  const created = decideCreateSession(initialSessionState(), { type: 'CreateSession', merchantId: 'M', sessionId: 'S', version: 'v', now: '2026-01-01T00:00:00.000Z', lifetimeMs: 900_000 });
  t.equal(created[0]?.data.expiresAt, '2026-01-01T00:15:00.000Z', 'createdAt + lifetime, in the event');
  const state = created.reduce<SessionState>((s, e) => evolveSession(s, e as SessionEvent), initialSessionState());
  t.ok(usable(state, '2026-01-01T00:14:59.999Z', 1), 'usable just before (the recorded expiry wins over a changed lifetime)');
  t.notOk(usable(state, '2026-01-01T00:15:00.000Z', 900_000), 'not at expiresAt');
  t.same(decideExpireSession(state, { type: 'ExpireSession', now: '2026-01-01T00:14:59.999Z', lifetimeMs: 900_000 }), [], 'no expiry before');
  const events = decideExpireSession(state, { type: 'ExpireSession', now: '2026-01-01T00:15:00.100Z', lifetimeMs: 900_000 });
  t.same(events, [{ type: 'SessionExpired', data: { merchantId: 'M', sessionId: 'S', expiresAt: '2026-01-01T00:15:00.000Z', expiredAt: '2026-01-01T00:15:00.100Z' } }]);
  const after = events.reduce<SessionState>((s, e) => evolveSession(s, e), state);
  t.equal(after.status, 'EXPIRED');
  t.notOk(usable(after, '2026-01-01T00:00:01.000Z', 900_000), 'an expired session is not usable, whatever the time');
  t.same(decideExpireSession(after, { type: 'ExpireSession', now: '2026-01-01T01:00:00.000Z', lifetimeMs: 900_000 }), [], 'expired once');
  // A session recorded before sessions expired: createdAt + the lifetime configured now.
  const old = evolveSession(initialSessionState(), { type: 'SessionCreated', data: { merchantId: 'M', sessionId: 'S', version: 'v', createdAt: '2026-01-01T00:00:00.000Z' } });
  t.ok(usable(old, '2026-01-01T00:00:59.000Z', 60_000));
  t.notOk(usable(old, '2026-01-01T00:01:00.000Z', 60_000));
});

t.test('SESSION_LIFETIME_MS: 15 minutes by default, whole milliseconds from 1 to a day', async (t) => {
  t.equal(DEFAULT_SESSION_LIFETIME_MS, 900_000);
  t.equal(sessionLifetimeMs({}), 900_000);
  t.equal(sessionLifetimeMs({ SESSION_LIFETIME_MS: '3600000' }), 3_600_000);
  for (const bad of ['0', '-1', '1.5', 'soon', '86400001']) t.throws(() => sessionLifetimeMs({ SESSION_LIFETIME_MS: bad }), /SESSION_LIFETIME_MS/, bad);
});

t.test('an expired session is refused like an unknown one, its keys are destroyed and SessionExpired is recorded', async (t) => {
  const dir = t.testdir();
  const a = await app(t, { eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') } });
  const { id, updated, sealed, createdData } = await sessionWithCard(a);
  t.equal(updated.statusCode, 200, updated.body);
  t.equal(Date.parse(createdData.expiresAt) - Date.parse(createdData.createdAt), LIFETIME_MS, 'SessionCreated records its expiry');
  const numberKey = keyBytes(join(dir, 'gateway.db.keys'), keyIdOf(sealed.numberSealed));

  await waitFor(() => expired(a, id), 'the session expires');
  const expiry = (await a.gateway.store.readAll()).find((e) => e.type === 'SessionExpired');
  t.equal((expiry?.data as { expiresAt: string }).expiresAt, createdData.expiresAt, 'SessionExpired names the recorded expiry');
  t.equal(expiry?.metadata.reactor, 'session-expiry');
  t.equal(a.gateway.sealer.open(sealed.numberSealed), undefined, "the session's number key is destroyed");
  t.equal(a.gateway.sealer.open(sealed.securityCodeSealed), undefined, 'and its security code key');
  const before = await a.gateway.store.headPosition();
  expectInvalid(t, await create(a, M1, { session: { id }, sourceOfFunds: { type: 'CARD' } }), { field: 'session.id' }, 'a token request naming it');
  expectInvalid(t, await a.inject({ method: 'PUT', url: sessionPath(id), headers: auth, payload: { sourceOfFunds: { type: 'CARD', provided: { card } } } }), { field: 'sessionId' }, 'Update Session');
  t.equal(await a.gateway.store.headPosition(), before, 'nothing stored');

  await a.close();
  const files = storeFiles(dir);
  t.same(filesHolding(files, numberKey), [], "the expired session's number key is in no file");
  t.same(windowsThatOpen(files, sealed.numberSealed), [], 'no 32 bytes of any file open its number');
  t.same(windowsThatOpen(files, sealed.securityCodeSealed), [], 'nor its security code');
});

t.test('a session that expired while the gateway was stopped is expired at the next start', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'gateway.db');
  const first = await app(t, { eventStore: { kind: 'sqlite', path } });
  // This gateway's reactor is stopped, as if the gateway stopped before the session's expiry.
  await first.gateway.sessionExpiry.stop();
  const { id, updated, sealed, createdData } = await sessionWithCard(first);
  t.equal(updated.statusCode, 200, updated.body);
  // Past the session's expiry (time passing is the case under test): its reactor is stopped.
  await sleep(Math.max(0, Date.parse(createdData.expiresAt) - Date.now() + 50));
  t.notOk(await expired(first, id), 'not recorded as expired before the stop');
  await first.close();
  await sleep(Math.max(0, Date.parse(createdData.expiresAt) - Date.now() + 50));

  const second = await app(t, { eventStore: { kind: 'sqlite', path } });
  await waitFor(() => expired(second, id), 'the session expires after the restart');
  t.equal(second.gateway.sealer.open(sealed.numberSealed), undefined, "its number's key is destroyed");
  t.equal(second.gateway.sealer.open(sealed.securityCodeSealed), undefined, "its security code's key too");
  expectInvalid(t, await create(second, M1, { session: { id }, sourceOfFunds: { type: 'CARD' } }), { field: 'session.id' });
  t.equal((await second.gateway.store.readAll()).filter((e) => e.type === 'SessionExpired').length, 1, 'expired once');
});
