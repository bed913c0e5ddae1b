// The request journal (plugins/journal.ts, services/journal/, routes/admin-requests.ts): every API
// request, accepted or refused, REST and NVP, with its masked bodies, its refusal and the events
// it appended; bounded by size and age; filtered; linked both ways to the events.
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../config.js';
import { basic, buildTestApp, cardBody, createToken, M1, M2, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import type { JournalPluginOptions } from '../../plugins/journal.js';
import { sleep, waitFor } from '../helpers/poll.js';

const ADMIN_PASSWORD = 'admin-password-for-tests';
const ADMIN = basic('admin', ADMIN_PASSWORD);
type App = Awaited<ReturnType<typeof buildTestApp>>;
type Entry = Record<string, any>;

const appWith = (t: Test, journal?: JournalPluginOptions) => buildTestApp(t, { adminPassword: ADMIN_PASSWORD, ...(journal ? { journal } : {}) });

async function journal(app: App, query = ''): Promise<{ status: number; text: string; requests: Entry[] }> {
  const res = await app.inject({ method: 'GET', url: `/admin/api/requests${query}`, headers: { authorization: ADMIN } });
  return { status: res.statusCode, text: res.body, requests: res.statusCode === 200 ? (res.json() as { requests: Entry[] }).requests : [] };
}

const txnPath = (m: { id: string }, order: string, txn: string) => `/api/rest/version/100/merchant/${m.id}/order/${order}/transaction/${txn}`;
const orderApi = (app: App, order: string, txn: string, payload: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'PUT', url: txnPath(M1, order, txn), headers: { authorization: tokenAuth(M1), ...headers }, payload });
const nvp = (app: App, fields: Record<string, string>) =>
  app.inject({ method: 'POST', url: '/api/nvp/version/100', headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString() });
const checkGateway = (app: App) => app.inject({ method: 'GET', url: '/api/rest/version/100/information' });
const idOf = (res: { headers: Record<string, unknown> }) => String(res.headers['x-request-id']);

/** The entry once the log has handed its events over (they may come after the answer). */
async function withEvents(app: App, id: string): Promise<Entry> {
  const read = async () => {
    const res = await app.inject({ method: 'GET', url: `/admin/api/requests/${encodeURIComponent(id)}`, headers: { authorization: ADMIN } });
    return { status: res.statusCode, entry: res.json() as Entry };
  };
  const { entry } = await waitFor(read, `the events of request ${id}`, { until: ({ status, entry: e }) => status === 200 && e.events.length > 0, intervalMs: 20 });
  return entry;
}

