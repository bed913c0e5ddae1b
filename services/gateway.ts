// The gateway's core, without HTTP: the event store, the key store, the read models and the
// merchants, opened together and closed together.
import { dirname } from 'node:path';
import { mkdirSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { EventStoreConfig } from '../config.js';
import { ConfigError } from '../config.js';
import type { Merchants } from '../merchants.js';
import type { EventStore } from '../store/event-store.js';
import { MemoryEventStore } from '../store/memory.js';
import { SqliteEventStore, openDatabase } from '../store/sqlite.js';
import { KurrentDbEventStore } from '../store/kurrentdb.js';
import { MemoryKeyStore, Sealer, SqliteKeyStore, type KeyStore } from '../store/sealing.js';
import { ReadModels } from '../projections/read-models.js';
import { tokensProjection } from '../projections/tokens.js';
import { ordersProjection } from '../projections/orders.js';
import { pendingProjection } from '../projections/pending.js';
import { UnknownResolver, unknownResolutionDelayMs } from './unknown-resolver.js';
import { SchemeTokenReactor, schemeTokenDelayMs } from './scheme-tokens.js';
import { SessionExpiry, sessionLifetimeMs } from './session-expiry.js';
import { TokenShredder } from './token-shredding.js';
import type { Projection } from '../projections/projection.js';
import { asStorageFault, oneLine, StorageFault, StoreUnavailable } from '../store/storage-fault.js';

export const PROJECTIONS: readonly Projection[] = [tokensProjection as Projection, ordersProjection as Projection, pendingProjection as Projection];

export interface Gateway {
  readonly merchants: Merchants;
  readonly store: EventStore;
  readonly sealer: Sealer;
  readonly readModels: ReadModels;
  /** Finishes scheme tokens after the request (SCHEME_TOKEN_DELAY_MS); its delayMs is the requests' too. */
  readonly schemeTokens: SchemeTokenReactor;
  /** Expires sessions (SESSION_LIFETIME_MS, its lifetimeMs) and destroys their keys. */
  readonly sessionExpiry: SessionExpiry;
  /** Finishes Delete Token's shredding (reservations released, keys destroyed) that a crash cut short. */
  readonly tokenShredder: TokenShredder;
  /**
   * SHUTDOWN while a store refuses writes until a restart (a failed sync, an I/O error, a
   * read-only or corrupt file), while the disk is full (until a write succeeds again), or once
   * closed (Check Gateway).
   */
  status(): 'OPERATING' | 'SHUTDOWN';
  /** Why the gateway is SHUTDOWN because of a store (undefined while it is not, or only closing). */
  fault(): Error | undefined;
  close(): Promise<void>;
}

export interface Opened { store: EventStore; keys: KeyStore; readModelDb: Database.Database }

/** The store as named in a message: no credentials of a kurrentdb:// URL. */
function storeName(config: EventStoreConfig): string {
  switch (config.kind) {
    case 'sqlite': return `sqlite:${config.path}`;
    case 'memory': return 'memory:';
    case 'kurrentdb': {
      try {
        const url = new URL(config.url);
        url.username = '';
        url.password = '';
        return url.toString();
      } catch {
        return 'kurrentdb';
      }
    }
  }
}

/** Open the stores; a store that cannot be opened is one StoreUnavailable line (ConfigError as it is). */
export function openStores(config: EventStoreConfig): Opened {
  try {
    return openStoresOf(config);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    // mkdir of a path whose component is a file says EEXIST: name the real problem.
    const e = error as NodeJS.ErrnoException;
    const reason = e.syscall === 'mkdir' && (e.code === 'EEXIST' || e.code === 'ENOTDIR') && e.path
      ? `${e.path} (or a directory above it) is not a directory (${e.code})` : oneLine(error);
    throw new StoreUnavailable(`the event store ${storeName(config)} cannot be opened: ${reason}`, { cause: error });
  }
}

function openStoresOf(config: EventStoreConfig): Opened {
  switch (config.kind) {
    case 'sqlite': {
      if (config.path !== ':memory:') mkdirSync(dirname(config.path), { recursive: true });
      const store = new SqliteEventStore(config.path, config.durability ? { durability: config.durability } : {});
      if (config.path === ':memory:') return { store, keys: new MemoryKeyStore(), readModelDb: store.db };
      // New keys are written in batches, always before the events that reference them.
      const keys = new SqliteKeyStore(`${config.path}.keys`, true);
      store.beforeCommit = () => keys.flush();
      // Read models live in the same file as the events (one connection, one WAL).
      return { store, keys, readModelDb: store.db };
    }
    case 'memory':
      return { store: new MemoryEventStore(), keys: new MemoryKeyStore(), readModelDb: openDatabase(':memory:') };
    case 'kurrentdb': {
      // Events in KurrentDB; read models and their checkpoints in a local SQLite file (each
      // instance may have its own: it follows the store's $all); the card-data keys and the
      // fingerprint secret in a key-store file that every instance on this store must share.
      const readModelsFile = process.env.READ_MODELS_FILE ?? './data/read-models.db';
      const keysFile = process.env.KEYS_FILE ?? './data/keys.db';
      let store: KurrentDbEventStore;
      try {
        store = KurrentDbEventStore.fromUrl(config.url);
      } catch (error) {
        throw new ConfigError(`EVENT_STORE: ${(error as Error).message}`);
      }
      for (const file of [readModelsFile, keysFile]) mkdirSync(dirname(file), { recursive: true });
      return { store, keys: new SqliteKeyStore(keysFile), readModelDb: openDatabase(readModelsFile) };
    }
  }
}

export async function openGateway(eventStore: EventStoreConfig, merchants: Merchants): Promise<Gateway> {
  const resolutionDelayMs = unknownResolutionDelayMs();
  const schemeDelayMs = schemeTokenDelayMs();
  const lifetimeMs = sessionLifetimeMs();
  const opened = openStores(eventStore);
  const { store, readModelDb } = opened;
  // Key writes that fail for the file's sake turn the gateway SHUTDOWN (a full disk: until one succeeds).
  let keyFault: StorageFault | undefined;
  const guarded = <T>(write: () => T): T => {
    try {
      const result = write();
      if (keyFault?.heals) keyFault = undefined;
      return result;
    } catch (error) {
      const fault = asStorageFault(error, 'the key store') ??
        (error === opened.keys.failure ? new StorageFault((error as Error).message, 'EIO', false, { cause: error }) : undefined);
      if (fault === undefined) throw error;
      if (keyFault === undefined || keyFault.heals) {
        if (keyFault === undefined) process.emitWarning(fault.message);
        keyFault = fault;
      }
      throw fault;
    }
  };
  const keys = guardedKeys(opened.keys, guarded);
  if (store instanceof SqliteEventStore && store.beforeCommit) {
    const beforeCommit = store.beforeCommit;
    store.beforeCommit = () => guarded(beforeCommit);
  }
  let sealer: Sealer;
  const readModels = new ReadModels(readModelDb, store, PROJECTIONS);
  try {
    sealer = new Sealer(keys);
    await readModels.start();
  } catch (error) {
    // A store that cannot be read or written at start-up (unreachable, corrupt, read-only): one line.
    await store.close().catch(() => undefined);
    if (readModelDb.open) readModelDb.close();
    try { opened.keys.close(); } catch { /* the key store may be what fails */ }
    throw new StoreUnavailable(`the event store ${storeName(eventStore)} cannot be opened: ${oneLine(error)}`, { cause: error });
  }
  if (store instanceof SqliteEventStore && store.db === readModelDb) {
    // Same connection: the read models commit with the events (one transaction, one fsync).
    store.commitListener = readModels.commitListener();
  }
  const unknownResolver = new UnknownResolver(store, readModels, resolutionDelayMs);
  await unknownResolver.start();
  const schemeTokens = new SchemeTokenReactor(store, readModels, schemeDelayMs);
  await schemeTokens.start();
  const sessionExpiry = new SessionExpiry(store, readModels, sealer, lifetimeMs);
  await sessionExpiry.start();
  const tokenShredder = new TokenShredder(store, readModels, sealer);
  await tokenShredder.start();
  let closing = false;
  return {
    merchants, store, sealer, readModels, schemeTokens, sessionExpiry, tokenShredder,
    status: () => (closing || store.failure !== undefined || keys.failure !== undefined || keyFault !== undefined ? 'SHUTDOWN' : 'OPERATING'),
    fault: () => store.failure ?? keyFault ??
      (keys.failure ? new StorageFault(keys.failure.message, 'EIO', false, { cause: keys.failure }) : undefined),
    async close() {
      closing = true;
      await tokenShredder.stop();
      await sessionExpiry.stop();
      await schemeTokens.stop();
      await unknownResolver.stop();
      await readModels.stop();
      await store.close();
      if (readModelDb.open) readModelDb.close();
      keys.close();
    },
  };
}

/** The key store with its writes run by `guarded` (which notes storage faults). */
function guardedKeys(keys: KeyStore, guarded: <T>(write: () => T) => T): KeyStore {
  const flush = keys.flush?.bind(keys);
  const newKey = keys.newKey?.bind(keys);
  return {
    get: (keyId) => keys.get(keyId),
    put: (keyId, key) => guarded(() => keys.put(keyId, key)),
    ...(flush ? { flush: () => guarded(flush) } : {}),
    ...(newKey ? { newKey: () => guarded(newKey) } : {}),
    destroy: (keyId) => guarded(() => keys.destroy(keyId)),
    reservation: (accountHash) => keys.reservation(accountHash),
    reserve: (accountHash, reservationId) => guarded(() => keys.reserve(accountHash, reservationId)),
    release: (accountHash, reservationId) => guarded(() => keys.release(accountHash, reservationId)),
    shreddedThrough: () => keys.shreddedThrough(),
    setShreddedThrough: (position) => guarded(() => keys.setShreddedThrough(position)),
    get failure() { return keys.failure; },
    close: () => keys.close(),
  };
}
