// Sessions expire, as the real gateway's do ("a single session lasts usually about 15 minutes":
// Mastercard Gateway, Hosted Session, Session Basics). A session is refused like an unknown one
// from its expiresAt on (decided by the request from the recorded time, services/session/sessions.ts);
// this reactor then forgets what it held: it destroys every card-data key of the session (its
// number's, its security code's) and appends SessionExpired, so the history shows it. The keys go
// first: a crash between the two leaves a session that can no longer be read and is still listed
// as pending, so the next start expires it again (destroying a destroyed key does nothing).
// At start it finds the sessions not yet expired in the pending read model, then follows the log;
// several processes sharing a store may race: the loser re-reads, finds it expired, appends nothing.
import { decideExpireSession, expiresAt } from '../../domain/session/session.js';
import { PENDING_SESSION } from '../../projections/pending.js';
import type { ReadModelsPort } from '../../projections/read-models.js';
import type { EventStore, RecordedEvent } from '../../store/event-store.js';
import type { Sealer } from '../../store/sealing.js';
import { sessionAggregate } from '../aggregates.js';
import { handleCommand } from '../command-handler.js';
import { Reactor } from '../reactor.js';
import { sessionKeyIds } from './sessions.js';

/** Work the store refused (busy, closing) is tried again this much later. */
const RETRY_MS = 1000;

export class SessionExpiry extends Reactor {
  readonly name = 'session-expiry';
  override readonly eventTypes: ReadonlySet<string> = new Set(['SessionCreated', 'SessionExpired']);

  constructor(store: EventStore, readModels: ReadModelsPort, private readonly sealer: Sealer, readonly lifetimeMs: number) {
    super(store, readModels, RETRY_MS);
  }

  /** Pending work first (the sessions the pending read model lists), then the events after its checkpoint, live. */
  protected prepare(): Promise<bigint> {
    return this.preparePending(PENDING_SESSION);
  }

  protected onEvent(event: RecordedEvent): void {
    if (event.type === 'SessionCreated') {
      const data = event.data as { createdAt: string; expiresAt?: string };
      const at = data.expiresAt ?? new Date(Date.parse(data.createdAt) + this.lifetimeMs).toISOString();
      this.scheduleAt(event.stream, Date.parse(at), event.stream, () => this.expire(event));
    } else if (event.type === 'SessionExpired') {
      this.cancel(event.stream);
    }
  }

  private async expire(created: RecordedEvent): Promise<void> {
    const done = { events: [], answer: () => undefined };
    await handleCommand(this.deps, created.stream, sessionAggregate, (state, { now, history }) => {
      if (state.status === 'NONE') return done;
      if (state.status === 'OPEN') {
        const at = Date.parse(expiresAt(state, this.lifetimeMs));
        // A timer that fired early (clock adjustments): not yet.
        if (at > Date.parse(now)) return { events: [], answer: () => this.scheduleAt(created.stream, at, created.stream, () => this.expire(created)) };
      }
      // The keys go before SessionExpired is appended (see the top of this file).
      for (const keyId of sessionKeyIds(this.sealer, history)) this.sealer.destroyKey(keyId);
      return { events: decideExpireSession(state, { type: 'ExpireSession', now, lifetimeMs: this.lifetimeMs }), answer: () => undefined };
    }, {
      meta: (e, { now }) => ({ correlationId: created.metadata.correlationId, causationId: created.id, merchantId: e.data.merchantId, recordedAt: now, reactor: this.name }),
      // Given up after that many conflicts, as before (the next start finds the session pending).
      exhausted: () => undefined,
      // The keys are destroyed before the append checks the read: never on a stale one.
      careful: true,
    });
  }
}
