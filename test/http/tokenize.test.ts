// Issue 15 item 8: Tokenize (Create or Update Token with the token id in the path,
// PUT /api/rest/version/{version}/merchant/{merchantId}/token/{tokenid}), which a MERCHANT_SUPPLIED
// repository uses to create its tokens: create, update, retries, retrieve, pay on both paths,
// delete, sessions, refusals, unique-card repositories (also two connections on one file).
import { join } from 'node:path';
import fc from 'fast-check';
import t from 'tap';
import { buildTestApp, cardBody, M1, M2, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { assertSortedJson, expectInvalid, type App } from './http.fixture.js';
import { formatHistory } from '../../bin/command-kit.js';
import { commands } from '../../bin/commands.js';
import { tokenHistory } from '../../services/queries/history.js';
import { ach, wallet } from './token-api.fixture.js';

type M = { id: string; apiPassword: string };
const repo = (id: string, tokenManagement: string) =>
  ({ id, tokenGeneration: 'MERCHANT_SUPPLIED', tokenManagement, schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' });
const SUPPLIED = { id: 'TESTSUPPLIED', apiPassword: 'test-password-tokenize-0123456789ab', repository: repo('SUPREPO', 'UNIQUE_TOKEN') };
const SUPPLIED_UNIQUE = { id: 'TESTSUPUNIQUE', apiPassword: 'test-password-tokenize-unique-012345', repository: repo('SUPUREPO', 'UNIQUE_CARD') };
const SUPPLIED_SCHEME = {
  id: 'TESTSUPSCHEME', apiPassword: 'test-password-tokenize-scheme-012345',
  repository: { ...repo('SUPSREPO', 'UNIQUE_TOKEN'), schemeTokenization: true, schemeTokenProvisioningMode: 'SYNCHRONOUS' },
};
const merchants = { merchants: [...MERCHANTS.merchants, SUPPLIED, SUPPLIED_UNIQUE, SUPPLIED_SCHEME] };
const build = (t: Parameters<typeof buildTestApp>[0], path?: string) =>
  buildTestApp(t, { merchants, ...(path ? { eventStore: { kind: 'sqlite' as const, path } } : {}) });

const tokenUrl = (m: M, token: string, version = 100) => `/api/rest/version/${version}/merchant/${m.id}/token/${token}`;
const tokenizeReq = (a: App, m: M, token: string, payload: unknown, version = 100) =>
  a.inject({ method: 'PUT', url: tokenUrl(m, token, version), headers: { authorization: tokenAuth(m) }, payload: payload as Record<string, unknown> });
const retrieve = (a: App, m: M, token: string) => a.inject({ method: 'GET', url: tokenUrl(m, token), headers: { authorization: tokenAuth(m) } });
const remove = (a: App, m: M, token: string) => a.inject({ method: 'DELETE', url: tokenUrl(m, token), headers: { authorization: tokenAuth(m) } });
const allEvents = async (a: App) => a.gateway.store.readAll();

const CARD = '5123450000000008';
const VISA = '4508750015741019';

t.test('Tokenize creates the token under the merchant\'s id: 201, the answer of Create or Update Token, one TokenCreated (MERCHANT_SUPPLIED)', async (t) => {
  const a = await build(t);
  const res = await tokenizeReq(a, SUPPLIED, 'customer42Card1', { ...cardBody(CARD, '1', '39', { nameOnCard: 'Jane Public' }), correlationId: 'c-9' }, 64);
  t.equal(res.statusCode, 201, res.body);
  assertSortedJson(t, res);
  const body = res.json();
  t.equal(body.token, 'customer42Card1', 'the token id is the one in the path');
  t.equal(body.repositoryId, 'SUPREPO');
  t.equal(body.result, 'SUCCESS');
  t.equal(body.status, 'VALID');
  t.equal(body.correlationId, 'c-9');
  t.same(body.response, { gatewayCode: 'BASIC_VERIFICATION_SUCCESSFUL' });
  t.equal(body.verificationStrategy, 'BASIC');
  t.same(body.sourceOfFunds, { provided: { card: { brand: 'MASTERCARD', expiry: '0139', fundingMethod: 'CREDIT', nameOnCard: 'Jane Public', number: '512345xxxxxx0008', scheme: 'MASTERCARD' } }, type: 'CARD' });
  t.equal(body.usage.lastUpdatedBy, SUPPLIED.id);
  const created = (await allEvents(a)).filter((e) => e.type === 'TokenCreated');
  t.equal(created.length, 1, 'one TokenCreated');
  t.equal(created[0]?.stream, 'token-SUPREPO:customer42Card1', 'stream token-<repositoryId>:<token>');
  t.equal((created[0]?.data as { tokenGeneration: string }).tokenGeneration, 'MERCHANT_SUPPLIED', 'the event records the merchant-supplied generation');

  const got = await retrieve(a, SUPPLIED, 'customer42Card1');
  t.equal(got.statusCode, 200, got.body);
  t.equal(got.json().token, 'customer42Card1');
  t.equal(got.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', 'Retrieve Token shows it, masked');
});

t.test('an identical retry answers the same and appends nothing; a change updates the token (TokenUpdated), a partial body overlays the stored card', async (t) => {
  const a = await build(t);
  const first = await tokenizeReq(a, SUPPLIED, 'T1', cardBody(CARD, '1', '39'));
  t.equal(first.statusCode, 201, first.body);
  const head = await a.gateway.store.headPosition();
  const again = await tokenizeReq(a, SUPPLIED, 'T1', cardBody(CARD, '1', '39'));
  t.equal(again.statusCode, 201, again.body);
  t.equal(again.body, first.body, 'the same answer, byte for byte');
  t.equal(await a.gateway.store.headPosition(), head, 'nothing appended');

  const newExpiry = await tokenizeReq(a, SUPPLIED, 'T1', cardBody(CARD, '12', '38'));
  t.equal(newExpiry.statusCode, 201, newExpiry.body);
  t.equal(newExpiry.json().sourceOfFunds.provided.card.expiry, '1238');
  t.equal(newExpiry.json().token, 'T1');
  const updated = (await allEvents(a)).filter((e) => e.type === 'TokenUpdated');
  t.equal(updated.length, 1, 'one TokenUpdated');
  t.same((updated[0]?.data as { changed: string[] }).changed, ['sourceOfFunds.provided.card.expiry']);

  // Only the expiry sent: the stored number stays (explicit data over the token's own).
  const partial = await tokenizeReq(a, SUPPLIED, 'T1', { sourceOfFunds: { type: 'CARD', provided: { card: { expiry: { month: '2', year: '39' } } } } });
  t.equal(partial.statusCode, 201, partial.body);
  t.equal(partial.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  t.equal(partial.json().sourceOfFunds.provided.card.expiry, '0239');

  const otherCard = await tokenizeReq(a, SUPPLIED, 'T1', cardBody(VISA, '1', '39'));
  t.equal(otherCard.statusCode, 201, otherCard.body);
  t.equal(otherCard.json().sourceOfFunds.provided.card.number, '450875xxxxxx1019', 'a UNIQUE_TOKEN repository lets a token change its card');
  t.equal((await retrieve(a, SUPPLIED, 'T1')).json().sourceOfFunds.provided.card.brand, 'VISA');
  t.equal((await allEvents(a)).filter((e) => e.type === 'TokenCreated').length, 1, 'still one token');
});

t.test('bank accounts and billing agreements under merchant-supplied ids; a repeat appends nothing; the type of a token stays', async (t) => {
  const a = await build(t);
  const achRes = await tokenizeReq(a, SUPPLIED_UNIQUE, 'bank1', { sourceOfFunds: { type: 'ACH', provided: { ach: ach() } } });
  t.equal(achRes.statusCode, 201, achRes.body);
  t.equal(achRes.json().sourceOfFunds.provided.ach.bankAccountNumber, 'xxxxxxxx6789', 'masked');
  t.equal(achRes.json().response.gatewayCode, 'NO_VERIFICATION_PERFORMED');
  const head = await a.gateway.store.headPosition();
  t.equal((await tokenizeReq(a, SUPPLIED_UNIQUE, 'bank1', { sourceOfFunds: { type: 'ACH', provided: { ach: ach() } } })).body, achRes.body, 'the repeat answers the same');
  t.equal(await a.gateway.store.headPosition(), head, 'and appends nothing');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED_UNIQUE, 'bank2', { sourceOfFunds: { type: 'ACH', provided: { ach: ach({ bankAccountNumber: '0001-2345-6789' }) } } }),
    { field: 'sourceOfFunds.provided.ach.bankAccountNumber', explanation: /'bank1'/ }, 'the same account (separators aside) under another id');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED_UNIQUE, 'bank1', cardBody()), { field: 'sourceOfFunds.type' }, 'a card for a bank-account token');
  const walletRes = await tokenizeReq(a, SUPPLIED_UNIQUE, 'agreement1', { sourceOfFunds: { type: 'WALLET', provided: { wallet: wallet() } } });
  t.equal(walletRes.statusCode, 201, walletRes.body);
  t.equal(walletRes.json().sourceOfFunds.provided.wallet.billingAgreement.id, 'B-7YH12345AB678901C');
  t.notMatch(JSON.stringify((await allEvents(a)).map((e) => e.data)), '000123456789', 'the account number is sealed in the events');
});

t.test('a merchant-supplied repository with scheme tokenization: the new token gets its scheme token; a repeat requests none again', async (t) => {
  const a = await build(t);
  const res = await tokenizeReq(a, SUPPLIED_SCHEME, 'schemed1', cardBody(CARD, '1', '39'));
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().response.gatewayCode, 'SCHEME_TOKENIZATION_SUCCESSFUL');
  t.equal(res.json().schemeToken.status, 'ACTIVE');
  t.equal(res.json().schemeToken.provider, 'MDES');
  t.same((await retrieve(a, SUPPLIED_SCHEME, 'schemed1')).json().schemeToken, res.json().schemeToken, 'Retrieve Token shows it');
  const head = await a.gateway.store.headPosition();
  const again = await tokenizeReq(a, SUPPLIED_SCHEME, 'schemed1', cardBody(CARD, '1', '39'));
  t.equal(again.statusCode, 201, again.body);
  t.same(again.json().schemeToken, res.json().schemeToken, 'the same scheme token');
  t.equal(again.json().response.gatewayCode, 'BASIC_VERIFICATION_SUCCESSFUL', "no scheme tokenization in the repeat (as POST's unique-card repeats)");
  t.equal(await a.gateway.store.headPosition(), head, 'nothing appended');
});