t.test('a refused REFUND: its masked body, its answer and its refusal, on its order', async (t) => {
  const app = await appWith(t);
  const token = await createToken(app, M1);
  const paid = await orderApi(app, 'o1', 'p1', { apiOperation: 'PAY', order: { amount: '25.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } });
  t.equal(paid.statusCode, 201, paid.body);
  const refund = { apiOperation: 'REFUND', transaction: { amount: '30.00', currency: 'USD' } };
  const refused = await orderApi(app, 'o1', 'r1', refund, { 'x-correlation-id': 'refund-too-much' });
  t.equal(refused.statusCode, 400, refused.body);
  const error = (refused.json() as { error: { explanation: string; field: string } }).error;

  const { requests } = await journal(app, '?operation=REFUND');
  t.equal(requests.length, 1, 'the refused REFUND is in the journal');
  const entry = requests[0]!;
  t.match(entry, {
    id: idOf(refused), method: 'PUT', path: txnPath(M1, 'o1', 'r1'), operation: 'REFUND', status: 400, merchant: M1.id,
    correlationId: 'refund-too-much', order: 'o1', transaction: 'r1', token: null, events: [],
  });
  t.match(entry.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'an ISO instant');
  t.ok(typeof entry.durationMs === 'number' && entry.durationMs >= 0, 'a duration in ms');
  t.same(entry.request, refund, 'the request body as sent (nothing secret in it)');
  t.same(entry.response, refused.json(), 'the answer as sent');
  t.same(entry.refusal, { field: error.field, explanation: error.explanation }, 'the refusal: field and explanation of the error body');
  t.equal(error.field, 'transaction.amount');

  const history = await journal(app, `?merchant=${M1.id}&order=o1`);
  t.same(history.requests.map((r) => [r.operation, r.status]), [['REFUND', 400], ['PAY', 201]], "the order's requests, newest first");
  t.same(history.requests[1]!.token, token, 'the PAY names the token its body pays with');
  t.equal(history.requests[1]!.refusal, undefined, 'no refusal on an accepted request');
  const ofStream = await journal(app, `?stream=${encodeURIComponent(`order-${M1.id}:o1`)}`);
  t.same(ofStream.requests.map((r) => r.id), history.requests.map((r) => r.id), "by the order's stream: the same, the refused one too");
  const ofToken = await journal(app, `?stream=${encodeURIComponent(`token-REPO01:${token}`)}`);
  t.same(ofToken.requests.map((r) => [r.operation, r.status]), [['PAY', 201], ['CREATE_TOKEN', 201]], "by the token's stream: its creation and the payment with it");
  t.same((await journal(app, `?stream=${encodeURIComponent(`order-${M2.id}:o1`)}`)).requests, [], "another merchant's order of the same id: none");

  const one = await app.inject({ method: 'GET', url: `/admin/api/requests/${idOf(refused)}`, headers: { authorization: ADMIN } });
  t.equal(one.statusCode, 200);
  t.same(one.json(), entry, 'one request by its id: the same entry');
  const none = await app.inject({ method: 'GET', url: '/admin/api/requests/no-such-request', headers: { authorization: ADMIN } });
  t.equal(none.statusCode, 404);
  t.equal((none.json() as { error: { field: string } }).error.field, 'id');
});

t.test('a 401 names the merchant of its path or form, never the password', async (t) => {
  const app = await appWith(t);
  const restPassword = 'a-wrong-rest-password-7Qz9';
  const rest = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: basic(`merchant.${M1.id}`, restPassword) }, payload: cardBody() });
  t.equal(rest.statusCode, 401);
  const nvpPassword = 'a-wrong-nvp-password-4Kx2';
  const form = await nvp(app, { apiOperation: 'RETRIEVE_ORDER', merchant: M2.id, apiUsername: `merchant.${M2.id}`, apiPassword: nvpPassword, 'order.id': '77' });
  t.equal(form.statusCode, 401, form.body);

  const { text, requests } = await journal(app);
  const [nvpEntry, restEntry] = requests;
  t.match(restEntry, { id: idOf(rest), status: 401, merchant: M1.id, operation: 'CREATE_TOKEN', request: null, refusal: { explanation: String } });
  t.match(nvpEntry, { id: idOf(form), status: 401, merchant: M2.id, operation: 'RETRIEVE_ORDER', order: '77', path: '/api/nvp/version/100' });
  t.equal(nvpEntry!.request.apiPassword, '[redacted]', "NVP's apiPassword redacted");
  t.equal(nvpEntry!.response.result, 'ERROR', "the NVP answer's pairs");
  t.equal(nvpEntry!.refusal.explanation, nvpEntry!.response['error.explanation'], "the refusal from the NVP answer's pairs");
  for (const secret of [restPassword, nvpPassword, Buffer.from(`merchant.${M1.id}:${restPassword}`).toString('base64')]) {
    t.notOk(text.includes(secret), 'no password, nor the Authorization header, anywhere in the answer');
  }
});

