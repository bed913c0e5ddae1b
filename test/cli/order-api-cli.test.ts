// The command-line tool on an order of the order API (versions 1-100 but the deactivated ones), run
// as a user runs it (bin/tokengate.js of the test run's build, test/helpers/build.ts): the order's
// timeline, as of a revision, and an export imported into an empty store that replays to the same
// read models.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { BIN } from '../helpers/build.js';

const run = async (args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args]);
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
};

t.test('the order timeline of an order of the order API (UUID id): each transaction a step, the state as of any of them', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'gateway.db');
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path } });
  const token = await createToken(app, M1, '5123450000000008', '1', '39');
  const order = '3f1c2a9e-6b7d-4e21-9c55-0a8f1e2d3c4b';
  const put = (txn: string, payload: Record<string, unknown>) => app.inject({
    method: 'PUT', url: `/api/rest/version/80/merchant/${M1.id}/order/${order}/transaction/${txn}`,
    headers: { authorization: tokenAuth(M1) }, payload,
  });
  t.equal((await put('auth', { apiOperation: 'AUTHORIZE', order: { amount: '30.00', currency: 'USD' }, sourceOfFunds: { token } })).statusCode, 201);
  t.equal((await put('cap', { apiOperation: 'CAPTURE', transaction: { amount: '10.00', currency: 'USD' } })).statusCode, 201);
  const liveHash = app.gateway.readModels.hash();
  await app.close();
  const store = `sqlite:${path}`;
  const text = await run(['order', M1.id, order, '--store', store]);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, `Order ${order} of merchant ${M1.id}`);
  t.match(text.stdout, /#\d+ .* OrderTransactionRecorded .*@0\n/);
  t.match(text.stdout, /#\d+ .* OrderTransactionRecorded .*@1\n/);
  t.match(text.stdout, 'status: ∅ → AUTHORIZED');
  t.match(text.stdout, 'status: AUTHORIZED → PARTIALLY_CAPTURED');
  t.match(text.stdout, 'transactions[1].type: ∅ → CAPTURE', 'the new transaction as its own fields');
  t.notMatch(text.stdout, /transactions: \[/, 'not the whole list before and after');
  t.notMatch(text.stdout, '5123450000000008');
  const now = JSON.parse((await run(['order', M1.id, order, '--store', store, '--json'])).stdout);
  t.equal(now.state.status, 'PARTIALLY_CAPTURED');
  const rev0 = JSON.parse((await run(['order', M1.id, order, '--store', store, '--json', '--as-of-revision', '0'])).stdout);
  t.equal(rev0.state.status, 'AUTHORIZED', 'as of the authorization');
  // Exported, imported into an empty store and replayed: the same read models.
  const out = join(dir, 'events.ndjson');
  t.equal((await run(['export', '--store', store, '--out', out])).code, 0);
  t.same(readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l).type), ['TokenCreated', 'OrderTransactionRecorded', 'OrderTransactionRecorded']);
  const copy = `sqlite:${join(dir, 'copy.db')}`;
  t.equal((await run(['import', out, '--store', copy])).code, 0);
  t.match((await run(['replay', '--store', copy])).stdout, `read models hash ${liveHash}`, 'the copy projects to the same read models');
});