t.test('simultaneous identical creations of one id: one TokenCreated, every answer the same', async (t) => {
  const a = await build(t);
  const results = await Promise.all(Array.from({ length: 6 }, () => tokenizeReq(a, SUPPLIED, 'sameId', cardBody(CARD, '1', '39'))));
  t.same(results.map((r) => r.statusCode), [201, 201, 201, 201, 201, 201], results.map((r) => r.body).join(' | '));
  t.equal(new Set(results.map((r) => r.body)).size, 1, 'one body');
  t.equal((await allEvents(a)).length, 1, 'one event: TokenCreated');
});

t.test('the token pays on the version 3 path and on the order path, is deleted (its number forgotten), and its id is not used again', async (t) => {
  const a = await build(t, join(t.testdir(), 'gateway.db'));
  t.equal((await tokenizeReq(a, SUPPLIED, 'payMe7', cardBody(CARD, '1', '39'))).statusCode, 201);
  const v3 = await a.inject({
    method: 'PUT', url: payPath(SUPPLIED.id, 'payMe7', '10000000077', '1'), headers: { authorization: payAuth(SUPPLIED) },
    payload: { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } },
  });
  t.equal(v3.statusCode, 201, v3.body);
  t.equal(v3.json().result, 'SUCCESS');
  t.equal(v3.json().card.token, 'payMe7');
  t.equal(v3.json().order.status, 'CAPTURED');

  const order = await a.inject({
    method: 'PUT', url: `/api/rest/version/100/merchant/${SUPPLIED.id}/order/shop-order-1/transaction/t1`, headers: { authorization: tokenAuth(SUPPLIED) },
    payload: { apiOperation: 'PAY', order: { amount: '7.50', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token: 'payMe7' } },
  });
  t.equal(order.statusCode, 201, order.body);
  t.equal(order.json().result, 'SUCCESS');
  t.equal(order.json().sourceOfFunds.token, 'payMe7');
  t.equal(order.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  t.ok((await retrieve(a, SUPPLIED, 'payMe7')).json().usage.lastUsed, 'usage.lastUsed set by the payments');

  const sealed = ((await allEvents(a)).find((e) => e.type === 'TokenCreated')?.data as { sourceOfFunds: { card: { numberSealed: string } } }).sourceOfFunds.card.numberSealed;
  t.equal(a.gateway.sealer.open(sealed), CARD, 'sealed before deletion');
  const deleted = await remove(a, SUPPLIED, 'payMe7');
  t.equal(deleted.statusCode, 200, deleted.body);
  t.equal(a.gateway.sealer.open(sealed), undefined, 'after deletion its key is destroyed');
  expectInvalid(t, await retrieve(a, SUPPLIED, 'payMe7'), { field: 'tokenid' }, 'retrieve after delete');
  const paidAfter = await a.inject({
    method: 'PUT', url: `/api/rest/version/100/merchant/${SUPPLIED.id}/order/shop-order-2/transaction/t1`, headers: { authorization: tokenAuth(SUPPLIED) },
    payload: { apiOperation: 'PAY', order: { amount: '7.50', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token: 'payMe7' } },
  });
  expectInvalid(t, paidAfter, { field: 'sourceOfFunds.token', explanation: 'Token not found' }, 'pay after delete');
  const head = await a.gateway.store.headPosition();
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'payMe7', cardBody(CARD, '1', '39')), { field: 'tokenid', explanation: /deleted/ }, 'a deleted id again');
  t.equal(await a.gateway.store.headPosition(), head, 'nothing appended');

  // The history replays: rebuilt read models equal the live ones.
  const live = a.gateway.readModels.hash();
  await a.gateway.readModels.rebuild();
  t.equal(a.gateway.readModels.hash(), live, 'rebuild equals live');
});

