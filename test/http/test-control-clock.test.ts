// A merchant's sandbox clock (routes/admin-control.ts, docs/timeline-and-cli.md "Test control"):
// advanced, the merchant's sessions expire, its UNKNOWN payments resolve and its scheme tokens
// finish when their time comes on that clock, at once rather than after the configured delays;
// another merchant's (TEST10 beside TEST1) keep the real time; what the merchant records after
// carries its clock's time; the clock holds after a restart; bad input is 400 with the field.
import { join } from 'node:path';
import t from 'tap';
import { streams } from '../../domain/events.js';
import { MAX_ADVANCE_MS, MAX_OFFSET_MS } from '../../domain/sandbox/sandbox.js';
import {
  control, controlApp, createSession, createToken, logTypes, pay, refused, retrieveSession, retrieveToken, retrieveTransaction,
  SCHEME, TEST1, TEST10, until, type App,
} from './test-control.fixture.js';

// Nothing would happen on its own within a test's time: only the clock makes it.
process.env.UNKNOWN_RESOLUTION_DELAY_MS = '600000';
process.env.SCHEME_TOKEN_DELAY_MS = '600000';
process.env.SESSION_LIFETIME_MS = '900000';

const SIXTEEN_MINUTES = 16 * 60_000;

async function unknownPayment(app: App, m: typeof TEST1, order: string) {
  const { token } = await createToken(app, m, '5123450000000008', '5', '37');
  const res = await pay(app, m, token, order);
  t.equal(res.json().response.gatewayCode, 'UNKNOWN', `${m.id}: an UNKNOWN payment`);
}

const advance = (app: App, m: { id: string }, milliseconds: unknown) => control(app, 'POST', `/merchants/${m.id}/clock/advance`, { milliseconds });
const gatewayCode = async (app: App, m: typeof TEST1, order: string) => (await retrieveTransaction(app, m, order)).json().response.gatewayCode as string;

t.test("advanced, the merchant's sessions expire, its UNKNOWN resolves, its scheme tokens finish; TEST10's keep the real time", async (t) => {
  const app = await controlApp(t);
  const s1 = await createSession(app, TEST1);
  const s10 = await createSession(app, TEST10);
  await unknownPayment(app, TEST1, '20000000001');
  await unknownPayment(app, TEST10, '20000000001');
  const scheme = await createToken(app, SCHEME);
  t.equal(scheme.schemeToken?.status, 'PROVISIONING', 'an ASYNCHRONOUS scheme token, finished SCHEME_TOKEN_DELAY_MS later');

  const before = Date.now();
  const advanced = await advance(app, TEST1, SIXTEEN_MINUTES);
  const after = Date.now();
  t.equal(advanced.statusCode, 200);
  const body = advanced.json();
  t.match(body, { merchantId: TEST1.id, advancedByMs: SIXTEEN_MINUTES, offsetMs: SIXTEEN_MINUTES });
  t.equal(Date.parse(body.to) - Date.parse(body.from), SIXTEEN_MINUTES, 'from and to: the clock before and after');
  const clock = (await control(app, 'GET', `/merchants/${TEST1.id}/clock`)).json();
  t.equal(clock.offsetMs, SIXTEEN_MINUTES);
  t.ok(Date.parse(clock.now) >= before + SIXTEEN_MINUTES, "the merchant's time leads the real time");
  t.equal((await control(app, 'GET', `/merchants/${TEST10.id}/clock`)).json().offsetMs, 0, "TEST10's clock is the real time");
  t.ok(after >= before);

  refused(t, await retrieveSession(app, TEST1, s1), 400, 'sessionId', 'the session, past its lifetime on the merchant\'s clock');
  t.equal((await retrieveSession(app, TEST10, s10)).statusCode, 200, "TEST10's session");
  await until("the UNKNOWN payment's resolution", async () => (await gatewayCode(app, TEST1, '20000000001')) !== 'UNKNOWN');
  t.equal(await gatewayCode(app, TEST1, '20000000001'), 'APPROVED', 'resolved by the rule (an even amount)');
  t.equal(await gatewayCode(app, TEST10, '20000000001'), 'UNKNOWN', "TEST10's stays UNKNOWN");
  await until("the session's SessionExpired", async () => (await logTypes(app, streams.session(TEST1.id, s1))).includes('SessionExpired'));
  t.notOk((await logTypes(app, streams.session(TEST10.id, s10))).includes('SessionExpired'), "TEST10's session is not expired");
  t.equal((await retrieveToken(app, SCHEME, scheme.token)).json().schemeToken.status, 'PROVISIONING', "another merchant's scheme token waits");

  // What the merchant records from now on carries its clock's time: a new session is not born expired.
  const s2 = await createSession(app, TEST1);
  t.equal((await retrieveSession(app, TEST1, s2)).statusCode, 200, 'a session created after the advance is usable');
  const created = (await app.gateway.store.readStream(streams.session(TEST1.id, s2)))[0]!.data as { createdAt: string };
  t.ok(Date.parse(created.createdAt) >= before + SIXTEEN_MINUTES, "its createdAt is on the merchant's clock");

  t.equal((await advance(app, SCHEME, 600_000)).statusCode, 200);
  await until('the scheme token finished', async () => (await retrieveToken(app, SCHEME, scheme.token)).json().schemeToken.status !== 'PROVISIONING');
  t.equal((await retrieveToken(app, SCHEME, scheme.token)).json().schemeToken.status, 'ACTIVE');
  t.same(await logTypes(app, streams.sandbox(TEST1.id)), ['SandboxClockAdvanced'], 'the advance is an event of the sandbox stream');
});

