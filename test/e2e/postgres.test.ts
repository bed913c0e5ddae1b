// End to end on PostgreSQL: the real server process (server.js of the test build) with
// EVENT_STORE=postgres://… on a throwaway server (test/helpers/postgres.ts). A token created and
// paid with, the process stopped and started again: the token retrieved, the payment answered
// byte for byte. Two processes on one database: postgres-two-processes.test.ts.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import t from 'tap';
import { cardBody, M1, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, SERVER, startServer } from '../helpers/server.js';
import { postgresForFile } from '../helpers/postgres.js';
import { envFor, typesOf } from './postgres.fixture.js';
import { streams } from '../../domain/events.js';
import { BIN } from '../helpers/build.js';
import { budget } from '../helpers/slowdown.js';

t.test('a PostgreSQL nobody listens for, or a bad URL: one line on stderr without the password, exit 1', async (t) => {
  for (const [store, reason] of [
    ['postgres://gw:hunter2-secret@127.0.0.1:1/tg', /^tokengate: the event store postgres:\/\/127\.0\.0\.1:1\/tg cannot be opened: .*unavailable/],
    ['postgres://gw:hunter2-secret@127.0.0.1:notaport/tg', /^tokengate: EVENT_STORE .* is not a usable PostgreSQL URL/],
  ] as const) {
    const child = spawn(process.execPath, [SERVER], {
      env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', EVENT_STORE: store },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => { output += String(chunk); });
    child.stderr.on('data', (chunk) => { output += String(chunk); });
    const timer = setTimeout(() => child.kill('SIGKILL'), budget(60_000));
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(timer);
    const lines = output.split('\n').filter((line) => line.trim() !== '');
    t.equal(code, 1, 'exits with 1');
    t.equal(lines.length, 1, `one line: ${output}`);
    t.match(lines[0], reason);
    t.notMatch(output, 'hunter2', 'never the password');
  }
});

const server = postgresForFile(t);
const CLI = BIN;

if (server) {

  t.test('a gateway on PostgreSQL serves, and a restart loses nothing', async (t) => {
    const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
    const url = await server.get().createDatabase('e2e_restart');
    const env = envFor(dir, url, 'a');

    const first = await startServer(env);
    t.teardown(() => first.stop('SIGKILL'));
    const created = await call(first.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008', '1', '39'));
    t.equal(created.status, 201, created.text);
    const token = created.json().token as string;
    const payBody = { apiOperation: 'PAY', transaction: { amount: '25.00', currency: 'USD' }, order: { reference: 'cart-1' } };
    const paid = await call(first.url, 'PUT', payPath(M1.id, token, '10000000001', 'txn-1'), payAuth(M1), payBody);
    t.equal(paid.status, 201, paid.text);
    t.equal(paid.json().result, 'SUCCESS');
    const health = await call(first.url, 'GET', '/api/rest/version/100/information', '');
    t.equal(health.json().status, 'OPERATING', health.text);
    t.equal(await first.stop(), 0, 'exits cleanly on SIGTERM');
    t.notMatch(first.logs(), '5123450000000008', 'the card number never reaches the logs');
    t.notMatch(first.logs(), server.get().password, "the database's password never reaches the logs");
    t.same(await typesOf(url, streams.order(M1.id, '10000000001')), [['PaymentRecorded']], 'the payment is in PostgreSQL');

    const second = await startServer(env);
    t.teardown(() => second.stop('SIGKILL'));
    const retrieved = await call(second.url, 'GET', `${tokenPath(M1.id)}/${token}`, tokenAuth(M1));
    t.equal(retrieved.status, 200, retrieved.text);
    t.equal(retrieved.json().token, token, 'the token is retrieved after the restart');
    t.equal(retrieved.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'its card, masked');
    const repeat = await call(second.url, 'PUT', payPath(M1.id, token, '10000000001', 'txn-1'), payAuth(M1), payBody);
    t.equal(repeat.text, paid.text, 'the recorded payment answers byte for byte after the restart');
    const again = await call(second.url, 'PUT', payPath(M1.id, token, '10000000002', 'txn-1'), payAuth(M1), payBody);
    t.equal(again.json().response.gatewayCode, 'APPROVED', 'the token still pays');
    t.equal(await second.stop(), 0);
    t.same(readdirSync(dir), ['merchants.json'], 'no local data file: keys and read models are in PostgreSQL too');

    // The CLI opens the same store: export reads the log, replay rebuilds the read models.
    const cli = (...args: string[]) => promisify(execFile)(process.execPath, [CLI, ...args, '--store', url], { cwd: dir });
    const exported = (await cli('export')).stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; stream: string });
    t.ok(exported.some((e) => e.type === 'PaymentRecorded' && e.stream === streams.order(M1.id, '10000000001')), 'tokengate export reads the events from PostgreSQL');
    t.notMatch(JSON.stringify(exported), '5123450000000008', 'sealed: no card number in the export');
    const replay = await cli('replay');
    t.match(replay.stdout, new RegExp(`from ${exported.length} events \\(up to position ${exported.length}\\)`), 'tokengate replay rebuilds from every event');
    t.same(readdirSync(dir), ['merchants.json'], 'and makes no local file either');
  });
}