t.test('sourceOfFunds.token copies another token\'s card to the new id, the request\'s fields over it', async (t) => {
  const a = await build(t);
  t.equal((await tokenizeReq(a, SUPPLIED, 'original', cardBody(VISA, '1', '39'))).statusCode, 201);
  const copy = await tokenizeReq(a, SUPPLIED, 'copy', { sourceOfFunds: { type: 'CARD', token: 'original', provided: { card: { expiry: { month: '7', year: '39' } } } } });
  t.equal(copy.statusCode, 201, copy.body);
  t.equal(copy.json().token, 'copy');
  t.equal(copy.json().sourceOfFunds.provided.card.number, '450875xxxxxx1019');
  t.equal(copy.json().sourceOfFunds.provided.card.expiry, '0739');
  t.equal((await retrieve(a, SUPPLIED, 'original')).json().sourceOfFunds.provided.card.expiry, '0139', 'the original is unchanged');
  const created = (await allEvents(a)).filter((e) => e.type === 'TokenCreated').at(-1);
  t.same((created?.data as { origin?: unknown }).origin, { sourceToken: 'original' }, 'the origin recorded');
});

t.test('a session holding a card tokenizes, as POST does', async (t) => {
  const a = await build(t);
  const headers = { authorization: tokenAuth(SUPPLIED) };
  const session = (await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${SUPPLIED.id}/session`, headers, payload: {} })).json().session.id as string;
  const filled = await a.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${SUPPLIED.id}/session/${session}`, headers, payload: { sourceOfFunds: { provided: { card: { number: VISA, expiry: { month: '5', year: '39' }, securityCode: '100' } } } } });
  t.equal(filled.statusCode, 200, filled.body);
  const res = await tokenizeReq(a, SUPPLIED, 'fromSession', { session: { id: session }, sourceOfFunds: { type: 'CARD' } });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().sourceOfFunds.provided.card.number, '450875xxxxxx1019');
  t.equal(res.json().sourceOfFunds.provided.card.expiry, '0539');
  const created = (await allEvents(a)).find((e) => e.type === 'TokenCreated');
  t.equal((created?.data as { origin?: { sessionId?: string } }).origin?.sessionId, session, 'the session is recorded as the origin');
});

