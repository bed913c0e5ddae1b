// The composition root: everything the gateway runs on, opened from the configuration (config.ts)
// and closed together: the event store (the port's adapter for EVENT_STORE, with its own
// speed-ups wired here), the key store, the read models, and the reactors. The server's plugin
// (plugins/gateway.ts), the CLI (bin/commands.ts) and the scripts open through here.
import { dirname } from 'node:path';
import { makeDirectories } from './lib/directories.js';
import { ConfigError, loadGatewaySettings, loadStoreFiles, type EventStoreConfig, type GatewaySettings } from './config.js';
import type { Merchants } from './merchants.js';
import type { EventStore } from './store/event-store.js';
import { MemoryEventStore } from './store/memory.js';
import { SqliteEventStore, SqliteReadModelTables, openDatabase } from './store/sqlite.js';
import { KurrentDbEventStore } from './store/kurrentdb.js';
import { PostgresEventStore } from './store/postgres/event-store.js';
import { redactUrl } from './store/postgres/errors.js';
import { PostgresKeyStore } from './store/postgres/key-store.js';
import { PostgresReadModelTables } from './store/postgres/read-model-tables.js';
import { Sealer } from './store/sealing.js';
import { MemoryKeyStore, type KeyStore } from './store/keys/key-store.js';
import { SqliteKeyStore } from './store/keys/sqlite-key-store.js';
import { guardKeys } from './store/keys/guarded.js';
import { ReadModels, type ReadModelsPort } from './projections/read-models.js';
import type { Projection } from './projections/projection.js';
import { tokensProjection } from './projections/tokens.js';
import { ordersProjection } from './projections/orders.js';
import { pendingProjection } from './projections/pending.js';
import { notificationsProjection } from './projections/notifications.js';
import { lookupProjection } from './projections/lookup.js';
import { UnknownResolver } from './services/order/unknown-resolver.js';
import { SchemeTokenReactor } from './services/token/scheme-tokens.js';
import { SessionExpiry } from './services/session/session-expiry.js';
import { TokenShredder } from './services/token/token-shredding.js';
import { ReactorHost } from './services/reactors.js';
import { Notifier } from './services/notification/notifier.js';
import { Sandbox } from './services/test-control/sandbox.js';
import { withEpochs } from './store/epochs.js';
import type { ReactorLog } from './services/reactor.js';
import type { Gateway } from './services/gateway.js';
import { StorageFault } from './domain/errors.js';
import { oneLine, StoreUnavailable } from './store/storage-fault.js';

export type { Gateway } from './services/gateway.js';

export const PROJECTIONS: readonly Projection[] = [
  tokensProjection as Projection, ordersProjection as Projection, pendingProjection as Projection, notificationsProjection as Projection,
  lookupProjection as Projection,
];

/** The stores, open; the read models made, not started. */
export interface Opened {
  readonly store: EventStore;
  /** The key store, its writes' storage faults noted (keyFault). */
  readonly keys: KeyStore;
  readonly readModels: ReadModelsPort;
  /** From now on the read models commit with the events, where they share the store's connection (after start()). */
  projectInline(): void;
  keyFault(): StorageFault | undefined;
  /** Closes the store, the read models' file and the key store (the read models must be stopped). */
  close(): Promise<void>;
}

/** The store as named in a message: no credentials of a kurrentdb:// or postgres:// URL. */
export function storeName(config: EventStoreConfig): string {
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
    case 'postgres': return redactUrl(config.url);
  }
}

type Files = Pick<GatewaySettings, 'readModelsFile' | 'keysFile' | 'keysStore'>;

/** Open the stores; a store that cannot be opened is one StoreUnavailable line (ConfigError as it is). */
export function openStores(config: EventStoreConfig, files: Files = loadStoreFiles()): Opened {
  try {
    return openStoresOf(config, files);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    // A path component that is a file says EEXIST (mkdir) or ENOTDIR (stat): name the real problem.
    const e = error as NodeJS.ErrnoException;
    const made = (e.syscall === 'mkdir' || e.syscall === 'stat') && e.path !== undefined;
    const reason = made && (e.code === 'EEXIST' || e.code === 'ENOTDIR')
      ? `${e.path} (or a directory above it) is not a directory (${e.code})`
      : made ? `the directory ${e.path} cannot be made (${e.code})` : oneLine(error);
    throw new StoreUnavailable(`the event store ${storeName(config)} cannot be opened: ${reason}`, { cause: error });
  }
}