t.test('card numbers, security codes and bank accounts masked: nothing in clear in the whole answer', async (t) => {
  const app = await appWith(t);
  const created = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody('5123450000000008', '1', '39', { securityCode: '739' }) });
  t.equal(created.statusCode, 201, created.body);
  const token = (created.json() as { token: string }).token;
  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' }, card: { securityCode: '4321' } } });
  t.equal(paid.statusCode, 201, paid.body);
  // Refused: a number that fails Luhn (a real number with a typo), a card number in free text, a card number as a JSON number.
  const typo = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody('4508750015741018') });
  t.equal(typo.statusCode, 400);
  const freeText = await orderApi(app, 'o2', '1', { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD', reference: 'card 6011000990139424' }, sourceOfFunds: { type: 'CARD', token } });
  t.equal(freeText.statusCode, 400);
  const asNumber = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload: '{"sourceOfFunds":{"type":"CARD","provided":{"card":{"number":4111111111111111,"expiry":{"month":"1","year":"39"}}}}}' });
  t.equal(asNumber.statusCode, 400);
  const viaNvp = await nvp(app, {
    apiOperation: 'TOKENIZE', merchant: M1.id, apiUsername: `merchant.${M1.id}`, apiPassword: M1.apiPassword, 'sourceOfFunds.type': 'CARD',
    'sourceOfFunds.provided.card.number': '4012000033330026', 'sourceOfFunds.provided.card.expiry.month': '1', 'sourceOfFunds.provided.card.expiry.year': '39', 'sourceOfFunds.provided.card.securityCode': '123',
  });
  t.equal(viaNvp.statusCode, 201, viaNvp.body);
  const ach = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: { sourceOfFunds: { type: 'ACH', provided: { ach: { accountType: 'CONSUMER_CHECKING', bankAccountHolder: 'Jane Q Public', bankAccountNumber: '88811122233', routingNumber: '021000021', secCode: 'WEB' } } } } });
  t.equal(ach.statusCode, 201, ach.body);

  // Through pay with token, whose body's text the journal keeps when nothing in it needs masking:
  // card numbers spelled with escapes, with an exponent, as a member's name.
  const payText = (body: string) => app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000002', '1'), headers: { authorization: payAuth(M1), 'content-type': 'application/json' }, payload: body });
  const spelled = [
    '{"apiOperation":"PAY","transaction":{"amount":"1.00","currency":"USD","reference":"\\u00341111111 1111 1111"}}',
    '{"apiOperation":"PAY","transaction":{"amount":"1.00","currency":"USD","reference":6.011000990139424e15}}',
    '{"apiOperation":"PAY","transaction":{"amount":"1.00","currency":"USD"},"4012000033330026":1}',
  ];
  for (const body of spelled) t.equal((await payText(body)).statusCode, 400, body);
  // As kept, at any time (not only as the API shows it): no card number in any field, in any form.
  const kept = [...app.journal.newestFirst()];
  t.equal(kept.length, 10, 'every request kept');
  for (const entry of kept) {
    for (const [field, value] of [...Object.entries(entry), ['answer', app.journal.answerOf(entry)]]) {
      if (typeof value !== 'string') continue;
      const digits = value.replace(/\\u00([0-9a-fA-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/[^0-9]/g, '');
      // (4508750015741018 fails the Luhn check: a card number only where a member says so.)
      for (const pan of ['5123450000000008', '6011000990139424', '4111111111111111', '4012000033330026', '88811122233']) {
        if (digits.includes(pan)) t.fail(`${entry.id} ${field}: ${pan.slice(0, 4)}… kept`);
      }
    }
    t.notOk(/securityCode":"?[0-9]/.test(String(entry.request)), `${entry.id}: no security code kept`);
  }

  const { text, requests } = await journal(app, '?limit=1000');
  t.equal(requests.length, 10, 'every request recorded');
  for (const pan of ['5123450000000008', '4508750015741018', '6011000990139424', '4111111111111111', '4012000033330026', '88811122233']) {
    t.notOk(text.includes(pan), `${pan.slice(0, 4)}…: never in clear`);
  }
  t.ok(text.includes('512345xxxxxx0008') && text.includes('450875xxxxxx1018') && text.includes('601100xxxxxx9424'), 'card numbers shown 6.4');
  const codes = [...text.matchAll(/securityCode":"([^"]*)"/g)].map((m) => m[1]);
  t.same(codes, ['xxx', 'xxxx', 'xxx'], 'every security code masked (NVP, pay, create)');
  const byId = new Map(requests.map((r) => [r.id, r]));
  t.equal(byId.get(idOf(created))!.token, token, "a created token's id, from its answer");
  t.equal(byId.get(idOf(viaNvp))!.operation, 'CREATE_TOKEN', "NVP's TOKENIZE without a token id is a create");
  t.equal(byId.get(idOf(asNumber))!.request.sourceOfFunds.provided.card.number, '411111xxxxxx1111', 'a card number sent as a JSON number');
  t.equal(byId.get(idOf(ach))!.request.sourceOfFunds.provided.ach.bankAccountNumber, 'xxxxxxx2233', 'a bank account number');

  // An answer asked unmasked (clear with a client certificate: test/e2e/token-unmask.test.ts) is
  // masked before it is kept, not kept as its text.
  const unmask = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: { ...cardBody(), responseControls: { sensitiveData: 'UNMASK' } } });
  t.equal(unmask.statusCode, 201);
  t.equal(typeof app.journal.get(idOf(unmask))!.response, 'object', 'kept masked');
  t.equal(typeof app.journal.answerOf(app.journal.get(idOf(created))!), 'string', 'another answer: kept as sent');
});

