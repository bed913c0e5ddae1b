// Issue 19, item 2: merchant ids that extend one another (TESTSHOP, TESTSHOP-EU) never reach each
// other's data. Streams were named `<category>-<owner>-<id>`, so TESTSHOP's session `EU-<id>` was
// TESTSHOP-EU's session `<id>`; names are now `<category>-<owner>:<id>`, an old file is renamed
// once when it opens, and a read refuses a stream whose events name another owner.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import t from 'tap';
import { ownedByStreamOwner, renamedStream, streams } from '../../domain/events.js';
import { readOwnStream, StreamOwnershipError } from '../../services/aggregates.js';
import { MemoryEventStore } from '../../store/memory.js';
import { basic, buildTestApp, payAuth, payPath } from '../helpers/app.js';

const repo = (id: string) => ({ id, tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' });
const SHOP = { id: 'TESTSHOP', apiPassword: 'test-password-shop-0123456789-012345', repository: repo('SHOP') };
const EU = { id: 'TESTSHOP-EU', apiPassword: 'test-password-shop-eu-0123456789-0123', repository: repo('SHOP-EU') };
const MERCHANTS = { merchants: [SHOP, EU] };
type Merchant = typeof SHOP;

const auth = (m: Merchant) => ({ authorization: basic(`merchant.${m.id}`, m.apiPassword) });
const sessionPath = (m: Merchant, id?: string) => `/api/rest/version/100/merchant/${m.id}/session${id ? `/${id}` : ''}`;
const tokenPath = (m: Merchant) => `/api/rest/version/100/merchant/${m.id}/token`;
const CARD = { number: '5123450000000008', expiry: { month: '1', year: '39' }, securityCode: '100' };

t.test("a merchant whose id is a prefix of another's cannot use, read or change its sessions", async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS });
  const created = await app.inject({ method: 'POST', url: sessionPath(EU), headers: auth(EU), payload: {} });
  t.equal(created.statusCode, 201, 'TESTSHOP-EU creates a session');
  const euSession = created.json().session.id as string;
  const filled = await app.inject({ method: 'PUT', url: sessionPath(EU, euSession), headers: auth(EU), payload: { sourceOfFunds: { type: 'CARD', provided: { card: CARD } } } });
  t.equal(filled.statusCode, 200, 'and puts its card in it');
  const head = await app.gateway.store.headPosition();

  // `EU-<id>` under TESTSHOP named TESTSHOP-EU's session `<id>` when names were joined by '-'.
  const crafted = `EU-${euSession}`;
  const use = await app.inject({ method: 'POST', url: tokenPath(SHOP), headers: auth(SHOP), payload: { session: { id: crafted }, sourceOfFunds: { type: 'CARD' } } });
  t.equal(use.statusCode, 400, 'a token from the crafted session id is refused');
  t.equal(use.json().error.field, 'session.id');
  t.notMatch(use.body, '512345', 'no card data in the answer');
  const overwrite = await app.inject({
    method: 'PUT', url: sessionPath(SHOP, crafted), headers: auth(SHOP),
    payload: { sourceOfFunds: { type: 'CARD', provided: { card: { number: '4508750015741019', expiry: { month: '5', year: '39' } } } } },
  });
  t.equal(overwrite.statusCode, 400, 'an update of the crafted session id is refused');
  t.equal(overwrite.json().error.field, 'sessionId');
  t.equal(await app.gateway.store.headPosition(), head, 'nothing was recorded');

  // TESTSHOP-EU's session is as it left it: its own card makes its token.
  const own = await app.inject({ method: 'POST', url: tokenPath(EU), headers: auth(EU), payload: { session: { id: euSession }, sourceOfFunds: { type: 'CARD' } } });
  t.equal(own.statusCode, 201, 'TESTSHOP-EU makes a token from its session');
  t.equal(own.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', "EU's own card, not the one TESTSHOP sent");
});

t.test('orders and tokens of merchants whose ids extend one another stay apart', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS });
  const tokenOf = async (m: Merchant) => {
    const res = await app.inject({ method: 'POST', url: tokenPath(m), headers: auth(m), payload: { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } } });
    t.equal(res.statusCode, 201, `${m.id} stores a card`);
    return res.json().token as string;
  };
  const shopToken = await tokenOf(SHOP);
  const euToken = await tokenOf(EU);
  const pay = (m: Merchant, token: string, order: string, amount: string) => app.inject({
    method: 'PUT', url: payPath(m.id, token, order, '1'), headers: { authorization: payAuth(m) },
    payload: { apiOperation: 'PAY', transaction: { amount, currency: 'USD' } },
  });
  // The same order id at both merchants: two orders.
  t.equal((await pay(EU, euToken, '10000000001', '7.00')).statusCode, 201);
  const shopPaid = await pay(SHOP, shopToken, '10000000001', '3.00');
  t.equal(shopPaid.statusCode, 201, 'TESTSHOP pays on the same order id');
  t.equal(shopPaid.json().order.totalCapturedAmount, 3, "TESTSHOP's order holds only its own payment");
  const retrieved = await app.inject({ method: 'GET', url: `/api/rest/version/3/merchant/${EU.id}/order/10000000001`, headers: { authorization: payAuth(EU) } });
  t.equal(retrieved.json().totalCapturedAmount ?? retrieved.json().order?.totalCapturedAmount ?? retrieved.json().amount, 7, "TESTSHOP-EU's order holds only its own");
  // A token of one repository does not pay at the other.
  t.equal((await pay(SHOP, euToken, '10000000002', '1.00')).statusCode, 400, "TESTSHOP cannot pay with TESTSHOP-EU's token");
  const names = (await app.gateway.store.readAll()).map((e) => e.stream);
  t.ok(names.includes(`order-TESTSHOP:10000000001`) && names.includes(`order-TESTSHOP-EU:10000000001`), 'one stream per merchant and order');
});