function openStoresOf(config: EventStoreConfig, files: Files): Opened {
  switch (config.kind) {
    case 'sqlite':
      return openSqlite(config.path, config.durability);
    case 'memory':
      return withOwnReadModels(new MemoryEventStore(), new MemoryKeyStore(), ':memory:');
    case 'kurrentdb': {
      // Events in KurrentDB; read models and their checkpoints in a local SQLite file (each
      // instance may have its own: it follows the store's $all); the card-data keys and the
      // fingerprint secret in a key-store file that every instance on this store must share.
      let store: KurrentDbEventStore;
      try {
        store = KurrentDbEventStore.fromUrl(config.url);
      } catch (error) {
        throw new ConfigError(`EVENT_STORE: ${(error as Error).message}`);
      }
      // KEYS_STORE: the keys in PostgreSQL (store/postgres/key-store.ts), shared by instances on
      // several machines without a shared file; else KEYS_FILE.
      for (const file of files.keysStore === undefined ? [files.readModelsFile, files.keysFile] : [files.readModelsFile]) makeDirectories(dirname(file));
      const keys = files.keysStore === undefined ? new SqliteKeyStore(files.keysFile) : new PostgresKeyStore(files.keysStore);
      return withOwnReadModels(store, keys, files.readModelsFile);
    }
    case 'postgres':
      return openPostgres(config.url);
  }
}

/** The events, the read models (in the events' file, on the store's connection) and the keys beside it. */
function openSqlite(path: string, durability: 'group' | 'commit' | undefined): Opened {
  if (path !== ':memory:') makeDirectories(dirname(path));
  // New keys are written in batches, always before the events that reference them.
  let flushKeys: (() => void) | undefined;
  const store = new SqliteEventStore(path, {
    ...(durability ? { durability } : {}),
    beforeCommit: () => flushKeys?.(),
  });
  const guarded = guardKeys(path === ':memory:' ? new MemoryKeyStore() : new SqliteKeyStore(`${path}.keys`, true));
  const keys = guarded.keys;
  if (keys.flush) flushKeys = keys.flush;
  // Read models live in the same file as the events (one connection, one WAL), read through
  // the store's own speed-ups (store/projection-feed.ts) and, once started, applied in its commits.
  const readModels = new ReadModels(new SqliteReadModelTables(store.db), store, PROJECTIONS, { feed: store });
  return {
    store, keys, readModels, keyFault: guarded.fault,
    projectInline: () => store.setCommitListener(readModels.commitListener()),
    close: () => closeAll(() => store.close(), () => keys.close()),
  };
}

/**
 * Everything in the one database, shared by every instance on it, no local file: the events
 * (connects on first use, creating or upgrading its tables), the keys (their own tables; the key
 * store connects now), the read models and their checkpoints (docs/stores.md). They share what
 * they find of the server's reachability (Check Gateway: SHUTDOWN while it is away).
 */
function openPostgres(url: string): Opened {
  const store = new PostgresEventStore(url);
  let keys: PostgresKeyStore;
  try {
    keys = new PostgresKeyStore(url, { health: store.health });
  } catch (error) {
    void store.close().catch(() => undefined);
    throw error;
  }
  const guarded = guardKeys(keys);
  // Told of the appends without reading them (the store as the feed), they catch up after the reply.
  const tables = new PostgresReadModelTables(url, { health: store.health });
  const readModels = new ReadModels(tables, store, PROJECTIONS, { feed: store });
  return {
    store, keys: guarded.keys, readModels, keyFault: guarded.fault,
    projectInline: () => undefined,
    close: () => closeAll(() => tables.close(), () => store.close(), () => guarded.keys.close()),
  };
}

/** Close each in turn, every one even when an earlier one fails; then throw the first failure. */
async function closeAll(...steps: Array<() => unknown>): Promise<void> {
  let failure: { error: unknown } | undefined;
  for (const step of steps) {
    try { await step(); } catch (error) { failure ??= { error }; }
  }
  if (failure) throw failure.error;
}

