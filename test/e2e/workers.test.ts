// WORKERS=2: two gateway processes on one port, one SQLite file. Both serve; 50 identical pays
// record one payment; an UNKNOWN payment is resolved once although both workers' reactors
// schedule it; a worker killed with SIGKILL is replaced while the gateway keeps serving; SIGTERM
// finishes the request in flight and exits 0; wrong passwords are counted across the workers
// (AUTH_FAILURE_LIMIT), a lock holds in both and in a worker started after it. (`tokengate serve
// --workers`, Ctrl-C and bad values: workers-cli.test.ts.)
import { request } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { cardBody, M1, M2, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { SERVER, startGateway, type GatewayProcess } from '../helpers/gateway-process.js';
import { call } from '../helpers/server.js';
import { streams } from '../../domain/events.js';
import { alive, SLOW, workerPids } from './workers.fixture.js';
import { eventually, sleep } from '../helpers/poll.js';

const listening = (g: GatewayProcess) => g.logs().filter((l) => l.msg === 'worker listening').length;

/** A create-token request on a connection of its own (the primary hands each new connection to the next worker): its status. */
function onNewConnection(url: string, authorization: string, merchantId = M2.id): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url + tokenPath(merchantId), { method: 'POST', agent: false, headers: { authorization, 'content-type': 'application/json', connection: 'close' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(JSON.stringify(cardBody('5123450000000008', '1', '39')));
  });
}
/** A GET on a connection of its own (so the primary hands it to the next worker): its status, body and the pid that answered (X-Request-Id names no pid: the log line does). */
function getOnNewConnection(url: string, path: string, authorization: string): Promise<{ status: number; body: string; requestId: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method: 'GET', agent: false, headers: { authorization, connection: 'close' } }, (res) => {
      let body = '';
      res.on('data', (chunk) => { body += String(chunk); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, requestId: String(res.headers['x-request-id']) }));
    });
    req.on('error', reject);
    req.end();
  });
}
const ADMIN_PASSWORD = 'admin-password-for-the-workers-test';
const WRONG = tokenAuth({ id: M2.id, apiPassword: 'not-the-password-of-merchant-two-00000' });
/** The pids that answered `status` (each request's 'request' line; a line may come after its answer). */
const answeredWith = (g: GatewayProcess, status: number) =>
  new Set(g.logs().filter((l) => l.msg === 'request' && l.status === status).map((l) => l.pid as number));
/** Until `tries` requests with M2's right password in a row, each on a new connection, are all refused 429 (the lock reaches a worker through the primary: not at once). */
async function lockedEverywhere(url: string, tries = 4): Promise<boolean> {
  return eventually(async () => {
    const statuses = [];
    for (let i = 0; i < tries; i++) statuses.push(await onNewConnection(url, tokenAuth(M2)));
    return statuses.every((s) => s === 429);
  }, { intervalMs: 50 });
}

