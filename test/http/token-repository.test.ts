// Issue 3, item 3: repository rules. UNIQUE_TOKEN always creates a new token; UNIQUE_CARD and
// UNIQUE_ACCOUNT_IDENTIFIER return the existing token for an account identifier already stored
// (card number, bank account, billing agreement id), updated when its details changed; one token
// under concurrency. (Two processes on one SQLite file: test/e2e/token-two-processes.test.ts.)
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { M1, MERCHANTS, UNIQUE, basic, tokenPath } from '../helpers/app.js';
import { accountKey } from '../../domain/token/accounts.js';
import { expectInvalid } from './http.fixture.js';
import { ACCOUNT, app, card, count, create, typesOf, wallet } from './token-api.fixture.js';

const agreement = (id: string, extra: Record<string, unknown> = {}) => ({ sourceOfFunds: { type: 'WALLET', provided: { wallet: wallet(id, 'SINGLE', extra) } } });

t.test('UNIQUE_TOKEN: the same billing agreement or card gets a new token every time', async (t) => {
  const a = await app(t);
  const tokens = new Set<string>();
  for (let i = 0; i < 3; i++) tokens.add((await create(a, M1, agreement('B-SAME'))).json().token);
  for (let i = 0; i < 3; i++) tokens.add((await create(a, M1, { sourceOfFunds: { type: 'CARD', provided: { card: card() } } })).json().token);
  t.equal(tokens.size, 6);
  t.equal(count(await typesOf(a), 'AccountIdentifierReserved'), 0, 'no reservation in a UNIQUE_TOKEN repository');
});

t.test('UNIQUE_ACCOUNT_IDENTIFIER: a stored billing agreement id returns its token, updated when details changed', async (t) => {
  const a = await app(t);
  const first = (await create(a, ACCOUNT, agreement('B-7YH1'))).json();
  const same = (await create(a, ACCOUNT, agreement('B-7YH1'))).json();
  t.equal(same.token, first.token);
  t.equal(count(await typesOf(a), 'TokenUpdated'), 0, 'nothing changed, nothing recorded');
  const renamed = (await create(a, ACCOUNT, { sourceOfFunds: { type: 'WALLET', provided: { wallet: wallet('B-7YH1', 'MULTIPLE', { payerId: 'PAYER0000002' }) } } })).json();
  t.equal(renamed.token, first.token);
  t.equal(renamed.sourceOfFunds.provided.wallet.billingAgreement.cardinality, 'MULTIPLE');
  const updates = (await a.gateway.store.readAll()).filter((e) => e.type === 'TokenUpdated');
  t.same(updates.map((e) => (e.data as { changed: string[] }).changed), [['sourceOfFunds.provided.wallet.billingAgreement', 'sourceOfFunds.provided.wallet.payerId']]);
  t.not((await create(a, ACCOUNT, agreement('B-OTHER'))).json().token, first.token, 'another agreement another token');
  const cardFirst = (await create(a, ACCOUNT, { sourceOfFunds: { type: 'CARD', provided: { card: card() } } })).json().token;
  t.equal((await create(a, ACCOUNT, { sourceOfFunds: { type: 'CARD', provided: { card: card() } } })).json().token, cardFirst, 'and a card number is an account identifier too');
  const reservations = (await a.gateway.store.readAll()).filter((e) => e.type === 'AccountIdentifierReserved');
  t.ok(reservations.every((e) => !e.stream.includes('B-7YH1') && /^accountref-REPOACC:[A-Za-z0-9_-]{43}$/.test(e.stream)), 'streams named from a keyed hash');
});

t.test('twenty simultaneous requests for one billing agreement make one token', async (t) => {
  for (const m of [ACCOUNT, UNIQUE]) {
    const a = await app(t);
    const answers = await Promise.all(Array.from({ length: 20 }, () => create(a, m, agreement('B-RACE-1'))));
    t.same(answers.map((r) => r.statusCode), Array(20).fill(201), `${m.id}: all 201`);
    t.equal(new Set(answers.map((r) => r.json().token)).size, 1, `${m.id}: one token named in every answer`);
    const types = await typesOf(a);
    t.equal(count(types, 'TokenCreated'), 1, `${m.id}: one TokenCreated`);
    t.equal(count(types, 'AccountIdentifierReserved'), 1, `${m.id}: one reservation`);
  }
});

t.test('twenty simultaneous requests for one bank account make one token', async (t) => {
  const a = await app(t);
  const body = { sourceOfFunds: { type: 'ACH', provided: { ach: { accountType: 'CONSUMER_CHECKING', bankAccountHolder: 'J', bankAccountNumber: '123456789', routingNumber: '021000021', secCode: 'PPD' } } } };
  const answers = await Promise.all(Array.from({ length: 20 }, () => create(a, ACCOUNT, body)));
  t.equal(new Set(answers.map((r) => r.json().token)).size, 1);
  t.equal(count(await typesOf(a), 'TokenCreated'), 1);
});

