// "Different how?": a repeat refused because its transaction is already recorded with a different
// request (domain/order/hold.ts) gets the gateway's explanation, which does not say what differs;
// its journal entry (services/journal/differences.ts) names the entry that recorded the transaction
// and the fields whose masked values differ. The API's error body stays the gateway's.
import t, { type Test } from 'tap';
import { basic, buildTestApp, createToken, M1, payAuth, payPath, tokenAuth } from '../helpers/app.js';
import type { JournalPluginOptions } from '../../plugins/journal.js';
import { waitFor } from '../helpers/poll.js';
import { differsOf, MAX_DIFFERENCES } from '../../services/journal/differences.js';
import type { JournalEntry } from '../../services/journal/journal.js';

const ADMIN_PASSWORD = 'admin-password-for-tests';
const ADMIN = basic('admin', ADMIN_PASSWORD);
type App = Awaited<ReturnType<typeof buildTestApp>>;
type Entry = Record<string, any>;

const appWith = (t: Test, journal?: JournalPluginOptions) => buildTestApp(t, { adminPassword: ADMIN_PASSWORD, ...(journal ? { journal } : {}) });
const txnPath = (order: string, txn: string) => `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/${txn}`;
const orderApi = (app: App, order: string, txn: string, payload: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'PUT', url: txnPath(order, txn), headers: { authorization: tokenAuth(M1), ...headers }, payload });
const idOf = (res: { headers: Record<string, unknown> }) => String(res.headers['x-request-id']);
const pay = (amount: string, sourceOfFunds: object) => ({ apiOperation: 'PAY', order: { amount, currency: 'USD' }, sourceOfFunds });
const card = (number: string) => ({ type: 'CARD', provided: { card: { number, expiry: { month: '1', year: '39' }, securityCode: '123' } } });

async function entry(app: App, id: string): Promise<{ status: number; body: Entry; text: string }> {
  const res = await app.inject({ method: 'GET', url: `/admin/api/requests/${encodeURIComponent(id)}`, headers: { authorization: ADMIN } });
  return { status: res.statusCode, body: res.json() as Entry, text: res.body };
}

/** An accepted request's entry once the log has handed its events over (they may come after the answer). */
const recorded = (app: App, id: string) =>
  waitFor(() => entry(app, id), `the events of request ${id}`, { until: ({ status, body }) => status === 200 && body.events.length > 0, intervalMs: 20 });

const ALREADY_RECORDED = /^Transaction 't1' of order '\w+' is already recorded with a different request\./;

t.test('a PAY repeated with another amount: the refused entry names the PAY that recorded it and order.amount 1.00 → 2.00', async (t) => {
  const app = await appWith(t);
  const token = await createToken(app, M1);
  const paid = await orderApi(app, 'o1', 't1', pay('1.00', { type: 'CARD', token }), { 'x-correlation-id': 'checkout-7' });
  t.equal(paid.statusCode, 201, paid.body);
  const original = (await recorded(app, idOf(paid))).body;
  const refused = await orderApi(app, 'o1', 't1', pay('2.00', { type: 'CARD', token }));
  t.equal(refused.statusCode, 400, refused.body);
  const error = (refused.json() as { error: Record<string, unknown> }).error;
  t.match(error.explanation, ALREADY_RECORDED);
  t.same(Object.keys(refused.json() as object).sort(), ['error', 'result'], "the API's answer is the gateway's error body, nothing added");

  const { body } = await entry(app, idOf(refused));
  t.same(body.differsFrom, { id: idOf(paid), at: original.at, correlationId: 'checkout-7' }, 'the entry that recorded the transaction');
  t.same(body.differences, [{ path: 'order.amount', before: '1.00', after: '2.00' }], 'what differs: the amount, as each body has it');
  t.equal(body.refusal.explanation, error.explanation, "the refusal stays the gateway's words");

  const listed = await app.inject({ method: 'GET', url: `/admin/api/requests?merchant=${M1.id}&order=o1`, headers: { authorization: ADMIN } });
  const requests = (listed.json() as { requests: Entry[] }).requests;
  t.same(requests.map((r) => [r.status, r.differsFrom?.id]), [[400, idOf(paid)], [201, undefined]], 'the list says so too; the accepted PAY names nothing');

  const replayed = await orderApi(app, 'o1', 't1', pay('1.00', { type: 'CARD', token }));
  t.equal(replayed.statusCode, 201, 'the identical repeat replays');
  t.equal((await entry(app, idOf(replayed))).body.differsFrom, undefined, 'an accepted repeat names nothing');
  const again = await orderApi(app, 'o1', 't1', pay('3.00', { type: 'CARD', token }));
  t.equal((await entry(app, idOf(again))).body.differsFrom.id, idOf(paid), 'the one that recorded it, not the replay since');
});

