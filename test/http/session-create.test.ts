// Issue 15, item 6 (part): Create Session (`POST …/session`, empty body, also with a trailing
// slash). No body at all (no Content-Type either), an empty body with a Content-Type, and a
// trailing slash all answer like `{}`: 201 and a new session. A body that is not an object is
// still refused, and the slash variant is authenticated like the other.
import t from 'tap';
import { buildTestApp, M1, M2, tokenAuth } from '../helpers/app.js';
import { expect401 } from './http.fixture.js';

const path = `/api/rest/version/100/merchant/${M1.id}/session`;

t.test('Create Session: no body, an empty body, and a trailing slash answer like {}', async (t) => {
  const a = await buildTestApp(t);
  const cases: Array<[string, string, Record<string, string>, string | undefined]> = [
    ['no body, no Content-Type', path, {}, undefined],
    ['an empty body with Content-Type: application/json', path, { 'content-type': 'application/json' }, ''],
    ['a trailing slash, no body', `${path}/`, {}, undefined],
    ['a trailing slash and {}', `${path}/`, { 'content-type': 'application/json' }, '{}'],
  ];
  const ids = new Set<string>();
  for (const [what, url, headers, payload] of cases) {
    const res = await a.inject({ method: 'POST', url, headers: { authorization: tokenAuth(M1), ...headers }, ...(payload === undefined ? {} : { payload }) });
    t.equal(res.statusCode, 201, `${what}: ${res.body}`);
    const body = res.json();
    t.equal(body.result, 'SUCCESS', what);
    t.equal(body.merchant, M1.id, what);
    t.equal(body.session.updateStatus, 'NO_UPDATE', what);
    t.equal(body.session.version.length, 10, what);
    ids.add(body.session.id);
  }
  t.equal(ids.size, cases.length, 'each a new session');
  const events = await a.gateway.store.readAll();
  t.equal(events.length, cases.length, 'each recorded');
  // A session made with a trailing slash and no body can be updated like any other.
  const update = await a.inject({
    method: 'PUT', url: `${path}/${[...ids][2]}`, headers: { authorization: tokenAuth(M1) },
    payload: { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } },
  });
  t.equal(update.statusCode, 200, update.body);
});

t.test('Create Session: a body that is not an object is still refused; the slash variant is authenticated', async (t) => {
  const a = await buildTestApp(t);
  for (const payload of ['null', '[]', '"x"']) {
    const res = await a.inject({ method: 'POST', url: path, headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload });
    t.equal(res.statusCode, 400, `${payload}: ${res.body}`);
    t.equal(res.json().error.cause, 'INVALID_REQUEST');
  }
  expect401(t, await a.inject({ method: 'POST', url: `${path}/` }), 'a trailing slash without credentials');
  expect401(t, await a.inject({ method: 'POST', url: `${path}/`, headers: { authorization: tokenAuth(M2) } }), "a trailing slash with another merchant's credentials",
    'Authenticated entity not authorised to perform operation for target entity');
  t.equal((await a.gateway.store.readAll()).length, 0, 'nothing recorded');
});
