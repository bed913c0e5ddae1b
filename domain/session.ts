// The session aggregate (Create Session, Update Session): a short-lived holder of card fields that
// a later token request names in session.id, with a version that changes on every update and
// acts as an optimistic lock (spec: session.version). Pure; ids, versions and time passed in.
import type { SessionCard, SessionCreated, SessionEvent, SessionUpdated } from './events.js';

export type SessionState =
  | { status: 'NONE' }
  | { status: 'OPEN'; merchantId: string; sessionId: string; version: string; card: SessionCard; authenticationLimit?: number; createdAt: string; updatedAt: string };

export const initialSessionState = (): SessionState => ({ status: 'NONE' });

export function evolveSession(state: SessionState, event: SessionEvent): SessionState {
  switch (event.type) {
    case 'SessionCreated': {
      const d = event.data;
      return {
        status: 'OPEN', merchantId: d.merchantId, sessionId: d.sessionId, version: d.version, card: {},
        ...(d.authenticationLimit === undefined ? {} : { authenticationLimit: d.authenticationLimit }),
        createdAt: d.createdAt, updatedAt: d.createdAt,
      };
    }
    case 'SessionUpdated':
      return state.status === 'OPEN' ? { ...state, version: event.data.version, card: event.data.card, updatedAt: event.data.updatedAt } : state;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export class SessionIdTaken extends Error { override name = 'SessionIdTaken'; }
export class SessionNotFound extends Error { override name = 'SessionNotFound'; }

export interface CreateSession { type: 'CreateSession'; merchantId: string; sessionId: string; version: string; authenticationLimit?: number; now: string }

/**
 * Card fields sent to Update Session; each replaces the one held, the others stay (a new number
 * comes with its brand, scheme and funding method).
 */
export interface UpdateSession { type: 'UpdateSession'; merchantId: string; version: string; card: SessionCard; now: string }

export function decideCreateSession(state: SessionState, c: CreateSession): SessionCreated[] {
  if (state.status !== 'NONE') throw new SessionIdTaken('session id already in use');
  return [{
    type: 'SessionCreated',
    data: { merchantId: c.merchantId, sessionId: c.sessionId, version: c.version, ...(c.authenticationLimit === undefined ? {} : { authenticationLimit: c.authenticationLimit }), createdAt: c.now },
  }];
}

export function decideUpdateSession(state: SessionState, c: UpdateSession): SessionUpdated[] {
  if (state.status !== 'OPEN') throw new SessionNotFound('no such session');
  return [{
    type: 'SessionUpdated',
    data: {
      merchantId: c.merchantId, sessionId: state.sessionId, previousVersion: state.version, version: c.version,
      card: { ...state.card, ...c.card }, updatedAt: c.now,
    },
  }];
}
