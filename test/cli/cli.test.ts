// The command-line tool, run as a user runs it (bin/tokengate.js of the test run's build, test/helpers/build.ts).
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { buildTestApp, createToken, M1, payAuth, payPath } from '../helpers/app.js';
import { streams } from '../../domain/events.js';
import { BIN } from '../helpers/build.js';
import { sleep } from '../helpers/poll.js';

const run = async (args: string[], env: Record<string, string> = {}) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
};

/** A SQLite store with two tokens and an order of two transactions, written through the HTTP API. */
async function makeStore(t: Parameters<typeof buildTestApp>[0]) {
  const dir = t.testdir();
  const path = join(dir, 'gateway.db');
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path } });
  const token = await createToken(app, M1, '5123450000000008', '1', '39');
  await createToken(app, M1, '4508750015741019', '5', '39');
  const pay = (txn: string, amount: string) => app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', txn), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount, currency: 'USD' } } });
  const first = await pay('1', '10.00');
  await sleep(5); // time passing is the point: an instant strictly between the two payments
  const between = new Date().toISOString();
  await sleep(5);
  await pay('2', '2.50');
  const liveHash = app.gateway.readModels.hash();
  await app.close();
  return { dir, store: `sqlite:${path}`, token, between, liveHash, firstTime: first.json().timeOfRecord as string };
}

t.test('every command has --help', async (t) => {
  const top = await run(['--help']);
  t.equal(top.code, 0);
  const commands = ['replay', 'token', 'order', 'export', 'import', 'serve'];
  const helps = await Promise.all(commands.map((command) => run([command, '--help'])));
  commands.forEach((command, i) => {
    t.match(top.stdout, command);
    t.equal(helps[i]!.code, 0, `${command} --help`);
    t.match(helps[i]!.stdout, `Usage: tokengate ${command}`);
  });
  const [unknown, badFlag] = await Promise.all([run(['nonsense']), run(['replay', '--until-position', 'abc', '--store', 'memory:'])]);
  t.equal(unknown.code, 2);
  t.equal(badFlag.code, 2);
  t.match(badFlag.stderr, 'not a whole number');
});

t.test('--version prints the version of package.json, as Check Gateway names it', async (t) => {
  const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  for (const flag of ['--version', '-v']) {
    const result = await run([flag]);
    t.equal(result.code, 0, flag);
    t.equal(result.stdout, `tokengate ${version}\n`, `${flag}: one line`);
  }
  t.match((await run(['--help'])).stdout, 'tokengate --version', 'the usage names it');
});

t.test('a store that cannot be opened is one line and exit 1 (a directory under /proc: at once, not a hang)', async (t) => {
  const dir = t.testdir({ file: '' });
  const cases: Array<[string, RegExp]> = [[`sqlite:${join(dir, 'file', 'gateway.db')}`, /file \(or a directory above it\) is not a directory/]];
  if (existsSync('/proc/self')) cases.push(['sqlite:/proc/tokengate-nope/gateway.db', /the directory \/proc\/tokengate-nope cannot be made \(ENOENT\)/]);
  for (const [store, reason] of cases) {
    const replay = await run(['replay', '--store', store]);
    t.equal(replay.code, 1, store);
    t.match(replay.stderr, reason);
    t.notMatch(replay.stderr, /\n\s+at /, 'no stack trace');
  }
});

t.test('replay rebuilds the read models equal to the live ones, or as of a position', async (t) => {
  const s = await makeStore(t);
  const full = await run(['replay', '--store', s.store]);
  t.equal(full.code, 0, full.stderr);
  t.match(full.stdout, /from 4 events \(up to position 4\) in [\d.]+ s: \d+ events\/s/);
  t.match(full.stdout, `read models hash ${s.liveHash}`, 'byte for byte the live read models');
  t.match(full.stderr, '100%', 'a progress bar');
  const partial = await run(['replay', '--store', s.store, '--until-position', '3']);
  t.match(partial.stdout, 'from 3 events (up to position 3)');
  t.notMatch(partial.stdout, s.liveHash);
  const byTime = await run(['replay', '--store', s.store, '--until-time', s.between]);
  t.match(byTime.stdout, 'from 3 events (up to position 3)', 'the second payment came after the instant');
});

t.test('token audit and order timeline, with time travel', async (t) => {
  const s = await makeStore(t);
  const audit = await run(['token', s.token, '--store', s.store]);
  t.equal(audit.code, 0, audit.stderr);
  t.match(audit.stdout, `Token ${s.token} (repository REPO01)`);
  t.match(audit.stdout, /#1 .* TokenCreated .*token-REPO01:/);
  t.match(audit.stdout, 'merchant TESTMERCHANT01  request ');
  t.match(audit.stdout, 'sourceOfFunds.provided.card.number: ∅ → 512345xxxxxx0008');
  t.match(audit.stdout, /#3 .* PaymentRecorded/);
  t.notMatch(audit.stdout, '5123450000000008');
  const json = JSON.parse((await run(['token', s.token, '--store', s.store, '--json'])).stdout);
  t.same(json.events.map((e: { type: string }) => e.type), ['TokenCreated', 'PaymentRecorded', 'PaymentRecorded']);
  t.equal(json.state.usage.lastUsed > s.firstTime, true, 'lastUsed is the second payment');

  const order = JSON.parse((await run(['order', M1.id, '10000000001', '--store', s.store, '--json'])).stdout);
  t.equal(order.state.totalCapturedAmount, 1250);
  const then = JSON.parse((await run(['order', M1.id, '10000000001', '--store', s.store, '--json', '--as-of', s.between])).stdout);
  t.equal(then.state.totalCapturedAmount, 1000, 'as of an instant between the payments');
  const rev0 = JSON.parse((await run(['order', M1.id, '10000000001', '--store', s.store, '--json', '--as-of-revision', '0'])).stdout);
  t.same(rev0.state, then.state);
  const missing = await run(['order', M1.id, '10000000009', '--store', s.store]);
  t.equal(missing.code, 1);
  t.match(missing.stderr, 'no order');
});

t.test('export as NDJSON, filtered, and import into an empty store', async (t) => {
  const s = await makeStore(t);
  const out = join(s.dir, 'events.ndjson');
  const exported = await run(['export', '--store', s.store, '--out', out]);
  t.equal(exported.code, 0, exported.stderr);
  const lines = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  t.same(lines.map((l) => l.type), ['TokenCreated', 'TokenCreated', 'PaymentRecorded', 'PaymentRecorded']);
  t.notMatch(readFileSync(out, 'utf8'), '5123450000000008', 'card numbers stay sealed in an export');
  const onlyOrders = (await run(['export', '--store', s.store, '--category', 'order'])).stdout.trim().split('\n');
  t.equal(onlyOrders.length, 2);
  const onlyStream = (await run(['export', '--store', s.store, '--stream', streams.order(M1.id, '10000000001'), '--until', s.between])).stdout.trim().split('\n');
  t.equal(onlyStream.length, 1);

  const copy = `sqlite:${join(s.dir, 'copy.db')}`;
  const imported = await run(['import', out, '--store', copy]);
  t.equal(imported.code, 0, imported.stderr);
  t.match(imported.stdout, 'imported 4 events');
  const replayed = await run(['replay', '--store', copy]);
  t.match(replayed.stdout, `read models hash ${s.liveHash}`, 'the copy projects to the same read models');
  const again = await run(['import', out, '--store', copy]);
  t.equal(again.code, 2);
  t.match(again.stderr, 'not empty');
});

