// The payment the gateway's payment page makes (routes/checkout.ts): a PAY, AUTHORIZE or VERIFY
// (interaction.operation PURCHASE, AUTHORIZE, VERIFY) on the checkout's order, transaction "1",
// "2", ... per attempt, made through the one order path as a merchant's request of the order API
// is (services/order/order-service.ts: the same events, answers, notifications), marked
// gatewayEntryPoint CHECKOUT. The card is the session's (typed into the hosted fields) or a stored
// token the checkout offers (interaction.tokens). When the checkout runs 3-D Secure, Initiate Authentication and
// Authenticate Payer come first (transaction "3DS-<attempt>", CHECKOUT too, with the payment's billing address and email): frictionless goes straight on to
// the payment, which names the authentication; a challenge is answered with its HTML, and the
// payment follows the payer's answer (acs-return). The attempt's outcome is recorded on the
// checkout (domain/session/checkout.ts): approved, the payer is sent back with resultIndicator =
// successIndicator; declined, the payer stays on the page while attempts are left.
import { GatewayError, InvalidRequest } from '../../domain/errors.js';
import { checkoutStatus, currentAttempt, decideAttemptOutcome, decideAuthenticationStarted, requireOpen, returnUrlOf, type CheckoutState } from '../../domain/session/checkout.js';
import { formatAmount, minorUnits } from '../../domain/money.js';
import type { PayerDetails } from '../../domain/payer-details.js';
import type { CheckoutPayBody } from '../../schemas/checkout.js';
import type { TransactionBody } from '../../schemas/transaction.js';
import { checkoutAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { orderApiRequest } from '../order/order-api.js';
import { handleOrderCommand } from '../order/order-service.js';
import { merchantNow } from '../test-control/sandbox.js';
import { paymentDetails } from './checkout-details.js';
import { findCheckout, type FoundCheckout } from './checkout-lookup.js';
import { newIndicator } from './checkout-initiate.js';
import { explanationOf, metaOf } from './checkout-page.js';
import { attemptFingerprint, attemptTransactionId } from './checkout-transactions.js';

export type PayNext =
  | { next: 'return'; url: string; redirect?: true }
  | { next: 'challenge'; html: string }
  | { next: 'retry'; gatewayCode: string; explanation: string; attemptsLeft: number }
  | { next: 'error'; error: { cause: string; explanation: string; field?: string; validationType?: string } };

/** The payer's request: the gateway's address as the browser reached it, the browser, the request's metadata, the embedded page or not. */
export interface PayerContext { origin: string; meta: RequestMeta; browser?: string | undefined; embedded?: boolean }

interface Step { gateway: Gateway; found: FoundCheckout; payer: PayerContext; meta: RequestMeta }

const OPERATIONS = { PURCHASE: 'PAY', AUTHORIZE: 'AUTHORIZE', VERIFY: 'VERIFY' } as const;

type Answer = Record<string, unknown>;
const at = (answer: Answer, path: string): unknown => path.split('.').reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Answer)[k] : undefined), answer);

/** One transaction of the order API, made by the page on the checkout's order, fingerprinted as its attempt's (checkout-transactions.ts). */
async function orderRequest(s: Step, transactionId: string, body: TransactionBody, requestFingerprint: string, details?: PayerDetails): Promise<Answer> {
  const c = s.found.state.checkout;
  const params = { version: String(c.apiVersion), merchantId: s.found.merchant.id, orderId: c.order.id, transactionId };
  const request = await orderApiRequest(s.gateway, s.found.merchant, params, body, s.payer.origin, 'CHECKOUT', details);
  const meta = { ...s.meta, ...(c.order.notificationUrl === undefined ? {} : { notificationUrl: c.order.notificationUrl }) };
  request.facts.requestFingerprint = requestFingerprint;
  return await handleOrderCommand(s.gateway, request, meta) as Answer;
}

/** The attempt's request of `apiOperation`: its fingerprint, and the id it takes on the order. */
async function attemptRequest(s: Step, attempt: number, apiOperation: string, kind: 'payment' | 'authentication') {
  const fingerprint = attemptFingerprint(s.gateway, s.found.state.checkout.sessionId, attempt, apiOperation);
  return { fingerprint, id: await attemptTransactionId(s.gateway, s.found, attempt, kind, fingerprint) };
}

/** The card of the attempt: the session's (what the hosted fields put there) or the token's. */
const sourceOf = (sessionId: string, token: string | undefined): Partial<TransactionBody> =>
  (token === undefined ? { session: { id: sessionId }, sourceOfFunds: { type: 'CARD' } } : { sourceOfFunds: { token } });

/**
 * What every request of the attempt carries of the payer's details, as a merchant's requests send
 * them: the billing address and the email address, on the payment (the street is read by the AVS
 * rule) and on the 3-D Secure steps before it (the gateway passes them on to the issuer with the
 * authentication, and the AUTHENTICATION transaction echoes them).
 */
