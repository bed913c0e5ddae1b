// Issue 3, item 4: scheme tokenization in repositories that enable it, the token service provider
// simulator's rules (expiry MM/35 selects a behaviour; brands without a provider are not sent),
// the three provisioning modes, and SchemeTokenStatusChanged appended later by the reactor, which
// resumes its pending work after a restart. SCHEME_TOKEN_DELAY_MS is short here.
import { join } from 'node:path';
import t from 'tap';
import { M1 } from '../helpers/app.js';
import { pay, payBody } from './http.fixture.js';
import { SCHEME, SCHEME_SYNC, SCHEME_UNIQUE, app, card, count, create, retrieve, typesOf, type App, type Merchant } from './token-api.fixture.js';
import { eventually } from '../helpers/poll.js';

process.env.SCHEME_TOKEN_DELAY_MS = '150';
const STATUS_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const store = (a: App, m: Merchant, number: string, month: string, year: string, extra: Record<string, unknown> = {}) =>
  create(a, m, { sourceOfFunds: { type: 'CARD', provided: { card: card(number, month, year) } }, ...extra });
const schemeOf = async (a: App, m: Merchant, token: string) => (await retrieve(a, m, token)).json().schemeToken as Record<string, string> | undefined;

t.test('no scheme token where the repository does not enable it', async (t) => {
  const a = await app(t);
  const res = await store(a, M1, '5123450000000008', '1', '39', { schemeTokenProvisioningMode: 'SYNCHRONOUS' });
  t.equal(res.statusCode, 201);
  t.notOk('schemeToken' in res.json());
  t.equal(res.json().response.gatewayCode, 'BASIC_VERIFICATION_SUCCESSFUL');
  t.equal(res.json().schemeTokenProvisioningMode, 'SYNCHRONOUS', 'the mode is echoed');
});