t.test('refusals, each with the gateway\'s error body; none appends anything', async (t) => {
  const a = await build(t);
  // 5123450000000008 and 4508750015741019 are card numbers; 13-19 digits passing Luhn.
  for (const id of [CARD, VISA, '4012000033330026', '5000000000000000005']) {
    const res = await tokenizeReq(a, SUPPLIED, id, cardBody(CARD, '1', '39'));
    // Refused as every path parameter holding a card number is (plugins/request-values.ts).
    expectInvalid(t, res, { field: 'tokenid', explanation: 'Value is invalid. The field must not hold a card number (13 to 19 digits passing the Luhn check)' }, `token id ${id.slice(0, 4)}…`);
    t.notMatch(res.body, id, 'the number is not echoed');
  }
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'generated', cardBody()), { field: 'tokenid', explanation: /merchant-supplied/ }, "'generated' in a merchant-supplied repository");
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'a'.repeat(41), cardBody()), { field: 'tokenid' }, 'a 41-character id');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'abc_def', cardBody()), { field: 'tokenid' }, 'an id with a character outside 0-9 a-z A-Z');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'abc', cardBody(), 22), { field: 'version' }, 'version 22 (deactivated)');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'abc', { sourceOfFunds: { provided: { card: { number: CARD, expiry: { month: '1', year: '39' } } } } }),
    { field: 'sourceOfFunds.type', validationType: 'MISSING' }, 'no sourceOfFunds.type');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'abc', cardBody('5123450000000009')), { field: 'sourceOfFunds.provided.card.number' }, 'a number failing Luhn');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'abc', { sourceOfFunds: { type: 'CARD', provided: { card: { number: CARD } } } }),
    { field: /^sourceOfFunds\.provided\.card\.expiry/, validationType: 'MISSING' }, 'no expiry');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED, 'abc', { sourceOfFunds: { type: 'CARD', token: 'nosuchtoken' } }), { field: 'sourceOfFunds.token' }, 'an unknown sourceOfFunds.token');
  // POST stays refused in a merchant-supplied repository.
  const post = await a.inject({ method: 'POST', url: tokenPath(SUPPLIED.id), headers: { authorization: tokenAuth(SUPPLIED) }, payload: cardBody() });
  expectInvalid(t, post, { explanation: /merchant-supplied token ids: use the Tokenize operation/ }, 'POST in a merchant-supplied repository');
  // A repository that generates its ids creates no token under a merchant's id.
  expectInvalid(t, await tokenizeReq(a, M1, 'myOwnId', cardBody()), { field: 'tokenid', explanation: /generates its token ids/ }, 'a RANDOM repository');
  expectInvalid(t, await tokenizeReq(a, M2, 'myOwnId', cardBody()), { field: 'tokenid', explanation: /generates its token ids/ }, 'a PRESERVE_6_4 repository');
  // Another merchant's credentials.
  const foreign = await a.inject({ method: 'PUT', url: tokenUrl(SUPPLIED, 'abc'), headers: { authorization: tokenAuth(M1) }, payload: cardBody() });
  t.equal(foreign.statusCode, 401, foreign.body);
  t.equal(await a.gateway.store.headPosition(), 0n, 'nothing stored by any refusal');
});