t.test('bounded: JOURNAL_SIZE entries, none older than JOURNAL_MAX_AGE_MS; JOURNAL_SIZE=0 records nothing', async (t) => {
  const small = await appWith(t, { size: 3 });
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push(idOf(await checkGateway(small)));
  const kept = await journal(small);
  t.same(kept.requests.map((r) => r.id), ids.slice(2).reverse(), 'the 3 newest, newest first');
  t.match(kept.requests[0], { operation: 'CHECK_GATEWAY', status: 200, merchant: null });
  const dropped = await small.inject({ method: 'GET', url: `/admin/api/requests/${ids[0]}`, headers: { authorization: ADMIN } });
  t.equal(dropped.statusCode, 404, 'the oldest is gone');

  let clock = Date.now();
  const aging = await appWith(t, { maxAgeMs: 60_000, now: () => clock });
  const first = idOf(await checkGateway(aging));
  clock += 30_000;
  const second = idOf(await checkGateway(aging));
  t.same((await journal(aging)).requests.map((r) => r.id), [second, first]);
  clock += 31_000;
  t.same((await journal(aging)).requests.map((r) => r.id), [second], 'older than the maximum age: gone');
  t.equal((await aging.inject({ method: 'GET', url: `/admin/api/requests/${first}`, headers: { authorization: ADMIN } })).statusCode, 404);
  clock += 30_000;
  t.same((await journal(aging)).requests, []);

  const off = await appWith(t, { size: 0 });
  await checkGateway(off);
  await createToken(off, M1);
  t.same(await journal(off), { status: 200, text: '{"requests":[]}', requests: [] }, 'off: nothing recorded');

  t.same(loadConfig({}).journal, { size: 10_000, maxAgeMs: 3_600_000 }, 'defaults: 10,000 entries, an hour');
  t.same(loadConfig({ JOURNAL_SIZE: '0', JOURNAL_MAX_AGE_MS: '5000' }).journal, { size: 0, maxAgeMs: 5000 });
  for (const env of [{ JOURNAL_SIZE: '-1' }, { JOURNAL_SIZE: 'many' }, { JOURNAL_SIZE: '1000001' }, { JOURNAL_MAX_AGE_MS: '0' }, { JOURNAL_MAX_AGE_MS: '1h' }]) {
    t.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
  }
});

