// The gateway's core, without HTTP, as the services and plugins see it: the event store, the key
// store's cipher, the read models, the merchants and the reactors. root.ts opens it from a Config.
// Only types here: the services import this module, and it imports none of them.
import type { RetryPolicy } from '../domain/notification/notification.js';
import type { Merchants } from '../merchants.js';
import type { ReadModelsPort } from '../projections/read-models.js';
import type { EventStore, RecordedEvent } from '../store/event-store.js';
import type { Sealer } from '../store/sealing.js';
import type { Sandbox } from './test-control/sandbox.js';

/**
 * A reactor of the gateway's (services/reactor.ts), hosted with the others by one consumer of the
 * log (services/reactors.ts), started by the root, stopped at close; stop() stops it alone.
 */
export interface RunningReactor {
  stop(): Promise<void>;
}

export interface Gateway {
  readonly merchants: Merchants;
  readonly store: EventStore;
  /** The test-control API's merchant clocks and epochs (services/test-control/sandbox.ts); absent: the real time, no resets. */
  readonly sandbox?: Sandbox;
  readonly sealer: Sealer;
  readonly readModels: ReadModelsPort;
  /** Finishes scheme tokens after the request (SCHEME_TOKEN_DELAY_MS); its delayMs is the requests' too. */
  readonly schemeTokens: RunningReactor & { readonly delayMs: number };
  /** Expires sessions (SESSION_LIFETIME_MS, its lifetimeMs) and destroys their keys. */
  readonly sessionExpiry: RunningReactor & { readonly lifetimeMs: number };
  /** NOTIFICATION_RETRY_DELAY_MS, NOTIFICATION_MAX_ATTEMPTS, NOTIFICATION_TIMEOUT_MS: what the notifier and a redelivery go by. */
  readonly notificationPolicy: RetryPolicy;
  /** Finishes Delete Token's shredding (reservations released, keys destroyed) that a crash cut short. */
  readonly tokenShredder: RunningReactor & {
    /** Resolves once every TokenDeleted of the log at start has been seen and its token shredded. */
    settled(): Promise<void>;
    /** Delete Token in this process: its shredding noted, not redone (services/token/token-shredding.ts). */
    shreddingHere(stream: string): (shredded: boolean) => void;
    /** Delete Token's own shredding of the token's history (its sessions read past any reset). */
    shredDeleted(history: readonly RecordedEvent[]): Promise<void>;
  };
  /**
   * SHUTDOWN while a store refuses writes until a restart (a failed sync, an I/O error, a
   * read-only or corrupt file), while the disk is full (until a write succeeds again), while the
   * store's server cannot be reached (PostgreSQL: until a statement succeeds again), or once
   * closed (Check Gateway).
   */
  status(): 'OPERATING' | 'SHUTDOWN';
  /**
   * `listener` is handed each event of the log the reactors' subscription delivers (appended by
   * this process or any other; at start, from the reactors' start-up position); returns what stops it.
   */
  observeLog(listener: (event: RecordedEvent) => void): () => void;
  /** Why the gateway is SHUTDOWN because of a store (undefined while it is not, or only closing). */
  fault(): Error | undefined;
  close(): Promise<void>;
}
