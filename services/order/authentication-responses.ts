// An authentication's answers, from its recorded steps: Initiate Authentication's and Authenticate
// Payer's (with the HTML that moves the payer's browser on, authentication-html.ts), and the
// authentication as it stands (Retrieve Transaction, Retrieve Order, notifications). An identical
// repeat of a step answers what the step answered. Versions before REDIRECT_HTML_FROM put the HTML
// in authentication.redirectHtml and the method call and challenge data under
// authentication.redirect.customized.3DS; later ones in authentication.redirect.html and
// authentication.redirect.customizedHtml.3ds2 (docs/operations.md, "3-D Secure").
import type { AuthenticationStep, OrderState } from '../../domain/order/order.js';
import { referenceAsOf } from '../../domain/order/order-state.js';
import { optional } from '../../domain/order/order.js';
import type { Authentication } from '../../domain/order/authentication-state.js';
import type { CardNumberMasking } from '../../domain/token/accounts.js';
import { maskCardNumber } from '../../domain/token/accounts.js';
import {
  acsUrls, challengeHtml, challengeRequest, frictionlessHtml, methodHtml, methodPostData, NO_METHOD_HTML,
} from './authentication-html.js';
import { directoryServerOf, PROTOCOL_VERSION, statusAnswer, threeDsView } from './authentication-view.js';
import { cardSourceOfFunds, decimal, entryPointShown, totalsAsOf } from './responses.js';

type ExistingOrder = Extract<OrderState, { exists: true }>;

/**
 * The first version whose answers carry authentication.redirect.html (before it:
 * authentication.redirectHtml). The captures show the old names at 57 and the new at 72; the
 * version between that made the change is not known.
 */
export const REDIRECT_HTML_FROM = 63;

/** Which of its steps an answer shows: a step's own answer, or the authentication as it stands (no HTML). */
export type Shown = AuthenticationStep['step'] | 'latest';

function stepOf(a: Authentication, shown: Shown) {
  const step = shown !== 'latest' ? shown : a.challenge ? 'challenge' : a.payer ? 'payer' : 'initiate';
  const record = step === 'challenge' ? a.challenge : step === 'payer' ? a.payer : a.initiated;
  return { step, outcome: (record ?? a.initiated).outcome, orderStatus: (record ?? a.initiated).orderStatus, time: (record ?? a.initiated).timeOfRecord };
}

interface Redirect { html: string; customized?: Record<string, string>; domainName?: string }

/** The HTML of a step's answer and the data it carries for merchants who write their own. */
function redirectOf(a: Authentication, step: AuthenticationStep['step'], origin: string, version: number): Redirect | undefined {
  const { initiated, payer } = a;
  const urls = acsUrls(origin, initiated.merchantId, initiated.orderId, initiated.transactionId);
  if (step === 'initiate') {
    if (!initiated.methodSupported) return { html: NO_METHOD_HTML };
    const postData = methodPostData(initiated.threeDSServerTransactionId);
    return { html: methodHtml(urls.methodUrl, postData), customized: { methodPostData: postData, methodUrl: urls.methodUrl } };
  }
  if (!payer || step !== 'payer') return undefined;
  if (a.challenged) {
    const cReq = challengeRequest(initiated.threeDSServerTransactionId, payer.acsTransactionId);
    return { html: challengeHtml(urls.acsUrl, cReq), customized: { acsUrl: urls.acsUrl, cReq }, domainName: new URL(origin).host };
  }
  const { result, gatewayRecommendation } = statusAnswer(payer.outcome.authenticationStatus, version);
  return { html: frictionlessHtml(payer.redirectResponseUrl, { orderId: initiated.orderId, transactionId: initiated.transactionId, result, gatewayRecommendation }) };
}

/** authentication.redirect (and, before REDIRECT_HTML_FROM, authentication.redirectHtml) in the version's names. */
function redirectMembers(redirect: Redirect | undefined, domainName: string | undefined, version: number) {
  const modern = version >= REDIRECT_HTML_FROM;
  const customized = redirect?.customized && (modern ? { customizedHtml: { '3ds2': redirect.customized } } : { customized: { '3DS': redirect.customized } });
  const group = optional({ ...customized, domainName: redirect?.domainName ?? domainName, html: modern ? redirect?.html : undefined });
  return { redirect: Object.keys(group).length > 0 ? group : undefined, redirectHtml: modern ? undefined : redirect?.html };
}