t.test('in a repository that generates its ids, Tokenize updates an existing token and \'generated\' makes a new one (the reference)', async (t) => {
  const a = await build(t);
  const generated = await tokenizeReq(a, M1, 'generated', cardBody(CARD, '1', '39'));
  t.equal(generated.statusCode, 201, generated.body);
  const token = generated.json().token as string;
  t.match(token, /^9[0-9]{15}$/, 'a generated token');
  const updated = await tokenizeReq(a, M1, token, cardBody(CARD, '3', '39'));
  t.equal(updated.statusCode, 201, updated.body);
  t.equal(updated.json().token, token);
  t.equal(updated.json().sourceOfFunds.provided.card.expiry, '0339');
  // Preserve 6.4: the card number of a token never changes.
  const preserved = (await a.inject({ method: 'POST', url: tokenPath(M2.id), headers: { authorization: tokenAuth(M2) }, payload: cardBody(CARD) })).json().token as string;
  expectInvalid(t, await tokenizeReq(a, M2, preserved, cardBody(VISA)), { field: 'sourceOfFunds.provided.card.number', explanation: /Preserve 6.4/ }, 'a new number for a Preserve 6.4 token');
});

t.test('a repository turned merchant-supplied keeps its generated tokens updatable (a 16-digit id passing Luhn is refused only for a new token)', async (t) => {
  const path = join(t.testdir(), 'gateway.db');
  const before = await build(t, path);
  const generated = (await before.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody(CARD) })).json().token as string;
  await before.close();
  const turned = { merchants: [{ ...M1, repository: { ...M1.repository, tokenGeneration: 'MERCHANT_SUPPLIED' } }] };
  const after = await buildTestApp(t, { merchants: turned, eventStore: { kind: 'sqlite', path } });
  const updated = await tokenizeReq(after, M1, generated, cardBody(CARD, '4', '39'));
  t.equal(updated.statusCode, 201, updated.body);
  t.equal(updated.json().sourceOfFunds.provided.card.expiry, '0439');
  const fresh = '912345678901234'; // + a Luhn digit: the shape of a generated token, not one the repository holds
  const freshId = fresh + [...'0123456789'].find((d) => luhnOk(fresh + d))!;
  expectInvalid(t, await tokenizeReq(after, M1, freshId, cardBody(CARD)), { field: 'tokenid', explanation: /card number/ }, 'a new id of that shape');
});

