// Shared steps of the Hosted Checkout tests: the merchant's Initiate Checkout, and the payer's
// browser on the payment page's JSON (the hosted fields' update of the session, pay, cancel), as
// the merchant's server and the page send them.
import { MERCHANTS, M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import type { App } from './http.fixture.js';

export const RETURN_URL = 'https://shop.example/return?cart=7';
export const PAN = '5123450000000008';
/** Frictionless 3-D Secure (docs/triggers.md, the emulator's cards). */
export const FRICTIONLESS = '5123456789012346';

/** The test merchants with a third whose checkout runs 3-D Secure (merchants file: checkout.threeDSecure). */
export const THREEDS = { ...MERCHANTS.merchants[0]!, id: 'TESTCHECKOUT3DS', apiPassword: 'test-password-checkout-3ds-0123456789', checkout: { threeDSecure: true } };
export const CHECKOUT_MERCHANTS = { merchants: [...MERCHANTS.merchants, { ...THREEDS, repository: { ...THREEDS.repository, id: 'REPO3DS' } }] };

export const sessionUrl = (version = 100, merchantId = M1.id) => `/api/rest/version/${version}/merchant/${merchantId}/session`;

/** A fresh order id that never reads as a card number (which order.id refuses). */
export const orderIdOf = () => uniqueId('hco-');

export const checkoutBody = (extra: Record<string, unknown> = {}, interaction: Record<string, unknown> = {}, order: Record<string, unknown> = {}) => ({
  apiOperation: 'INITIATE_CHECKOUT',
  interaction: { operation: 'PURCHASE', returnUrl: RETURN_URL, cancelUrl: 'https://shop.example/cancelled', merchant: { name: 'Demo Shop' }, ...interaction },
  order: { id: orderIdOf(), amount: '12.50', currency: 'USD', description: 'Ordered goods', ...order },
  ...extra,
});

export const initiate = (a: App, payload: object, version = 100, m: { id: string; apiPassword: string } = M1) =>
  a.inject({ method: 'POST', url: sessionUrl(version, m.id), headers: { authorization: tokenAuth(m) }, payload });

/** Initiate Checkout that must succeed: its answer and the order id. */
export async function newCheckout(a: App, body = checkoutBody(), m: { id: string; apiPassword: string } = M1, version = 100) {
  const res = await initiate(a, body, version, m);
  if (res.statusCode !== 201) throw new Error(`Initiate Checkout: ${res.statusCode} ${res.body}`);
  const answer = res.json() as { session: { id: string; version: string }; successIndicator: string };
  return { ...answer, orderId: (body as { order: { id: string } }).order.id };
}

/** The hosted fields' update (session.js's controller frame), as the payment page's fields send it. */
export const typeCard = (a: App, sessionId: string, number = PAN, month = '1', year = '39', merchantId = M1.id) => a.inject({
  method: 'PUT', url: `/form/version/100/merchant/${merchantId}/session/${sessionId}`, headers: { 'sec-fetch-site': 'same-origin' },
  payload: { paymentType: 'card', card: { number, expiryMonth: month, expiryYear: year, securityCode: '100' } },
});

export const view = (a: App, sessionId: string) => a.inject({ method: 'GET', url: `/checkout/api/${sessionId}` });
export const pay = (a: App, sessionId: string, payload: object = {}) => a.inject({ method: 'POST', url: `/checkout/api/${sessionId}/pay`, payload });
export const cancel = (a: App, sessionId: string) => a.inject({ method: 'POST', url: `/checkout/api/${sessionId}/cancel`, payload: {} });

export const retrieveOrder = (a: App, orderId: string, m: { id: string; apiPassword: string } = M1, version = 100) =>
  a.inject({ method: 'GET', url: `/api/rest/version/${version}/merchant/${m.id}/order/${encodeURIComponent(orderId)}`, headers: { authorization: tokenAuth(m) } });

/** The query of the URL the payer is sent back to. */
export const queryOf = (url: string) => Object.fromEntries(new URL(url).searchParams);
