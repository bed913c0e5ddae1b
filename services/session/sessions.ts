// Create Session and Update Session (version 100), and reading a session for a token request.
// Sessions are event-sourced in their session stream. The card number is sealed under a key of
// the session; the security code under a key of its own, destroyed once a token request has used
// the session (so no event ever holds a readable security code after use). A session lasts
// SESSION_LIFETIME_MS from its creation (services/session/session-expiry.ts destroys its keys
// then), and deleting a token made from it destroys its keys at once (sessionKeyIds below, used by
// services/token/token-shredding.ts): a session whose card is forgotten can make no token.
import { randomBytes } from 'node:crypto';
import { detectBrand, fundingMethodOf, luhnValid, mask64, schemeOf } from '../../domain/card.js';
import { InvalidRequest } from '../../domain/errors.js';
import { streams, type CardExpiry, type SessionAuthentication, type SessionCard, type SessionOrder } from '../../domain/events.js';
import { formatAmount, minorUnits } from '../../domain/money.js';
import { amountOf } from '../order/pay-request.js';
import { requestBilling, requestCustomer } from '../order/request-billing.js';
import { requestedNotificationUrl } from '../notification/body.js';
import { checkRedirectResponseUrl } from '../../domain/order/redirect-response-url.js';
import { numberLiteral } from '../../lib/json-literals.js';
import { maskCardNumber, type CardNumberMasking } from '../../domain/token/accounts.js';
import { decideCreateSession, decideUpdateSession, usable, type SessionState } from '../../domain/session/session.js';
import type { MerchantProfile } from '../../merchants.js';
import type { CreateSessionBody, SessionBody } from '../../schemas/session.js';
import type { RecordedEvent } from '../../store/event-store.js';
import type { Sealer } from '../../store/sealing.js';
import { foldSession, readOwnStream, sessionAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import { randomDigits, type RequestMeta } from '../context.js';
import type { Gateway } from '../gateway.js';
import { merchantNow } from '../test-control/sandbox.js';

export { foldSession };

/** Every key that sealed a value of the session (its number's, every security code's). */
export function sessionKeyIds(sealer: Sealer, events: readonly RecordedEvent[]): Set<string> {
  const out = new Set<string>();
  for (const event of events) {
    const card = (event.data as { card?: SessionCard }).card;
    for (const sealed of [card?.numberSealed, card?.securityCodeSealed]) {
      const keyId = sealed ? sealer.keyIdOf(sealed) : undefined;
      if (keyId) out.add(keyId);
    }
  }
  return out;
}

const noSuchSession = (sessionId: string, field: string) => new InvalidRequest(`Value '${sessionId}' is invalid. No such session for this merchant`, field);

/** 31 characters, like the real gateway's: SESSION and 24 digits. */
const newSessionId = () => `SESSION${randomDigits(24)}`;
/** 10 hexadecimal characters (spec: session.version exactly 10). */
const newVersion = () => randomBytes(5).toString('hex');

export async function createSession(gateway: Gateway, merchant: MerchantProfile, body: CreateSessionBody | undefined, meta: RequestMeta) {
  const authenticationLimit = body?.session?.authenticationLimit;
  // A new session id at every attempt: a stream already there (an id drawn twice) refuses the append.
  let sessionId = '';
  const stream = () => streams.session(merchant.id, sessionId = newSessionId());
  return handleCommand({ store: gateway.store, sandbox: gateway.sandbox }, stream, sessionAggregate, (state, { now }) => {
    const events = decideCreateSession(state, {
      type: 'CreateSession', merchantId: merchant.id, sessionId, version: newVersion(), ...(authenticationLimit === undefined ? {} : { authenticationLimit }), now,
      lifetimeMs: gateway.sessionExpiry.lifetimeMs,
    });
    return {
      events,
      answer: () => ({
        correlationId: body?.correlationId,
        merchant: merchant.id,
        result: 'SUCCESS',
        session: { ...(authenticationLimit === undefined ? {} : { authenticationLimit }), id: sessionId, updateStatus: 'NO_UPDATE', version: events[0]!.data.version },
      }),
    };
  }, { meta, guessNew: () => true, busy: 'no free session id' });
}

/** The card fields of an Update Session request, the number and security code sealed. */
function sessionCard(gateway: Gateway, state: Extract<SessionState, { status: 'OPEN' }>, card: NonNullable<NonNullable<SessionBody['sourceOfFunds']>['provided']>['card']): SessionCard {
  if (!card) return {};
  const out: SessionCard = {};
  if (card.number !== undefined) {
    if (!luhnValid(card.number)) throw new InvalidRequest('Value is invalid. The card number fails the Luhn check', 'sourceOfFunds.provided.card.number');
    // The session's number key is reused while it exists.
    const held = state.card.numberSealed;
    const key = held && gateway.sealer.open(held) !== undefined ? gateway.sealer.keyIdOf(held) : undefined;
    const brand = detectBrand(card.number);
    Object.assign(out, { numberSealed: key ? gateway.sealer.seal(key, card.number) : gateway.sealer.sealNew(card.number), number: mask64(card.number), brand, scheme: schemeOf(brand), fundingMethod: fundingMethodOf(brand) });
  }
  if (card.expiry) out.expiry = { month: Number(card.expiry.month), year: Number(card.expiry.year) };
  if (card.nameOnCard !== undefined) out.nameOnCard = card.nameOnCard;
  if (card.securityCode !== undefined) out.securityCodeSealed = gateway.sealer.sealNew(card.securityCode);
  return out;
}

/**
 * order.amount and order.currency of an Update Session, merged with those held: an amount needs a
 * currency (sent or held); a new currency without an amount drops the amount held in the old one.
 */
function sessionOrder(state: Extract<SessionState, { status: 'OPEN' }>, order: SessionBody['order']): SessionOrder | undefined {
  if (order?.amount === undefined && order?.currency === undefined) return undefined;
  const currency = order.currency ?? state.order?.currency;
  if (order.currency !== undefined && minorUnits(order.currency) === undefined) {
    throw new InvalidRequest(`Value '${order.currency}' is invalid. Currency is not supported`, 'order.currency', 'UNSUPPORTED');
  }
  if (order.amount === undefined) return { currency: currency as string };
  if (currency === undefined) throw new InvalidRequest("Missing parameter 'order.currency': an amount needs its currency", 'order.currency', 'MISSING');
  return { amount: amountOf(order.amount, currency, 'order.amount', numberLiteral(order, 'amount')), currency };
}

/** authentication.* of an Update Session: the way back checked as Authenticate Payer checks it (an http or https URL). */
function sessionAuthentication(authentication: SessionBody['authentication']): SessionAuthentication | undefined {
  if (authentication === undefined || Object.keys(authentication).length === 0) return undefined;
  if (authentication.redirectResponseUrl !== undefined) checkRedirectResponseUrl(authentication.redirectResponseUrl);
  return { ...authentication };
}

/**
 * The order's and payer's details a shop sends beside the card (the WooCommerce module's
 * savePayment): checked as a payment checks them, the notification URL against the merchant's
 * settings, and not held: the payment that follows sends its own.
 */
function checkShopDetails(merchant: MerchantProfile, body: SessionBody): void {
  if (body.order?.notificationUrl !== undefined) requestedNotificationUrl(merchant, body.order.notificationUrl);
  requestBilling(body);
  requestCustomer(body, false);
}

export async function updateSession(gateway: Gateway, merchant: MerchantProfile, sessionId: string, body: SessionBody, meta: RequestMeta, version = '100') {
  checkShopDetails(merchant, body);
  const stream = streams.session(merchant.id, sessionId);
  return handleCommand({ store: gateway.store, sandbox: gateway.sandbox }, stream, sessionAggregate, (state, { now }) => {
    // An expired session is refused like an unknown one (its keys are, or are about to be, destroyed).
    if (!usable(state, now, gateway.sessionExpiry.lifetimeMs)) throw noSuchSession(sessionId, 'sessionId');
    const order = sessionOrder(state, body.order);
    const card = sessionCard(gateway, state, body.sourceOfFunds?.provided?.card);
    const token = body.sourceOfFunds?.token;
    const authentication = sessionAuthentication(body.authentication);
    const events = decideUpdateSession(state, {
      type: 'UpdateSession', merchantId: merchant.id, version: newVersion(), card, ...(order ? { order } : {}), ...(token === undefined ? {} : { token }),
      ...(authentication ? { authentication } : {}), now, lifetimeMs: gateway.sessionExpiry.lifetimeMs,
    });
    return {
      events,
      answer: () => {
        // A replaced security code is forgotten at once.
        if (card.securityCodeSealed && state.card.securityCodeSealed) destroy(gateway, state.card.securityCodeSealed);
        const d = events[0]!.data;
        return sessionView(merchant, { sessionId, version: d.version, card: d.card, order: d.order, token: d.token, authentication: d.authentication }, 'SUCCESS', version, body.correlationId);
      },
    };
  }, { meta, ownStream: true, busy: 'the session is being changed by too many requests at once' });
}

/** Whether the merchant's session exists and has not expired: an update authenticated by its id needs it (plugins/session-auth.ts). */
export async function sessionIsLive(gateway: Gateway, merchant: MerchantProfile, sessionId: string): Promise<boolean> {
  const state = foldSession(await readOwnStream(gateway.store, streams.session(merchant.id, sessionId)));
  return usable(state, merchantNow(gateway.sandbox, merchant.id), gateway.sessionExpiry.lifetimeMs);
}

/** Retrieve Session: what the session holds (card number masked, security code shown as xxx); refused like an unknown one once expired. */
export async function retrieveSession(gateway: Gateway, merchant: MerchantProfile, sessionId: string, version = '100') {
  const state = foldSession(await readOwnStream(gateway.store, streams.session(merchant.id, sessionId)));
  if (!usable(state, merchantNow(gateway.sandbox, merchant.id), gateway.sessionExpiry.lifetimeMs)) throw noSuchSession(sessionId, 'sessionId');
  const updated = state.updatedAt !== state.createdAt;
  return sessionView(merchant, state, updated ? 'SUCCESS' : 'NO_UPDATE', version);
}

interface HeldFields {
  sessionId: string; version: string; card: SessionCard; order?: SessionOrder | undefined; token?: string | undefined; authenticationLimit?: number | undefined;
  authentication?: SessionAuthentication | undefined;
}

function sessionView(merchant: MerchantProfile, held: HeldFields, updateStatus: string, version: string, correlationId?: string) {
  const card = sessionCardView(held.card, merchant.repository.cardNumberMasking ?? '6.4');
  const { order } = held;
  const orderView = order && {
    ...(order.amount !== undefined && order.currency !== undefined ? { amount: formatAmount(order.amount, minorUnits(order.currency) ?? 2) } : {}),
    ...(order.currency !== undefined ? { currency: order.currency } : {}),
  };
  return {
    ...(held.authentication ? { authentication: held.authentication } : {}),
    correlationId,
    merchant: merchant.id,
    ...(orderView ? { order: orderView } : {}),
    result: 'SUCCESS',
    session: {
      ...(held.authenticationLimit === undefined ? {} : { authenticationLimit: held.authenticationLimit }),
      id: held.sessionId, updateStatus, version: held.version,
    },
    ...(Object.keys(card).length > 0 || held.token !== undefined ? {
      sourceOfFunds: { ...(Object.keys(card).length > 0 ? { provided: { card } } : {}), ...(held.token === undefined ? {} : { token: held.token }), type: 'CARD' },
    } : {}),
    version,
  };
}

/** The session's card fields as answered: the stored 6.4 number masked as the merchant says. */
function sessionCardView(card: SessionCard, masking: CardNumberMasking) {
  const expiry = card.expiry ? { month: String(card.expiry.month), year: String(card.expiry.year).padStart(2, '0') } : undefined;
  const view = {
    brand: card.brand, expiry, fundingMethod: card.fundingMethod, nameOnCard: card.nameOnCard, number: card.number === undefined ? undefined : maskCardNumber(card.number, masking), scheme: card.scheme,
    securityCode: card.securityCodeSealed ? 'xxx' : undefined,
  };
  return Object.fromEntries(Object.entries(view).filter(([, v]) => v !== undefined));
}

const destroy = (gateway: Gateway, sealed: string) => {
  const keyId = gateway.sealer.keyIdOf(sealed);
  if (keyId) gateway.sealer.destroyKey(keyId);
};

/** Card fields a session holds, in clear, for a token request (spec: session.id, session.version). */
export interface SessionCardFields { number?: string; expiry?: CardExpiry; nameOnCard?: string; securityCode?: string }

export async function sessionForToken(gateway: Gateway, merchant: MerchantProfile, session: { id?: string; version?: string }, now = merchantNow(gateway.sandbox, merchant.id)) {
  if (session.id === undefined) {
    if (session.version !== undefined) throw new InvalidRequest('Missing parameter', 'session.id', 'MISSING');
    return undefined;
  }
  const state = foldSession(await readOwnStream(gateway.store, streams.session(merchant.id, session.id)));
  // An expired session is refused like an unknown one, from its recorded expiry on.
  if (!usable(state, now, gateway.sessionExpiry.lifetimeMs)) throw noSuchSession(session.id, 'session.id');
  // Spec: a session.version that differs from the stored one fails the operation.
  if (session.version !== undefined && session.version !== state.version) {
    throw new InvalidRequest(`Value '${session.version}' is invalid. The session was updated since this version: its version is now another one`, 'session.version');
  }
  const { card } = state;
  const number = card.numberSealed ? gateway.sealer.open(card.numberSealed) : undefined;
  // The session's card was forgotten (a token made from it was deleted): it gives no card again.
  if (card.numberSealed && number === undefined) {
    throw new InvalidRequest(`Value '${session.id}' is invalid. The card details of this session are no longer held (a token made from it was deleted)`, 'session.id');
  }
  const fields: SessionCardFields = {
    number,
    expiry: card.expiry,
    nameOnCard: card.nameOnCard,
    securityCode: card.securityCodeSealed ? gateway.sealer.open(card.securityCodeSealed) : undefined,
  };
  /** After the token request: the security code is destroyed (used once). */
  const used = () => { if (card.securityCodeSealed) destroy(gateway, card.securityCodeSealed); };
  return { sessionId: session.id, fields, used, state };
}
