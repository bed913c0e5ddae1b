// A member of an address sent as null counts as not sent, on the order API's billing address and
// on Initiate Checkout's billing and shipping addresses: Mastercard's Magento module sends
// company, street2 and stateProvince as null when the shop's address has none, and the gateway
// takes them. A member sent with another type, or out of its bounds, is still refused on its field.
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import { expectInvalid, type App } from './http.fixture.js';
import { checkoutBody, initiate, view } from './hosted-checkout.fixture.js';

const put = (a: App, order: string, payload: Record<string, unknown>) => a.inject({
  method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${order}/transaction/1`, headers: { authorization: tokenAuth(M1) }, payload,
});
const SENT = { city: 'Austin', company: null, country: 'USA', postcodeZip: '78701', stateProvince: null, street: '1 Main St', street2: null };
const KEPT = { city: 'Austin', country: 'USA', postcodeZip: '78701', street: '1 Main St' };

t.test('the order API: null members of billing.address are not sent; the others kept and echoed', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  const body = (address: Record<string, unknown>) =>
    ({ apiOperation: 'AUTHORIZE', order: { amount: '47.50', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address } });
  const paid = await put(a, uniqueId(), body(SENT));
  t.equal(paid.statusCode, 201, paid.body);
  t.same(paid.json().billing, { address: KEPT }, 'the answer: the members sent with a value');
  const none = await put(a, uniqueId(), body({ country: null, street: null }));
  t.equal(none.statusCode, 201, none.body);
  t.notOk('billing' in none.json(), 'only nulls: no address');
  expectInvalid(t, await put(a, uniqueId(), body({ ...SENT, city: 5 })), { field: 'billing.address.city', validationType: 'INVALID' }, 'a number is no string');
  expectInvalid(t, await put(a, uniqueId(), body({ ...SENT, company: 'c'.repeat(101) })), { field: 'billing.address.company' }, 'a company of 101 characters');
  expectInvalid(t, await put(a, uniqueId(), body({ ...SENT, country: 'XXX' })), { field: 'billing.address.country' }, 'an unknown country');
});

t.test('Initiate Checkout: null members of billing.address and shipping.address are not sent', async (t) => {
  const a = await buildTestApp(t);
  const made = await initiate(a, checkoutBody({ billing: { address: SENT }, shipping: { address: SENT } }, { displayControl: { billingAddress: 'READ_ONLY', shipping: 'READ_ONLY' } }));
  t.equal(made.statusCode, 201, made.body);
  const page = (await view(a, made.json().session.id)).json();
  t.same(page.display?.billingAddress?.value, KEPT, 'the page shows the billing address\'s members sent with a value');
  t.same(page.display?.shipping, KEPT, 'and the shipping address\'s');
  expectInvalid(t, await initiate(a, checkoutBody({ shipping: { address: { ...SENT, street2: 7 } } })), { field: 'shipping.address.street2' }, 'a number is no string');
});
