// Read model of the reactors' pending work: one document per payment answered UNKNOWN and not yet
// resolved, one per token whose scheme token has a next action due (schemeToken.nextActionAt), and
// one per session not yet expired (its SessionCreated; SessionExpired removes it).
// At start-up each reactor reads these few documents instead of searching the text of every order
// and token document (which took 0.9 s of a 1.2 s start on a store of 1,000,000 events, and grows
// with the store). A document leaves when the work is done.
import { TOKEN_EVENT_TYPES, type OrderTransactionRecorded, type PaymentOutcomeResolved, type PaymentRecorded, type SchemeTokenDetails, type SessionCreated } from '../domain/events.js';
import type { ProjectedEvent } from '../store/event-store.js';
import type { Projection } from './projection.js';

export interface PendingDoc {
  /** The stream the reactor reads to do the work. */
  stream: string;
  /** The UNKNOWN payment's transaction. */
  transactionId?: string;
  /** When the scheme token's next action is due. */
  nextActionAt?: string;
  /** When the session expires (absent for a session created before sessions expired). */
  expiresAt?: string;
}

/** Key prefixes: what kind of work a document is. */
export const PENDING_PAYMENT = 'payment/';
/** A pending payment's key: its order stream and transaction id as a JSON pair (no separator either may hold). */
export const pendingPaymentKey = (stream: string, transactionId: string) => `${PENDING_PAYMENT}${JSON.stringify([stream, transactionId])}`;
export const PENDING_SCHEME_TOKEN = 'scheme-token/';
export const PENDING_SESSION = 'session/';

const schemeTokenOf = (event: ProjectedEvent) => (event.data as { schemeToken?: SchemeTokenDetails }).schemeToken;

export const pendingProjection: Projection<PendingDoc> = {
  name: 'pending',
  // 2: stream names `<category>-<owner>:<id>` and payment keys as JSON pairs (rebuilt once).
  // 3: sessions not yet expired (rebuilt once).
  // 4: transactions of the order API (versions 1-100 but the deactivated ones) answered UNKNOWN
  // (OrderTransactionRecorded).
  version: 4,
  // Read by the reactors when they start (after the start-up catch-up): written after the reply.
  apply: 'deferred',
  handles: new Set(['PaymentRecorded', 'OrderTransactionRecorded', 'PaymentOutcomeResolved', ...TOKEN_EVENT_TYPES, 'SessionCreated', 'SessionExpired']),
  // What keysOf and evolve read (a replay may hand only these).
  reads: {
    PaymentRecorded: ['outcome.result', 'transactionId'],
    OrderTransactionRecorded: ['outcome.result', 'transactionId'],
    PaymentOutcomeResolved: ['transactionId'],
    ...Object.fromEntries([...TOKEN_EVENT_TYPES].map((type) => [type, ['schemeToken.nextActionAt']])),
    SessionCreated: ['expiresAt'],
    SessionExpired: [],
  },
  keysOf(event) {
    switch (event.type) {
      case 'PaymentRecorded':
      case 'OrderTransactionRecorded': {
        const d = event.data as PaymentRecorded['data'] | OrderTransactionRecorded['data'];
        return d.outcome.result === 'UNKNOWN' ? [pendingPaymentKey(event.stream, d.transactionId)] : [];
      }
      case 'PaymentOutcomeResolved':
        return [pendingPaymentKey(event.stream, (event.data as PaymentOutcomeResolved['data']).transactionId)];
      case 'SessionCreated':
      case 'SessionExpired':
        return [`${PENDING_SESSION}${event.stream}`];
      case 'TokenCreated':
      case 'TokenUpdated':
        // Only an event that carries a scheme token can start or end its pending work.
        return schemeTokenOf(event) ? [`${PENDING_SCHEME_TOKEN}${event.stream}`] : [];
      default:
        return [`${PENDING_SCHEME_TOKEN}${event.stream}`];
    }
  },
  evolve(_doc, event) {
    if (event.type === 'PaymentRecorded' || event.type === 'OrderTransactionRecorded') return { stream: event.stream, transactionId: (event.data as PaymentRecorded['data']).transactionId };
    if (event.type === 'PaymentOutcomeResolved' || event.type === 'TokenDeleted' || event.type === 'SessionExpired') return undefined;
    if (event.type === 'SessionCreated') {
      const { expiresAt } = event.data as SessionCreated['data'];
      return expiresAt === undefined ? { stream: event.stream } : { stream: event.stream, expiresAt };
    }
    const nextActionAt = schemeTokenOf(event)?.nextActionAt;
    return nextActionAt ? { stream: event.stream, nextActionAt } : undefined;
  },
};