t.test('WORKERS=2 on one SQLite file', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify({ merchants: [...MERCHANTS.merchants, SLOW] }) });
  const file = join(dir, 'data', 'gateway.db');
  const gateway = await startGateway([SERVER], {
    WORKERS: '2', EVENT_STORE: `sqlite:${file}`, MERCHANTS_FILE: join(dir, 'merchants.json'), UNKNOWN_RESOLUTION_DELAY_MS: '300',
    AUTH_FAILURE_LIMIT: '6', ADMIN_PASSWORD,
  });
  t.teardown(() => gateway.stop('SIGKILL'));
  const { url } = gateway;
  const db = new Database(file, { readonly: true });
  t.teardown(() => db.close());
  const typesOf = (stream: string) => db.prepare<[string], { type: string }>('SELECT type FROM events WHERE stream = ? ORDER BY revision').all(stream).map((r) => r.type);

  // stdout and stderr are two pipes: the primary's log lines may arrive after the block.
  await gateway.until(() => gateway.stdout().includes('"msg":"tokengate ready"'), "the primary's ready line");
  t.match(gateway.block, 'tokengate is ready (2 worker processes)');
  t.equal(gateway.stderr().split('tokengate is ready').length, 2, 'the block printed once, by the primary');
  const pids = workerPids(gateway);
  t.equal(pids.length, 2, 'the primary started two workers');
  t.equal(new Set(pids).size, 2);
  t.ok(pids.every(alive), 'both running');
  t.notOk(pids.includes(gateway.child.pid!), 'neither is the primary');

  const created = await call(url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
  t.equal(created.status, 201, created.text);
  const token = created.json().token as string;

  await t.test('50 identical pays at once: one payment, one body, served by both workers', async (t) => {
    const order = '10000000001';
    const body = { apiOperation: 'PAY', transaction: { amount: '25.00', currency: 'USD' } };
    const replies = await Promise.all(Array.from({ length: 50 }, () => call(url, 'PUT', payPath(M1.id, token, order, '1'), payAuth(M1), body)));
    t.same([...new Set(replies.map((r) => r.status))], [201], 'all answered 201');
    t.equal(new Set(replies.map((r) => r.text)).size, 1, 'with one identical body');
    t.same(typesOf(streams.order(M1.id, order)).filter((type) => type === 'PaymentRecorded'), ['PaymentRecorded'], 'exactly one payment recorded');
    // Each request's 'request' line carries the pid of the process that answered; a line may
    // arrive after its answer.
    const answeredBy = () => new Set(gateway.logs().filter((l) => l.msg === 'request').map((l) => l.pid as number));
    await gateway.until(() => answeredBy().size >= 2, 'request lines from both workers', 20_000).catch(() => undefined);
    t.same([...answeredBy()].sort(), [...pids].sort(), 'both workers answered requests');
  });

  await t.test("the request journal answers with both workers' requests, whichever worker takes the query", async (t) => {
    const answeredBy = new Set<number>();
    for (let i = 0; i < 4; i++) {
      const res = await getOnNewConnection(url, '/admin/api/requests?operation=PAY&order=10000000001&limit=1000', `Basic ${Buffer.from(`admin:${ADMIN_PASSWORD}`).toString('base64')}`);
      t.equal(res.status, 200, `query ${i + 1}: 200`);
      const requests = (JSON.parse(res.body) as { requests: Array<{ id: string; at: string; status: number }> }).requests;
      t.equal(new Set(requests.map((r) => r.id)).size, 50, `query ${i + 1}: the 50 pays, answered by either worker`);
      t.same(requests.map((r) => r.at), requests.map((r) => r.at).sort().reverse(), 'newest first');
      const line = () => gateway.logs().find((l) => l.msg === 'request' && l.reqId === res.requestId);
      await gateway.until(() => line() !== undefined, "the query's log line");
      answeredBy.add(line()!.pid as number);
    }
    t.equal(answeredBy.size, 2, 'both workers answered queries');
  });

  await t.test('an UNKNOWN payment is resolved once, though both workers schedule it', async (t) => {
    const order = '10000000002';
    const unknownCard = await call(url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '5', '37'));
    const paid = await call(url, 'PUT', payPath(M1.id, unknownCard.json().token as string, order, '1'), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '5.00', currency: 'USD' } });
    t.equal(paid.json().result, 'UNKNOWN', paid.text);
    const stream = streams.order(M1.id, order);
    await gateway.until(() => typesOf(stream).includes('PaymentOutcomeResolved'), 'the resolution');
    // Both workers' timers were due at the same instant; give the slower one time to try and lose:
    // a second resolution must not come.
    await sleep(1000);
    t.same(typesOf(stream), ['PaymentRecorded', 'PaymentOutcomeResolved'], 'one resolution in the log');
  });

  await t.test('wrong passwords sent to both workers count together: the lock holds in both', async (t) => {
    // 6 (the limit) wrong passwords, each on a new connection: 3 to each worker, which alone
    // would lock neither.
    const tried = [];
    for (let i = 0; i < 6; i++) tried.push(await onNewConnection(url, WRONG));
    t.same(tried, [401, 401, 401, 401, 401, 401], 'each wrong password refused 401');
    await gateway.until(() => answeredWith(gateway, 401).size === 2, '401 lines from both workers');
    t.same([...answeredWith(gateway, 401)].sort(), [...pids].sort(), 'the wrong passwords went to both workers');
    t.ok(await lockedEverywhere(url), 'then the right password is refused 429 on every new connection, whichever worker takes it');
    t.equal(await onNewConnection(url, tokenAuth(M1), M1.id), 201, 'another merchant is not locked');
  });

  await t.test('a worker killed with SIGKILL is replaced, and the gateway keeps serving', async (t) => {
    const [victim, survivor] = pids as [number, number];
    process.kill(victim, 'SIGKILL');
    await gateway.until(() => gateway.logs().some((l) => l.msg === 'worker exited unexpectedly: restarting it' && l.workerPid === victim), 'the primary sees the death');
    const died = gateway.logs().find((l) => l.msg === 'worker exited unexpectedly: restarting it')!;
    t.equal(died.signal, 'SIGKILL');
    t.ok(died.restartInMs >= 100, 'restarted after a delay');
    await gateway.until(() => listening(gateway) === 3, 'a new worker listening');
    const now = workerPids(gateway);
    t.equal(now.length, 3, 'a third worker started');
    t.notOk(alive(victim));
    t.ok(alive(survivor) && alive(now[2]!), 'the survivor and the replacement run');
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      call(url, 'PUT', payPath(M1.id, token, '10000000003', `after-${i}`), payAuth(M1), { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } })));
    t.same([...new Set(replies.map((r) => r.status))], [201], 'twenty new payments answered');
    // The replacement was told the wrong passwords the others saw before it started.
    t.ok(await lockedEverywhere(url), 'the lock of the test before holds on every new connection');
    await gateway.until(() => answeredWith(gateway, 429).has(now[2]!), 'a 429 line from the replacement', 10_000).catch(() => undefined);
    t.ok(answeredWith(gateway, 429).has(now[2]!), 'the replacement refuses the locked merchant too');
  });

  await t.test('SIGTERM: the request in flight is answered, then every process exits, 0', async (t) => {
    const slow = await call(url, 'POST', tokenPath(SLOW.id), tokenAuth(SLOW), cardBody('5123450000000008', '1', '39'));
    const order = '10000000004';
    const body = { apiOperation: 'PAY', transaction: { amount: '7.00', currency: 'USD' }, order: { reference: 'slow' } };
    const inFlight = call(url, 'PUT', payPath(SLOW.id, slow.json().token as string, order, '1'), payAuth(SLOW), body);
    await gateway.until(() => typesOf(streams.order(SLOW.id, order)).includes('PaymentStarted'), 'the slow payment started');
    const workers = workerPids(gateway).filter(alive);
    const exited = gateway.stop('SIGTERM');
    const answer = await inFlight;
    t.equal(answer.status, 201, 'the payment in flight is answered');
    t.equal(answer.json().result, 'SUCCESS');
    t.equal(await exited, 0, 'the primary exits 0');
    t.ok(gateway.logs().some((l) => l.msg === 'closed' && l.clean === true), 'every worker closed cleanly');
    t.notOk(workers.some(alive), 'no worker left behind');
    t.same(typesOf(streams.order(SLOW.id, order)), ['PaymentStarted', 'PaymentRecorded'], 'and the payment is in the file');
  });
});
