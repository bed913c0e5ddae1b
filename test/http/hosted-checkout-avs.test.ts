// The payment page's payment carries the billing address into the payment itself, as a merchant's
// PAY with billing.address does: the street the payer typed (or the merchant's, where the page
// does not let the payer edit it) is read by the AVS rule (docs/triggers.md), and the order shows
// the same response.avs and billing as the merchant's own PAY with that address.
import t from 'tap';
import { buildTestApp, createToken, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import type { App } from './http.fixture.js';
import { CHECKOUT_MERCHANTS, checkoutBody, FRICTIONLESS, newCheckout, pay, retrieveOrder, THREEDS, typeCard } from './hosted-checkout.fixture.js';

type Avs = { gatewayCode: string; acquirerCode?: string } | undefined;

/** The merchant's own PAY with a token and this billing address: its response.avs and billing. */
async function merchantPay(a: App, token: string, address: Record<string, string>) {
  const res = await a.inject({
    method: 'PUT', url: `/api/rest/version/100/merchant/${M1.id}/order/${uniqueId('avs-')}/transaction/1`, headers: { authorization: tokenAuth(M1) },
    payload: { apiOperation: 'PAY', order: { amount: '12.50', currency: 'USD' }, sourceOfFunds: { type: 'CARD', token }, billing: { address } },
  });
  const body = res.json() as { response: { avs?: Avs }; billing?: unknown };
  return { avs: body.response.avs, billing: body.billing };
}

const transactionOf = async (a: App, orderId: string, m = M1) => {
  const order = (await retrieveOrder(a, orderId, m)).json() as { billing?: unknown; transaction: Array<{ response: { avs?: Avs }; billing?: unknown; transaction: { type: string } }> };
  const payment = order.transaction.find((x) => x.transaction.type === 'PAYMENT');
  if (!payment) throw new Error(`no payment on the order: ${JSON.stringify(order)}`);
  return { order, payment };
};

t.test('a street typed on the page gives the AVS result a merchant\'s PAY with that street gets', async (t) => {
  const a = await buildTestApp(t);
  const token = await createToken(a, M1);
  for (const [street, gatewayCode] of [['7 November St', 'NO_MATCH'], ['12 Whiskey St', 'ZIP_MATCH'], ['1 Main Road', 'NOT_VERIFIED']] as const) {
    const address = { street, city: 'Springfield', postcodeZip: '12345', country: 'USA' };
    const c = await newCheckout(a, checkoutBody({}, { displayControl: { billingAddress: 'MANDATORY' } }));
    await typeCard(a, c.session.id);
    const paid = (await pay(a, c.session.id, { billing: { address } })).json();
    t.equal(paid.next, 'return', JSON.stringify(paid));
    const { order, payment } = await transactionOf(a, c.orderId);
    const merchant = await merchantPay(a, token, address);
    t.equal(merchant.avs?.gatewayCode, gatewayCode, `${street}: the merchant's PAY (docs/triggers.md)`);
    t.same(payment.response.avs, merchant.avs, `${street}: the page's payment, the same response.avs`);
    t.same([order.billing, payment.billing], [merchant.billing, merchant.billing], `${street}: the same billing echoed`);
  }
});

t.test('no address on the page\'s payment: no response.avs; the merchant\'s address (READ_ONLY) read as it would be on its PAY', async (t) => {
  const a = await buildTestApp(t);
  const plain = await newCheckout(a);
  await typeCard(a, plain.session.id);
  await pay(a, plain.session.id);
  t.notOk('avs' in (await transactionOf(a, plain.orderId)).payment.response, 'no street sent: no AVS, as on the order API');

  const merchantAddress = { street: '3 Olive St', country: 'GBR' };
  const readOnly = await newCheckout(a, checkoutBody({ billing: { address: merchantAddress } }, { displayControl: { billingAddress: 'READ_ONLY' } }));
  await typeCard(a, readOnly.session.id);
  await pay(a, readOnly.session.id, { billing: { address: { street: '1 Alpha St', country: 'USA' } } });
  const { payment } = await transactionOf(a, readOnly.orderId);
  t.equal(payment.response.avs?.gatewayCode, 'NAME_ADDRESS_MATCH', 'the merchant\'s read-only street (Olive St), not what the payer sent');
  t.same(payment.billing, { address: merchantAddress });
});

t.test('with 3-D Secure: the payment after the authentication carries the typed street', async (t) => {
  const a = await buildTestApp(t, { merchants: CHECKOUT_MERCHANTS });
  const c = await newCheckout(a, checkoutBody({}, { displayControl: { billingAddress: 'OPTIONAL' } }), THREEDS);
  await typeCard(a, c.session.id, FRICTIONLESS, '1', '39', THREEDS.id);
  const paid = (await pay(a, c.session.id, { billing: { address: { street: '5 Sierra St', country: 'USA' } } })).json();
  t.equal(paid.next, 'return', JSON.stringify(paid));
  const { payment } = await transactionOf(a, c.orderId, THREEDS);
  t.same(payment.response.avs, { gatewayCode: 'SERVICE_NOT_SUPPORTED', acquirerCode: 'S' }, 'Sierra St');
});