/** Read models in a file (or memory) of their own, read through the port alone. */
function withOwnReadModels(store: EventStore, rawKeys: KeyStore, readModelsFile: string): Opened {
  const guarded = guardKeys(rawKeys);
  const db = openDatabase(readModelsFile);
  // Derived and checkpointed with their documents: no fsync of their own (a power cut loses at
  // most a catch-up, redone from the events).
  db.pragma('synchronous = NORMAL');
  return {
    store, keys: guarded.keys, readModels: new ReadModels(new SqliteReadModelTables(db), store, PROJECTIONS), keyFault: guarded.fault,
    projectInline: () => undefined,
    close: () => closeAll(() => store.close(), () => { if (db.open) db.close(); }, () => guarded.keys.close()),
  };
}

/**
 * The store as the gateway sees it: through the merchants' epochs (a reset
 * merchant's streams begin again: store/epochs.ts), the sandbox found from that store by every
 * command and reactor writing with it (services/test-control/sandbox.ts).
 */
function sandboxed(opened: Opened, sandbox: Sandbox): EventStore {
  const store = withEpochs(opened.store, sandbox.epochs);
  return store;
}

/**
 * Open the gateway: the stores, the read models caught up, the reactors started (hosted by one
 * consumer of the log, services/reactors.ts). `log`: where the reactors tell failed work (the
 * app's logger; default: process warnings).
 */
export async function openGateway(eventStore: EventStoreConfig, merchants: Merchants, settings: GatewaySettings = loadGatewaySettings(), log?: ReactorLog): Promise<Gateway> {
  const opened = openStores(eventStore, settings);
  const { keys, readModels } = opened;
  const sandbox = new Sandbox(merchants);
  const store = sandboxed(opened, sandbox);
  let sealer: Sealer;
  try {
    sealer = new Sealer(keys);
    await readModels.start();
    await sandbox.load(opened.store);
  } catch (error) {
    // A store that cannot be read or written at start-up (unreachable, corrupt, read-only): one line.
    await opened.close().catch(() => undefined); // the key store may be what fails
    throw new StoreUnavailable(`the event store ${storeName(eventStore)} cannot be opened: ${oneLine(error)}`, { cause: error });
  }
  opened.projectInline();
  const schemeTokens = new SchemeTokenReactor(store, readModels, settings.schemeTokenDelayMs);
  const sessionExpiry = new SessionExpiry(store, readModels, sealer, settings.sessionLifetimeMs);
  const tokenShredder = new TokenShredder(store, readModels, sealer, opened.store);
  const reactors = new ReactorHost(store, [
    new UnknownResolver(store, readModels, settings.unknownResolutionDelayMs), schemeTokens, sessionExpiry, tokenShredder,
    // Webhook notifications of the transactions created or changed (docs/notifications.md).
    new Notifier(store, readModels, merchants, settings.notifications),
  ], log, sandbox);
  // Other processes' resets and clock advances (this process's own are applied at once).
  reactors.observe((event) => sandbox.apply(event));
  try {
    await reactors.start();
  } catch (error) {
    // A reactor's scan of its pending work failed (the store unreachable or busy at start): the
    // stores are closed, and the fault is one line like the others.
    await readModels.stop().catch(() => undefined);
    await opened.close().catch(() => undefined);
    throw new StoreUnavailable(`the event store ${storeName(eventStore)} cannot be opened: ${oneLine(error)}`, { cause: error });
  }
  let closing = false;
  return {
    merchants, store, sandbox, sealer, readModels, schemeTokens, sessionExpiry, tokenShredder, notificationPolicy: settings.notifications,
    status: () => (closing || store.failure !== undefined || store.unreachable !== undefined || opened.keyFault() !== undefined ? 'SHUTDOWN' : 'OPERATING'),
    fault: () => store.failure ?? opened.keyFault(),
    observeLog: (listener) => reactors.observe(listener),
    async close() {
      closing = true;
      await reactors.stop();
      await readModels.stop();
      await opened.close();
    },
  };
}
