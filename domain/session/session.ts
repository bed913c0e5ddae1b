// The session aggregate (Create Session, Update Session): a short-lived holder of card fields that
// a later token request names in session.id, with a version that changes on every update and
// acts as an optimistic lock (spec: session.version). Like the real gateway's, a session lasts a
// limited time (SESSION_LIFETIME_MS after its creation, recorded in SessionCreated.expiresAt);
// an expired one is refused like an unknown one, and its SessionExpired is appended by a reactor
// (services/session/session-expiry.ts) after its keys are destroyed. Pure; ids, versions and time passed in.
import type { SessionAuthentication, SessionCard, SessionCreated, SessionEvent, SessionExpired, SessionOrder, SessionUpdated } from '../events.js';

interface SessionFields {
  merchantId: string; sessionId: string; version: string; card: SessionCard; order?: SessionOrder; token?: string; authenticationLimit?: number;
  authentication?: SessionAuthentication;
  createdAt: string; updatedAt: string;
  /** Absent for a session created before sessions expired: see expiresAt(). */
  expiresAt?: string;
}

export type OpenSession = SessionFields & { status: 'OPEN' };
export type LiveSession = SessionFields & { status: 'OPEN' | 'EXPIRED' };
export type SessionState = { status: 'NONE' } | OpenSession | (SessionFields & { status: 'EXPIRED' });

export const initialSessionState = (): SessionState => ({ status: 'NONE' });

export function evolveSession(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionCreated': {
      const d = event.data;
      return {
        status: 'OPEN', merchantId: d.merchantId, sessionId: d.sessionId, version: d.version, card: {},
        ...(d.authenticationLimit === undefined ? {} : { authenticationLimit: d.authenticationLimit }),
        createdAt: d.createdAt, updatedAt: d.createdAt,
        ...(d.expiresAt === undefined ? {} : { expiresAt: d.expiresAt }),
      };
    }
    case 'SessionUpdated':
      if (state.status !== 'OPEN') return state;
      {
        const { order: _order, token: _token, authentication: _authentication, ...rest } = state;
        const { order, token, authentication } = event.data;
        return {
          ...rest, version: event.data.version, card: event.data.card, ...(order ? { order } : {}), ...(token === undefined ? {} : { token }),
          ...(authentication ? { authentication } : {}), updatedAt: event.data.updatedAt,
        };
      }
    case 'SessionExpired':
      return state.status === 'NONE' ? state : { ...state, status: 'EXPIRED' };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** When the session stops being usable: recorded at creation, else its creation plus `lifetimeMs`. */
export const expiresAt = (state: LiveSession, lifetimeMs: number): string =>
  state.expiresAt ?? new Date(Date.parse(state.createdAt) + lifetimeMs).toISOString();

/** The session can be used at `now`: it exists, has not expired, and its lifetime has not ended. */
export const usable = (state: SessionState, now: string, lifetimeMs: number): state is OpenSession =>
  state.status === 'OPEN' && Date.parse(now) < Date.parse(expiresAt(state, lifetimeMs));

export class SessionIdTaken extends Error { override name = 'SessionIdTaken'; }
export class SessionNotFound extends Error { override name = 'SessionNotFound'; }

export interface CreateSession { type: 'CreateSession'; merchantId: string; sessionId: string; version: string; authenticationLimit?: number; now: string; lifetimeMs: number }

/**
 * Card fields sent to Update Session; each replaces the one held, the others stay (a new number
 * comes with its brand, scheme and funding method). The same for order.amount, order.currency,
 * sourceOfFunds.token and each authentication.* field.
 */
export interface UpdateSession {
  type: 'UpdateSession'; merchantId: string; version: string; card: SessionCard; order?: SessionOrder; token?: string; authentication?: SessionAuthentication;
  now: string; lifetimeMs: number;
}

/** The reactor's command once the session's lifetime has passed (its keys already destroyed). */
export interface ExpireSession { type: 'ExpireSession'; now: string; lifetimeMs: number }

export function decideCreateSession(state: SessionState, c: CreateSession): SessionCreated[] {
  if (state.status !== 'NONE') throw new SessionIdTaken('session id already in use');
  return [{
    type: 'SessionCreated',
    data: {
      merchantId: c.merchantId, sessionId: c.sessionId, version: c.version, ...(c.authenticationLimit === undefined ? {} : { authenticationLimit: c.authenticationLimit }),
      createdAt: c.now, expiresAt: new Date(Date.parse(c.now) + c.lifetimeMs).toISOString(),
    },
  }];
}

export function decideUpdateSession(state: SessionState, c: UpdateSession): SessionUpdated[] {
  if (!usable(state, c.now, c.lifetimeMs)) throw new SessionNotFound('no such session');
  return [{
    type: 'SessionUpdated',
    data: {
      merchantId: c.merchantId, sessionId: state.sessionId, previousVersion: state.version, version: c.version,
      card: { ...state.card, ...c.card }, updatedAt: c.now,
      ...(state.order || c.order ? { order: { ...state.order, ...c.order } } : {}),
      ...(c.token ?? state.token ? { token: c.token ?? state.token } : {}),
      ...(state.authentication || c.authentication ? { authentication: { ...state.authentication, ...c.authentication } } : {}),
    },
  }];
}

/** SessionExpired once the lifetime has passed; nothing when it has not, or when already expired. */
export function decideExpireSession(state: SessionState, c: ExpireSession): SessionExpired[] {
  if (state.status !== 'OPEN') return [];
  const at = expiresAt(state, c.lifetimeMs);
  if (Date.parse(c.now) < Date.parse(at)) return [];
  return [{ type: 'SessionExpired', data: { merchantId: state.merchantId, sessionId: state.sessionId, expiresAt: at, expiredAt: c.now } }];
}