t.test('filters: merchant, status or class, operation, path, correlation id, order, token, since, limit', async (t) => {
  const app = await appWith(t);
  const token = await createToken(app, M1);
  await createToken(app, M2);
  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1), 'x-correlation-id': 'checkout-1' }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(paid.statusCode, 201);
  await sleep(5); // time passing is the point: an instant strictly between the two requests
  const since = new Date().toISOString();
  await sleep(5);
  const bad = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000002', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '-1', currency: 'USD' } } });
  t.equal(bad.statusCode, 400);
  const missing = await app.inject({ method: 'GET', url: '/api/rest/version/100/merchant/TESTMERCHANT01/tokens/4508750015741019', headers: { authorization: tokenAuth(M1) } });
  t.equal(missing.statusCode, 404);
  const denied = await app.inject({ method: 'GET', url: `${tokenPath(M2.id)}/${token}`, headers: { authorization: basic(`merchant.${M2.id}`, 'wrong-password-0123456789') } });
  t.equal(denied.statusCode, 401);

  const ids = async (query: string) => (await journal(app, query)).requests.map((r) => r.id);
  t.same(await ids(`?merchant=${M2.id}`), [idOf(denied), (await journal(app, '?operation=CREATE_TOKEN')).requests[0]!.id], 'merchant');
  t.same(await ids('?status=400'), [idOf(bad)], 'an exact status');
  t.same(await ids('?status=4xx'), [idOf(denied), idOf(missing), idOf(bad)], 'a class of statuses');
  t.same(await ids('?operation=pay'), [idOf(bad), idOf(paid)], 'an operation (any case)');
  t.same(await ids('?path=/tokens/'), [idOf(missing)], 'a part of the path (card numbers masked in it)');
  t.match((await journal(app, '?path=/tokens/')).requests[0], { path: '/api/rest/version/100/merchant/TESTMERCHANT01/tokens/450875xxxxxx1019', operation: null, status: 404 });
  t.same(await ids('?correlationId=checkout-1'), [idOf(paid)], 'correlation id');
  t.same(await ids('?order=10000000002'), [idOf(bad)], 'order');
  t.same((await ids(`?token=${token}`)).length, 4, "token: its creation, two payments, the other merchant's refused retrieval");
  t.same(await ids(`?since=${encodeURIComponent(since)}`), [idOf(denied), idOf(missing), idOf(bad)], 'since');
  t.same(await ids('?limit=2'), [idOf(denied), idOf(missing)], 'limit: the newest');
  t.same(await ids(`?merchant=${M1.id}&status=2xx&operation=PAY`), [idOf(paid)], 'filters together');

  for (const [query, field] of [['?status=4x', 'status'], ['?status=abc', 'status'], ['?limit=0', 'limit'], ['?limit=1001', 'limit'], ['?since=yesterday', 'since'], ['?colour=red', 'colour']] as const) {
    const res = await app.inject({ method: 'GET', url: `/admin/api/requests${query}`, headers: { authorization: ADMIN } });
    t.equal(res.statusCode, 400, query);
    t.equal((res.json() as { error: { field: string } }).error.field, field, `${query}: the field`);
  }
  t.equal((await app.inject({ method: 'GET', url: '/admin/api/requests' })).statusCode, 401, 'admin credentials');
  t.equal((await app.inject({ method: 'GET', url: '/admin/api/requests', headers: { authorization: tokenAuth(M1) } })).statusCode, 401, "a merchant's do not open it");
  t.notOk((await journal(app, '?limit=1000')).requests.some((r) => r.path.startsWith('/admin')), 'the admin API itself is not recorded');
});

t.test('linked both ways: an entry lists the events its request appended, each event names the request', async (t) => {
  const app = await appWith(t);
  const created = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1) }, payload: cardBody() });
  const token = (created.json() as { token: string }).token;
  const paid = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1), 'x-correlation-id': 'journal-link' }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' } } });
  t.equal(paid.statusCode, 201);

  const entry = await withEvents(app, idOf(paid));
  t.match(entry.events, [{ stream: `order-${M1.id}:10000000001`, revision: 0, position: Number, type: 'PaymentRecorded' }]);
  const events = (await app.inject({ method: 'GET', url: '/admin/api/events?correlationId=journal-link', headers: { authorization: ADMIN } })).json() as { events: Entry[] };
  t.equal(events.events.length, 1);
  const event = events.events[0]!;
  t.equal(event.metadata.requestId, entry.id, "the event's requestId is the entry's id");
  t.same([event.stream, event.revision, event.position, event.type], [entry.events[0].stream, entry.events[0].revision, entry.events[0].position, entry.events[0].type]);
  const back = await app.inject({ method: 'GET', url: `/admin/api/requests/${event.metadata.requestId}`, headers: { authorization: ADMIN } });
  t.equal((back.json() as Entry).id, idOf(paid), 'and back from the event to its request');

  const creation = await withEvents(app, idOf(created));
  t.match(creation, { operation: 'CREATE_TOKEN', token, events: [{ stream: `token-REPO01:${token}`, revision: 0, type: 'TokenCreated' }] });
  const refused = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '2.00', currency: 'USD' } } });
  t.equal(refused.statusCode, 400);
  t.same((await journal(app, '?status=400')).requests[0]!.events, [], 'a refused request appended nothing');
});