t.test('MERCHANT_SUPPLIED generation refuses this operation, whatever the source', async (t) => {
  const a = await app(t);
  const supplied = MERCHANTS.merchants.find((m) => m.repository.tokenGeneration === 'MERCHANT_SUPPLIED')!;
  const res = await a.inject({ method: 'POST', url: tokenPath(supplied.id), headers: { authorization: basic(`merchant.${supplied.id}`, supplied.apiPassword) }, payload: agreement('B-1') });
  expectInvalid(t, res, { explanation: /Tokenize operation/ });
  t.equal(await a.gateway.store.headPosition(), 0n);
});

t.test('UNIQUE_ACCOUNT_IDENTIFIER: Delete Token forgets the link from the account to its reservation; the account named again takes a new one', async (t) => {
  const a = await app(t);
  const { sealer, store } = a.gateway;
  const hash = (id: string) => sealer.fingerprint(accountKey('REPOACC', { type: 'WALLET', billingAgreementId: id }));
  const deleted = (await create(a, ACCOUNT, agreement('B-DEL'))).json().token as string;
  t.ok(sealer.reservation(hash('B-DEL')), 'the key store maps the agreement to its reservation');
  const del = await a.inject({ method: 'DELETE', url: `${tokenPath(ACCOUNT.id)}/${deleted}`, headers: { authorization: basic(`merchant.${ACCOUNT.id}`, ACCOUNT.apiPassword) } });
  t.equal(del.statusCode, 200);
  t.equal(sealer.reservation(hash('B-DEL')), undefined, 'deletion releases the mapping');
  // Another token changed to the deleted token's agreement (sourceOfFunds.token): a new reservation.
  const other = (await create(a, ACCOUNT, agreement('B-OTHER'))).json().token as string;
  const changed = await create(a, ACCOUNT, { sourceOfFunds: { type: 'WALLET', token: other, provided: { wallet: wallet('B-DEL') } } });
  t.equal(changed.statusCode, 201, changed.body);
  t.equal(changed.json().token, other);
  const claims = (await store.readAll()).filter((e) => e.type === 'AccountIdentifierReserved');
  const streamOf = (token: string) => claims.filter((e) => (e.data as { token: string }).token === token).map((e) => e.stream);
  t.equal(streamOf(deleted).length, 1);
  t.notOk(streamOf(other).includes(streamOf(deleted)[0] ?? ''), "the deleted token's reservation is not claimed again");
  t.equal((await create(a, ACCOUNT, agreement('B-DEL'))).json().token, other, 'the agreement now returns the token that holds it');
});

t.test('a reservation still naming a deleted token (its deletion cut short) is replaced, never claimed again', async (t) => {
  const a = await app(t);
  const { sealer, store } = a.gateway;
  const hash = sealer.fingerprint(accountKey('REPOACC', { type: 'WALLET', billingAgreementId: 'B-CRASH' }));
  // The shredder stopped: as after a crash between TokenDeleted and the shredding.
  await a.gateway.tokenShredder.stop();
  for (const named of [false, true]) {
    const deleted = (await create(a, ACCOUNT, agreement('B-CRASH'))).json().token as string;
    const reservation = sealer.reservation(hash);
    const stream = `token-REPOACC:${deleted}`;
    const history = await store.readStream(stream);
    const now = new Date().toISOString();
    await store.append(stream, [{ id: randomUUID(), type: 'TokenDeleted', data: { merchantId: ACCOUNT.id, repositoryId: 'REPOACC', token: deleted, deletedAt: now }, metadata: { correlationId: 'c', causationId: 'c', merchantId: ACCOUNT.id, recordedAt: now } }], { expectedRevision: BigInt(history.length - 1) });
    t.equal(sealer.reservation(hash), reservation, 'the mapping still names the deleted token\'s reservation');
    const other = named ? (await create(a, ACCOUNT, agreement(`B-NAMED-${deleted}`))).json().token as string : undefined;
    const res = await create(a, ACCOUNT, { sourceOfFunds: { type: 'WALLET', ...(other ? { token: other } : {}), provided: { wallet: wallet('B-CRASH') } } });
    t.equal(res.statusCode, 201, res.body);
    t.not(res.json().token, deleted, named ? 'sourceOfFunds.token: the named token takes the agreement' : 'a new token');
    t.not(sealer.reservation(hash), reservation, 'a new reservation replaces it');
    const claims = (await store.readAll()).filter((e) => e.type === 'AccountIdentifierReserved' && e.stream === `accountref-REPOACC:${reservation}`);
    t.same(claims.map((e) => (e.data as { token: string }).token), [deleted], 'the old reservation holds only the deleted token\'s claim');
  }
});
