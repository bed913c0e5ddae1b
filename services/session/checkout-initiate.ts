// Initiate Checkout (INITIATE_CHECKOUT from version 63; CREATE_CHECKOUT_SESSION before it) on POST
// .../session: a session the gateway's payment page collects the card into (SessionCreated, its
// expiry the checkout's timeout) and the checkout the merchant asked for (CheckoutInitiated), one
// stream; answered with session.id, session.version and the successIndicator, which the payer
// brings back as resultIndicator when the payment succeeded. Each request is a new checkout, as
// each Create Session is a new session. A payment link (checkoutMode PAYMENT_LINK, from version 66)
// is the same checkout under a link id, lasting until the link's expiryDateTime.
import { randomBytes } from 'node:crypto';
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type CheckoutInitiated, type CheckoutOperation } from '../../domain/events.js';
import { minorUnits } from '../../domain/money.js';
import { browserUrl } from '../../domain/order/redirect-response-url.js';
import { decideCreateSession } from '../../domain/session/session.js';
import { groupAt } from '../../lib/group-at.js';
import { numberLiteral } from '../../lib/json-literals.js';
import type { MerchantProfile } from '../../merchants.js';
import type { CheckoutBody } from '../../schemas/checkout.js';
import { checkoutAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import { randomDigits, type RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { requestedNotificationUrl } from '../notification/body.js';
import { missing } from '../order/card-source.js';
import { checkNotCardNumber } from '../order/order-api.js';
import { amountOf } from '../order/pay-request.js';
import { checkoutDetails } from './checkout-details.js';
import { rememberCheckout } from './checkout-lookup.js';
import { offeredTokens } from './checkout-tokens.js';
import { keepBodyAsSent } from '../../lib/body-as-sent.js';

/** The first version of INITIATE_CHECKOUT (CREATE_CHECKOUT_SESSION until the one before). */
export const INITIATE_CHECKOUT_FROM = 63;
/** The first version tokengate takes checkoutMode PAYMENT_LINK on (the earliest seen in use). */
export const PAYMENT_LINK_FROM = 66;
/** interaction.operation is required from this version (Mastercard's sample: "Starting from API version 52"). */
const OPERATION_REQUIRED_FROM = 52;
/** Attempts after a declined one when interaction.retryAttemptCount is not sent. */
const DEFAULT_RETRIES = 2;
const DEFAULT_LINK_ATTEMPTS = 3;
const DEFAULT_LINK_LIFETIME_MS = 7 * 24 * 3_600_000;

/** 16 lowercase hexadecimal characters, as the gateway's successIndicator and resultIndicator. */
export const newIndicator = () => randomBytes(8).toString('hex');

function checkOperation(version: number, apiOperation: CheckoutBody['apiOperation']): void {
  if (apiOperation === 'INITIATE_CHECKOUT' && version < INITIATE_CHECKOUT_FROM) {
    throw new InvalidRequest(`Value 'INITIATE_CHECKOUT' is invalid. INITIATE_CHECKOUT is available from version ${INITIATE_CHECKOUT_FROM}: use CREATE_CHECKOUT_SESSION`, 'apiOperation');
  }
  if (apiOperation === 'CREATE_CHECKOUT_SESSION' && version >= INITIATE_CHECKOUT_FROM) {
    throw new InvalidRequest(`Value 'CREATE_CHECKOUT_SESSION' is invalid. Replaced by INITIATE_CHECKOUT from version ${INITIATE_CHECKOUT_FROM}`, 'apiOperation');
  }
}

/** An absolute http or https URL (the page sends the payer's browser there). */
const absoluteUrl = (text: string | undefined, field: string): string | undefined =>
  (text === undefined ? undefined : browserUrl(text, field, 'an absolute http or https URL'));

function orderOf(merchant: MerchantProfile, body: CheckoutBody, operation: CheckoutOperation): CheckoutInitiated['data']['order'] {
  const order = body.order;
  if (order?.id === undefined) throw missing('order.id');
  checkNotCardNumber(order.id, 'order.id');
  const currency = order.currency;
  if (currency === undefined) throw missing('order.currency');
  if (minorUnits(currency) === undefined) throw new InvalidRequest(`Value '${currency}' is invalid. Currency is not supported`, 'order.currency', 'UNSUPPORTED');
  // A verification or a page that only collects the card pays nothing: its amount is only shown.
  const needsAmount = operation === 'PURCHASE' || operation === 'AUTHORIZE';
  const amount = order.amount === undefined && !needsAmount ? 0 : amountOf(order.amount, currency, 'order.amount', numberLiteral(order, 'amount'));
  return {
    id: order.id, amount, currency,
    ...(order.description === undefined ? {} : { description: order.description }),
    ...(order.reference === undefined ? {} : { reference: order.reference }),
    ...(order.notificationUrl === undefined ? {} : { notificationUrl: requestedNotificationUrl(merchant, order.notificationUrl) }),
  };
}

/** Whether an ISO 8601 date and time (the schema's pattern) names a real day and time: not 30 February, not 24:00. */
function realDateTime(text: string): boolean {
  const [y, mo, d, h, mi, s] = text.slice(0, 19).split(/[-T:]/).map(Number) as [number, number, number, number, number, number];
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d && at.getUTCHours() === h && at.getUTCMinutes() === mi && at.getUTCSeconds() === s;
}

/** The integer members a shop may send as their digits in a string. */
const INTEGER_MEMBERS = [['interaction', 'timeout'], ['paymentLink', 'numberOfAllowedAttempts']] as const;

/**
 * The longest digit string read: zeros may lead the at most 9 digits that follow (no member's
 * bound needs more), so the test never scans a long string. Longer: left to the schema.
 */
const MAX_DIGIT_TEXT = 32;

/**
 * Initiate Checkout's integer members sent as a string of digits are read as that integer, before
 * the schema checks them and their bounds: Mastercard's Magento module fills interaction.timeout
 * and paymentLink.numberOfAllowedAttempts from its settings, which are strings ("600", "3"), and
 * its released Hosted Checkout and Pay by Link send them so; leading zeros are taken ("0000000600"
 * is 600). Anything else is left to the schema.
 * The request journal shows the body as sent: it is kept before a member is rewritten.
 */
export function readIntegerDigits(request: { body: unknown; bodyAsSent: unknown }): void {
  for (const [group, member] of INTEGER_MEMBERS) {
    const holder = groupAt(request.body, [group]);
    const value = holder?.[member];
    if (!holder || typeof value !== 'string' || value.length > MAX_DIGIT_TEXT || !/^0*[0-9]{1,9}$/.test(value)) continue;
    keepBodyAsSent(request);
    holder[member] = Number(value);
  }
}

/** checkoutMode PAYMENT_LINK: its expiry (in the future on the merchant's clock) and attempts. */
function linkOf(version: number, body: CheckoutBody, now: string): { expiresAt: string; attempts: number; errorUrl?: string } | undefined {
  const link = body.paymentLink;
  if (body.checkoutMode !== 'PAYMENT_LINK') {
    if (link !== undefined) throw new InvalidRequest('Value is invalid. paymentLink is only taken with checkoutMode PAYMENT_LINK', 'paymentLink', 'UNSUPPORTED');
    return undefined;
  }
  if (version < PAYMENT_LINK_FROM) throw new InvalidRequest(`Value 'PAYMENT_LINK' is invalid. Payment links are available from version ${PAYMENT_LINK_FROM}`, 'checkoutMode');
  const expiry = link?.expiryDateTime === undefined ? Date.parse(now) + DEFAULT_LINK_LIFETIME_MS : Date.parse(link.expiryDateTime);
  if (!Number.isFinite(expiry) || (link?.expiryDateTime !== undefined && !realDateTime(link.expiryDateTime))) throw new InvalidRequest('Value is invalid. Expected an ISO 8601 date and time', 'paymentLink.expiryDateTime');
  if (expiry <= Date.parse(now)) throw new InvalidRequest('Value is invalid. The link\'s expiry must be in the future', 'paymentLink.expiryDateTime');
  const errorUrl = absoluteUrl(link?.errorUrl, 'paymentLink.errorUrl');
  return { expiresAt: new Date(expiry).toISOString(), attempts: link?.numberOfAllowedAttempts ?? DEFAULT_LINK_ATTEMPTS, ...(errorUrl === undefined ? {} : { errorUrl }) };
}

/** Whether the page runs 3-D Secure: interaction.action.3DSecure, else the merchant's profile (never before version 50: no Authentication API). */
function runs3ds(merchant: MerchantProfile, body: CheckoutBody, version: number): boolean {
  if (version < 50) return false;
  const asked = body.interaction?.action?.['3DSecure'];
  return asked === undefined ? merchant.checkout?.threeDSecure === true : asked === 'MANDATORY';
}

export interface CheckoutAnswerFacts { sessionId: string; version: string; successIndicator: string; link?: { id: string; expiresAt: string; attempts: number } }

/** The answer: the captured answers' members, sorted (a payment link's without the session, as captured). */
function answerOf(merchant: MerchantProfile, body: CheckoutBody, version: number, origin: string, facts: CheckoutAnswerFacts) {
  const session = { id: facts.sessionId, updateStatus: 'SUCCESS', version: facts.version };
  const link = facts.link;
  return {
    ...(version >= INITIATE_CHECKOUT_FROM ? { checkoutMode: body.checkoutMode ?? 'WEBSITE' } : {}),
    correlationId: body.correlationId,
    merchant: merchant.id,
    ...(link ? {
      paymentLink: { expiryDateTime: link.expiresAt, id: link.id, numberOfAllowedAttempts: link.attempts, url: `${origin}/pbl/${link.id}` },
    } : {}),
    result: 'SUCCESS',
    ...(link ? {} : { session }),
    successIndicator: facts.successIndicator,
  };
}

export async function initiateCheckout(gateway: Gateway, merchant: MerchantProfile, versionText: string, body: CheckoutBody, meta: RequestMeta, origin: string) {
  const version = Number(versionText);
  checkOperation(version, body.apiOperation);
  const operation = body.interaction?.operation ?? (version < OPERATION_REQUIRED_FROM ? 'PURCHASE' : undefined);
  if (operation === undefined) throw new InvalidRequest(`Missing parameter 'interaction.operation' required from version ${OPERATION_REQUIRED_FROM}`, 'interaction.operation', 'MISSING');
  const order = orderOf(merchant, body, operation);
  const redirect = absoluteUrl(body.interaction?.redirectMerchantUrl, 'interaction.redirectMerchantUrl');
  const urls = {
    returnUrl: absoluteUrl(body.interaction?.returnUrl, 'interaction.returnUrl'),
    cancelUrl: absoluteUrl(body.interaction?.cancelUrl, 'interaction.cancelUrl'),
    timeoutUrl: absoluteUrl(body.interaction?.timeoutUrl, 'interaction.timeoutUrl'),
    // Acted on only with retryAttemptCount (the reference: "only if both the new variables are passed").
    redirectMerchantUrl: body.interaction?.retryAttemptCount === undefined ? undefined : redirect,
  };
  const shown = checkoutDetails(body);
  const tokens = await offeredTokens(gateway, merchant, body, version);
  const successIndicator = newIndicator();
  const sealed = gateway.sealer.sealNew(successIndicator);
  let digits = '';
  const stream = () => streams.session(merchant.id, `SESSION${digits = randomDigits(24)}`);
  return handleCommand({ store: gateway.store, sandbox: gateway.sandbox }, stream, checkoutAggregate, (state, { now }) => {
    const sessionId = `SESSION${digits}`;
    const link = linkOf(version, body, now);
    const timeoutMs = link ? Date.parse(link.expiresAt) - Date.parse(now) : (body.interaction?.timeout ?? gateway.sessionExpiry.lifetimeMs / 1000) * 1000;
    const created = decideCreateSession(state.session, {
      type: 'CreateSession', merchantId: merchant.id, sessionId, version: randomBytes(5).toString('hex'), now, lifetimeMs: timeoutMs,
    });
    const paymentLink = link ? { id: `PAYLINK${digits}`, expiryDateTime: link.expiresAt, ...(link.errorUrl === undefined ? {} : { errorUrl: link.errorUrl }) } : undefined;
    const initiated: CheckoutInitiated = {
      type: 'CheckoutInitiated',
      data: {
        merchantId: merchant.id, sessionId, apiOperation: body.apiOperation, apiVersion: version, operation, order,
        ...(body.transaction?.reference === undefined ? {} : { transactionReference: body.transaction.reference }),
        ...Object.fromEntries(Object.entries(urls).filter(([, v]) => v !== undefined)),
        ...(body.interaction?.merchant?.name === undefined ? {} : { merchantName: body.interaction.merchant.name }),
        ...(tokens === undefined ? {} : { tokens }),
        ...shown,
        successIndicatorSealed: sealed,
        attemptsAllowed: link ? link.attempts : 1 + (body.interaction?.retryAttemptCount ?? DEFAULT_RETRIES),
        threeDSecure: runs3ds(merchant, body, version),
        checkoutMode: link ? 'PAYMENT_LINK' : 'WEBSITE',
        ...(paymentLink ? { paymentLink } : {}),
        initiatedAt: now,
      },
    };
    return {
      events: [...created, initiated],
      answer: () => {
        rememberCheckout(sessionId, merchant.id);
        const facts = { sessionId, version: created[0]!.data.version, successIndicator, ...(link && paymentLink ? { link: { expiresAt: link.expiresAt, attempts: link.attempts, id: paymentLink.id } } : {}) };
        return answerOf(merchant, body, version, origin, facts);
      },
    };
  }, { meta, guessNew: () => true, busy: 'no free session id' });
}
