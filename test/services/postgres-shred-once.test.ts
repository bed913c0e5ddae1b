// Delete Token on one of two instances on one PostgreSQL database: the request shreds the token
// before it answers; the instance's own shredder does not redo it (no key statement), and the
// other instance's shredder, which must check in case the request was cut short, asks the key
// store once whether any of the token's keys (and its session's) remain, instead of opening and
// destroying each key with a statement of its own. A deletion that was not shredded by its
// request (a crash after the append; the request's shredding failing) is still shredded by the
// shredders. Against a real server; skipped loudly without one.
import { randomUUID } from 'node:crypto';
import t, { type Test } from 'tap';
import { StoreBusy } from '../../domain/errors.js';
import { eventually } from '../helpers/poll.js';
import { postgresForFile, rowsOf } from '../helpers/postgres.js';
import { twoGateways } from '../helpers/two-gateways.js';
import { cardBody, M1, tokenAuth } from '../helpers/app.js';
import { PostgresKeyStore } from '../../store/postgres/key-store.js';
import { SyncPgClient } from '../../store/postgres/sync-client.js';

const server = postgresForFile(t);

type App = Awaited<ReturnType<typeof twoGateways>>['a'];
const api = (app: App, method: 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) =>
  app.inject({ method, url: `/api/rest/version/100/merchant/${M1.id}${path}`, headers: { authorization: tokenAuth(M1) }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

/** A token made from a session holding a card: its key, and the session's, in the key store. */
async function tokenFromSession(t: Test, app: App): Promise<string> {
  const session = (await api(app, 'POST', '/session')).json().session.id as string;
  t.equal((await api(app, 'PUT', `/session/${session}`, cardBody('5123450000000008', '1', '39'))).statusCode, 200);
  const created = await api(app, 'POST', '/token', { session: { id: session }, sourceOfFunds: { type: 'CARD' } });
  t.equal(created.statusCode, 201, created.body);
  return created.json().token as string;
}

/** Every key id that sealed a value in the events of the log so far. */
async function sealedKeyIds(app: App): Promise<string[]> {
  const text = JSON.stringify((await app.gateway.store.readAll()).map((e) => e.data));
  return [...new Set((text.match(/v1\.[A-Za-z0-9_-]+\./g) ?? []).map((v) => v.split('.')[1]!))];
}

/**
 * Spies: each instance's synchronous key statements, and the shredder checkpoint each records.
 * An instance's key store is told apart by asking its sealer once (shreddedThrough).
 */
function spies(t: Test, apps: Record<string, App>) {
  const stores = new Map<PostgresKeyStore, string>();
  const read = PostgresKeyStore.prototype.shreddedThrough;
  let asked: PostgresKeyStore | undefined;
  PostgresKeyStore.prototype.shreddedThrough = function (this: PostgresKeyStore) { asked = this; return read.call(this); };
  for (const [name, app] of Object.entries(apps)) {
    app.gateway.sealer.shreddedThrough();
    if (asked) stores.set(asked, name);
  }
  PostgresKeyStore.prototype.shreddedThrough = read;
  const clients = new Map<SyncPgClient, string>();
  for (const [store, name] of stores) clients.set((store as unknown as { client: SyncPgClient }).client, name);
  t.equal(clients.size, Object.keys(apps).length, 'each instance\'s key store found');

  const statements: Record<string, string[]> = Object.fromEntries(Object.keys(apps).map((name) => [name, []]));
  const checkpoints: Record<string, bigint> = {};
  const run = SyncPgClient.prototype.run;
  SyncPgClient.prototype.run = function spy(this: SyncPgClient, ...list) {
    const name = clients.get(this);
    if (name !== undefined) statements[name]!.push(list.map((s) => s.text).join('; '));
    return run.apply(this, list);
  } as typeof run;
  const set = PostgresKeyStore.prototype.setShreddedThrough;
  PostgresKeyStore.prototype.setShreddedThrough = function spy(this: PostgresKeyStore, position: bigint) {
    const name = stores.get(this);
    if (name !== undefined) checkpoints[name] = position;
    set.call(this, position);
  };
  t.teardown(() => {
    SyncPgClient.prototype.run = run;
    PostgresKeyStore.prototype.setShreddedThrough = set;
  });
  /** Resolves once every instance's shredder has recorded a checkpoint at or past `position` (its TokenDeleted shredded). */
  const shreddedThrough = (position: bigint) =>
    eventually(() => Object.keys(apps).every((name) => (checkpoints[name] ?? -1n) >= position), { intervalMs: 20 });
  return { statements, shreddedThrough };
}

const remaining = async (url: string, keyIds: string[]) =>
  (await rowsOf<{ key_id: string }>(url, `SELECT key_id FROM card_keys WHERE key_id IN (${keyIds.map((k) => `'${k}'`).join(', ')})`)).map((r) => r.key_id);

if (server) {
  t.test('a token deleted on A: A\'s shredder redoes nothing, B\'s asks the key store once', async (t) => {
    const { url, a, b } = await twoGateways(t, server, 'shred_once');
    await a.gateway.tokenShredder.settled();
    await b.gateway.tokenShredder.settled();
    const token = await tokenFromSession(t, a);
    const keyIds = await sealedKeyIds(a);
    t.ok(keyIds.length >= 2, `${keyIds.length} keys sealed the token's and the session's card`);
    const { statements, shreddedThrough } = spies(t, { a, b });

    const deleted = await api(a, 'DELETE', `/token/${token}`);
    t.equal(deleted.statusCode, 200, deleted.body);
    const request = [...statements.a!];
    t.ok(request.some((s) => s.includes('DELETE FROM card_keys')), 'the request destroys the keys before it answers');
    t.same(await remaining(url, keyIds), [], 'every key of the token and its session destroyed at the 200');

    await shreddedThrough(await a.gateway.store.headPosition());
    t.same(statements.a, request, 'A\'s shredder: no key statement after the request\'s');
    // One statement (a retry after a failure on a loaded machine repeats the same one, never more).
    const held = 'SELECT key_id FROM card_keys WHERE key_id = ANY($1::text[])';
    t.ok(statements.b!.length >= 1 && statements.b!.every((s) => s === held), `B's shredder: only the one-statement check (${JSON.stringify(statements.b)})`);
  });

  t.test('a TokenDeleted appended without its shredding (a crash after the append): both shredders shred it', async (t) => {
    const { url, a, b } = await twoGateways(t, server, 'shred_crash');
    await a.gateway.tokenShredder.settled();
    await b.gateway.tokenShredder.settled();
    const token = await tokenFromSession(t, a);
    const keyIds = await sealedKeyIds(a);
    const { statements, shreddedThrough } = spies(t, { a, b });

    const stream = `token-${M1.repository.id}:${token}`;
    const history = await a.gateway.store.readStream(stream);
    const now = new Date().toISOString();
    const { position } = await a.gateway.store.append(stream, [{ id: randomUUID(), type: 'TokenDeleted', data: { merchantId: M1.id, repositoryId: M1.repository.id, token, deletedAt: now }, metadata: { correlationId: 'c', causationId: 'c', merchantId: M1.id, recordedAt: now } }], { expectedRevision: BigInt(history.length - 1) });
    await shreddedThrough(position);
    t.same(await remaining(url, keyIds), [], 'every key of the token and its session destroyed');
    for (const name of ['a', 'b'] as const) t.ok(statements[name]!.some((s) => s.startsWith('SELECT key_id FROM card_keys')), `${name}'s shredder checked the keys`);
    t.ok([...statements.a!, ...statements.b!].some((s) => s.includes('DELETE FROM card_keys')), 'and one of them destroyed them');
    const retrieved = await api(b, 'DELETE', `/token/${token}`);
    t.equal(retrieved.statusCode, 400, 'the token is deleted');
  });

  t.test('a Delete Token whose shredding fails in the request: its own instance\'s shredder shreds it', async (t) => {
    const { url, a, b } = await twoGateways(t, server, 'shred_failed');
    await a.gateway.tokenShredder.settled();
    await b.gateway.tokenShredder.stop(); // only A's shredder can finish it
    const token = await tokenFromSession(t, a);
    const keyIds = await sealedKeyIds(a);
    const { shreddedThrough } = spies(t, { a });

    const destroy = PostgresKeyStore.prototype.destroy;
    let failures = 0;
    PostgresKeyStore.prototype.destroy = function (this: PostgresKeyStore, keyId: string) {
      if (failures++ === 0) throw new StoreBusy('the key store is busy once', 'KEYS_BUSY');
      destroy.call(this, keyId);
    };
    t.teardown(() => { PostgresKeyStore.prototype.destroy = destroy; });
    const deleted = await api(a, 'DELETE', `/token/${token}`);
    t.equal(deleted.statusCode, 503, 'the request fails after its append');
    await shreddedThrough(await a.gateway.store.headPosition());
    t.same(await remaining(url, keyIds), [], 'every key of the token and its session destroyed by A\'s shredder');
  });
}
