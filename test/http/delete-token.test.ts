// Delete Token: the token stops working and its card number is forgotten for good
// (its key is destroyed), while its history still replays with masked values.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { buildTestApp, cardBody, createToken, M1, payAuth, payPath, tokenAuth, tokenPath, UNIQUE } from '../helpers/app.js';
import { filesHolding, keyBytes, keyIdOf, storeFiles, windowsThatOpen } from './shredding.fixture.js';

const url = (merchantId: string, token: string) => `/api/rest/version/100/merchant/${merchantId}/token/${token}`;

t.test('a deleted token cannot pay, cannot be retrieved, and its card number cannot be read', async (t) => {
  const dir = t.testdir();
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') } });
  const token = await createToken(app, M1, '5123450000000008', '1', '39');
  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '3.00', currency: 'USD' } } });
  t.equal(paid.statusCode, 201);
  const created = (await app.gateway.store.readAll()).find((e) => e.type === 'TokenCreated');
  const sealed = (created?.data as { sourceOfFunds: { card: { numberSealed: string } } }).sourceOfFunds.card.numberSealed;
  t.equal(app.gateway.sealer.open(sealed), '5123450000000008', 'before deletion the sealed number opens');
  const hashBefore = app.gateway.readModels.hash();

  const deleted = await app.inject({ method: 'DELETE', url: url(M1.id, token), headers: { authorization: tokenAuth(M1) } });
  t.equal(deleted.statusCode, 200);
  t.same(deleted.json(), { result: 'SUCCESS' });
  t.equal(app.gateway.sealer.open(sealed), undefined, 'after deletion the key is gone: the old event cannot be read');

  const retrieved = await app.inject({ method: 'GET', url: url(M1.id, token), headers: { authorization: tokenAuth(M1) } });
  t.equal(retrieved.statusCode, 400);
  t.equal(retrieved.json().error.field, 'tokenid');
  const pay = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000002', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '3.00', currency: 'USD' } } });
  t.equal(pay.statusCode, 400, 'a deleted token cannot pay');
  t.equal(pay.json().error.field, 'tokenid');
  const again = await app.inject({ method: 'DELETE', url: url(M1.id, token), headers: { authorization: tokenAuth(M1) } });
  t.equal(again.statusCode, 400, 'deleting twice is refused');

  const repeat = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '3.00', currency: 'USD' } } });
  t.not(repeat.statusCode, 500, 'the recorded payment of a deleted token never fails the gateway');

  // The history still replays: the rebuilt read models equal the live ones.
  const live = app.gateway.readModels.hash();
  t.not(live, hashBefore);
  await app.gateway.readModels.rebuild();
  t.equal(app.gateway.readModels.hash(), live);
  await app.close();
  for (const file of ['gateway.db', 'gateway.db.keys']) {
    t.notMatch(readFileSync(join(dir, file)).toString('latin1'), '5123450000000008', `${file} holds no card number`);
  }
});

t.test('deleting needs the owner, and a unique-card repository gives the card a new token after deletion', async (t) => {
  const app = await buildTestApp(t);
  const store = () => app.inject({ method: 'POST', url: tokenPath(UNIQUE.id), headers: { authorization: tokenAuth(UNIQUE) }, payload: cardBody('4012000033330026') });
  const first = (await store()).json().token as string;
  const stranger = await app.inject({ method: 'DELETE', url: url(M1.id, first), headers: { authorization: tokenAuth(M1) } });
  t.equal(stranger.statusCode, 400, "another merchant's repository has no such token");
  t.equal((await app.inject({ method: 'DELETE', url: url(UNIQUE.id, first), headers: { authorization: tokenAuth(UNIQUE) } })).statusCode, 200);
  const second = (await store()).json().token as string;
  t.not(second, first, 'the card is stored under a new token');
  t.equal((await store()).json().token, second, 'and that token is unique again');
});

t.test('after Delete Token and a clean stop, no file of the store gives the card number back (secure deletion of the key)', async (t) => {
  const dir = t.testdir();
  const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: join(dir, 'gateway.db') } });
  const token = await createToken(app, M1, '5123450000000008', '1', '39');
  const kept = await createToken(app, M1, '4508750015741019', '1', '39');
  const sealedOf = async (tok: string) => {
    const created = (await app.gateway.store.readAll()).find((e) => e.type === 'TokenCreated' && (e.data as { token: string }).token === tok);
    return (created?.data as { sourceOfFunds: { card: { numberSealed: string } } }).sourceOfFunds.card.numberSealed;
  };
  const sealed = await sealedOf(token);
  const sealedKept = await sealedOf(kept);
  const key = keyBytes(join(dir, 'gateway.db.keys'), keyIdOf(sealed));
  t.ok(filesHolding(storeFiles(dir), key).some((name) => name.startsWith('gateway.db.keys')), 'before deletion the key is in the key store files');

  const deleted = await app.inject({ method: 'DELETE', url: url(M1.id, token), headers: { authorization: tokenAuth(M1) } });
  t.equal(deleted.statusCode, 200);
  await app.close();

  const files = storeFiles(dir);
  t.ok(files.some(([name]) => name === 'gateway.db') && files.some(([name]) => name === 'gateway.db.keys'), `the store's files: ${files.map(([n]) => n).join(', ')}`);
  t.same(filesHolding(files, key), [], "the deleted token's key is in no file of the store");
  t.same(windowsThatOpen(files, sealed), [], 'no 32 bytes of any file open the sealed number of the deleted token');
  t.ok(windowsThatOpen(files, sealedKept).length > 0, "while the kept token's number still opens with a key from the files (the search works)");
});
