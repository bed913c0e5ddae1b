// Check Gateway (GET /api/rest/version/{version}/information): no credentials needed; OPERATING,
// SHUTDOWN while a store refuses writes until a restart; a bad version is refused like any bad
// field.
import { readFileSync } from 'node:fs';
import t from 'tap';
import { buildTestApp, M1, payAuth } from '../helpers/app.js';
import { assertSortedJson, expectInvalid } from './http.fixture.js';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
const operating = `{"gatewayVersion":"tokengate-${version}","status":"OPERATING"}`;

t.test('any API version, without credentials (or with any): OPERATING', async (t) => {
  const app = await buildTestApp(t);
  for (const v of ['1', '3', '73', '100']) {
    const res = await app.inject({ method: 'GET', url: `/api/rest/version/${v}/information` });
    t.equal(res.statusCode, 200, `version ${v}`);
    t.equal(res.body, operating, `version ${v}: the body`);
    assertSortedJson(t, res);
  }
  const withWrongCredentials = await app.inject({ method: 'GET', url: '/api/rest/version/3/information', headers: { authorization: payAuth({ apiPassword: 'not-the-password-of-anyone-at-all' }) } });
  t.equal(withWrongCredentials.body, operating, 'credentials are not looked at');
  const withRight = await app.inject({ method: 'GET', url: '/api/rest/version/3/information', headers: { authorization: payAuth(M1) } });
  t.equal(withRight.body, operating);
});

t.test('a version outside 1-100 is INVALID_REQUEST on field version; another method is 404', async (t) => {
  const app = await buildTestApp(t);
  for (const v of ['0', '101', '03', 'x']) {
    expectInvalid(t, await app.inject({ method: 'GET', url: `/api/rest/version/${v}/information` }), { field: 'version' }, `version ${v}`);
  }
  const post = await app.inject({ method: 'POST', url: '/api/rest/version/3/information' });
  t.equal(post.statusCode, 404);
  t.match(post.json().error.explanation, 'GET /api/rest/version/{version}/information', 'the 404 lists the operation');
});

t.test('SHUTDOWN while the event store refuses writes until a restart, and once closed', async (t) => {
  const app = await buildTestApp(t);
  const shutdown = async () => (await app.inject({ method: 'GET', url: '/api/rest/version/3/information' })).json().status as string;
  t.equal(await shutdown(), 'OPERATING');
  // The state a failed sync or checkpoint leaves (test/store: store.failure, keys' failure).
  const failed = new Error('the event store could not sync its WAL to disk (EIO); restart tokengate');
  Object.defineProperty(app.gateway.store, 'failure', { value: failed, configurable: true });
  t.equal(await shutdown(), 'SHUTDOWN', 'the event store refuses appends');
  Object.defineProperty(app.gateway.store, 'failure', { value: undefined, configurable: true });
  t.equal(await shutdown(), 'OPERATING');

  await app.close();
  t.equal(app.gateway.status(), 'SHUTDOWN', 'closed');
});