t.test('the clock holds after a restart; an UNKNOWN recorded before the restart resolves once the clock passes its time', async (t) => {
  const dir = t.testdir({});
  const eventStore = { kind: 'sqlite' as const, path: join(dir, 'gateway.db') };
  const first = await controlApp(t, { eventStore });
  await unknownPayment(first, TEST1, '20000000002');
  await first.close();
  const second = await controlApp(t, { eventStore });
  t.equal(await gatewayCode(second, TEST1, '20000000002'), 'UNKNOWN');
  t.equal((await advance(second, TEST1, 3_600_000)).statusCode, 200);
  await until('the resolution', async () => (await gatewayCode(second, TEST1, '20000000002')) !== 'UNKNOWN');
  await second.close();
  const third = await controlApp(t, { eventStore });
  t.equal((await control(third, 'GET', `/merchants/${TEST1.id}/clock`)).json().offsetMs, 3_600_000, 'the offset, from the sandbox stream');
  t.equal((await control(third, 'GET', `/merchants/${TEST10.id}/clock`)).json().offsetMs, 0);
});

t.test('advance: bad input is 400 with the field, an unknown merchant 404; the clock never goes back nor past ten years', async (t) => {
  const app = await controlApp(t);
  for (const [value, what] of [[0, 'zero'], [-1, 'negative'], [1.5, 'a fraction'], ['1000', 'a string'], [MAX_ADVANCE_MS + 1, 'more than a year'], [null, 'null']] as const) {
    refused(t, await advance(app, TEST1, value), 400, 'milliseconds', what);
  }
  const missing = await control(app, 'POST', `/merchants/${TEST1.id}/clock/advance`, {});
  refused(t, missing, 400, 'milliseconds', 'missing');
  t.equal(missing.json().error.validationType, 'MISSING');
  refused(t, await control(app, 'POST', `/merchants/${TEST1.id}/clock/advance`, { milliseconds: 1, seconds: 1 }), 400, 'seconds', 'an unknown member');
  refused(t, await advance(app, { id: 'NOSUCH' }, 1000), 404, 'merchantId', 'an unknown merchant');
  refused(t, await control(app, 'GET', '/merchants/NOSUCH/clock'), 404, 'merchantId', "an unknown merchant's clock");
  t.same(await logTypes(app, streams.sandbox(TEST1.id)), [], 'nothing recorded');
  for (let i = 0; i < MAX_OFFSET_MS / MAX_ADVANCE_MS; i++) t.equal((await advance(app, TEST1, MAX_ADVANCE_MS)).statusCode, 200);
  refused(t, await advance(app, TEST1, 1), 400, 'milliseconds', 'beyond ten years ahead');
  t.equal((await control(app, 'GET', `/merchants/${TEST1.id}/clock`)).json().offsetMs, MAX_OFFSET_MS);
});
