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
import type { Projection } from '../projections/projection.js';

export const PROJECTIONS: readonly Projection[] = [tokensProjection as Projection, ordersProjection as Projection, pendingProjection as Projection];

export interface Gateway {
  readonly merchants: Merchants;
  readonly store: EventStore;
  readonly sealer: Sealer;
  readonly readModels: ReadModels;
  /** Finishes scheme tokens after the request (SCHEME_TOKEN_DELAY_MS); its delayMs is the requests' too. */
  readonly schemeTokens: SchemeTokenReactor;
  /** SHUTDOWN while a store refuses writes until a restart, or once closed (Check Gateway). */
  status(): 'OPERATING' | 'SHUTDOWN';
  close(): Promise<void>;
}

export interface Opened { store: EventStore; keys: KeyStore; readModelDb: Database.Database }

export function openStores(config: EventStoreConfig): Opened {
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
  const { store, keys, readModelDb } = openStores(eventStore);
  const sealer = new Sealer(keys);
  const readModels = new ReadModels(readModelDb, store, PROJECTIONS);
  await readModels.start();
  if (store instanceof SqliteEventStore && store.db === readModelDb) {
    // Same connection: the read models commit with the events (one transaction, one fsync).
    store.commitListener = readModels.commitListener();
  }
  const unknownResolver = new UnknownResolver(store, readModels, resolutionDelayMs);
  await unknownResolver.start();
  const schemeTokens = new SchemeTokenReactor(store, readModels, schemeDelayMs);
  await schemeTokens.start();
  let closing = false;
  return {
    merchants, store, sealer, readModels, schemeTokens,
    status: () => (closing || store.failure !== undefined || keys.failure !== undefined ? 'SHUTDOWN' : 'OPERATING'),
    async close() {
      closing = true;
      await schemeTokens.stop();
      await unknownResolver.stop();
      await readModels.stop();
      await store.close();
      if (readModelDb.open) readModelDb.close();
      keys.close();
    },
  };
}
