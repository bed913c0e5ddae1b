// The 3-D Secure steps (INITIATE_AUTHENTICATION, AUTHENTICATE_PAYER) take the payer's email
// address (customer.email), as the reference's Authenticate Payer asks for as much about the payer
// as the merchant has: each answer echoes it, Retrieve Transaction and Retrieve Order show it on
// the AUTHENTICATION transaction, Authenticate Payer's own replacing Initiate Authentication's. A
// value that is no email address is refused on its field, nothing recorded.
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { expectInvalid, type App } from './http.fixture.js';
import { FRICTIONLESS } from './hosted-checkout.fixture.js';
import { authenticateBody, cardSource, initiateBody, newFlow, put, transactionUrl } from './three-d-secure.fixture.js';

const get = (a: App, url: string) => a.inject({ method: 'GET', url, headers: { authorization: tokenAuth(M1) } });
const orderUrl = (orderId: string) => `/api/rest/version/100/merchant/${M1.id}/order/${encodeURIComponent(orderId)}`;

t.test('customer.email on Initiate Authentication and Authenticate Payer: echoed, shown on the AUTHENTICATION transaction', async (t) => {
  const a = await buildTestApp(t);
  const f = newFlow(a);
  const initiated = await put(f, 'a1', initiateBody(cardSource(FRICTIONLESS), { customer: { email: 'jo@example.com' } }));
  t.equal(initiated.statusCode, 201, initiated.body);
  t.same(initiated.json().customer, { email: 'jo@example.com' }, 'Initiate Authentication\'s answer');
  const payer = await put(f, 'a1', authenticateBody());
  t.equal(payer.json().transaction.authenticationStatus, 'AUTHENTICATION_SUCCESSFUL', payer.body);
  t.same(payer.json().customer, { email: 'jo@example.com' }, 'Authenticate Payer sent none: Initiate Authentication\'s');
  t.same((await get(a, transactionUrl(f.orderId, 'a1'))).json().customer, { email: 'jo@example.com' }, 'Retrieve Transaction');

  const g = newFlow(a);
  t.notOk('customer' in (await put(g, 'a1', initiateBody(cardSource(FRICTIONLESS)))).json(), 'none sent: none shown');
  t.same((await put(g, 'a1', authenticateBody('12.50', { customer: { email: 'own@example.com' } }))).json().customer, { email: 'own@example.com' });
  const order = (await get(a, orderUrl(g.orderId))).json();
  t.same(order.transaction.map((x: { customer?: unknown }) => x.customer), [{ email: 'own@example.com' }], 'Retrieve Order: on the authentication');
  t.equal(order.transaction[0].gatewayEntryPoint, 'WEB_SERVICES_API', 'a merchant\'s own authentication');

  const refused = newFlow(a);
  expectInvalid(t, await put(refused, 'a1', initiateBody(cardSource(FRICTIONLESS), { customer: { email: 'not-an-email' } })),
    { field: 'customer.email' }, 'Initiate Authentication: not an email address');
  t.equal((await put(refused, 'a1', initiateBody(cardSource(FRICTIONLESS)))).statusCode, 201, 'nothing recorded by the refusal');
  expectInvalid(t, await put(refused, 'a1', authenticateBody('12.50', { customer: { email: `${'x'.repeat(250)}@example.com` } })),
    { field: 'customer.email' }, 'Authenticate Payer: longer than 256');
});
