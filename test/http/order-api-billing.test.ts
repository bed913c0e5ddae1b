// The order API echoes the billing address of a merchant's own PAY, AUTHORIZE or VERIFY: in its
// answer, a repeat's, Retrieve Transaction and Retrieve Order (the latest payment's), as the
// payment page's payments already were; a follow-on transaction (CAPTURE) shows the order's (the
// real gateway's recorded answers to a CAPTURE, a REFUND and a VOID carried the authorization's
// billing details, the VOID having sent none). The 3-D
// Secure steps (INITIATE_AUTHENTICATION, AUTHENTICATE_PAYER) echo theirs alike. Its members are
// checked with the bounds of a token's address.
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid, type App } from './http.fixture.js';
import { FRICTIONLESS } from './hosted-checkout.fixture.js';
import { authenticateBody, cardSource, initiateBody, newFlow, put as put3ds } from './three-d-secure.fixture.js';

const orderPath = (order: string, version = 100) => `/api/rest/version/${version}/merchant/${M1.id}/order/${encodeURIComponent(order)}`;
const put = (a: App, order: string, txn: string, payload: Record<string, unknown>, version = 100) =>
  a.inject({ method: 'PUT', url: `${orderPath(order, version)}/transaction/${txn}`, headers: { authorization: tokenAuth(M1) }, payload });
const get = (a: App, url: string) => a.inject({ method: 'GET', url, headers: { authorization: tokenAuth(M1) } });

const ADDRESS = {
  street: '1 Alpha St', street2: 'Flat 4', city: 'Ottawa', stateProvince: 'Ontario', stateProvinceCode: 'ON', postcodeZip: 'K1C 2N6', country: 'CAN', company: 'Shop & Co',
};

