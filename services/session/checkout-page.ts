// What the gateway's payment page reads and does besides paying (routes/checkout.ts): the
// checkout as the page shows it (the first read records CheckoutPageShown), and the payer's
// cancel. No credentials: the session id, drawn by the gateway and handed to the payer's browser
// by the merchant, is what the page holds (as on the real gateway).
import { formatAmount, minorUnits } from '../../domain/money.js';
import { attemptsLeft, checkoutStatus, decideCancel, decideShowPage, type CheckoutState } from '../../domain/session/checkout.js';
import { expiresAt } from '../../domain/session/session.js';
import { maskCardNumber } from '../../domain/token/accounts.js';
import { checkoutAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import type { RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { maskingOf } from '../order/responses.js';
import { shownDetails } from './checkout-details.js';
import { merchantNow } from '../test-control/sandbox.js';
import { findCheckout, type FoundCheckout } from './checkout-lookup.js';
import { storedCards, type StoredCardView } from './checkout-tokens.js';

/** The payer's words for why an attempt failed. */
const EXPLANATIONS: Readonly<Record<string, string>> = {
  DECLINED: 'The card issuer declined the payment. Try another card.',
  EXPIRED_CARD: 'The card has expired. Check the expiry date or try another card.',
  INSUFFICIENT_FUNDS: 'The card issuer declined the payment: insufficient funds.',
  INVALID_CSC: 'The security code is not the card\'s. Check it and try again.',
  DECLINED_CSC: 'The card issuer declined the security code. Check it and try again.',
  DECLINED_AVS: 'The billing address does not match the card\'s.',
  DECLINED_AVS_CSC: 'The billing address and security code do not match the card\'s.',
  AUTHENTICATION_FAILED: 'The card\'s 3-D Secure authentication did not succeed.',
  NOT_ENROLLED_3D_SECURE: 'The card is not enrolled in 3-D Secure.',
  BLOCKED: 'The payment was blocked.',
  REFERRED: 'The card issuer asks you to contact them.',
  TIMED_OUT: 'The card issuer did not answer in time. Try again.',
  LOCK_FAILURE: 'Another payment on this order is in progress. Try again.',
};
export const explanationOf = (gatewayCode: string) => EXPLANATIONS[gatewayCode] ?? 'The payment did not go through. Try again or use another card.';

/** The checkout as the payment page shows it. */
export function checkoutView(found: FoundCheckout, state: CheckoutState, now: string, lifetimeMs: number, cards: readonly StoredCardView[] = []) {
  const c = found.state.checkout;
  const { order } = c;
  const card = state.session.status === 'NONE' ? undefined : state.session.card;
  const last = state.lastDecline;
  return {
    merchant: { id: found.merchant.id, name: c.merchantName ?? found.merchant.id },
    order: {
      id: order.id, amount: formatAmount(order.amount, minorUnits(order.currency) ?? 2), currency: order.currency,
      ...(order.description === undefined ? {} : { description: order.description }),
    },
    operation: c.operation,
    apiVersion: c.apiVersion,
    status: checkoutStatus(state, now, lifetimeMs),
    attemptsLeft: attemptsLeft(state),
    ...(last ? { lastError: { gatewayCode: last.gatewayCode, explanation: explanationOf(last.gatewayCode) } } : {}),
    expiresAt: state.session.status === 'NONE' ? c.initiatedAt : expiresAt(state.session, lifetimeMs),
    ...(c.returnUrl === undefined ? {} : { returnUrl: c.returnUrl }),
    ...(c.cancelUrl === undefined ? {} : { cancelUrl: c.cancelUrl }),
    ...(c.timeoutUrl === undefined ? {} : { timeoutUrl: c.timeoutUrl }),
    ...(c.paymentLink?.errorUrl === undefined ? {} : { errorUrl: c.paymentLink.errorUrl }),
    display: shownDetails(c),
    ...(card?.number !== undefined ? { card: { number: maskCardNumber(card.number, maskingOf(found.merchant)), ...(card.brand ? { brand: card.brand } : {}) } } : {}),
    ...(cards.length > 0 ? { storedCards: cards } : {}),
    threeDS: c.threeDSecure,
  };
}

export type CheckoutView = ReturnType<typeof checkoutView>;

const metaOf = (meta: RequestMeta, found: FoundCheckout): RequestMeta => ({ ...meta, merchantId: found.merchant.id, apiVersion: found.state.checkout.apiVersion });

/** The page's read: the checkout, CheckoutPageShown recorded at the first (undefined: no such checkout). */
export async function showCheckout(gateway: Gateway, sessionId: string, meta: RequestMeta): Promise<CheckoutView | undefined> {
  const found = await findCheckout(gateway, sessionId);
  if (!found) return undefined;
  const lifetimeMs = gateway.sessionExpiry.lifetimeMs;
  const cards = await storedCards(gateway, found.merchant, found.state.checkout.tokens);
  return handleCommand(gateway, found.stream, checkoutAggregate, (state, { now }) => {
    const events = decideShowPage(state, now, lifetimeMs);
    const after = events.reduce(checkoutAggregate.evolve, state);
    return { events, answer: () => checkoutView(found, after, now, lifetimeMs, cards) };
  }, { meta: metaOf(meta, found), ownStream: true, known: found.history });
}

/** The payer cancelled: the merchant's cancelUrl (or null); refused once paid, declined, cancelled or expired. */
export async function cancelCheckout(gateway: Gateway, sessionId: string, meta: RequestMeta): Promise<{ url: string | null } | undefined> {
  const found = await findCheckout(gateway, sessionId);
  if (!found) return undefined;
  const lifetimeMs = gateway.sessionExpiry.lifetimeMs;
  return handleCommand(gateway, found.stream, checkoutAggregate, (state, { now }) => ({
    events: decideCancel(state, now, lifetimeMs),
    answer: () => ({ url: found.state.checkout.cancelUrl ?? null }),
  }), { meta: metaOf(meta, found), ownStream: true, known: found.history });
}

/**
 * Where a payment link sends the payer: its page; once the link is used up (declined with no
 * attempt left) or expired, the merchant's paymentLink.errorUrl when it gave one.
 */
export function linkDestination(gateway: Gateway, found: FoundCheckout): string {
  const c = found.state.checkout;
  const status = checkoutStatus(found.state, merchantNow(gateway.sandbox, found.merchant.id), gateway.sessionExpiry.lifetimeMs);
  const unusable = status === 'DECLINED' || status === 'EXPIRED';
  return unusable && c.paymentLink?.errorUrl !== undefined ? c.paymentLink.errorUrl : `/checkout/pay/${encodeURIComponent(c.sessionId)}`;
}

export { metaOf };
