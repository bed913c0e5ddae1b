// The gateway's coded errors (domain/errors.ts) and where they come from: the 404 body names every
// operation of the gateway API as registered (a route added is named too; /admin and the OpenAPI
// routes are not), and a store held locked by another connection (SQLITE_BUSY) is translated by
// the SQLite adapters into the port's StoreBusy, which reaches the client as 503 SERVER_BUSY
// without the renderer knowing SQLite.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { buildApp } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { StoreBusy } from '../../domain/errors.js';
import { SqliteEventStore } from '../../store/sqlite.js';
import { SqliteKeyStore } from '../../store/keys/sqlite-key-store.js';
import { buildTestApp, cardBody, createToken, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { assertSortedJson, type App } from './http.fixture.js';

const BUSY_BODY = '{"error":{"cause":"SERVER_BUSY","explanation":"The gateway is busy: repeat the identical request later"},"result":"ERROR"}';

/** Every route of the app as `METHOD /path` (`:param` notation), read from Fastify's own route tree. */
function registeredRoutes(app: App): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([\s│]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = [...(match[1] ?? '')].length / 4;
    stack.length = depth;
    stack.push(match[2] ?? '');
    const path = stack.join('');
    for (const method of (match[3] ?? '').split(', ').filter(Boolean)) routes.push(`${method} ${path}`);
  }
  return routes;
}

const explanationOf404 = async (t: Test, app: App) => {
  const res = await app.inject({ method: 'GET', url: '/nothing/here' });
  t.equal(res.statusCode, 404);
  return String(res.json().error.explanation);
};

t.test('the 404 body names every operation the app registers under /api/rest, and only those', async (t) => {
  const app = await buildTestApp(t);
  // A route added to the app is named without anyone keeping a list; routes outside the API are not.
  await app.register(async (child) => {
    child.get('/api/rest/version/100/merchant/:merchantId/extra/:thingId', async () => ({}));
    child.get('/admin/extra', async () => ({}));
  });
  await app.ready();
  const explanation = await explanationOf404(t, app);
  t.ok(explanation.length <= 1000, `within the spec's 1000 characters (${explanation.length})`);
  // "GET, DELETE /path" names two operations.
  // "...; and under <prefix>: POST /token; ..." names the paths after the prefix.
  const [own = '', prefix = '', under = ''] = explanation.replace(/^No operation for GET on this path\. Expected one of: /, '').split(/; and under (\S+): /);
  const operationsOf = (text: string, before: string) => text.split('; ')
    .flatMap((group) => { const [verbs, path] = group.split(/ (?=\/)/); return (verbs ?? '').split(', ').map((verb) => `${verb} ${before}${path}`); });
  const listed = [...operationsOf(own, ''), ...(under === '' ? [] : operationsOf(under, prefix))];

  const api = registeredRoutes(app)
    .filter((r) => r.split(' ')[1]?.startsWith('/api/rest/') && !r.startsWith('HEAD '))
    .map((r) => r.replace(/:([A-Za-z0-9_]+)/g, '{$1}'));
  t.ok(api.length >= 10, `the route tree was read (${api.length} API routes)`);
  t.same([...listed].sort(), [...new Set(api)].sort(), 'the 404 lists exactly the API routes registered');
  for (const operation of [
    'POST /api/rest/version/{version}/merchant/{merchantId}/session',
    'PUT /api/rest/version/{version}/merchant/{merchantId}/session/{sessionId}',
    'GET /api/rest/version/{version}/merchant/{merchantId}/session/{sessionId}',
    'GET /api/rest/version/100/merchant/{merchantId}/extra/{thingId}',
  ]) t.ok(listed.includes(operation), `names ${operation}`);
  t.notMatch(explanation, /admin|documentation|openapi|HEAD /, 'names neither the admin API, the OpenAPI routes nor HEAD');
  t.equal(new Set(listed).size, listed.length, 'each operation once');
  t.same([...app.operations].sort(), [...listed].sort(), 'app.operations is the list');
});

t.test('the list is the same, in the same order, for every app and every 404', async (t) => {
  const one = await buildTestApp(t);
  const two = await buildTestApp(t);
  const first = await explanationOf404(t, one);
  t.equal(await explanationOf404(t, two), first, 'another app: the same text');
  const put = await one.inject({ method: 'PUT', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: {} });
  t.equal(put.statusCode, 404);
  assertSortedJson(t, put);
  t.equal(put.json().error.explanation, first.replace('for GET', 'for PUT'), 'another path and method: the same list');
  t.match(first, /Expected one of: PUT \/api\/rest\/version\/3\/merchant\/\{merchantid\}\/token\/\{tokenid\}\/order\/\{orderid\}\/transaction\/\{transactionid\}; GET /,
    'in the order the operations are registered, Pay with token first');
  t.match(first, /; and under \/api\/rest\/version\/\{version\}\/merchant\/\{merchantId\}: POST \/token; /, 'then those under the merchant\'s prefix, Create Token first');
});

