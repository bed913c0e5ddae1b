// A request that names a session: the gateway forms the final request from the session's fields
// and those sent directly, the request's own winning member by member
// (services/session/session-request.ts), on every operation that takes session.id: Create or
// Update Token, Tokenize, and the order API's PAY, AUTHORIZE and VERIFY.
import t from 'tap';
import { buildTestApp, M1, MERCHANTS, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid } from './http.fixture.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
type M = { id: string; apiPassword: string };
const SUPPLIED = MERCHANTS.merchants[3]!;
const base = (m: M) => `/api/rest/version/100/merchant/${m.id}`;
const call = (a: App, m: M, method: 'POST' | 'PUT' | 'GET', url: string, payload?: unknown) =>
  a.inject({ method, url: `${base(m)}${url}`, headers: { authorization: tokenAuth(m) }, ...(payload === undefined ? {} : { payload: payload as object }) });

async function sessionWith(a: App, m: M, fields: Record<string, unknown>): Promise<string> {
  const id = (await call(a, m, 'POST', '/session')).json().session.id as string;
  const updated = await call(a, m, 'PUT', `/session/${id}`, fields);
  if (updated.statusCode !== 200) throw new Error(`Update Session: ${updated.statusCode} ${updated.body}`);
  return id;
}
const card = (extra: Record<string, unknown> = {}) => ({ sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' }, ...extra } } } });

t.test("Mastercard's sample: Create Token with only session.id takes the session's card, and its sourceOfFunds.type CARD", async (t) => {
  const a = await buildTestApp(t);
  const id = await sessionWith(a, M1, card({ securityCode: '100' }));
  const res = await call(a, M1, 'POST', '/token', { session: { id } });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().sourceOfFunds.type, 'CARD', 'the type the session holds');
  t.equal(res.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
  t.equal(res.json().sourceOfFunds.provided.card.expiry, '0139');
  t.equal(res.json().status, 'VALID');
  // With acquirer verification the session's security code is used (and then used up).
  const verified = await call(a, M1, 'POST', '/token', { session: { id }, transaction: { currency: 'USD' } });
  t.equal(verified.statusCode, 201, verified.body);
  t.equal(verified.json().response.gatewayCode, 'EXTERNAL_VERIFICATION_SUCCESSFUL');
  // Without a session, a missing source of funds is still named.
  expectInvalid(t, await call(a, M1, 'POST', '/token', { correlationId: 'c' }), { field: 'sourceOfFunds', validationType: 'MISSING' });
  // A session without a card gives no source of funds: the same refusal.
  const empty = (await call(a, M1, 'POST', '/session')).json().session.id as string;
  expectInvalid(t, await call(a, M1, 'POST', '/token', { session: { id: empty } }), { field: 'sourceOfFunds', validationType: 'MISSING' });
});

t.test('Tokenize (PUT .../token/{id}) with only session.id stores the session card under the merchant\'s id', async (t) => {
  const a = await buildTestApp(t);
  const id = await sessionWith(a, SUPPLIED, card());
  const res = await call(a, SUPPLIED, 'PUT', '/token/mine42', { session: { id } });
  t.equal(res.statusCode, 201, res.body);
  t.equal(res.json().token, 'mine42');
  t.equal(res.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008');
});

t.test("the request's own fields win member by member; the session fills the others", async (t) => {
  const a = await buildTestApp(t);
  // The session holds an expiry that declines (05/39) and a security code NOT_PROCESSED (101).
  const id = await sessionWith(a, M1, { order: { amount: '9.00', currency: 'USD' }, ...card({ expiry: { month: '5', year: '39' }, securityCode: '101' }) });
  const pay = (body: Record<string, unknown>) => call(a, M1, 'PUT', `/order/${uniqueId()}/transaction/1`, { session: { id }, ...body });
  const declined = await pay({ apiOperation: 'PAY' });
  t.equal(declined.statusCode, 201, declined.body);
  t.equal(declined.json().response.gatewayCode, 'DECLINED', "the session's card (05/39)");
  t.equal(declined.json().transaction.amount, 9, "the session's amount");
  t.equal(declined.json().response.cardSecurityCode.gatewayCode, 'NOT_PROCESSED', "the session's security code");

  // The request sends part of the card (the expiry): number and security code still come from the session.
  const approved = await pay({ apiOperation: 'AUTHORIZE', order: { amount: '3.00' }, sourceOfFunds: { provided: { card: { expiry: { month: '1', year: '39' } } } } });
  t.equal(approved.statusCode, 201, approved.body);
  t.equal(approved.json().response.gatewayCode, 'APPROVED', "the request's expiry (01/39)");
  t.equal(approved.json().transaction.amount, 3, "the request's amount");
  t.equal(approved.json().order.currency, 'USD', "the session's currency");
  t.equal(approved.json().response.cardSecurityCode.gatewayCode, 'NOT_PROCESSED');
  t.equal(approved.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', "the session's card number, masked");

  // A number sent directly with the session's expiry: a complete card of two sources.
  const visa = await pay({ apiOperation: 'VERIFY', sourceOfFunds: { provided: { card: { number: '4508750015741019' } } } });
  t.equal(visa.statusCode, 201, visa.body);
  t.equal(visa.json().sourceOfFunds.provided.card.brand, 'VISA', "the request's number");
  t.equal(visa.json().order.currency, 'USD', "VERIFY takes the session's currency");

  // The session's amount is a field like the others: with another currency sent, it is read in that one.
  const euros = await pay({ apiOperation: 'PAY', order: { currency: 'EUR' }, sourceOfFunds: { provided: { card: { expiry: { month: '1', year: '39' } } } } });
  t.equal(euros.statusCode, 201, euros.body);
  t.same([euros.json().transaction.amount, euros.json().transaction.currency], [9, 'EUR']);

  // (Last: a token request uses the session's security code up.)
  const token = await call(a, M1, 'POST', '/token', { session: { id }, sourceOfFunds: { provided: { card: { expiry: { month: '2', year: '39' } } } } });
  t.equal(token.json().sourceOfFunds.provided.card.expiry, '0239', "the request's expiry over the session's");

  const events = JSON.stringify((await a.gateway.store.readAll()).map((e) => e.data));
  t.notMatch(events, /5123450000000008|4508750015741019/, 'no card number in clear in any event');
});
