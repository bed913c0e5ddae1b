// Crypto-shredding against someone holding a copy of the files: a real server on a SQLite store
// stores a card, deletes the token and stops on SIGTERM; then no file of the store directory
// (events, key file, any -wal or -shm) holds the token's key, and no 32 bytes of any of them open
// the sealed number still in the events.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { cardBody, M1, MERCHANTS, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';
import { filesHolding, keyBytes, keyIdOf, storeFiles, windowsThatOpen } from '../http/shredding.fixture.js';

t.test('Delete Token, SIGTERM: the deleted card cannot be recovered from the files', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS), store: {} });
  const file = join(dir, 'store', 'gateway.db');
  const server = await startServer({ EVENT_STORE: `sqlite:${file}`, MERCHANTS_FILE: join(dir, 'merchants.json') });
  t.teardown(() => server.stop('SIGKILL'));
  const created = await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody('5123450000000008'));
  t.equal(created.status, 201);
  const token = created.json().token as string;

  const db = new Database(file, { readonly: true });
  const row = db.prepare<[], { data: string }>("SELECT data FROM events WHERE type = 'TokenCreated'").get();
  db.close();
  const sealed = (JSON.parse(row?.data ?? '{}') as { sourceOfFunds: { card: { numberSealed: string } } }).sourceOfFunds.card.numberSealed;
  const key = keyBytes(`${file}.keys`, keyIdOf(sealed));

  const deleted = await call(server.url, 'DELETE', `${tokenPath(M1.id)}/${token}`, tokenAuth(M1));
  t.equal(deleted.status, 200);
  t.equal(await server.stop('SIGTERM'), 0, 'a clean stop');

  const files = storeFiles(join(dir, 'store'));
  t.ok(files.length >= 2, `files: ${files.map(([name]) => name).join(', ')}`);
  t.same(filesHolding(files, key), [], "the token's key is in no file");
  t.same(windowsThatOpen(files, sealed), [], 'no 32 bytes of any file open the sealed number');
});
