// Shared steps of the 3-D Secure tests: Initiate Authentication, Authenticate Payer, the payer's
// browser on the emulator's challenge page, and a payment naming the authentication, through HTTP
// as a merchant's server and a payer's browser send them.
import { M1, tokenAuth } from '../helpers/app.js';
import { uniqueId } from '../helpers/ids.js';
import type { App } from './http.fixture.js';

export const RETURN_URL = 'https://shop.example/3ds/return';

export const transactionUrl = (orderId: string, transactionId: string, version = 100, merchantId = M1.id) =>
  `/api/rest/version/${version}/merchant/${merchantId}/order/${encodeURIComponent(orderId)}/transaction/${encodeURIComponent(transactionId)}`;

export const cardSource = (number: string, month = '1', year = '39') => ({ provided: { card: { number, expiry: { month, year } } } });

export interface Flow { app: App; orderId: string; version?: number }

export const put = (f: Flow, transactionId: string, payload: object) => app(f).inject({
  method: 'PUT', url: transactionUrl(f.orderId, transactionId, f.version), headers: { authorization: tokenAuth(M1) }, payload,
});
const app = (f: Flow) => f.app;

export const newFlow = (app: App, version?: number): Flow => ({ app, orderId: uniqueId('3ds-'), ...(version ? { version } : {}) });

export const initiateBody = (sourceOfFunds: object, extra: Record<string, unknown> = {}) => ({
  apiOperation: 'INITIATE_AUTHENTICATION', authentication: { acceptVersions: '3DS1,3DS2', channel: 'PAYER_BROWSER', purpose: 'PAYMENT_TRANSACTION' },
  order: { currency: 'USD' }, sourceOfFunds, ...extra,
});

export const authenticateBody = (amount = '12.50', extra: Record<string, unknown> = {}) => ({
  apiOperation: 'AUTHENTICATE_PAYER', authentication: { redirectResponseUrl: RETURN_URL },
  device: { browser: 'MOZILLA', ipAddress: '127.0.0.1', browserDetails: { '3DSecureChallengeWindowSize': 'FULL_SCREEN' } },
  order: { amount, currency: 'USD' }, ...extra,
});

export const payBody = (authenticationTransactionId: string | undefined, sourceOfFunds: object, amount = '12.50', apiOperation = 'PAY') => ({
  apiOperation, order: { amount, currency: 'USD' }, sourceOfFunds,
  ...(authenticationTransactionId !== undefined ? { authentication: { transactionId: authenticationTransactionId } } : {}),
});

/** Initiate then Authenticate Payer for `number` on transaction `a1`; the two answers. */
export async function authenticate(f: Flow, number: string, transactionId = 'a1') {
  const initiated = await put(f, transactionId, initiateBody(cardSource(number)));
  const payer = await put(f, transactionId, authenticateBody());
  return { initiated, payer };
}

/** The form fields of an HTML form (its hidden inputs), by name. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)"/g)) fields[decode(m[1] ?? '')] = decode(m[2] ?? '');
  return fields;
}
const decode = (text: string) => text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** The action of the first form of some HTML. */
export const formAction = (html: string) => decode(/<form[^>]* action="([^"]*)"/.exec(html)?.[1] ?? '');

/** The payer's browser: posts the challenge HTML's creq to the challenge page, then answers it with `fields`. */
export async function answerChallenge(app: App, challengeHtml: string, fields: Record<string, string>) {
  const acsUrl = new URL(formAction(challengeHtml));
  const { creq } = formFields(challengeHtml);
  const page = await app.inject({ method: 'POST', url: acsUrl.pathname, payload: new URLSearchParams({ creq: creq ?? '' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  // A challenge answered already: the page posts its result back at once.
  if (page.body.includes('id="acsResultForm"')) return { page, answered: page, back: formFields(page.body), backTo: formAction(page.body), action: undefined };
  const action = formAction(page.body);
  const answered = await submitChallenge(app, action, { ...formFields(page.body), ...fields });
  return { page, answered, back: formFields(answered.body), backTo: formAction(answered.body), action };
}

/** The challenge page's form posted with `fields`. */
export const submitChallenge = (app: App, action: string, fields: Record<string, string>) => app.inject({
  method: 'POST', url: action, payload: new URLSearchParams(fields).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' },
});
