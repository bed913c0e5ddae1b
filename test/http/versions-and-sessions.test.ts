// Issue 15 items 6 and 8: the token and session operations on every version (one
// behaviour), Retrieve Session, and a PAY or AUTHORIZE whose amount, currency or token come from
// the session it names (Update Session with order.amount, order.currency, sourceOfFunds.token).
import t from 'tap';
import { buildTestApp, cardBody, createToken, M1, M2, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { assertSortedJson, expectInvalid } from './http.fixture.js';

type M = { id: string; apiPassword: string };
type App = Awaited<ReturnType<typeof buildTestApp>>;
const base = (m: M, version: number | string) => `/api/rest/version/${version}/merchant/${m.id}`;
const call = (a: App, m: M, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  a.inject({ method, url, headers: { authorization: tokenAuth(m) }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

t.test('create, retrieve and delete a token on versions 50, 73, 99 and 100: the same behaviour', async (t) => {
  const a = await buildTestApp(t);
  for (const version of [50, 73, 99, 100]) {
    const created = await call(a, M1, 'POST', `${base(M1, version)}/token`, cardBody());
    t.equal(created.statusCode, 201, `v${version}: created (${created.body})`);
    const token = created.json().token as string;
    t.equal(created.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', `v${version}: masked`);
    const retrieved = await call(a, M1, 'GET', `${base(M1, version)}/token/${token}`);
    t.equal(retrieved.statusCode, 200, `v${version}: retrieved`);
    t.equal(retrieved.json().token, token);
    const deleted = await call(a, M1, 'DELETE', `${base(M1, version)}/token/${token}`);
    t.same(deleted.json(), { result: 'SUCCESS' }, `v${version}: deleted`);
  }
});

t.test('versions outside 1-100 are refused on the token and session paths with the field named; a wrong password is still a 401', async (t) => {
  const a = await buildTestApp(t);
  for (const version of ['0', '101', '1000', 'abc']) {
    expectInvalid(t, await call(a, M1, 'POST', `${base(M1, version)}/token`, cardBody()), { field: 'version' });
    expectInvalid(t, await call(a, M1, 'POST', `${base(M1, version)}/session`, {}), { field: 'version' });
  }
  const wrong = await a.inject({ method: 'POST', url: `${base(M1, 49)}/session`, headers: { authorization: tokenAuth({ ...M1, apiPassword: 'x'.repeat(32) }) } });
  t.equal(wrong.statusCode, 401, 'credentials are checked first');
});

t.test('Create, Update and Retrieve Session on version 61; the session is the merchant\'s own', async (t) => {
  const a = await buildTestApp(t);
  const created = await call(a, M1, 'POST', `${base(M1, 61)}/session`);
  t.equal(created.statusCode, 201, created.body);
  const id = created.json().session.id as string;
  const fresh = await call(a, M1, 'GET', `${base(M1, 61)}/session/${id}`);
  t.equal(fresh.statusCode, 200, fresh.body);
  assertSortedJson(t, fresh, 'retrieve');
  t.same(fresh.json(), { merchant: M1.id, result: 'SUCCESS', session: { id, updateStatus: 'NO_UPDATE', version: created.json().session.version }, version: '61' }, 'a new session holds nothing');

  const updated = await call(a, M1, 'PUT', `${base(M1, 61)}/session/${id}`, {
    order: { amount: 12.5, currency: 'USD' },
    sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '123' } } },
  });
  t.equal(updated.statusCode, 200, updated.body);
  t.same(updated.json().order, { amount: '12.50', currency: 'USD' }, 'the order fields held');
  t.equal(updated.json().version, '61', 'the request\'s version');
  const held = (await call(a, M1, 'GET', `${base(M1, 61)}/session/${id}`)).json();
  t.equal(held.session.updateStatus, 'SUCCESS');
  t.equal(held.session.version, updated.json().session.version, 'the version of the last update');
  t.same(held.order, { amount: '12.50', currency: 'USD' });
  t.equal(held.sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'the card masked');
  t.equal(held.sourceOfFunds.provided.card.securityCode, 'xxx', 'the security code never shown');
  t.notMatch(JSON.stringify(held), /5123450000000008|"123"/, 'no card number or security code in clear');

  expectInvalid(t, await call(a, M2, 'GET', `${base(M2, 61)}/session/${id}`), { field: 'sessionId' });
  expectInvalid(t, await call(a, M1, 'GET', `${base(M1, 61)}/session/${'S'.repeat(31)}`), { field: 'sessionId' });
  // An amount needs a currency; an unsupported currency and a bad amount are named.
  const other = (await call(a, M1, 'POST', `${base(M1, 100)}/session`)).json().session.id as string;
  expectInvalid(t, await call(a, M1, 'PUT', `${base(M1, 100)}/session/${other}`, { order: { amount: '5.00' } }), { field: 'order.currency', validationType: 'MISSING' });
  expectInvalid(t, await call(a, M1, 'PUT', `${base(M1, 100)}/session/${other}`, { order: { amount: '5.00', currency: 'XXX' } }), { field: 'order.currency', validationType: 'UNSUPPORTED' });
  expectInvalid(t, await call(a, M1, 'PUT', `${base(M1, 100)}/session/${other}`, { order: { amount: '5.001', currency: 'USD' } }), { field: 'order.amount' });
  expectInvalid(t, await call(a, M1, 'PUT', `${base(M1, 100)}/session/${other}`, { order: { amount: 'ten', currency: 'USD' } }), { field: 'order.amount' });
});

t.test('PAY with session.id and no order.amount: the amount and currency come from the session', async (t) => {
  const a = await buildTestApp(t);
  const id = (await call(a, M1, 'POST', `${base(M1, 100)}/session`)).json().session.id as string;
  await call(a, M1, 'PUT', `${base(M1, 100)}/session/${id}`, {
    order: { amount: '40.00', currency: 'EUR' },
    sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } },
  });
  const order = uniqueId();
  const paid = await call(a, M1, 'PUT', `${base(M1, 100)}/order/${order}/transaction/1`, { apiOperation: 'PAY', session: { id } });
  t.equal(paid.statusCode, 201, paid.body);
  t.equal(paid.json().transaction.amount, 40, 'the session\'s amount');
  t.equal(paid.json().transaction.currency, 'EUR', 'the session\'s currency');
  t.equal(paid.json().order.totalCapturedAmount, 40);
  t.equal(paid.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  // An amount in the request wins over the session's.
  const own = await call(a, M1, 'PUT', `${base(M1, 100)}/order/${uniqueId()}/transaction/1`, { apiOperation: 'AUTHORIZE', order: { amount: '5.00' }, session: { id } });
  t.equal(own.statusCode, 201, own.body);
  t.equal(own.json().transaction.amount, 5, 'the request\'s amount');
  t.equal(own.json().transaction.currency, 'EUR', 'the session\'s currency');
  // A session with neither an amount nor a currency leaves them missing.
  const bare = (await call(a, M1, 'POST', `${base(M1, 100)}/session`)).json().session.id as string;
  await call(a, M1, 'PUT', `${base(M1, 100)}/session/${bare}`, { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } });
  expectInvalid(t, await call(a, M1, 'PUT', `${base(M1, 100)}/order/${uniqueId()}/transaction/1`, { apiOperation: 'PAY', session: { id: bare } }), { field: 'order.currency', validationType: 'MISSING' });
});

t.test('a session holding a token (and the amount) pays with that token; a deleted token is "Token not found"', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const id = (await call(a, M1, 'POST', `${base(M1, 100)}/session`)).json().session.id as string;
  const updated = await call(a, M1, 'PUT', `${base(M1, 100)}/session/${id}`, { order: { amount: '7.25', currency: 'USD' }, sourceOfFunds: { token } });
  t.equal(updated.json().sourceOfFunds.token, token, 'the session shows its token');
  const paid = await call(a, M1, 'PUT', `${base(M1, 100)}/order/${uniqueId()}/transaction/t1`, { apiOperation: 'PAY', session: { id } });
  t.equal(paid.statusCode, 201, paid.body);
  t.equal(paid.json().transaction.amount, 7.25);
  t.equal(paid.json().sourceOfFunds.token, token, 'paid with the session\'s token');
  await call(a, M1, 'DELETE', `${base(M1, 100)}/token/${token}`);
  const gone = await call(a, M1, 'PUT', `${base(M1, 100)}/order/${uniqueId()}/transaction/t1`, { apiOperation: 'PAY', session: { id } });
  expectInvalid(t, gone, { field: 'sourceOfFunds.token' });
  t.match(gone.json().error.explanation, /Token not found/);
});
