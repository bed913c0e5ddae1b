// The token service provider simulator and the scheme-token decisions (pure domain).
import t from 'tap';
import { decideSchemeTokenAtCreation, decideSchemeTokenDue } from '../../domain/token/scheme-token.js';
import { providerVerdict, pushProvisionedCard } from '../../domain/token/scheme-token-simulator.js';
import { decideCreateSession, decideUpdateSession, evolveSession, initialSessionState, SessionNotFound } from '../../domain/session/session.js';

const NOW = '2026-11-21T12:00:00.000Z';
const attempt = (month: number, year: number, mode: 'ASYNCHRONOUS' | 'ATTEMPT_SYNCHRONOUS' | 'SYNCHRONOUS', brand: 'MASTERCARD' | 'DISCOVER' = 'MASTERCARD') =>
  decideSchemeTokenAtCreation({ card: { brand, expiry: { month, year } }, mode, deviceAccount: false, tokenIdentifier: 'TID', now: NOW, delayMs: 1000 });

t.test('the simulator: providers by brand, behaviours by expiry MM/35, the rest ACTIVE', async (t) => {
  t.equal(providerVerdict({ brand: 'VISA', expiry: { month: 1, year: 39 } }, 'request').provider, 'VTS');
  t.equal(providerVerdict({ brand: 'AMEX', expiry: { month: 1, year: 39 } }, 'request').provider, 'AETS');
  t.equal(providerVerdict({ brand: 'MAESTRO', expiry: { month: 1, year: 39 } }, 'request').provider, 'MDES');
  t.equal(providerVerdict({ brand: 'JCB', expiry: { month: 1, year: 39 } }, 'request').answer.kind, 'UNAVAILABLE');
  t.equal(providerVerdict({ brand: 'MASTERCARD', expiry: { month: 1, year: 35 } }, 'request').answer.kind, 'INELIGIBLE');
  t.equal(providerVerdict({ brand: 'MASTERCARD', expiry: { month: 3, year: 35 } }, 'request').answer.kind, 'ERROR');
  t.equal(providerVerdict({ brand: 'MASTERCARD', expiry: { month: 3, year: 35 } }, 'later').answer.kind, 'ACTIVE');
  t.equal(providerVerdict({ brand: 'MASTERCARD', expiry: { month: 6, year: 35 } }, 'later').answer.kind, 'UNAVAILABLE');
  t.equal(providerVerdict({ brand: 'MASTERCARD', expiry: { month: 12, year: 35 } }, 'request').answer.kind, 'ACTIVE');
});

t.test('at creation: SYNCHRONOUS refuses a decline, ATTEMPT_SYNCHRONOUS retries an error, ASYNCHRONOUS defers', async (t) => {
  t.same(attempt(1, 35, 'SYNCHRONOUS'), { kind: 'refused', gatewayCode: 'SCHEME_TOKENIZATION_DECLINED', schemeToken: { provider: 'MDES', statusTime: NOW, rule: 'expiry 01/35: INELIGIBLE (declined by the provider)', status: 'INELIGIBLE', gatewayCode: 'SCHEME_TOKENIZATION_DECLINED' } });
  const retried = attempt(3, 35, 'ATTEMPT_SYNCHRONOUS');
  t.equal(retried.kind, 'stored');
  t.match(retried.schemeToken, { status: 'PROVISIONING', gatewayCode: 'SCHEME_TOKENIZATION_ERROR', nextActionAt: '2026-11-21T12:00:01.000Z' });
  t.match(attempt(1, 39, 'ASYNCHRONOUS').schemeToken, { status: 'PROVISIONING', provider: 'MDES', nextActionAt: '2026-11-21T12:00:01.000Z' });
  t.match(attempt(1, 39, 'SYNCHRONOUS').schemeToken, { status: 'ACTIVE', tokenIdentifier: 'TID', gatewayCode: 'SCHEME_TOKENIZATION_SUCCESSFUL' });
  t.notOk('nextActionAt' in attempt(1, 39, 'SYNCHRONOUS').schemeToken, 'nothing pending');
  t.same(attempt(1, 39, 'SYNCHRONOUS', 'DISCOVER').schemeToken.status, 'TOKENIZATION_UNAVAILABLE');
  t.same(decideSchemeTokenAtCreation({ card: { brand: 'MASTERCARD', expiry: { month: 1, year: 39 } }, mode: 'SYNCHRONOUS', deviceAccount: true, tokenIdentifier: 'T', now: NOW, delayMs: 0 }).schemeToken.status, 'TOKENIZATION_UNAVAILABLE');
});

t.test('due work: nothing before its time; provisioning finishes; lifecycle changes once', async (t) => {
  const pending = attempt(4, 35, 'ASYNCHRONOUS').schemeToken;
  const card = { brand: 'MASTERCARD' as const, expiry: { month: 4, year: 35 } };
  t.equal(decideSchemeTokenDue(pending, card, { tokenIdentifier: 'T2', now: NOW, delayMs: 1000 }), undefined, 'not yet due');
  const active = decideSchemeTokenDue(pending, card, { tokenIdentifier: 'T2', now: '2026-11-21T12:00:01.000Z', delayMs: 1000 });
  t.match(active, { status: 'ACTIVE', tokenIdentifier: 'T2', nextActionAt: '2026-11-21T12:00:02.000Z' });
  const suspended = decideSchemeTokenDue(active!, card, { tokenIdentifier: 'T3', now: '2026-11-21T12:00:02.000Z', delayMs: 1000 });
  t.match(suspended, { status: 'SUSPENDED', tokenIdentifier: 'T2' });
  t.notOk(suspended && 'nextActionAt' in suspended, 'nothing more pending');
  t.equal(decideSchemeTokenDue(suspended!, card, { tokenIdentifier: 'T4', now: '2026-11-22T00:00:00.000Z', delayMs: 1000 }), undefined);
});

t.test('push provisioning cards are deterministic, Luhn-valid, and the expiry follows -MMYY', async (t) => {
  t.same(pushProvisionedCard('REF-1'), pushProvisionedCard('REF-1'));
  t.match(pushProvisionedCard('V-REF-0139')?.number, /^400000\d{10}$/);
  t.match(pushProvisionedCard('A-REF')?.number, /^370000\d{9}$/);
  t.same(pushProvisionedCard('M-REF-1238')?.expiry, { month: 12, year: 38 });
  t.equal(pushProvisionedCard('UNKNOWN-1'), undefined);
});

t.test('sessions: created once, updated field by field with a new version', async (t) => {
  const [created] = decideCreateSession(initialSessionState(), { type: 'CreateSession', merchantId: 'M', sessionId: 'S', version: 'v000000001', now: NOW, lifetimeMs: 900_000 });
  const state = evolveSession(initialSessionState(), created!);
  const [first] = decideUpdateSession(state, { type: 'UpdateSession', merchantId: 'M', version: 'v000000002', card: { nameOnCard: 'A', expiry: { month: 1, year: 39 } }, now: NOW, lifetimeMs: 900_000 });
  const after = evolveSession(state, first!);
  const [second] = decideUpdateSession(after, { type: 'UpdateSession', merchantId: 'M', version: 'v000000003', card: { nameOnCard: 'B' }, now: NOW, lifetimeMs: 900_000 });
  t.same(second?.data.card, { nameOnCard: 'B', expiry: { month: 1, year: 39 } });
  t.equal(second?.data.previousVersion, 'v000000002');
  t.throws(() => decideUpdateSession(initialSessionState(), { type: 'UpdateSession', merchantId: 'M', version: 'x', card: {}, now: NOW, lifetimeMs: 900_000 }), SessionNotFound);
});