t.test('refusals before the handler: 413, 415, 503 and unknown paths', async (t) => {
  const app = await buildTestApp(t, { adminPassword: ADMIN_PASSWORD, limits: { bodyLimit: 2000, maxInFlight: 1 } });
  let letGo: () => void = () => {};
  const held = new Promise<void>((resolve) => { letGo = resolve; });
  app.get('/test/hold', async () => { await held; return { held: true }; });
  const token = await createToken(app, M1);
  const large = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json' }, payload: JSON.stringify({ ...cardBody(), pad: 'x'.repeat(3000) }) });
  t.equal(large.statusCode, 413);
  const encoded = await app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json', 'content-encoding': 'compress' }, payload: 'abc' });
  t.equal(encoded.statusCode, 415);
  const unknown = await app.inject({ method: 'GET', url: '/nowhere/5123450000000008?x=1' });
  t.equal(unknown.statusCode, 404);
  const holding = app.inject({ method: 'GET', url: '/test/hold' });
  await waitFor(() => app.inFlight() >= 1, 'the held request in flight', { intervalMs: 5 });
  const busy = await app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', '1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' }, card: { securityCode: '100' } } });
  t.equal(busy.statusCode, 503);
  letGo();
  await holding;

  const { text, requests } = await journal(app);
  t.match(requests, [
    { id: idOf(busy), status: 503, operation: 'PAY', merchant: M1.id, order: '10000000001', token, request: { card: { securityCode: 'xxx' } }, refusal: { field: null, explanation: /MAX_IN_FLIGHT/ } },
    { id: idOf(unknown), status: 404, path: '/nowhere/512345xxxxxx0008', operation: null, request: null, refusal: { explanation: String } },
    { id: idOf(encoded), status: 415, operation: 'CREATE_TOKEN', merchant: M1.id, request: null },
    { id: idOf(large), status: 413, operation: 'CREATE_TOKEN', merchant: M1.id, request: null },
  ]);
  t.notOk(requests.some((r) => r.path === '/test/hold'), 'a path outside the API is not recorded');
  t.notOk(text.includes('5123450000000008'));
});

t.test('bodies over 16 KB are not kept, whether sent with a Content-Length, chunked or encoded: the size they had', async (t) => {
  const app = await appWith(t);
  const large = JSON.stringify({ ...cardBody(), pad: 'x'.repeat(20_000) });
  const small = JSON.stringify({ ...cardBody(), pad: 'x'.repeat(100) });
  const size = Buffer.byteLength(large);
  const send = (payload: string | Buffer | Readable, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: tokenPath(M1.id), headers: { authorization: tokenAuth(M1), 'content-type': 'application/json', ...headers }, payload });
  const chunked = { 'transfer-encoding': 'chunked' };
  // In pieces, as a client streaming its body sends it.
  const pieces = (text: string | Buffer) => Readable.from([Buffer.from(text).subarray(0, 1000), Buffer.from(text).subarray(1000)]);
  const sent = [
    await send(large),
    await send(pieces(large), chunked),
    await send(pieces(gzipSync(large)), { ...chunked, 'content-encoding': 'gzip' }),
    await send(gzipSync(large), { 'content-encoding': 'gzip' }),
    await send(pieces(small), chunked),
  ];
  t.ok(gzipSync(large).length < 16_384, 'encoded, the large body is under 16 KB');
  const entries = new Map((await journal(app)).requests.map((r) => [r.id, r]));
  const requests = sent.map((res) => entries.get(idOf(res))?.request);
  const omitted = `[a body of ${size} bytes: not kept]`;
  t.same(requests.slice(0, 4), [omitted, omitted, omitted, omitted], 'with a Content-Length, chunked, chunked and gzip, gzip with its (encoded) Content-Length: the same');
  t.same(requests[4], { ...cardBody('512345xxxxxx0008'), pad: 'x'.repeat(100) }, 'a small body sent chunked: kept, masked');
  t.equal(sent[0]!.statusCode, 400, 'refused (the member pad is not the API\'s): read and parsed all the same');
  t.same(sent.map((res) => res.body), sent.map(() => sent[0]!.body), 'each read and answered as the first');
});
