// Issue 3, item 5: referenceOrderId (the card of an earlier successful payment of the merchant,
// no scheme tokenization for a device-account order) and push provisioning
// (sourceOfFunds.schemeTokenProvisioningIdentifier: card details from the provider simulator).
import t from 'tap';
import { M1, M2 } from '../helpers/app.js';
import { expectInvalid, orderId, pay, payBody } from './http.fixture.js';
import { SCHEME, SCHEME_SYNC, app, card, create, retrieve, storeText } from './token-api.fixture.js';

const stored = async (a: Awaited<ReturnType<typeof app>>, m: typeof M1, number: string, month = '1', year = '39') =>
  (await create(a, m, { sourceOfFunds: { type: 'CARD', provided: { card: card(number, month, year) } } })).json().token as string;

t.test("referenceOrderId: the card of the merchant's earlier successful payment is tokenized", async (t) => {
  const a = await app(t);
  const token = await stored(a, M1, '4508750015741019');
  const order = orderId();
  t.equal((await pay(a, token, payBody(), { order })).json().result, 'SUCCESS');
  const res = await create(a, M1, { referenceOrderId: order, sourceOfFunds: { type: 'CARD' } });
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  t.not(body.token, token, 'a new token (UNIQUE_TOKEN repository)');
  t.equal(body.referenceOrderId, order, 'referenceOrderId echoed');
  t.same(body.sourceOfFunds.provided.card, { brand: 'VISA', expiry: '0139', fundingMethod: 'CREDIT', number: '450875xxxxxx1019', scheme: 'VISA' });
  t.equal((await pay(a, body.token, payBody())).json().result, 'SUCCESS', 'the new token pays with the same card');
  t.notMatch(await storeText(a), '4508750015741019');
  const created = (await a.gateway.store.readAll()).filter((e) => e.type === 'TokenCreated').at(-1);
  t.same((created?.data as { origin: unknown }).origin, { referenceOrderId: order });

  expectInvalid(t, await create(a, M1, { referenceOrderId: order, sourceOfFunds: { type: 'CARD', provided: { card: card() } } }),
    { field: 'sourceOfFunds.provided.card', validationType: 'UNSUPPORTED' }, 'refused together with card details');
  expectInvalid(t, await create(a, M2, { referenceOrderId: order, sourceOfFunds: { type: 'CARD' } }), { field: 'referenceOrderId' }, "another merchant's order is unknown");
  expectInvalid(t, await create(a, M1, { referenceOrderId: '10999999999', sourceOfFunds: { type: 'CARD' } }), { field: 'referenceOrderId' }, 'no such order');
  expectInvalid(t, await create(a, M1, { referenceOrderId: 'cart-7', sourceOfFunds: { type: 'CARD' } }), { field: 'referenceOrderId' }, 'not an order id');
  expectInvalid(t, await create(a, M1, { referenceOrderId: order, sourceOfFunds: { type: 'ACH' } }), { field: 'sourceOfFunds.type' }, 'a card source only');

  const declinedToken = await stored(a, M1, '5123450000000008', '5', '39');
  const declinedOrder = orderId();
  t.equal((await pay(a, declinedToken, payBody(), { order: declinedOrder })).json().result, 'FAILURE');
  expectInvalid(t, await create(a, M1, { referenceOrderId: declinedOrder, sourceOfFunds: { type: 'CARD' } }), { field: 'referenceOrderId' }, 'a declined order has no successful payment');
  const deletedOrder = orderId();
  await pay(a, token, payBody(), { order: deletedOrder });
  await a.inject({ method: 'DELETE', url: `/api/rest/version/100/merchant/${M1.id}/token/${token}`, headers: { authorization: `Basic ${Buffer.from(`merchant.${M1.id}:${M1.apiPassword}`).toString('base64')}` } });
  expectInvalid(t, await create(a, M1, { referenceOrderId: deletedOrder, sourceOfFunds: { type: 'CARD' } }), { field: 'referenceOrderId', explanation: /deleted/ }, 'the card of a deleted token is forgotten');
});

