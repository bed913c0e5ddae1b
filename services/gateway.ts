// The gateway's core, without HTTP, as the services and plugins see it: the event store, the key
// store's cipher, the read models, the merchants and the reactors. root.ts opens it from a Config.
// Only types here: the services import this module, and it imports none of them.
import type { Merchants } from '../merchants.js';
import type { ReadModelsPort } from '../projections/read-models.js';
import type { EventStore, RecordedEvent } from '../store/event-store.js';
import type { Sealer } from '../store/sealing.js';

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
  readonly sealer: Sealer;
  readonly readModels: ReadModelsPort;
  /**
   * Where the store can tell it at no cost: a stream's revision when the store holds the whole
   * stream in memory (valid: no other writer since), undefined when reading it would cost a read of
   * the store. A command expecting a new stream then skips the read and lets the append's expected
   * revision (`no_stream`) check the guess; an identical repeat of a payment is answered from the
   * recent answers while its order's revision is unchanged. Absent: the store cannot tell.
   */
  readonly cachedRevision?: ((stream: string) => bigint | undefined) | undefined;
  /**
   * A stream as the store's readStream would give it, without waiting, where the store holds it
   * whole in memory and on disk (see cachedRevision); else undefined (read it). Absent: never.
   */
  readonly cachedStream?: ((stream: string) => readonly RecordedEvent[] | undefined) | undefined;
  /** Finishes scheme tokens after the request (SCHEME_TOKEN_DELAY_MS); its delayMs is the requests' too. */
  readonly schemeTokens: RunningReactor & { readonly delayMs: number };
  /** Expires sessions (SESSION_LIFETIME_MS, its lifetimeMs) and destroys their keys. */
  readonly sessionExpiry: RunningReactor & { readonly lifetimeMs: number };
  /** Finishes Delete Token's shredding (reservations released, keys destroyed) that a crash cut short. */
  readonly tokenShredder: RunningReactor & {
    /** Resolves once every TokenDeleted of the log at start has been seen and its token shredded. */
    settled(): Promise<void>;
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