t.test('PAY and AUTHORIZE with billing.address: the address in the answer, the repeat, Retrieve Transaction and Retrieve Order', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const order = uniqueId();
  const body = { apiOperation: 'AUTHORIZE', order: { amount: '40.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address: ADDRESS } };
  const first = await put(a, order, 'auth-1', body);
  t.equal(first.statusCode, 201, first.body);
  t.same(first.json().billing, { address: ADDRESS }, 'the answer: the address as sent');
  t.equal(first.json().response.gatewayCode, 'APPROVED');
  t.same((await put(a, order, 'auth-1', body)).json().billing, { address: ADDRESS }, 'an identical repeat: the same');
  t.same((await get(a, `${orderPath(order)}/transaction/auth-1`)).json().billing, { address: ADDRESS }, 'Retrieve Transaction');

  const captured = await put(a, order, 'cap-1', { apiOperation: 'CAPTURE', transaction: { amount: '40.00', currency: 'USD' } });
  t.equal(captured.statusCode, 201, captured.body);
  t.same(captured.json().billing, { address: ADDRESS }, 'a capture shows the order\'s address');
  const retrieved = (await get(a, orderPath(order))).json();
  t.same(retrieved.billing, { address: ADDRESS }, 'Retrieve Order: the payment\'s address at the order\'s level');
  t.same(retrieved.transaction.map((x: { billing?: unknown }) => x.billing), [{ address: ADDRESS }, { address: ADDRESS }], 'on the authorization and the capture');
  t.notOk('customer' in retrieved || 'shipping' in retrieved, 'nothing else of the payer\'s');

  // A later payment on another order with another address, through version 60: its own.
  const other = uniqueId();
  const paid = await put(a, other, '1', { apiOperation: 'PAY', order: { amount: '5.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address: { street: '9 Kilo St', country: 'USA' } } }, 60);
  t.equal(paid.statusCode, 201, paid.body);
  t.same(paid.json().billing, { address: { street: '9 Kilo St', country: 'USA' } }, 'PAY: only the members sent');
  const again = await put(a, other, '2', { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address: { street: '10 Kilo St', country: 'USA' } } });
  t.equal(again.statusCode, 201, again.body);
  t.same((await get(a, orderPath(other))).json().billing, { address: { street: '10 Kilo St', country: 'USA' } }, 'Retrieve Order: the latest payment\'s');
  const plain = await put(a, uniqueId(), '1', { apiOperation: 'PAY', order: { amount: '1.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token } });
  t.notOk('billing' in plain.json(), 'no address sent: none shown');
});

t.test('a bad address member refused on its field, nothing recorded; the street still read by the AVS rule', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const paid = await put(a, uniqueId(), '1', { apiOperation: 'PAY', order: { amount: '2.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address: { street: '3 Olive St', country: 'GBR' } } });
  t.equal(paid.statusCode, 201, paid.body);
  t.same(paid.json().billing, { address: { street: '3 Olive St', country: 'GBR' } });
  t.equal(paid.json().response.avs?.gatewayCode, 'NAME_ADDRESS_MATCH', 'the street read by the AVS rule (Olive St)');

  const verified = await put(a, uniqueId(), 'v1', { apiOperation: 'VERIFY', order: { currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address: { postcodeZip: '10001', country: 'USA' } } });
  t.equal(verified.statusCode, 201, verified.body);
  t.same(verified.json().billing, { address: { postcodeZip: '10001', country: 'USA' } }, 'VERIFY: echoed too');

  const refusedOrder = uniqueId();
  expectInvalid(t, await put(a, refusedOrder, '1', { apiOperation: 'PAY', order: { amount: '2.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address: { country: 'XYZ' } } }),
    { field: 'billing.address.country' }, 'an unknown country');
  t.equal((await get(a, orderPath(refusedOrder))).statusCode, 400, 'refused: no order');
  const pay = (address: Record<string, unknown>) => put(a, uniqueId(), '1', { apiOperation: 'PAY', order: { amount: '2.00', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address } });
  expectInvalid(t, await pay({ street2: 'x'.repeat(101) }), { field: 'billing.address.street2' }, 'street2 longer than 100');
  expectInvalid(t, await pay({ postcodeZip: 'K1C#2N6' }), { field: 'billing.address.postcodeZip' }, 'a postcode with another character');
  expectInvalid(t, await pay({ stateProvince: 'x'.repeat(21) }), { field: 'billing.address.stateProvince' }, 'a state longer than 20');
  expectInvalid(t, await pay({ stateProvinceCode: 'ont' }), { field: 'billing.address.stateProvinceCode' }, 'a lower-case subdivision code');
  t.equal((await pay({ street: '1 Main St', district: 'taken and not used' })).statusCode, 201, 'an unknown member of the address: taken, as the order API takes others');
});

t.test('INITIATE_AUTHENTICATION and AUTHENTICATE_PAYER with billing.address: echoed by their answers and Retrieve Transaction', async (t) => {
  const a = await buildTestApp(t);
  const f = newFlow(a);
  const initiated = await put3ds(f, 'a1', initiateBody(cardSource(FRICTIONLESS), { billing: { address: ADDRESS } }));
  t.equal(initiated.statusCode, 201, initiated.body);
  t.same(initiated.json().billing, { address: ADDRESS }, 'Initiate Authentication\'s answer');
  const payer = await put3ds(f, 'a1', authenticateBody());
  t.equal(payer.json().transaction.authenticationStatus, 'AUTHENTICATION_SUCCESSFUL', payer.body);
  t.same(payer.json().billing, { address: ADDRESS }, 'Authenticate Payer sent none: the authentication\'s, from Initiate Authentication');
  t.same((await get(a, `${orderPath(f.orderId)}/transaction/a1`)).json().billing, { address: ADDRESS }, 'Retrieve Transaction');

  // Authenticate Payer with an address of its own: that one from then on.
  const g = newFlow(a);
  t.notOk('billing' in (await put3ds(g, 'a1', initiateBody(cardSource(FRICTIONLESS)))).json(), 'none sent: none shown');
  const own = { street: '9 Kilo St', country: 'USA' };
  t.same((await put3ds(g, 'a1', authenticateBody('12.50', { billing: { address: own } }))).json().billing, { address: own });
  const order = (await get(a, orderPath(g.orderId))).json();
  t.same(order.transaction.map((x: { billing?: unknown }) => x.billing), [{ address: own }], 'Retrieve Order: on the authentication');
  t.notOk('billing' in order, 'no payment yet: no billing at the order\'s level');

  const refused = newFlow(a);
  expectInvalid(t, await put3ds(refused, 'a1', initiateBody(cardSource(FRICTIONLESS), { billing: { address: { country: 'XYZ' } } })),
    { field: 'billing.address.country' }, 'Initiate Authentication: an unknown country');
  expectInvalid(t, await put3ds(refused, 'a1', initiateBody(cardSource(FRICTIONLESS), { billing: { address: { street: 'x'.repeat(101) } } })),
    { field: 'billing.address.street' }, 'a street longer than 100');
  t.equal((await put3ds(refused, 'a1', initiateBody(cardSource(FRICTIONLESS)))).statusCode, 201, 'nothing recorded by the refusals');
  expectInvalid(t, await put3ds(refused, 'a1', authenticateBody('12.50', { billing: { address: { country: 'usa' } } })),
    { field: 'billing.address.country' }, 'Authenticate Payer: a lower-case country');
});