t.test('version 3 Pay with token repeated with another token: the tokens as the journal shows them', async (t) => {
  const app = await appWith(t);
  const first = await createToken(app, M1);
  const second = await createToken(app, M1, '4111111111111111');
  const payWith = (token: string) => app.inject({ method: 'PUT', url: payPath(M1.id, token, '10000000001', 't1'), headers: { authorization: payAuth(M1) }, payload: { apiOperation: 'PAY', transaction: { amount: '5.00', currency: 'USD' } } });
  const paid = await payWith(first);
  t.ok(paid.statusCode < 300, paid.body);
  await recorded(app, idOf(paid));
  const refused = await payWith(second);
  t.equal(refused.statusCode, 400, refused.body);
  t.match((refused.json() as { error: { explanation: string } }).error.explanation, ALREADY_RECORDED);

  const { body } = await entry(app, idOf(refused));
  t.equal(body.differsFrom.id, idOf(paid));
  t.same(body.token, second);
  t.same(body.differences, [{ path: 'path', before: payPath(M1.id, first, '10000000001', 't1'), after: payPath(M1.id, second, '10000000001', 't1') }],
    'the token is in the path (the bodies are the same): the paths, each naming its token');

  const viaOrderApi = await orderApi(app, 'o2', 't1', pay('5.00', { type: 'CARD', token: first }));
  t.equal(viaOrderApi.statusCode, 201, viaOrderApi.body);
  await recorded(app, idOf(viaOrderApi));
  const otherToken = await orderApi(app, 'o2', 't1', pay('5.00', { type: 'CARD', token: second }));
  t.equal(otherToken.statusCode, 400, otherToken.body);
  const differs = (await entry(app, idOf(otherToken))).body;
  t.equal(differs.differsFrom.id, idOf(viaOrderApi));
  t.same(differs.differences, [{ path: 'sourceOfFunds.token', before: first, after: second }], 'the token ids, before and after');
});

t.test('a card number differing: shown masked 6.4, never in clear', async (t) => {
  const app = await appWith(t);
  const paid = await orderApi(app, 'o1', 't1', pay('1.00', card('5123450000000008')));
  t.equal(paid.statusCode, 201, paid.body);
  await recorded(app, idOf(paid));
  const refused = await orderApi(app, 'o1', 't1', pay('1.00', card('4111111111111111')));
  t.equal(refused.statusCode, 400, refused.body);

  const { body, text } = await entry(app, idOf(refused));
  t.equal(body.differsFrom.id, idOf(paid));
  t.same(body.differences, [{ path: 'sourceOfFunds.provided.card.number', before: '512345xxxxxx0008', after: '411111xxxxxx1111' }], 'masked as the journal masks them');
  for (const secret of ['5123450000000008', '4111111111111111', '"123"']) t.notOk(text.includes(secret), `no ${secret} in the entry`);
  const list = await app.inject({ method: 'GET', url: '/admin/api/requests?status=400', headers: { authorization: ADMIN } });
  for (const secret of ['5123450000000008', '4111111111111111']) t.notOk(list.body.includes(secret), `no ${secret} in the list`);
});

t.test('the recording request no longer in the journal: no differsFrom, the entry read as ever', async (t) => {
  const app = await appWith(t, { size: 3 });
  const token = await createToken(app, M1);
  const paid = await orderApi(app, 'o1', 't1', pay('1.00', { type: 'CARD', token }));
  t.equal(paid.statusCode, 201, paid.body);
  await recorded(app, idOf(paid));
  for (let i = 0; i < 2; i++) await app.inject({ method: 'GET', url: '/api/rest/version/100/information' });
  const refused = await orderApi(app, 'o1', 't1', pay('2.00', { type: 'CARD', token }));
  t.equal(refused.statusCode, 400, refused.body);
  t.equal((await entry(app, idOf(paid))).status, 404, 'the PAY is gone from the journal');

  const { status, body } = await entry(app, idOf(refused));
  t.equal(status, 200);
  t.match(body.refusal.explanation, ALREADY_RECORDED);
  t.equal(body.differsFrom, undefined, 'no differsFrom');
  t.equal(body.differences, undefined, 'no differences');
  const list = await app.inject({ method: 'GET', url: '/admin/api/requests', headers: { authorization: ADMIN } });
  t.equal(list.statusCode, 200);
  t.equal((list.json() as { requests: Entry[] }).requests[0]!.id, idOf(refused));
});

t.test('bounded: at most MAX_DIFFERENCES fields listed, the rest counted', async (t) => {
  const entryOf = (id: string, body: object): JournalEntry => ({
    id, atMs: Date.parse('2026-11-28T12:00:00.000Z'), method: 'PUT', path: txnPath('o1', 't1'), operation: 'PAY', status: 201, durationMs: 1,
    merchant: M1.id, correlationId: id, order: 'o1', transaction: 't1', token: null, request: JSON.stringify(body), response: null, answerAt: -1, answerBytes: 0, requestBytes: 0, nvp: false, events: '',
  });
  const many = (value: string) => Object.fromEntries(Array.from({ length: MAX_DIFFERENCES + 5 }, (_, i) => [`f${String(i).padStart(2, '0')}`, value]));
  const original = entryOf('a', many('1'));
  const refusedBody = many('2');
  const differs = differsOf(original, entryOf('b', refusedBody), refusedBody, (e) => JSON.parse(e.request!));
  t.equal(differs.differences?.length, MAX_DIFFERENCES, `${MAX_DIFFERENCES} listed`);
  t.same(differs.differences?.[0], { path: 'f00', before: '1', after: '2' });
  t.equal(differs.differencesLeftOut, 5, 'the 5 others counted');
  t.same(differsOf(original, entryOf('b', refusedBody), '[a body of 40000 bytes: not kept]', () => null), { differsFrom: { id: 'a', at: '2026-11-28T12:00:00.000Z', correlationId: 'a' } },
    'a body not kept: which request, no differences');
});