const payerFields = (details: PayerDetails | undefined): Partial<TransactionBody> => ({
  ...(details?.billing === undefined ? {} : { billing: details.billing }),
  ...(details?.customer === undefined ? {} : { customer: details.customer }),
} as Partial<TransactionBody>);

const amountText = (s: Step) => {
  const { order } = s.found.state.checkout;
  return formatAmount(order.amount, minorUnits(order.currency) ?? 2);
};

/**
 * Where the payer is sent back, with resultIndicator and sessionVersion: the merchant's returnUrl,
 * else the gateway's own receipt. Declined for good, the redirectMerchantUrl (given with
 * retryAttemptCount), else a payment link's errorUrl, comes first: the merchant asked for the
 * payer there whatever the page's callbacks (`redirect`).
 */
function returnOf(s: Step, state: CheckoutState): PayNext {
  const c = s.found.state.checkout;
  const done = state.completed!;
  const indicator = done.outcome === 'PAID' ? s.gateway.sealer.open(c.successIndicatorSealed) ?? newIndicator() : done.resultIndicator ?? newIndicator();
  const failedTo = done.outcome === 'DECLINED' ? c.redirectMerchantUrl ?? c.paymentLink?.errorUrl : undefined;
  if (failedTo !== undefined) return { next: 'return', url: returnUrlOf(failedTo, indicator, done.sessionVersion), redirect: true };
  const url = c.returnUrl ?? `${s.payer.origin}/checkout/receipt/${encodeURIComponent(c.sessionId)}`;
  return { next: 'return', url: returnUrlOf(url, indicator, done.sessionVersion) };
}

/** The attempt's outcome recorded (once), and what the page does next. */
async function recordOutcome(s: Step, attempt: number, outcome: { transactionId?: string; approved: boolean; gatewayCode?: string }): Promise<PayNext> {
  const lifetimeMs = s.gateway.sessionExpiry.lifetimeMs;
  return handleCommand(s.gateway, s.found.stream, checkoutAggregate, (state, { now }) => {
    const sessionVersion = state.session.status === 'NONE' ? '' : state.session.version;
    const events = decideAttemptOutcome(state, { attempt, ...outcome, sessionVersion, failureIndicator: newIndicator(), now });
    return {
      events,
      answer: (after: CheckoutState): PayNext => {
        if (after.completed) return returnOf(s, after);
        const last = after.lastDecline;
        if (last) return { next: 'retry', gatewayCode: last.gatewayCode, explanation: explanationOf(last.gatewayCode), attemptsLeft: last.attemptsLeft };
        // Nothing recorded for this attempt and none before: the checkout closed meanwhile.
        requireOpen(after, now, lifetimeMs);
        return { next: 'error', error: { cause: 'INVALID_REQUEST', explanation: 'The payment could not be recorded: try again' } };
      },
    };
  }, { meta: s.meta, ownStream: true });
}

/** The payment of the attempt (naming its authentication, if any), then its outcome recorded. */
async function payAttempt(s: Step, attempt: number, token: string | undefined, details: PayerDetails | undefined, authenticationId?: string): Promise<PayNext> {
  const c = s.found.state.checkout;
  if (c.operation === 'NONE') return recordOutcome(s, attempt, { approved: true });
  const apiOperation = OPERATIONS[c.operation];
  const { id: transactionId, fingerprint } = await attemptRequest(s, attempt, apiOperation, 'payment');
  const answer = await orderRequest(s, transactionId, {
    apiOperation,
    order: { amount: amountText(s), currency: c.order.currency, ...(c.order.reference === undefined ? {} : { reference: c.order.reference }) },
    ...(c.transactionReference === undefined ? {} : { transaction: { reference: c.transactionReference } }),
    ...(authenticationId === undefined ? {} : { authentication: { transactionId: authenticationId } }),
    ...payerFields(details),
    ...sourceOf(c.sessionId, token),
  } as TransactionBody, fingerprint, details);
  const gatewayCode = at(answer, 'response.gatewayCode');
  return recordOutcome(s, attempt, { transactionId, approved: answer.result === 'SUCCESS', ...(typeof gatewayCode === 'string' ? { gatewayCode } : {}) });
}

