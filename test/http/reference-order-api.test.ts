// Issue 15: Create Token with referenceOrderId naming an order of the order API (versions 1-100 but
// the deactivated ones): its latest successful PAY or AUTHORIZE paid with a token or a session
// gives the card; a card sent in the request was never stored, so that order is refused with the
// reason.
import t from 'tap';
import { buildTestApp, createToken, M1, M2, tokenAuth, tokenPath } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid } from './http.fixture.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
const put = (a: App, order: string, payload: Record<string, unknown>, m = M1) => a.inject({
  method: 'PUT', url: `/api/rest/version/100/merchant/${m.id}/order/${order}/transaction/${uniqueId()}`, headers: { authorization: tokenAuth(m) }, payload,
});
const fromOrder = (a: App, order: string, m = M1) => a.inject({
  method: 'POST', url: tokenPath(m.id), headers: { authorization: tokenAuth(m) }, payload: { referenceOrderId: order, sourceOfFunds: { type: 'CARD' } },
});

t.test('referenceOrderId names an order of the order API', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1, '4508750015741019', '1', '39');
  const byToken = uniqueId();
  t.equal((await put(a, byToken, { apiOperation: 'AUTHORIZE', order: { amount: '9.00', currency: 'USD' }, sourceOfFunds: { token } })).statusCode, 201);
  const made = await fromOrder(a, byToken);
  t.equal(made.statusCode, 201, made.body);
  t.equal(made.json().sourceOfFunds.provided.card.number, '450875xxxxxx1019', "the card of the order's token");
  t.equal(made.json().referenceOrderId, byToken, 'echoed');

  const session = (await a.inject({ method: 'POST', url: `/api/rest/version/100/merchant/${M1.id}/session`, headers: { authorization: tokenAuth(M1) } })).json().session.id;
  await a.inject({ method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/session/${session}`, headers: { authorization: tokenAuth(M1) },
    payload: { sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } } });
  const bySession = uniqueId();
  t.equal((await put(a, bySession, { apiOperation: 'PAY', order: { amount: '3.00', currency: 'USD' }, session: { id: session } })).statusCode, 201);
  const fromSession = await fromOrder(a, bySession);
  t.equal(fromSession.statusCode, 201, fromSession.body);
  t.equal(fromSession.json().sourceOfFunds.provided.card.number, '512345xxxxxx0008', "the card the order's session holds");

  const byCard = uniqueId();
  t.equal((await put(a, byCard, { apiOperation: 'PAY', order: { amount: '3.00', currency: 'USD' }, sourceOfFunds: { provided: { card: { number: '5123450000000008', expiry: { month: '1', year: '39' } } } } })).statusCode, 201);
  const refused = expectInvalid(t, await fromOrder(a, byCard), { field: 'referenceOrderId' });
  t.match(refused.error.explanation, /never stored/, 'the card in the request was never stored');
  expectInvalid(t, await fromOrder(a, byToken, M2), { field: 'referenceOrderId' }, "another merchant's order is unknown");
  expectInvalid(t, await fromOrder(a, uniqueId()), { field: 'referenceOrderId' }, 'an unknown order');
  const declined = uniqueId();
  const other = await createToken(a, M1, '5123450000000008', '5', '39');
  await put(a, declined, { apiOperation: 'AUTHORIZE', order: { amount: '9.00', currency: 'USD' }, sourceOfFunds: { token: other } });
  expectInvalid(t, await fromOrder(a, declined), { field: 'referenceOrderId' }, 'no successful payment (declined: expiry 05/39)');
});
