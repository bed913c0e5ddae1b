// `tokengate serve --workers 2`: two workers, stopped by Ctrl-C (SIGINT to the whole process
// group) while a payment is in flight; and bad worker counts, from WORKERS or --workers, stop the
// start with one line.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { cardBody, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { BIN, SERVER, startGateway } from '../helpers/gateway-process.js';
import { call } from '../helpers/server.js';
import { streams } from '../../domain/events.js';
import { alive, SLOW, workerPids } from './workers.fixture.js';
import { budget } from '../helpers/slowdown.js';


t.test('tokengate serve --workers 2, stopped by Ctrl-C (SIGINT to the whole process group)', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify({ merchants: [SLOW] }) });
  const file = join(dir, 'gateway.db');
  const gateway = await startGateway([BIN, 'serve', '--workers', '2'], { EVENT_STORE: `sqlite:${file}`, MERCHANTS_FILE: join(dir, 'merchants.json'), WORKERS: '' }, { group: true });
  t.teardown(() => gateway.stop('SIGKILL'));
  await gateway.until(() => gateway.stdout().includes('"msg":"tokengate ready"'), "the primary's ready line");
  t.match(gateway.block, 'tokengate is ready (2 worker processes)');
  const pids = workerPids(gateway);
  t.equal(pids.length, 2, 'two workers');
  t.ok(pids.every(alive));
  const created = await call(gateway.url, 'POST', tokenPath(SLOW.id), tokenAuth(SLOW), cardBody());
  t.equal(created.status, 201, created.text);
  const order = '10000000001';
  const inFlight = call(gateway.url, 'PUT', payPath(SLOW.id, created.json().token as string, order, '1'), payAuth(SLOW),
    { apiOperation: 'PAY', transaction: { amount: '7.00', currency: 'USD' }, order: { reference: 'slow' } });
  const db = new Database(file, { readonly: true });
  t.teardown(() => db.close());
  const started = () => db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM events WHERE stream = ? AND type = 'PaymentStarted'").get(streams.order(SLOW.id, order))?.n === 1;
  await gateway.until(started, 'the slow payment started');
  // Ctrl-C: every process of the group gets SIGINT, the workers from the terminal and SIGTERM from the primary.
  process.kill(-gateway.child.pid!, 'SIGINT');
  const answer = await inFlight;
  t.equal(answer.status, 201, 'the payment in flight is answered');
  t.equal(await gateway.exited(), 0, 'a clean exit');
  t.notOk(pids.some(alive), 'no worker left behind');
  t.notMatch(gateway.stdout(), 'workers killed', 'no worker was killed');
});

t.test('bad worker counts stop the start with one line', async (t) => {
  const run = async (args: string[], env: Record<string, string>) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += String(chunk); });
    const guard = setTimeout(() => child.kill('SIGKILL'), budget(45_000)); // one that starts anyway does not hang the test
    const [code] = (await once(child, 'exit')) as [number | null];
    clearTimeout(guard);
    return { code, stderr };
  };
  // One value each way (the others, -1, 65, 1.5, ...: test/http/admin-default.test.ts).
  const viaEnv = await run([SERVER], { WORKERS: 'abc', EVENT_STORE: 'memory:' });
  t.same(viaEnv, { code: 1, stderr: "tokengate: WORKERS 'abc' is not a whole number from 1 to 64\n" }, 'WORKERS=abc');
  const viaFlag = await run([BIN, 'serve', '--workers', '0'], { EVENT_STORE: 'memory:' });
  t.same(viaFlag, { code: 1, stderr: "tokengate: --workers '0' is not a whole number from 1 to 64\n" }, '--workers 0');
});
