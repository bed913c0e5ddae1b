// The session aggregate's events (Create Session, Update Session, expiry).
import type { Brand, FundingMethod, Scheme } from '../card.js';
import type { CardExpiry } from '../token/events.js';

/** A card as a session holds it (Update Session): any member may be missing; the number and security code sealed. */
export interface SessionCard {
  numberSealed?: string;
  number?: string; // masked 6.4
  brand?: Brand;
  scheme?: Scheme;
  fundingMethod?: FundingMethod;
  expiry?: CardExpiry;
  nameOnCard?: string;
  /**
   * Sealed under a key of its own that is destroyed once a token request has used the session:
   * the security code is never readable from the events after that.
   */
  securityCodeSealed?: string;
}

/** order.amount and order.currency held by a session (Update Session), for a PAY that names the session. */
export interface SessionOrder {
  /** Minor units of the currency. */
  amount?: number;
  currency?: string;
}

/**
 * authentication.* held by a session (Update Session), for a later Initiate Authentication,
 * Authenticate Payer or payment that names the session, as if the request had sent them.
 */
export interface SessionAuthentication {
  acceptVersions?: string;
  channel?: string;
  purpose?: string;
  redirectResponseUrl?: string;
  transactionId?: string;
}

export interface SessionCreated {
  type: 'SessionCreated';
  /**
   * `expiresAt`: when the session stops being usable (createdAt + SESSION_LIFETIME_MS, decided at
   * creation); absent in sessions created before sessions expired (their expiry: createdAt + the
   * lifetime configured now).
   */
  data: { merchantId: string; sessionId: string; version: string; authenticationLimit?: number; createdAt: string; expiresAt?: string };
}

export interface SessionUpdated {
  type: 'SessionUpdated';
  /** `order`, `token` (sourceOfFunds.token), `authentication`: held after this update (absent: none). */
  data: {
    merchantId: string; sessionId: string; previousVersion: string; version: string; card: SessionCard; order?: SessionOrder; token?: string;
    authentication?: SessionAuthentication; updatedAt: string;
  };
}

/**
 * The session's lifetime ended (services/session/session-expiry.ts reactor): its card-data keys were
 * destroyed just before this event was stored, and it is refused from now on like an unknown one.
 */
export interface SessionExpired {
  type: 'SessionExpired';
  data: { merchantId: string; sessionId: string; expiresAt: string; expiredAt: string };
}

export type SessionEvent = SessionCreated | SessionUpdated | SessionExpired;
export const SESSION_EVENT_TYPES: ReadonlySet<string> = new Set<SessionEvent['type']>(['SessionCreated', 'SessionUpdated', 'SessionExpired']);