t.test('SYNCHRONOUS: the test cards get an ACTIVE scheme token at once, per network', async (t) => {
  const a = await app(t);
  for (const [number, provider] of [['5123450000000008', 'MDES'], ['4508750015741019', 'VTS'], ['345678901234564', 'AETS']] as const) {
    const res = await store(a, SCHEME_SYNC, number, '1', '39');
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    t.equal(body.response.gatewayCode, 'SCHEME_TOKENIZATION_SUCCESSFUL', number);
    t.equal(body.schemeToken.provider, provider);
    t.equal(body.schemeToken.status, 'ACTIVE');
    t.match(body.schemeToken.statusTime, STATUS_TIME, 'statusTime with milliseconds, UTC');
    t.ok(body.schemeToken.tokenIdentifier.length >= 1 && body.schemeToken.tokenIdentifier.length <= 64, 'tokenIdentifier 1-64');
    t.same(await schemeOf(a, SCHEME_SYNC, body.token), body.schemeToken, 'Retrieve Token shows it');
  }
  const additional = await store(a, SCHEME_SYNC, '5123450000000008', '2', '35');
  t.equal(additional.json().response.gatewayCode, 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED', '02/35');
  const discover = await store(a, SCHEME_SYNC, '6011003179988686', '1', '39');
  t.equal(discover.statusCode, 201, 'a brand without a token service provider is stored');
  t.same(discover.json().schemeToken.status, 'TOKENIZATION_UNAVAILABLE');
  t.notOk('provider' in discover.json().schemeToken);
  t.equal(discover.json().response.gatewayCode, 'BASIC_VERIFICATION_SUCCESSFUL', 'not requested, so no scheme tokenization code');
});

t.test('SYNCHRONOUS failure: result FAILURE with the code, no gateway token, no event', async (t) => {
  const a = await app(t);
  for (const [month, gatewayCode, status] of [['1', 'SCHEME_TOKENIZATION_DECLINED', 'INELIGIBLE'], ['3', 'SCHEME_TOKENIZATION_ERROR', 'TOKENIZATION_UNAVAILABLE']] as const) {
    const res = await store(a, SCHEME_SYNC, '5123450000000008', month, '35');
    t.equal(res.statusCode, 201, res.body);
    const body = res.json();
    t.equal(body.result, 'FAILURE', `${month}/35`);
    t.equal(body.response.gatewayCode, gatewayCode);
    t.equal(body.schemeToken.status, status);
    t.notOk('token' in body, 'no gateway token');
    t.equal(body.sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  }
  const byRequest = await store(a, SCHEME, '5123450000000008', '1', '35', { schemeTokenProvisioningMode: 'SYNCHRONOUS' });
  t.equal(byRequest.json().result, 'FAILURE', 'the request mode overrides the repository default (ASYNCHRONOUS)');
  t.equal(await a.gateway.store.headPosition(), 0n, 'nothing stored at all');
});

t.test('ATTEMPT_SYNCHRONOUS: a provider error returns the token, PROVISIONING, retried later to ACTIVE', async (t) => {
  const a = await app(t);
  const res = await store(a, SCHEME, '5123450000000008', '3', '35', { schemeTokenProvisioningMode: 'ATTEMPT_SYNCHRONOUS' });
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  t.equal(body.result, 'SUCCESS');
  t.equal(body.response.gatewayCode, 'SCHEME_TOKENIZATION_ERROR');
  t.equal(body.schemeToken.status, 'PROVISIONING');
  t.notOk('tokenIdentifier' in body.schemeToken);
  const later = await eventually(() => schemeOf(a, SCHEME, body.token), { until: (s) => s?.status === 'ACTIVE' });
  t.equal(later?.status, 'ACTIVE', 'the retry succeeded');
  t.ok(later?.tokenIdentifier);
  t.ok(Date.parse(later?.statusTime ?? '') > Date.parse(body.schemeToken.statusTime), 'a later statusTime');
  t.equal(count(await typesOf(a), 'SchemeTokenStatusChanged'), 1, 'one SchemeTokenStatusChanged');
  const declined = await store(a, SCHEME, '5123450000000008', '1', '35', { schemeTokenProvisioningMode: 'ATTEMPT_SYNCHRONOUS' });
  t.equal(declined.json().result, 'SUCCESS', 'a decline still returns the gateway token');
  t.equal(declined.json().response.gatewayCode, 'SCHEME_TOKENIZATION_DECLINED');
  t.equal(declined.json().schemeToken.status, 'INELIGIBLE');
  const gaveUp = await store(a, SCHEME, '5123450000000008', '6', '35', { schemeTokenProvisioningMode: 'ATTEMPT_SYNCHRONOUS' });
  t.equal((await eventually(() => schemeOf(a, SCHEME, gaveUp.json().token), { until: (s) => s?.status !== 'PROVISIONING' }))?.status, 'TOKENIZATION_UNAVAILABLE', '06/35: unavailable on retry too');
});

t.test('ASYNCHRONOUS (the repository default): PROVISIONING at once, completed later; the token pays meanwhile', async (t) => {
  const a = await app(t);
  const res = await store(a, SCHEME, '4508750015741019', '1', '39');
  const body = res.json();
  t.equal(body.response.gatewayCode, 'BASIC_VERIFICATION_SUCCESSFUL');
  t.same(Object.keys(body.schemeToken).sort(), ['provider', 'status', 'statusTime']);
  t.equal(body.schemeToken.status, 'PROVISIONING');
  t.equal(body.schemeToken.provider, 'VTS', 'the provider is known once the card is');
  t.equal((await pay(a, body.token, payBody(), { merchant: SCHEME })).json().result, 'SUCCESS');
  t.equal((await eventually(() => schemeOf(a, SCHEME, body.token), { until: (s) => s?.status !== 'PROVISIONING' }))?.status, 'ACTIVE');
  const ineligible = (await store(a, SCHEME, '4508750015741019', '1', '35')).json();
  t.equal((await eventually(() => schemeOf(a, SCHEME, ineligible.token), { until: (s) => s?.status !== 'PROVISIONING' }))?.status, 'INELIGIBLE');
  const changed = (await a.gateway.store.readAll()).filter((e) => e.type === 'SchemeTokenStatusChanged');
  t.same(changed.map((e) => (e.data as { previousStatus: string }).previousStatus), ['PROVISIONING', 'PROVISIONING']);
  t.ok(changed.every((e) => e.metadata.reactor === 'scheme-tokens'), 'appended by the reactor');
  t.match((changed[1]?.data as { schemeToken: { rule: string } }).schemeToken.rule, '01/35', 'the rule that decided is in the event');
});

t.test('lifecycle: 04/35 becomes SUSPENDED and 05/35 DEACTIVATED after being ACTIVE', async (t) => {
  const a = await app(t);
  for (const [month, status] of [['4', 'SUSPENDED'], ['5', 'DEACTIVATED']] as const) {
    const body = (await store(a, SCHEME_SYNC, '5111111111111118', month, '35')).json();
    t.equal(body.schemeToken.status, 'ACTIVE', `${month}/35 starts ACTIVE`);
    t.equal((await eventually(() => schemeOf(a, SCHEME_SYNC, body.token), { until: (s) => s?.status !== 'ACTIVE' }))?.status, status);
  }
});

t.test('the card stays the same token (unique card): the scheme token is not requested again', async (t) => {
  const a = await app(t);
  const first = (await store(a, SCHEME_UNIQUE, '5123450000000008', '1', '39')).json();
  t.equal(first.response.gatewayCode, 'SCHEME_TOKENIZATION_SUCCESSFUL');
  const again = (await store(a, SCHEME_UNIQUE, '5123450000000008', '2', '39')).json();
  t.equal(again.token, first.token);
  t.same(again.schemeToken, first.schemeToken, 'same scheme token');
  t.equal(again.response.gatewayCode, 'BASIC_VERIFICATION_SUCCESSFUL', 'no scheme tokenization in this request');
});

t.test('pending work survives a restart: the reactor resumes it from the store', async (t) => {
  const dir = t.testdir();
  const eventStore = { kind: 'sqlite' as const, path: join(dir, 'gateway.db') };
  process.env.SCHEME_TOKEN_DELAY_MS = '3000';
  const first = await app(t, { eventStore });
  const body = (await store(first, SCHEME, '5123450000000008', '1', '39')).json();
  t.equal(body.schemeToken.status, 'PROVISIONING');
  await first.close();
  const second = await app(t, { eventStore });
  process.env.SCHEME_TOKEN_DELAY_MS = '150';
  t.equal((await schemeOf(second, SCHEME, body.token))?.status, 'PROVISIONING', 'still pending after the restart');
  const done = await eventually(() => schemeOf(second, SCHEME, body.token), { until: (s) => s?.status === 'ACTIVE' });
  t.equal(done?.status, 'ACTIVE', 'completed by the new process');
  t.equal(count(await typesOf(second), 'SchemeTokenStatusChanged'), 1);
});