/** An app on a SQLite file, and a second connection to the same file that can hold its write lock. */
async function sqliteApp(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'tokengate-busy-'));
  const path = join(dir, 'gateway.db');
  const app = await buildApp({ eventStore: { kind: 'sqlite', path }, merchants: parseMerchants(MERCHANTS, 'test merchants'), limits: { authFailureLimit: 1_000_000 } });
  const other = new Database(path);
  t.teardown(async () => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { app, store: app.gateway.store as SqliteEventStore, other, path };
}

t.test('SQLITE_BUSY in an append: the adapter rejects with StoreBusy, the client gets 503 SERVER_BUSY', async (t) => {
  const { app, store, other } = await sqliteApp(t);
  const token = await createToken(app);
  // Another connection holds the write lock; this one waits 20 ms instead of 5 s.
  store.db.pragma('busy_timeout = 20');
  other.exec('BEGIN IMMEDIATE');

  const appended = await store.append('test-busy', [{ id: '018f0000-0000-7000-8000-000000000001', type: 'Test', data: {}, metadata: {} as never }])
    .then(() => undefined, (error: unknown) => error);
  t.type(appended, StoreBusy, 'the port error, not the SQLite client error');
  t.match(appended, { name: 'StoreBusy', code: 'SQLITE_BUSY' });

  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '60000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(paid.statusCode, 503, `503 (got ${paid.statusCode} ${paid.body})`);
  t.equal(paid.body, BUSY_BODY, 'the busy body, byte for byte');
  t.equal(paid.headers['content-type'], 'application/json; charset=utf-8');

  other.exec('ROLLBACK');
  const again = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '60000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(again.statusCode, 201, 'the identical request succeeds once the lock is gone');
  t.equal((await app.inject({ method: 'GET', url: '/api/rest/version/100/information' })).json().status, 'OPERATING', 'a busy store is no fault');
});

t.test('SQLITE_BUSY in a key write: the key store throws StoreBusy', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tokengate-busy-keys-'));
  const keys = new SqliteKeyStore(join(dir, 'k.keys'));
  const other = new Database(join(dir, 'k.keys'));
  t.teardown(() => { if (other.inTransaction) other.exec('ROLLBACK'); other.close(); keys.close(); rmSync(dir, { recursive: true, force: true }); });
  (keys as unknown as { db: Database.Database }).db.pragma('busy_timeout = 20');
  other.exec('BEGIN IMMEDIATE');
  for (const [what, write] of [
    ['reserve', () => keys.reserve('hash', 'reservation')],
    ['put', () => keys.put('key-1', Buffer.alloc(32))],
    ['destroy', () => keys.destroy('key-1')],
    ['setShreddedThrough', () => keys.setShreddedThrough(5n)],
  ] as Array<[string, () => unknown]>) {
    t.throws(write, StoreBusy, `${what}: StoreBusy`);
  }
  other.exec('ROLLBACK');
  t.equal(keys.reserve('hash', 'reservation'), 'reservation', 'written once the lock is gone');
});

t.test('a store whose append throws the port\'s StoreBusy: 503 SERVER_BUSY, the renderer knows no store', async (t) => {
  const app = await buildTestApp(t);
  Object.defineProperty(app.gateway.store, 'append', { value: () => Promise.reject(new StoreBusy('the store is busy', 'ANY_STORE_BUSY')), configurable: true });
  const created = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody('4508750015741019') });
  t.equal(created.statusCode, 503);
  t.equal(created.body, BUSY_BODY);
  const source = readFileSync(new URL('../../plugins/errors.ts', import.meta.url), 'utf8');
  t.notMatch(source, /SQLITE|Kurrent|'unavailable'/, 'plugins/errors.ts names no store error code or client');
});

t.test("SQLite's own error where no adapter translated it: the store's translation, handed to the renderer by the app, makes it 503 SERVER_BUSY", async (t) => {
  const app = await buildTestApp(t);
  const raw = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
  Object.defineProperty(app.gateway.store, 'append', { value: () => Promise.reject(raw), configurable: true });
  const created = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody('4508750015741019') });
  t.equal(created.statusCode, 503, 'not a bare 500');
  t.equal(created.body, BUSY_BODY);
});
