// What a notification says and where it goes, from the order stream as it was at the event that
// caused it: the transaction as Retrieve Transaction answers it (the real gateway's notification
// body), in the API version of the request that created the transaction (version 3's pay shape for
// Pay with token, the order API's for versions 1-100 but the deactivated ones), card numbers masked
// per the merchant's cardNumberMasking; sent to the URL the order last named
// (order.notificationUrl, kept in the metadata of its events), else the merchant's
// notifications.url, and only if the merchants file allows it.
import { foldOrder } from '../aggregates.js';
import { orderView } from '../order/order-stream.js';
import { maskingOf, payResponse, transactionResponse } from '../order/responses.js';
import { authenticationResponse } from '../order/authentication-responses.js';
import { DEFAULT_ORIGIN } from '../order/authentication-html.js';
import { AUTHENTICATION_EVENT_TYPES } from '../../domain/events.js';
import { transactionOf } from '../../domain/order/order-views.js';
import { notificationUrlAllowed, notificationUrlOf, type MerchantProfile } from '../../merchants.js';
import { InvalidRequest } from '../../domain/errors.js';
import type { RecordedEvent } from '../../store/event-store.js';
import { sortedJson } from '../../lib/json.js';

/**
 * The order events a notification is sent for: a transaction created, or its outcome changed; each
 * step of a 3-D Secure authentication (Initiate Authentication, Authenticate Payer, the challenge
 * answered), whose notification is the authentication as Retrieve Transaction shows it then.
 */
export const NOTIFYING_EVENT_TYPES: ReadonlySet<string> = new Set(['PaymentRecorded', 'OrderTransactionRecorded', 'PaymentOutcomeResolved', ...AUTHENTICATION_EVENT_TYPES]);

/** The order API's version when a transaction's request named none (events recorded before versions were kept). */
const DEFAULT_VERSION = '100';

export interface NotificationContent {
  orderId: string;
  transactionId: string;
  url: string;
  /** The JSON text sent (keys sorted, as the gateway writes its bodies). */
  body: string;
}

/** The API version of the request that created the transaction (its notifications are in that version's shape). */
const versionOf = (origin: RecordedEvent | undefined): string => {
  const recorded = origin?.metadata.apiVersion;
  return typeof recorded === 'number' ? String(recorded) : DEFAULT_VERSION;
};

const metadataText = (event: RecordedEvent, field: string): string | undefined => {
  const value = event.metadata[field];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The notification for `cause` (an event of `history`, the order stream read through it), or
 * undefined when none is sent: the merchant has no notifications, or no allowed URL applies.
 */
export function notificationContent(merchant: MerchantProfile, cause: RecordedEvent, history: readonly RecordedEvent[]): NotificationContent | undefined {
  if (!merchant.notifications || !NOTIFYING_EVENT_TYPES.has(cause.type)) return undefined;
  const upToCause = history.filter((e) => e.revision <= cause.revision);
  const { orderId, transactionId } = cause.data as { orderId: string; transactionId: string };
  const url = [...upToCause].reverse().map((e) => metadataText(e, 'notificationUrl')).find((u) => u !== undefined) ?? merchant.notifications.url;
  // The merchants file may have changed since the request named it: checked again here.
  if (url === undefined || !notificationUrlAllowed(merchant, url)) return undefined;
  const state = foldOrder(upToCause);
  if (!state.exists) return undefined;
  const masking = maskingOf(merchant);
  const origin = upToCause.find((e) => (e.type === 'PaymentRecorded' || e.type === 'OrderTransactionRecorded' || e.type === 'AuthenticationInitiated')
    && (e.data as { transactionId: string }).transactionId === transactionId);
  const authentication = state.modern?.authentications?.get(transactionId);
  let body: Record<string, unknown> | undefined;
  if (origin?.type === 'AuthenticationInitiated' && authentication) {
    body = authenticationResponse(authentication, 'latest', { order: state, version: versionOf(origin), masking, origin: DEFAULT_ORIGIN }) as Record<string, unknown>;
  } else if (origin?.type === 'PaymentRecorded') {
    const payment = state.transactions.get(transactionId);
    if (payment) body = payResponse(payment, orderView(state, state.creationTime, transactionId), undefined, masking) as Record<string, unknown>;
  } else {
    const transaction = transactionOf(state, transactionId);
    if (transaction) body = transactionResponse(transaction, state, versionOf(origin), masking) as Record<string, unknown>;
  }
  return body === undefined ? undefined : { orderId, transactionId, url, body: sortedJson(body) };
}

/**
 * order.notificationUrl of a request, as it is kept (normalized): a URL the merchants file allows
 * for this merchant (its notifications.url, or under one of its allowedUrls), else 400 naming the
 * field. No request ever makes the gateway call a host the merchants file does not name.
 */
export function requestedNotificationUrl(merchant: MerchantProfile, text: string): string {
  const field = 'order.notificationUrl';
  const url = notificationUrlOf(text);
  if (typeof url === 'string') throw new InvalidRequest(`Value is invalid. Expected an http or https URL without a user name, password, fragment or encoded separator in its path (${url})`, field);
  if (!merchant.notifications) throw new InvalidRequest('Value is invalid. Webhook notifications are not configured for this merchant', field);
  if (!notificationUrlAllowed(merchant, url.href)) {
    throw new InvalidRequest("Value is invalid. The URL is not one the merchant's webhook notification settings allow", field);
  }
  return url.href;
}
