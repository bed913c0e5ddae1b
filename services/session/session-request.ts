// A request that names a session (session.id): the gateway forms the final request from the
// fields the session holds and those sent directly, the request's own winning (the reference:
// "Values provided in the request will override values contained in the session"). One merge for
// every operation that takes session.id (Create or Update Token, Tokenize, PAY, AUTHORIZE, VERIFY
// and the other transactions of the order API): each then reads the merged request as if the
// client had sent it all, so a session that holds a card makes sourceOfFunds.type CARD and the
// card, a session that holds an amount makes order.amount, and one that holds
// authentication.transactionId makes a PAY use that authentication. The card number and security code are
// held sealed in the session's events (sessions.ts) and opened here for this request only.
import { formatAmount, minorUnits } from '../../domain/money.js';
import type { MerchantProfile } from '../../merchants.js';
import type { Gateway } from '../gateway.js';
import { sessionForToken, type SessionCardFields } from './sessions.js';
import { merchantNow } from '../test-control/sandbox.js';
import type { SessionAuthentication, SessionOrder } from '../../domain/events.js';

type Group = Record<string, unknown>;
const isGroup = (value: unknown): value is Group => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * `own` over `held`, member by member at every level: groups present in both are merged, any other
 * value of `own` (a string, a number, an array) replaces the held one.
 */
function overlay<T>(held: Group, own: T): T {
  if (!isGroup(own)) return own;
  const merged: Group = { ...held };
  for (const [name, value] of Object.entries(own)) {
    const under = merged[name];
    merged[name] = isGroup(under) && isGroup(value) ? overlay(under, value) : value;
  }
  return merged as T;
}

/** Members that are undefined left out. */
const defined = (group: Group): Group => Object.fromEntries(Object.entries(group).filter(([, v]) => v !== undefined));

/** The request fields a session holds, in the request's own shape. */
function sessionFields(card: SessionCardFields, order: SessionOrder | undefined, token: string | undefined, authentication: SessionAuthentication | undefined): Group {
  const provided = defined({
    number: card.number,
    expiry: card.expiry && { month: String(card.expiry.month), year: String(card.expiry.year).padStart(2, '0') },
    nameOnCard: card.nameOnCard,
    securityCode: card.securityCode,
  });
  const digits = order?.currency === undefined ? undefined : minorUnits(order.currency);
  const orderFields = defined({
    amount: order?.amount !== undefined && digits !== undefined ? formatAmount(order.amount, digits) : undefined,
    currency: order?.currency,
  });
  // A session that holds a card holds sourceOfFunds.type CARD with it.
  const sourceOfFunds = defined({
    type: Object.keys(provided).length > 0 ? 'CARD' : undefined,
    provided: Object.keys(provided).length > 0 ? { card: provided } : undefined,
    token,
  });
  return defined({
    authentication: authentication && Object.keys(authentication).length > 0 ? { ...authentication } : undefined,
    order: Object.keys(orderFields).length > 0 ? orderFields : undefined,
    sourceOfFunds: Object.keys(sourceOfFunds).length > 0 ? sourceOfFunds : undefined,
  });
}

export interface HeldSession {
  sessionId: string;
  /** The request fields the session holds, in the request's shape. */
  fields: Group;
  /** Call once the request is done with the session: a token request uses its security code up. */
  used: () => void;
}

/**
 * The request with the fields of the session it names merged under its own (the request as sent
 * when it names none). An unknown, expired or other merchant's session, a session.version that is
 * not the current one, or a session whose card was forgotten is refused (sessions.ts).
 */
export async function withSession<T extends { session?: { id?: string; version?: string } | undefined }>(
  gateway: Gateway, merchant: MerchantProfile, request: T, now = merchantNow(gateway.sandbox, merchant.id),
): Promise<{ request: T; session?: HeldSession }> {
  const held = await sessionForToken(gateway, merchant, request.session ?? {}, now);
  if (!held) return { request };
  const fields = sessionFields(held.fields, held.state.order, held.state.token, held.state.authentication);
  return { request: overlay(fields, request), session: { sessionId: held.sessionId, fields, used: held.used } };
}
