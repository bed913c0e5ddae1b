// Storage faults: a store that cannot write turns Check Gateway SHUTDOWN, and the request (and
// every later write while it lasts) gets a 503 SERVER_BUSY body saying the store cannot write,
// never a bare 500. A full disk heals: the first write that succeeds again ends it. A read-only
// store does not: writes stay refused until a restart, reads still work, nothing acknowledged is
// lost.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { loggerOptions } from '../../app.js';
import { SqliteEventStore } from '../../store/sqlite.js';
import { buildTestApp, cardBody, M1, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { assertSortedJson, type App } from './http.fixture.js';
import { buildApp } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { MERCHANTS } from '../helpers/app.js';

const information = async (app: App) => (await app.inject({ method: 'GET', url: '/api/rest/version/100/information' })).json().status as string;
const createToken = (app: App, number = '5123450000000008') =>
  app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody(number) });
const retrieve = (app: App, token: string) =>
  app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/token/${token}`, headers: { authorization: tokenAuth(M1) } });
const pay = (app: App, token: string, order: string) =>
  app.inject({ method: 'PUT', url: payPath(M1.id, token, order, '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } } });

/** An app on a fresh SQLite file whose log lines the test reads. */
async function sqliteApp(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'tokengate-faults-'));
  const lines: string[] = [];
  const stream = new Writable({ write(chunk, _encoding, done) { lines.push(...String(chunk).split('\n').filter(Boolean)); done(); } });
  const app = await buildApp({
    eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') },
    merchants: parseMerchants(MERCHANTS, 'test merchants'),
    logger: { ...loggerOptions('info'), stream },
    limits: { authFailureLimit: 1_000_000 },
  });
  t.teardown(async () => { await app.close(); rmSync(dir, { recursive: true, force: true }); });
  const store = app.gateway.store as SqliteEventStore;
  const events = () => (store.db.prepare('SELECT COUNT(*) AS n FROM events').get() as { n: number }).n;
  return { app, store, lines, events };
}

t.test('a full disk (SQLITE_FULL): 503 SERVER_BUSY, SHUTDOWN, until a write succeeds again', async (t) => {
  const { app, store, lines, events } = await sqliteApp(t);
  const first = await createToken(app);
  t.equal(first.statusCode, 201, 'a token before the disk fills');
  const token = first.json().token as string;
  t.equal(await information(app), 'OPERATING');

  // No page may be added to the file: every insert is SQLITE_FULL, as on a full disk.
  const pages = store.db.pragma('page_count', { simple: true }) as number;
  store.db.pragma(`max_page_count = ${pages}`);
  // The pages the file has still hold a few events: store cards until one does not fit (bounded).
  let refused = await createToken(app, '4508750015741019');
  for (let i = 0; i < 200 && refused.statusCode === 201; i++) refused = await createToken(app, '4508750015741019');
  const before = events();
  t.equal(refused.statusCode, 503, 'not a generic 500');
  assertSortedJson(t, refused);
  const body = refused.json();
  t.equal(body.result, 'ERROR');
  t.equal(body.error.cause, 'SERVER_BUSY');
  t.match(body.error.explanation, /cannot write to its store: the disk is full/, 'the explanation says the store cannot write');
  t.same(Object.keys(body.error).sort(), ['cause', 'explanation'], 'SERVER_BUSY carries an explanation only');
  t.equal(await information(app), 'SHUTDOWN', 'Check Gateway says SHUTDOWN');
  t.ok(lines.some((l) => /the store cannot write/.test(l) && /SQLITE_FULL/.test(l)), 'a log line says what happened');

  const payRefused = await pay(app, token, '20000000001');
  t.equal(payRefused.statusCode, 503, 'a payment is refused the same way');
  t.equal(payRefused.body, refused.body, 'with the same body');
  t.equal(events(), before, 'nothing was written');
  const read = await retrieve(app, token);
  t.equal(read.statusCode, 200, 'reads still work');

  // Space is freed: the next write succeeds and the gateway is OPERATING again.
  store.db.pragma('max_page_count = 1073741823');
  const paid = await pay(app, token, '20000000001');
  t.equal(paid.statusCode, 201, 'the repeated payment is made once there is room');
  t.equal(await information(app), 'OPERATING', 'OPERATING again');
  t.equal((await retrieve(app, token)).json().token, token, 'what was acknowledged before is still there');
});

t.test('a read-only store (SQLITE_READONLY): SHUTDOWN until a restart; writes refused at once, reads work', async (t) => {
  const { app, store, lines, events } = await sqliteApp(t);
  const token = (await createToken(app)).json().token as string;
  const before = events();
  store.db.pragma('query_only = 1');
  const refused = await pay(app, token, '30000000001');
  t.equal(refused.statusCode, 503);
  t.equal(refused.json().error.cause, 'SERVER_BUSY');
  t.match(refused.json().error.explanation, /cannot write to its store: the store is read-only/);
  t.match(refused.json().error.explanation, /Check Gateway reports OPERATING/, 'it says when to repeat the request');
  t.equal(await information(app), 'SHUTDOWN');
  t.ok(lines.some((l) => /SQLITE_READONLY/.test(l)), 'a log line names the fault');

  // The file would accept writes again, but a store that refused one is not trusted until a restart.
  store.db.pragma('query_only = 0');
  const again = await createToken(app, '4508750015741019');
  t.equal(again.statusCode, 503, 'later writes are refused at once');
  t.equal(again.body, refused.body, 'with the same body');
  t.equal(await information(app), 'SHUTDOWN', 'still SHUTDOWN');
  t.equal(events(), before, 'nothing was written');
  t.equal((await retrieve(app, token)).statusCode, 200, 'reads still work');
});

t.test('any other failure while the store is SHUTDOWN is the same 503, never a bare 500', async (t) => {
  const app = await buildTestApp(t);
  const token = (await createToken(app)).json().token as string;
  const failed = new (await import('../../domain/errors.js')).StorageFault('the event store could not sync its WAL to disk (EIO); restart tokengate', 'EIO', false);
  Object.defineProperty(app.gateway.store, 'failure', { value: failed, configurable: true });
  Object.defineProperty(app.gateway.store, 'append', { value: () => Promise.reject(failed), configurable: true });
  const res = await pay(app, token, '40000000001');
  t.equal(res.statusCode, 503);
  t.match(res.json().error.explanation, /cannot write to its store: an I\/O error/);
  t.equal(await information(app), 'SHUTDOWN');
});

t.test('an event store that cannot be reached (KurrentDB unavailable): 503 SERVER_BUSY, not a bare 500', async (t) => {
  const app = await buildTestApp(t);
  const token = (await createToken(app)).json().token as string;
  const { KurrentDbUnavailableError } = await import('../../store/kurrentdb-mapping.js');
  Object.defineProperty(app.gateway.store, 'append', { value: () => Promise.reject(new KurrentDbUnavailableError('127.0.0.1:2113', new Error('connect ECONNREFUSED'))), configurable: true });
  const res = await pay(app, token, '50000000001');
  t.equal(res.statusCode, 503);
  t.equal(res.json().error.cause, 'SERVER_BUSY');
  t.match(res.json().error.explanation, /cannot reach its event store/);
  t.notMatch(res.body, /127\.0\.0\.1/, 'the body does not name the node');
});

t.test('while the event store cannot be reached, each refused request logs one warning naming the store, without a stack', async (t) => {
  const { app, lines } = await sqliteApp(t);
  const token = (await createToken(app)).json().token as string;
  const { PostgresUnavailableError } = await import('../../store/postgres/errors.js');
  const down = new PostgresUnavailableError('postgres://db.internal:5432/gateway', Object.assign(new Error('connect ECONNREFUSED 10.0.0.9:5432'), { code: 'ECONNREFUSED' }));
  Object.defineProperty(app.gateway.store, 'append', { value: () => Promise.reject(down), configurable: true });
  for (const order of ['60000000001', '60000000002']) t.equal((await pay(app, token, order)).statusCode, 503);
  const refused = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'the event store cannot be reached: request refused');
  t.equal(refused.length, 2, 'one line per refused request');
  for (const line of refused) {
    t.equal(line.level, 40, 'a warning, not an error');
    t.equal(line.err, undefined, 'no error object, so no stack');
    t.match(line.store, /PostgreSQL at postgres:\/\/db\.internal:5432\/gateway is unavailable: connect ECONNREFUSED/, 'what the store answered');
  }
});