/** The `authentication` group of an authentication's answer. */
function authenticationGroup(a: Authentication, shown: Shown, version: number, origin: string) {
  const { initiated, payer } = a;
  const { step, outcome } = stepOf(a, shown);
  const dsTransactionId = step === 'initiate' ? undefined : payer?.dsTransactionId;
  const domainName = step !== 'initiate' && a.challenged ? new URL(origin).host : undefined;
  const threeDs2 = initiated.version !== '3DS2' ? undefined : optional({
    '3dsServerTransactionId': step === 'initiate' ? undefined : initiated.threeDSServerTransactionId,
    acsTransactionId: step === 'initiate' ? undefined : payer?.acsTransactionId,
    authenticationScheme: initiated.source.card.scheme,
    challengeCancel: outcome.challengeCancel,
    directoryServerId: directoryServerOf(initiated.source.card.brand),
    dsTransactionId,
    methodCompleted: false,
    methodSupported: initiated.methodSupported ? 'SUPPORTED' : 'NOT_SUPPORTED',
    protocolVersion: PROTOCOL_VERSION,
    statusReasonCode: outcome.statusReasonCode,
    transactionStatus: outcome.transactionStatus,
  });
  const { redirect, redirectHtml } = redirectMembers(shown === 'latest' ? undefined : redirectOf(a, step, origin, version), domainName, version);
  const withPayer = step !== 'initiate' && payer !== undefined;
  return optional({
    '3ds': threeDsView(outcome, dsTransactionId),
    '3ds2': threeDs2,
    acceptVersions: initiated.acceptVersions,
    amount: withPayer ? decimal(payer.amount, payer.currency) : undefined,
    channel: initiated.channel,
    payerInteraction: withPayer ? (a.challenged ? 'REQUIRED' : 'NOT_REQUIRED') : undefined,
    purpose: initiated.purpose,
    redirect,
    redirectHtml,
    time: withPayer ? payer.timeOfRecord : undefined,
    version: initiated.version,
  });
}

/**
 * The billing address an answer echoes: the step's own request's; after Authenticate Payer, the
 * one it sent, else Initiate Authentication's (the transaction keeps what its requests gave).
 */
const billingShown = (a: Authentication, step: AuthenticationStep['step']) =>
  (step === 'initiate' ? a.initiated.billing : a.payer?.billing ?? a.initiated.billing);
/** customer.email an answer echoes, as billingShown chooses the address. */
const customerShown = (a: Authentication, step: AuthenticationStep['step']) =>
  (step === 'initiate' ? a.initiated.customer : a.payer?.customer ?? a.initiated.customer);

/** What an authentication's answer needs besides the authentication. */
export interface AuthenticationAnswer {
  order: ExistingOrder;
  version: string;
  masking: CardNumberMasking;
  /** The gateway's own address, for the emulator's pages the HTML sends the browser to. */
  origin: string;
  correlationId?: string | undefined;
}

/** An authentication's answer: a step's (`shown`: initiate, payer) or the authentication as it stands (latest). */
export function authenticationResponse(a: Authentication, shown: Shown, x: AuthenticationAnswer) {
  const { initiated, payer } = a;
  const { step, outcome, orderStatus, time } = stepOf(a, shown);
  const { currency } = initiated;
  const withPayer = step !== 'initiate' && payer !== undefined;
  const amount = withPayer ? decimal(payer.amount, currency) : decimal(0, currency);
  const totals = totalsAsOf(x.order, time);
  const answer = statusAnswer(outcome.authenticationStatus, Number(x.version));
  const card = initiated.source.card;
  return optional({
    authentication: authenticationGroup(a, shown, Number(x.version), x.origin),
    billing: billingShown(a, step),
    correlationId: x.correlationId,
    customer: customerShown(a, step),
    device: withPayer && payer.device ? optional({ browser: payer.device.browser, ipAddress: payer.device.ipAddress }) : undefined,
    // The payment page's authentications show where they came from, as its payments do.
    gatewayEntryPoint: entryPointShown(initiated.gatewayEntryPoint, x.version),
    merchant: initiated.merchantId,
    order: optional({
      amount: withPayer ? amount : undefined,
      authenticationStatus: outcome.authenticationStatus,
      creationTime: x.order.creationTime,
      currency,
      id: initiated.orderId,
      lastUpdatedTime: time,
      reference: referenceAsOf(x.order, initiated.transactionId),
      status: orderStatus,
      totalAuthorizedAmount: decimal(totals.authorized, currency),
      totalCapturedAmount: decimal(totals.captured, currency),
      totalRefundedAmount: decimal(totals.refunded, currency),
    }),
    response: { gatewayCode: answer.gatewayCode, gatewayRecommendation: answer.gatewayRecommendation },
    result: answer.result,
    sourceOfFunds: cardSourceOfFunds(card, maskCardNumber(card.number, x.masking), initiated.source.token),
    timeOfLastUpdate: time,
    timeOfRecord: initiated.timeOfRecord,
    transaction: optional({
      amount, authenticationStatus: outcome.authenticationStatus, currency, id: initiated.transactionId,
      reference: initiated.transactionReference, type: 'AUTHENTICATION',
    }),
    version: x.version,
  });
}
