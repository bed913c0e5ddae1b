// Unique-card token management (spec rule 3): a card number already stored returns its token.
import t from 'tap';
import { buildTestApp, cardBody, M1, tokenAuth, tokenPath, UNIQUE } from '../helpers/app.js';

const store = (app: Awaited<ReturnType<typeof buildTestApp>>, number: string, month = '1', year = '39', m = UNIQUE) =>
  app.inject({ method: 'POST', url: tokenPath(m.id), headers: { authorization: tokenAuth(m) }, payload: cardBody(number, month, year) });

const typesIn = async (app: Awaited<ReturnType<typeof buildTestApp>>) =>
  (await app.gateway.store.readAll()).map((e) => e.type);

t.test('twenty simultaneous requests for one card produce one token', async (t) => {
  const app = await buildTestApp(t);
  const answers = await Promise.all(Array.from({ length: 20 }, () => store(app, '4508750015741019')));
  t.same(answers.map((a) => a.statusCode), Array(20).fill(201));
  const tokens = new Set(answers.map((a) => a.json().token));
  t.equal(tokens.size, 1, 'every answer names the same token');
  const types = await typesIn(app);
  t.equal(types.filter((type) => type === 'TokenCreated').length, 1);
  t.equal(types.filter((type) => type === 'AccountIdentifierReserved').length, 1);
});

t.test('the same card again returns its token; a new expiry updates it', async (t) => {
  const app = await buildTestApp(t);
  const first = (await store(app, '5123450000000008', '1', '39')).json();
  const again = (await store(app, '5123450000000008', '1', '39')).json();
  t.equal(again.token, first.token);
  t.notOk((await typesIn(app)).includes('TokenUpdated'), 'nothing changed, nothing recorded');
  const renewed = (await store(app, '5123450000000008', '5', '39')).json();
  t.equal(renewed.token, first.token);
  t.equal(renewed.sourceOfFunds.provided.card.expiry, '0539');
  t.equal((await typesIn(app)).filter((type) => type === 'TokenUpdated').length, 1);
  const other = (await store(app, '4012000033330026')).json();
  t.not(other.token, first.token, 'another card gets another token');
  const doc = await app.gateway.readModels.get<{ sourceOfFunds: { provided: { card: { expiry: string } } } }>('tokens', `REPO04/${first.token}`);
  t.equal(doc?.sourceOfFunds.provided.card.expiry, '0539', 'the read model follows the update');
});

t.test('reservation streams never carry the card number', async (t) => {
  const app = await buildTestApp(t);
  await store(app, '5123450000000008');
  const events = await app.gateway.store.readAll();
  const reservation = events.find((e) => e.type === 'AccountIdentifierReserved');
  t.ok(reservation);
  t.notMatch(JSON.stringify(events, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)), '5123450000000008');
  t.notMatch(reservation?.stream ?? '', '5123450000000008');
});

t.test('a UNIQUE_TOKEN repository creates a new token each time', async (t) => {
  const app = await buildTestApp(t);
  const a = (await store(app, '5123450000000008', '1', '39', M1)).json();
  const b = (await store(app, '5123450000000008', '1', '39', M1)).json();
  t.not(a.token, b.token);
});
