// The versions the gateway still serves (schemas/versions.ts, docs/operations.md "Versions"): the
// order, token and session paths on every version from 1 to 100 but the deactivated ones (2, 5,
// 6, 22, 25), each operation from the version the reference first has it (VOID 4, VERIFY 7,
// Retrieve Order 11, sessions 18); version 1 takes a blank user id. Version 3's Pay with token is
// unchanged (its own tests).
import t from 'tap';
import { basic, buildTestApp, cardBody, createToken, M1, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid } from './http.fixture.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
const base = (version: number | string) => `/api/rest/version/${version}/merchant/${M1.id}`;
const call = (a: App, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown, authorization = tokenAuth(M1)) =>
  a.inject({ method, url, headers: { authorization }, ...(payload === undefined ? {} : { payload: payload as object }) });

t.test('a client on version 30 (or 35, 49) stores a token, pays, captures, refunds, voids and verifies', async (t) => {
  const a = await buildTestApp(t);
  for (const version of [30, 35, 49]) {
    const created = await call(a, 'POST', `${base(version)}/token`, cardBody());
    t.equal(created.statusCode, 201, `v${version}: token created (${created.body})`);
    const token = created.json().token as string;
    t.equal((await call(a, 'GET', `${base(version)}/token/${token}`)).statusCode, 200, `v${version}: token retrieved`);
    const order = `${base(version)}/order/${uniqueId()}`;
    const authorized = await call(a, 'PUT', `${order}/transaction/1`, { apiOperation: 'AUTHORIZE', order: { amount: '10.00', currency: 'USD' }, sourceOfFunds: { token } });
    t.equal(authorized.statusCode, 201, `v${version}: AUTHORIZE (${authorized.body})`);
    t.equal(authorized.json().version, String(version), `v${version}: the answer names its version`);
    const steps: Array<[string, Record<string, unknown>]> = [
      ['CAPTURE', { transaction: { amount: '10.00', currency: 'USD' } }],
      ['REFUND', { transaction: { amount: '4.00', currency: 'USD' } }],
      ['VOID', { transaction: { targetTransactionId: '3' } }],
    ];
    for (const [i, [apiOperation, body]] of steps.entries()) {
      const res = await call(a, 'PUT', `${order}/transaction/${i + 2}`, { apiOperation, ...body });
      t.equal(res.statusCode, 201, `v${version}: ${apiOperation} (${res.body})`);
    }
    const verified = await call(a, 'PUT', `${base(version)}/order/${uniqueId()}/transaction/1`, { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { token } });
    t.equal(verified.json().transaction?.type, 'VERIFICATION', `v${version}: VERIFY`);
    t.equal((await call(a, 'GET', order)).json().status, 'CAPTURED', `v${version}: Retrieve Order (the refund voided)`);
    const session = await call(a, 'POST', `${base(version)}/session`);
    t.equal(session.statusCode, 201, `v${version}: Create Session`);
    t.equal((await call(a, 'DELETE', `${base(version)}/token/${token}`)).json().result, 'SUCCESS', `v${version}: token deleted`);
  }
});

t.test('each operation from the version the reference first has it; deactivated versions and 0, 101 refused', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const pay = (version: number, apiOperation = 'PAY', extra: Record<string, unknown> = {}) =>
    call(a, 'PUT', `${base(version)}/order/${uniqueId()}/transaction/1`, { apiOperation, order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { token }, ...extra });
  t.equal((await pay(1)).statusCode, 201, 'PAY on version 1');
  t.equal((await pay(3)).statusCode, 201, 'PAY on the order path of version 3');
  expectInvalid(t, await pay(4, 'VERIFY'), { field: 'apiOperation', explanation: "Value 'VERIFY' is invalid. VERIFY is available from version 7" });
  t.equal((await pay(7, 'VERIFY')).statusCode, 201, 'VERIFY on version 7');
  expectInvalid(t, await pay(3, 'VOID', { transaction: { targetTransactionId: '1' } }), { field: 'apiOperation', explanation: /VOID is available from version 4/ });
  expectInvalid(t, await call(a, 'GET', `${base(10)}/order/${uniqueId()}`), { field: 'version', explanation: /Retrieve Order is available from version 11/ });
  expectInvalid(t, await call(a, 'POST', `${base(17)}/session`), { field: 'version', explanation: /Session is available from version 18/ });
  t.equal((await call(a, 'POST', `${base(18)}/session`)).statusCode, 201, 'Create Session on version 18');
  for (const version of [2, 5, 6, 22, 25]) {
    expectInvalid(t, await pay(version), { field: 'version', explanation: `Value '${version}' is invalid. Version ${version} was deactivated on 31 January 2025: use version 100` });
    expectInvalid(t, await call(a, 'POST', `${base(version)}/token`, cardBody()), { field: 'version', explanation: /deactivated/ });
  }
  for (const version of ['0', '101', '007', 'abc']) {
    expectInvalid(t, await call(a, 'POST', `${base(version)}/token`, cardBody()), { field: 'version', explanation: /Expected a version from 1 to 100/ });
  }
});

t.test('version 1 takes a blank user id (as its reference did); later versions do not', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a);
  const body = { apiOperation: 'PAY', order: { amount: '2.00', currency: 'USD' }, sourceOfFunds: { token } };
  const v1 = await call(a, 'PUT', `${base(1)}/order/${uniqueId()}/transaction/1`, body, payAuth(M1));
  t.equal(v1.statusCode, 201, v1.body);
  const v30 = await call(a, 'PUT', `${base(30)}/order/${uniqueId()}/transaction/1`, body, payAuth(M1));
  t.equal(v30.statusCode, 401, 'a blank user id on version 30');
  const wrong = await call(a, 'PUT', `${base(1)}/order/${uniqueId()}/transaction/1`, body, basic('', 'x'.repeat(36)));
  t.equal(wrong.statusCode, 401, 'a wrong password on version 1');
  // Version 3's Pay with token is its own path, unchanged.
  const v3 = await a.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000777', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(v3.statusCode, 201, v3.body);
});
