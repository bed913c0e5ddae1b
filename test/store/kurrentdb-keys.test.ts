// KurrentDB without a shared key file: KEYS_STORE=postgres://… puts a KurrentDB gateway's keys in
// the PostgreSQL key store (store/postgres/key-store.ts). Against a real PostgreSQL and the
// KurrentDB client's stand-in (kurrentdb.fixture.ts): two instances on one KurrentDB log, each
// with its own connection to the key store and no shared file, open each other's cards, and a
// deletion shredded by one is forgotten by both. The setting is checked at start-up.
import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config.js';
import { openStores } from '../../root.js';
import { KurrentDbEventStore } from '../../store/kurrentdb.js';
import { PostgresKeyStore } from '../../store/postgres/key-store.js';
import { Sealer } from '../../store/sealing.js';
import { shredToken } from '../../services/token/token-shredding.js';
import { FakeKurrentClient } from './kurrentdb.fixture.js';
import { postgresForFile } from '../helpers/postgres.js';

t.test('KEYS_STORE: a postgres:// URL, for a kurrentdb:// EVENT_STORE only, never shown with its password', async (t) => {
  const env = { EVENT_STORE: 'kurrentdb://127.0.0.1:2113?tls=false', MERCHANTS_FILE: 'x.json' };
  t.equal(loadConfig(env).keysStore, undefined, 'unset: the key file (KEYS_FILE)');
  t.equal(loadConfig({ ...env, KEYS_STORE: 'postgres://u:s3cret@db:5432/keys' }).keysStore, 'postgres://u:s3cret@db:5432/keys');
  for (const [value, store] of [['mysql://u:s3cret@db/keys', env.EVENT_STORE], ['postgres://u:s3cret@/keys', env.EVENT_STORE], ['postgres://u:s3cret@db/keys', 'sqlite:./data/g.db']] as const) {
    let error: unknown;
    try { loadConfig({ ...env, EVENT_STORE: store, KEYS_STORE: value }); } catch (e) { error = e; }
    t.ok(error instanceof ConfigError, `${store} + ${value.replace('s3cret', '…')}: refused (${String((error as Error)?.message)})`);
    t.notOk(String((error as Error)?.message).includes('s3cret'), 'the password is not in the message');
  }
});

const server = postgresForFile(t);

if (server) {
  t.test('two KurrentDB instances share their keys through PostgreSQL, with no key file', async (t) => {
    const url = await server.get().createDatabase('kurrent_keys');
    const dir = t.testdir();
    // Through the composition root, as the server opens it: the key store is PostgreSQL's, no key file is made.
    const opened = openStores({ kind: 'kurrentdb', url: 'kurrentdb://127.0.0.1:1?tls=false' },
      { readModelsFile: join(dir, 'rm', 'read-models.db'), keysFile: join(dir, 'keys', 'keys.db'), keysStore: url });
    const sealed = new Sealer(opened.keys).sealNew('5123450000000008');
    await opened.close();
    t.notOk(existsSync(join(dir, 'keys')), 'no key file, not even its folder');
    const reader = new PostgresKeyStore(url);
    t.equal(new Sealer(reader).open(sealed), '5123450000000008', 'the key is in PostgreSQL');
    await reader.close();

    // Two instances on one KurrentDB log (the stand-in), each with its own key-store connection.
    const log = new FakeKurrentClient();
    const keysA = new PostgresKeyStore(url);
    const keysB = new PostgresKeyStore(url);
    const a = { store: new KurrentDbEventStore(log.asClient()), sealer: new Sealer(keysA) };
    const b = { store: new KurrentDbEventStore(log.asClient()), sealer: new Sealer(keysB) };
    t.teardown(async () => { await a.store.close(); await b.store.close(); await keysA.close(); await keysB.close(); });
    t.equal(a.sealer.fingerprint('x'), b.sealer.fingerprint('x'), 'one fingerprint secret for both (a retry sent to the other is recognised)');
    const stream = 'token-REPO01-9000000000000001';
    await a.store.append(stream, [{
      id: '0194a2b0-0000-7000-8000-000000000001', type: 'TokenCreated',
      data: {
        merchantId: 'M', repositoryId: 'REPO01', token: '9000000000000001', createdAt: new Date().toISOString(),
        sourceOfFunds: { type: 'CARD', card: { numberSealed: a.sealer.sealNew('4508750015741019'), number: '450875xxxxxx1019', brand: 'VISA', scheme: 'VISA', fundingMethod: 'CREDIT', expiry: { month: '1', year: '39' } } },
      },
      metadata: { correlationId: 'c', causationId: 'c', merchantId: 'M', recordedAt: new Date().toISOString() },
    }]);
    const [created] = await b.store.readStream(stream);
    const numberSealed = (created!.data as { sourceOfFunds: { card: { numberSealed: string } } }).sourceOfFunds.card.numberSealed;
    t.equal(b.sealer.open(numberSealed), '4508750015741019', 'a card stored by one instance opens on the other');

    // Deleted on A: A shreds the token; B can no longer open its number.
    await a.store.append(stream, [{
      id: '0194a2b0-0000-7000-8000-000000000002', type: 'TokenDeleted', data: { merchantId: 'M', repositoryId: 'REPO01', token: '9000000000000001', deletedAt: new Date().toISOString() },
      metadata: { correlationId: 'c', causationId: 'c', merchantId: 'M', recordedAt: new Date().toISOString() },
    }]);
    await shredToken(a, await a.store.readStream(stream));
    t.equal(b.sealer.open(numberSealed), undefined, 'shredded on one instance: forgotten by the other');
  });
}