t.test('UNIQUE_CARD with merchant-supplied ids: a card stored under one id is refused under another, naming it; also from two connections at once', async (t) => {
  const path = join(t.testdir(), 'gateway.db');
  const a = await build(t, path);
  t.equal((await tokenizeReq(a, SUPPLIED_UNIQUE, 'first', cardBody(CARD, '1', '39'))).statusCode, 201);
  const head = await a.gateway.store.headPosition();
  expectInvalid(t, await tokenizeReq(a, SUPPLIED_UNIQUE, 'second', cardBody(CARD, '12', '39')),
    { field: 'sourceOfFunds.provided.card.number', explanation: /already stored against token 'first'/ }, 'the same card under another id');
  t.equal(await a.gateway.store.headPosition(), head, 'nothing appended');
  t.equal((await tokenizeReq(a, SUPPLIED_UNIQUE, 'first', cardBody(CARD, '2', '39'))).statusCode, 201, 'the same id updates');
  t.equal((await tokenizeReq(a, SUPPLIED_UNIQUE, 'second', cardBody(VISA, '1', '39'))).statusCode, 201, 'another card under another id');
  expectInvalid(t, await tokenizeReq(a, SUPPLIED_UNIQUE, 'second', cardBody(CARD, '1', '39')),
    { field: 'sourceOfFunds.provided.card.number', explanation: /'first'/ }, "an update to the first token's card");
  // Deleted, the card may go under another id.
  t.equal((await remove(a, SUPPLIED_UNIQUE, 'first')).statusCode, 200);
  t.equal((await tokenizeReq(a, SUPPLIED_UNIQUE, 'third', cardBody(CARD, '1', '39'))).statusCode, 201, 'the card of a deleted token under a new id');

  // Two connections on one file (as two processes), one new card under eight ids at once: one token.
  const b = await build(t, path);
  const card = '2223000000000007';
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => tokenizeReq(i % 2 === 0 ? a : b, SUPPLIED_UNIQUE, `race${i}`, cardBody(card, '1', '39'))));
  const statuses = results.map((r) => r.statusCode).sort();
  t.same(statuses, [201, 400, 400, 400, 400, 400, 400, 400], `one stored, the others refused (${results.map((r) => r.body).join(' | ')})`);
  const winner = results.find((r) => r.statusCode === 201)!.json().token as string;
  for (const r of results.filter((r) => r.statusCode === 400)) t.match(r.json().error.explanation, `'${winner}'`, 'each refusal names the token');
  const holders = (await b.gateway.store.readAll()).filter((e) => e.type === 'TokenCreated' && (e.data as { sourceOfFunds: { card: { number: string } } }).sourceOfFunds.card.number === '222300xxxxxx0007');
  t.equal(holders.length, 1, 'one token holds the card');
});

