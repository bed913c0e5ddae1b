// The 3-D Secure steps (INITIATE_AUTHENTICATION, AUTHENTICATE_PAYER) take the payer's email
// address (customer.email), as the reference's Authenticate Payer asks for as much about the payer
// as the merchant has: each answer echoes it, Retrieve Transaction and Retrieve Order show it on
// the AUTHENTICATION transaction, Authenticate Payer's own replacing Initiate Authentication's. A
// value that is no email address is refused on its field, nothing recorded.
import t from 'tap';
import { buildTestApp, M1, tokenAuth } from '../helpers/app.js';
import { expectInvalid, type App } from './http.fixture.js';
import { FRICTIONLESS } from './hosted-checkout.fixture.js';
import { authenticateBody, cardSource, initiateBody, newFlow, payBody, put, transactionUrl } from './three-d-secure.fixture.js';

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

t.test('a customer that is no object, an email that is no string or under 4 characters: refused on its field on PAY and on both 3-D Secure steps; an empty 3DSecureId too', async (t) => {
  const a = await buildTestApp(t);
  const ready = newFlow(a);
  t.equal((await put(ready, 'a1', initiateBody(cardSource(FRICTIONLESS)))).statusCode, 201);
  const head = await a.gateway.store.headPosition();
  const bodies: Array<[string, (customer: unknown) => [ReturnType<typeof newFlow>, string, object]]> = [
    ['PAY', (customer) => [newFlow(a), 'p1', { ...payBody(undefined, cardSource('5123450000000008')), customer }]],
    ['INITIATE_AUTHENTICATION', (customer) => [newFlow(a), 'a1', initiateBody(cardSource(FRICTIONLESS), { customer })]],
    ['AUTHENTICATE_PAYER', (customer) => [ready, 'a1', authenticateBody('12.50', { customer })]],
  ];
  const cases: Array<[string, unknown, string]> = [
    ['customer a string', 'jo@example.com', 'customer'], ['customer a list', [{ email: 'jo@example.com' }], 'customer'],
    ['email a number', { email: 12 }, 'customer.email'], ['email of 3 characters', { email: 'a@b' }, 'customer.email'],
  ];
  // (customer or customer.email sent as null counts as not sent, as any member: test/http/null-members.test.ts.)
  for (const [operation, body] of bodies) {
    for (const [what, customer, field] of cases) {
      const [flow, transaction, payload] = body(customer);
      expectInvalid(t, await put(flow, transaction, payload), { field }, `${operation}: ${what}`);
    }
  }
  // (A null 3DSecureId names no check and is paid as without one: test/http/order-api.test.ts.)
  expectInvalid(t, await put(newFlow(a), 'p1', { ...payBody(undefined, cardSource('5123450000000008')), '3DSecureId': '' }),
    { field: '3DSecureId', explanation: 'No check has been performed for this merchant and 3D Secure Id.' }, 'PAY, 3DSecureId ""');
  t.equal(await a.gateway.store.headPosition(), head, 'no refusal recorded anything');
});