t.test('referenceOrderId under scheme tokenization: a card order is tokenized, a device-account order is not', async (t) => {
  const a = await app(t);
  const fpan = await stored(a, SCHEME_SYNC, '5123450000000008');
  const dpan = await stored(a, SCHEME_SYNC, '5204730000000005');
  const fpanOrder = orderId();
  const dpanOrder = orderId();
  await pay(a, fpan, payBody(), { merchant: SCHEME_SYNC, order: fpanOrder });
  await pay(a, dpan, payBody(), { merchant: SCHEME_SYNC, order: dpanOrder });
  const fromCard = (await create(a, SCHEME_SYNC, { referenceOrderId: fpanOrder, sourceOfFunds: { type: 'CARD' } })).json();
  t.equal(fromCard.schemeToken.status, 'ACTIVE');
  t.equal(fromCard.response.gatewayCode, 'SCHEME_TOKENIZATION_SUCCESSFUL');
  const fromDevice = (await create(a, SCHEME_SYNC, { referenceOrderId: dpanOrder, sourceOfFunds: { type: 'CARD' } })).json();
  t.equal(fromDevice.result, 'SUCCESS');
  t.same(fromDevice.schemeToken, { status: 'TOKENIZATION_UNAVAILABLE', statusTime: fromDevice.schemeToken.statusTime }, 'a device account number (520473...) is not scheme tokenized');
  t.equal(fromDevice.response.gatewayCode, 'BASIC_VERIFICATION_SUCCESSFUL');
});

t.test('push provisioning: card details come from the provider, deterministically, with an ACTIVE scheme token', async (t) => {
  const a = await app(t);
  const push = (id: string, extra: Record<string, unknown> = {}) => create(a, SCHEME, { sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: id, ...extra } });
  const res = await push('ISSUER-REF-0001');
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  t.equal(body.sourceOfFunds.provided.card.brand, 'MASTERCARD');
  t.equal(body.sourceOfFunds.provided.card.expiry, '0139');
  t.equal(body.schemeToken.status, 'ACTIVE');
  t.equal(body.schemeToken.provider, 'MDES');
  t.equal(body.response.gatewayCode, 'SCHEME_TOKENIZATION_SUCCESSFUL');
  const again = (await push('ISSUER-REF-0001')).json();
  t.equal(again.sourceOfFunds.provided.card.number, body.sourceOfFunds.provided.card.number, 'the same identifier gives the same card');
  t.not((await push('ISSUER-REF-0002')).json().sourceOfFunds.provided.card.number, body.sourceOfFunds.provided.card.number, 'another identifier another card');
  const visa = (await push('VISA-REF-0539')).json();
  t.equal(visa.sourceOfFunds.provided.card.brand, 'VISA');
  t.equal(visa.sourceOfFunds.provided.card.expiry, '0539', '-MMYY chooses the expiry');
  t.equal((await pay(a, visa.token, payBody(), { merchant: SCHEME })).json().response.gatewayCode, 'DECLINED', 'and so the payment outcome');
  t.equal((await push('AMEX-REF')).json().sourceOfFunds.provided.card.brand, 'AMEX');
  t.equal((await retrieve(a, SCHEME, body.token)).json().schemeToken.status, 'ACTIVE');

  expectInvalid(t, await push('ISSUER-REF-0001', { provided: { card: card() } }), { field: 'sourceOfFunds.provided.card', validationType: 'UNSUPPORTED' }, 'refused with card details');
  expectInvalid(t, await create(a, SCHEME, { sourceOfFunds: { type: 'ACH', schemeTokenProvisioningIdentifier: 'X1' } }), { field: 'sourceOfFunds.type' }, 'refused with a type other than CARD');
  expectInvalid(t, await push('UNKNOWN-REF'), { field: 'sourceOfFunds.schemeTokenProvisioningIdentifier' }, 'an identifier the provider does not know');
  expectInvalid(t, await create(a, M1, { sourceOfFunds: { type: 'CARD', schemeTokenProvisioningIdentifier: 'ISSUER-REF-0001' } }),
    { field: 'sourceOfFunds.schemeTokenProvisioningIdentifier', validationType: 'UNSUPPORTED' }, 'a repository without scheme tokenization');
});