/** 3-D Secure first: Initiate Authentication, Authenticate Payer; frictionless (or a card without 3-D Secure) goes on to the payment. */
async function authenticateThenPay(s: Step, attempt: number, token: string | undefined, details: PayerDetails | undefined): Promise<PayNext> {
  const c = s.found.state.checkout;
  const { id, fingerprint } = await attemptRequest(s, attempt, 'INITIATE_AUTHENTICATION', 'authentication');
  // The card and the payer's details, on both steps as on the payment.
  const carried = { ...sourceOf(c.sessionId, token), ...payerFields(details) };
  const initiated = await orderRequest(s, id, { apiOperation: 'INITIATE_AUTHENTICATION', authentication: { channel: 'PAYER_BROWSER' }, order: { currency: c.order.currency }, ...carried } as TransactionBody, fingerprint);
  if (at(initiated, 'transaction.authenticationStatus') === 'AUTHENTICATION_NOT_SUPPORTED') return payAttempt(s, attempt, token, details);
  const redirectResponseUrl = `${s.payer.origin}/checkout/api/${encodeURIComponent(c.sessionId)}/acs-return${s.payer.embedded ? '?page=entry' : ''}`;
  const payer = await orderRequest(s, id, {
    apiOperation: 'AUTHENTICATE_PAYER', authentication: { redirectResponseUrl }, order: { amount: amountText(s), currency: c.order.currency },
    ...(s.payer.browser === undefined ? {} : { device: { browser: s.payer.browser.slice(0, 2048) } }), ...carried,
  } as TransactionBody, attemptFingerprint(s.gateway, c.sessionId, attempt, 'AUTHENTICATE_PAYER'));
  const challenged = payer.result === 'PENDING';
  const lifetimeMs = s.gateway.sessionExpiry.lifetimeMs;
  await handleCommand(s.gateway, s.found.stream, checkoutAggregate, (state, { now }) => ({
    events: decideAuthenticationStarted(state, { attempt, transactionId: id, challenged, token, details, now, lifetimeMs }), answer: () => undefined,
  }), { meta: s.meta, ownStream: true });
  if (!challenged) return payAttempt(s, attempt, token, details, id);
  const html = at(payer, 'authentication.redirect.html') ?? at(payer, 'authentication.redirectHtml');
  return { next: 'challenge', html: typeof html === 'string' ? html : '' };
}

/** A refusal of the payment's request (no card in the session, an unknown token, ...): the page shows it, nothing recorded on the checkout. */
async function orError(run: () => Promise<PayNext>): Promise<PayNext> {
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof InvalidRequest) || error.name === 'CheckoutClosed') throw error;
    const m = (error as GatewayError).members({ id: '', ip: '' });
    return { next: 'error', error: { cause: error.gatewayCause, explanation: m.explanation ?? '', ...(m.field ? { field: m.field } : {}), ...(m.validationType ? { validationType: m.validationType } : {}) } };
  }
}

function stepOf(gateway: Gateway, found: FoundCheckout, payer: PayerContext): Step {
  return { gateway, found, payer, meta: metaOf(payer.meta, found) };
}

/**
 * The page's Pay: undefined for no such checkout. A checkout its payment ended (paid, or declined
 * with no attempt left) answers as that payment did: a second click, or the retry of a request
 * whose answer was lost, reads the record and pays nothing. Cancelled or expired, it is refused (400).
 */
export async function payCheckout(gateway: Gateway, sessionId: string, request: CheckoutPayBody, payer: PayerContext): Promise<PayNext | undefined> {
  const { token } = request;
  const found = await findCheckout(gateway, sessionId);
  if (!found) return undefined;
  const { state, merchant } = found;
  const s = stepOf(gateway, found, payer);
  if (state.completed) return returnOf(s, state);
  requireOpen(state, merchantNow(gateway.sandbox, merchant.id), gateway.sessionExpiry.lifetimeMs);
  // Only a stored card the merchant offered on this checkout: the payer holds the session id, not the repository.
  if (token !== undefined && !(state.checkout.tokens ?? []).includes(token)) {
    return { next: 'error', error: { cause: 'INVALID_REQUEST', explanation: 'Value is invalid. This checkout offers no such stored card', field: 'token', validationType: 'INVALID' } };
  }
  const attempt = currentAttempt(state);
  return orError(async () => {
    // The details the page asked for (interaction.displayControl): a MANDATORY one missing is refused, no attempt used.
    const details = paymentDetails(state.checkout, request);
    return state.checkout.threeDSecure && state.checkout.operation !== 'NONE' ? authenticateThenPay(s, attempt, token, details) : payAttempt(s, attempt, token, details);
  });
}

/**
 * The payer's browser back from the challenge (the ACS's form post to redirectResponseUrl): the
 * payment of the attempt, naming its authentication; where to send the browser next. A repeat
 * (after the attempt's outcome) sends it where the outcome did.
 */
export async function checkoutAcsReturn(gateway: Gateway, sessionId: string, payer: PayerContext): Promise<string | undefined> {
  const found = await findCheckout(gateway, sessionId);
  if (!found) return undefined;
  const { state } = found;
  const s = stepOf(gateway, found, payer);
  const page = `/checkout/pay/${encodeURIComponent(sessionId)}`;
  if (state.completed) {
    const back = returnOf(s, state);
    return back.next === 'return' ? back.url : page;
  }
  const pending = state.authentication;
  const open = checkoutStatus(state, merchantNow(gateway.sandbox, found.merchant.id), gateway.sessionExpiry.lifetimeMs) === 'OPEN';
  if (!open || !pending || pending.attempt !== currentAttempt(state)) return page;
  const next = await orError(() => payAttempt(s, pending.attempt, pending.token, pending.details, pending.transactionId));
  return next.next === 'return' ? next.url : page;
}