t.test('stream names: no two owners and ids of a category share a name, whatever characters they hold', async (t) => {
  const owners = ['A', 'A-B', 'A-B-C', 'A:B', 'A%3AB', 'A%B', '%', ':', '-', 'A_B'];
  const ids = ['', 'C', 'B-C', 'B:C', ':C', '-C', 'B%3AC', '%3AC', '3AB:C'];
  for (const kind of ['token', 'order', 'accountReservation', 'session', 'transactionReference'] as const) {
    const seen = new Map<string, string>();
    for (const owner of owners) {
      for (const id of ids) {
        const name = streams[kind](owner, id);
        const pair = JSON.stringify([owner, id]);
        const before = seen.get(name);
        if (before !== undefined && before !== pair) t.fail(`${kind}: ${before} and ${pair} are both ${name}`);
        seen.set(name, pair);
      }
    }
    t.equal(seen.size, owners.length * ids.length, `${kind}: ${seen.size} pairs, ${seen.size} names`);
  }
});

t.test('a read refuses a stream whose events name another owner than its name does', async (t) => {
  const store = new MemoryEventStore();
  const stream = streams.session('TESTSHOP', 'EU-SESSION0001');
  await store.append(stream, [{ id: '00000000-0000-4000-8000-000000000001', type: 'SessionCreated', data: { merchantId: 'TESTSHOP-EU', sessionId: 'SESSION0001' }, metadata: { correlationId: 'c', merchantId: 'TESTSHOP-EU', recordedAt: '2026-03-01T10:00:00.000Z' } }]);
  await t.rejects(readOwnStream(store, stream), StreamOwnershipError, "TESTSHOP-EU's event under TESTSHOP's name is not handed out");
  t.ok(ownedByStreamOwner(streams.token('R:1', '9123'), [{ data: { repositoryId: 'R:1' } }]), 'an escaped owner is read back');
  t.notOk(ownedByStreamOwner(streams.token('R', '9123'), [{ data: { repositoryId: 'R:1' } }]));
  await store.close();
});

t.test('a store written with the old stream names is renamed once when it opens, and answers as before', async (t) => {
  const dir = t.testdir({});
  const path = join(dir, 'gateway.db');
  const eventStore = { kind: 'sqlite' as const, path };
  let token: string;
  {
    const app = await buildTestApp(t, { merchants: MERCHANTS, eventStore });
    const res = await app.inject({ method: 'POST', url: tokenPath(EU), headers: auth(EU), payload: { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } } });
    token = res.json().token as string;
    const paid = await app.inject({ method: 'PUT', url: payPath(EU.id, token, '10000000001', '1'), headers: { authorization: payAuth(EU) }, payload: { apiOperation: 'PAY', transaction: { amount: '7.00', currency: 'USD' } } });
    t.equal(paid.statusCode, 201, 'a payment before the upgrade');
    await app.close();
  }
  // Make the file what an earlier tokengate wrote: `<category>-<owner>-<id>`, format 0.
  const db = new Database(path);
  const old = (name: string) => name.replace(/^([a-z]+)-([^:]*):/, '$1-$2-');
  for (const { stream } of db.prepare<[], { stream: string }>('SELECT DISTINCT stream FROM events').all()) {
    db.prepare('UPDATE events SET stream = ? WHERE stream = ?').run(old(stream), stream);
  }
  db.pragma('user_version = 0');
  t.ok(db.prepare('SELECT 1 FROM events WHERE stream = ?').get(`order-TESTSHOP-EU-10000000001`), 'the old name is in the file');
  db.close();
  t.equal(renamedStream('order-TESTSHOP-EU-10000000001', { merchantId: 'TESTSHOP-EU' }), 'order-TESTSHOP-EU:10000000001');
  t.equal(renamedStream('order-TESTSHOP-EU:10000000001', { merchantId: 'TESTSHOP-EU' }), undefined, 'a current name is left alone');

  const app = await buildTestApp(t, { merchants: MERCHANTS, eventStore });
  const names = new Set((await app.gateway.store.readAll()).map((e) => e.stream));
  t.ok(names.has(streams.order(EU.id, '10000000001')) && names.has(streams.token(EU.repository.id, token)), 'renamed');
  t.notOk([...names].some((n) => n.startsWith('order-TESTSHOP-EU-')), 'no old name is left');
  const repeat = await app.inject({ method: 'PUT', url: payPath(EU.id, token, '10000000001', '1'), headers: { authorization: payAuth(EU) }, payload: { apiOperation: 'PAY', transaction: { amount: '7.00', currency: 'USD' } } });
  t.equal(repeat.statusCode, 201, 'the identical retry of a payment recorded before the upgrade');
  t.equal((await app.gateway.store.readAll()).filter((e) => e.type === 'PaymentRecorded').length, 1, 'answers the recorded payment: nothing appended');
  await app.close();
  const after = new Database(path, { readonly: true });
  t.equal(after.pragma('user_version', { simple: true }), 1, 'the file records its format');
  after.close();
});
