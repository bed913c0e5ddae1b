// Issue 3, item 3, across processes: two real gateway processes on one SQLite file, twenty
// simultaneous Create or Update Token requests for one billing agreement (and for one card), ten
// at each: one token, one reservation, every answer naming it.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { ACCOUNT, ALL_MERCHANTS, wallet } from '../http/token-api.fixture.js';

function counts(file: string) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare<[], { type: string; n: number }>("SELECT type, COUNT(*) AS n FROM events WHERE type IN ('TokenCreated', 'AccountIdentifierReserved') GROUP BY type").all();
    return Object.fromEntries(rows.map((r) => [r.type, r.n]));
  } finally {
    db.close();
  }
}

t.test('two processes, one store: one token per billing agreement and per card', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(ALL_MERCHANTS) });
  const file = join(dir, 'gateway.db');
  const env = { EVENT_STORE: `sqlite:${file}`, MERCHANTS_FILE: join(dir, 'merchants.json') };
  const [a, b] = await Promise.all([startServer(env), startServer(env)]);
  t.teardown(() => Promise.all([a.stop('SIGKILL'), b.stop('SIGKILL')]));
  const bodies = [
    { sourceOfFunds: { type: 'WALLET', provided: { wallet: wallet('B-TWO-PROCESSES') } } },
    { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } },
  ];
  for (const body of bodies) {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 === 0 ? a.url : b.url, 'POST', tokenPath(ACCOUNT.id), tokenAuth(ACCOUNT), body)));
    t.same([...new Set(replies.map((r) => r.status))], [201], `${body.sourceOfFunds.type}: all twenty answered 201`);
    t.equal(new Set(replies.map((r) => r.json().token)).size, 1, `${body.sourceOfFunds.type}: one token in every answer`);
  }
  t.same(counts(file), { AccountIdentifierReserved: 2, TokenCreated: 2 }, 'two tokens, two reservations in the file');
});
