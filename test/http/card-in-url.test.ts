// A card number sent in a URL (in place of a token id or a merchant id, or on an unknown path) is
// never quoted in an error body nor written in plaintext to the log: the logged URL and error
// texts show it as the gateway shows card numbers (first 6 and last 4 digits).
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { buildApp, loggerOptions } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { createToken, M1, MERCHANTS, payAuth, payPath, tokenAuth } from '../helpers/app.js';

// 16, 16, 16, 19 and 13 digits, each Luhn-valid (a number failing the Luhn check is no card number).
const CARDS = ['5123450000000008', '4508750015741019', '6011000000000004', '5018000000000000007', '4222222222222'];
const PAY = { apiOperation: 'PAY', transaction: { amount: '10.00', currency: 'USD' } };

async function appWithLog(t: Test) {
  let log = '';
  const stream = new Writable({ write(chunk, _encoding, done) { log += String(chunk); done(); } });
  const app = await buildApp({
    eventStore: { kind: 'memory' },
    merchants: parseMerchants(MERCHANTS, 'test merchants'),
    logger: { ...loggerOptions('debug'), stream },
    limits: { authFailureLimit: 1_000_000 },
  });
  t.teardown(() => app.close());
  return { app, log: () => log };
}

t.test('a card number as the token id, the merchant id or on an unknown path is never quoted or logged', async (t) => {
  const { app, log } = await appWithLog(t);
  const token = await createToken(app, M1);
  const seen: string[] = [];
  for (const card of CARDS) {
    const requests = [
      // pay with a card number in place of the token: no such token
      { method: 'PUT' as const, url: payPath(M1.id, card, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: PAY },
      // too long for a token id (and not only digits): refused by the schema, which quotes the value
      { method: 'PUT' as const, url: payPath(M1.id, `${card}abcdefghijklmnopqrstuvwxyz`, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: PAY },
      // a card number followed by more digits, too long for a token id
      { method: 'PUT' as const, url: payPath(M1.id, `${card}${'0'.repeat(30)}`, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: PAY },
      // retrieve and delete a token
      { method: 'GET' as const, url: `/api/rest/version/100/merchant/${M1.id}/token/${card}`, headers: { authorization: tokenAuth(M1) } },
      { method: 'DELETE' as const, url: `/api/rest/version/100/merchant/${M1.id}/token/${card}`, headers: { authorization: tokenAuth(M1) } },
      // in place of the merchant id, with characters a merchant id may not have
      { method: 'PUT' as const, url: payPath(`${card}.x`, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: PAY },
      { method: 'GET' as const, url: `/api/rest/version/100/merchant/${card}~/token/${token}`, headers: { authorization: tokenAuth(M1) } },
      // an unknown path, and a query string
      { method: 'GET' as const, url: `/api/rest/version/100/merchant/${M1.id}/tokens/${card}?card=${card}` },
      { method: 'GET' as const, url: `/api/rest/version/3/information?number=${card}` },
    ];
    for (const request of requests) {
      const res = await app.inject(request);
      t.notOk(res.body.includes(card), `${request.method} ${request.url.replace(card, 'CARD')}: ${res.statusCode}, the body does not quote it`);
      t.not(res.statusCode, 500, 'not a 500');
      seen.push(res.body);
    }
  }
  t.ok(seen.some((body) => body.includes('512345xxxxxx0008')), 'an explanation shows it masked');
  const text = log();
  for (const card of CARDS) t.notOk(text.includes(card), `the log does not hold ${card.slice(0, 6)}... in plaintext`);
  t.match(text, /"path":"\/api\/rest\/version\/3\/merchant\/TESTMERCHANT01\/token\/512345xxxxxx0008\/order\//, 'the logged path shows it masked');
  t.match(text, /"msg":"request"/, 'requests are logged');
});

t.test("the gateway's own token ids, and values that are no card number, are still quoted and logged as they are", async (t) => {
  const { app, log } = await appWithLog(t);
  // 5, 16 (a generated token's shape: begins with 9) and 16 digits failing the Luhn check (a Preserve 6.4 token's).
  for (const tokenid of ['12345', '9000000000000001', '5123451234560008']) {
    const res = await app.inject({ method: 'PUT', url: payPath(M1.id, tokenid, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: PAY });
    t.equal(res.statusCode, 400);
    t.match(res.json().error.explanation, `Value '${tokenid}' is invalid`, `${tokenid}: the explanation quotes it`);
    t.match(log(), `token/${tokenid}/order/10000000001/transaction/1`, `${tokenid}: the logged URL keeps it`);
  }
});

t.test('a card number as a member name, or written in groups, is masked in the field, the explanation and the log', async (t) => {
  const { app, log } = await appWithLog(t);
  const card = { number: '5123450000000008', expiry: { month: '1', year: '39' } };
  const asMember = await app.inject({
    method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/token`, headers: { authorization: tokenAuth(M1) },
    payload: { sourceOfFunds: { type: 'CARD', provided: { card } }, '4508750015741019': 'x' },
  });
  t.equal(asMember.statusCode, 400);
  t.equal(asMember.json().error.field, '450875xxxxxx1019', 'the member name is masked in the field');
  const nested = await app.inject({
    method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/token`, headers: { authorization: tokenAuth(M1) },
    payload: { sourceOfFunds: { type: 'CARD', provided: { card: { ...card, '4508750015741019': 'x' } } } },
  });
  t.equal(nested.json().error.field, 'sourceOfFunds.provided.card.450875xxxxxx1019', 'and in a nested path');
  const grouped = [
    await app.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${M1.id}/token/4508-7500-1574-1019`, headers: { authorization: tokenAuth(M1) } }),
    await app.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/session/4508%207500%201574%201019%2012345678901234`, headers: { authorization: tokenAuth(M1) }, payload: { sourceOfFunds: { type: 'CARD', provided: { card } } } }),
  ];
  for (const res of grouped) {
    t.equal(res.statusCode, 400, `${res.statusCode} ${res.body}`);
    t.notMatch(res.body, /4508[ -]?7500[ -]?1574[ -]?1019/, 'a number written in groups is not quoted');
  }
  t.notMatch(log(), /4508750015741019|4508[ -]7500|4508%207500/, 'nor logged, in any of those forms');
});

t.test('a card number among other digit groups in an id, the correlation id or the merchant id is masked in the log and the journal', async (t) => {
  const { app, log } = await appWithLog(t);
  const token = await createToken(app, M1);
  // Each id holds 4111111111111111 after other digits (12), together or in groups; their digits together fail Luhn.
  const ids = ['12-4111111111111111', '12 4111111111111111', '12-4111-1111-1111-1111', '4111 1111 1111 1111 12'];
  for (const id of ids) {
    const order = encodeURIComponent(id);
    const requests = [
      { method: 'PUT' as const, url: payPath(M1.id, token, order, '1'), headers: { authorization: payAuth(M1) }, payload: PAY },
      { method: 'GET' as const, url: `/api/rest/version/100/merchant/${M1.id}/order/${order}`, headers: { authorization: tokenAuth(M1) } },
      { method: 'PUT' as const, url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1), 'x-correlation-id': id.replaceAll(' ', '-') }, payload: { ...PAY, transaction: { amount: '0.00', currency: 'USD' } } },
      { method: 'GET' as const, url: `/api/rest/version/100/merchant/${encodeURIComponent(id)}/token/${token}`, headers: { authorization: tokenAuth(M1) } },
    ];
    for (const request of requests) {
      const res = await app.inject(request);
      t.not(res.statusCode, 500, `${request.method} ${request.url}: not a 500`);
      t.notMatch(res.body, /4111.?1111.?1111.?1111/, `${request.method} ${request.url}: the answer does not quote it`);
    }
  }
  const journal = [...app.journal.newestFirst()].map((entry) => JSON.stringify(entry)).join('\n');
  for (const [where, text] of [['the log', log()], ['the journal', journal]] as const) {
    t.notMatch(text, /4111(?:[ -]|%20)?1111(?:[ -]|%20)?1111(?:[ -]|%20)?1111/, `${where} does not hold the card number in plaintext`);
  }
  t.match(log(), /"path":"[^"]*\/order\/12[ -]4111/, 'the logged path keeps what is no card number');
});