t.test('the audit history (tokengate token) shows the token\'s life; an export imported into a new store answers the same token', async (t) => {
  const dir = t.testdir();
  const path = join(dir, 'gateway.db');
  const a = await build(t, path);
  t.equal((await tokenizeReq(a, SUPPLIED, 'hist1', cardBody(CARD, '1', '39'))).statusCode, 201);
  t.equal((await tokenizeReq(a, SUPPLIED, 'hist1', cardBody(CARD, '6', '39'))).statusCode, 201);
  const v3 = await a.inject({ method: 'PUT', url: payPath(SUPPLIED.id, 'hist1', '10000000088', '1'), headers: { authorization: payAuth(SUPPLIED) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(v3.statusCode, 201, v3.body);
  const { entries, doc } = await tokenHistory(a.gateway.store, 'SUPREPO', 'hist1');
  t.same(entries.map((e) => e.type), ['TokenCreated', 'TokenUpdated', 'PaymentRecorded']);
  const text = formatHistory('Token hist1 (repository SUPREPO)', entries, doc);
  t.match(text, 'TokenCreated  token-SUPREPO:hist1@0');
  t.match(text, 'sourceOfFunds.provided.card.expiry: 0139 → 0639');
  t.notMatch(text, CARD, 'no card number in the history');
  const before = (await retrieve(a, SUPPLIED, 'hist1')).body;

  const file = join(dir, 'events.ndjson');
  t.equal(await commands.export!.run([], { store: `sqlite:${path}`, out: file }), 0);
  t.equal(await commands.import!.run([file], { store: `sqlite:${join(dir, 'copy.db')}` }), 0);
  const copy = await build(t, join(dir, 'copy.db'));
  const after = await retrieve(copy, SUPPLIED, 'hist1');
  t.equal(after.statusCode, 200, after.body);
  t.equal(after.body, before, 'Retrieve Token answers the same from the imported store');
});

t.test('no card number in plaintext in any event, stream name or answer', async (t) => {
  const a = await build(t);
  const numbers = [CARD, VISA, '345678901234564'];
  for (const [i, n] of numbers.entries()) {
    const res = await tokenizeReq(a, SUPPLIED, `card${i}`, cardBody(n, '1', '39', { securityCode: '100' }));
    t.equal(res.statusCode, 201, res.body);
    t.notMatch(res.body, n);
    t.equal((await tokenizeReq(a, SUPPLIED, `card${i}`, cardBody(n, '2', '39'))).statusCode, 201);
  }
  await tokenizeReq(a, SUPPLIED, CARD, cardBody(VISA));
  const text = JSON.stringify((await allEvents(a)).map((e) => ({ stream: e.stream, data: e.data, metadata: e.metadata })));
  for (const n of numbers) t.notMatch(text, n, `${n.slice(0, 6)}… never in the events`);
  t.notMatch(text, /"securityCode"/, 'no security code stored');
});

t.test('property: any token id in the path gives 201, or a 400 naming tokenid; ids that are card numbers never reach the store', async (t) => {
  const a = await build(t);
  const alnum = fc.stringMatching(/^[0-9A-Za-z]{1,40}$/);
  const digits = fc.stringMatching(/^[0-9]{12,20}$/);
  let created = 0;
  await fc.assert(fc.asyncProperty(fc.oneof(alnum, digits, fc.string({ maxLength: 45 })), async (id) => {
    const res = await tokenizeReq(a, SUPPLIED, encodeURIComponent(id), cardBody(CARD, '1', '39'));
    if (res.statusCode === 201) {
      created += 1;
      return res.json().token === id && /^[0-9A-Za-z]{1,40}$/.test(id) && id !== 'generated' && !(/^[0-9]{13,19}$/.test(id) && luhnOk(id));
    }
    return res.statusCode === 400 && ['tokenid', undefined].includes(res.json().error?.field);
  }), { numRuns: 150, seed: 42 });
  t.ok(created > 0, `${created} tokens created`);
  const streams = (await allEvents(a)).map((e) => e.stream.slice(e.stream.indexOf(':') + 1));
  t.notOk(streams.some((id) => /^[0-9]{13,19}$/.test(id) && luhnOk(id)), 'no stream named by a card number');
});

function luhnOk(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return sum % 10 === 0;
}
