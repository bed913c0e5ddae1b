// The event store's options, and how its connections are configured: the limits that keep a
// stopped or cut-off process from holding the append lock, or a statement from waiting forever.
import type pg from 'pg';
import type { PostgresHealth } from './health.js';
import { TIME_SETTINGS } from './rows.js';

export interface PostgresStoreOptions {
  /** Connections of the pool (default 10). */
  poolSize?: number;
  /** How often subscriptions read the log without a notification (ms; default 500): the fallback of LISTEN. */
  pollIntervalMs?: number;
  /** The least time between two reads of the server by a live subscription (ms; default 50; subscriptions.ts). */
  gatherMs?: number;
  /** The most appends committed in one transaction (default 500). */
  maxBatch?: number;
  /** Whole streams kept in memory (default 2,000; 0: none). */
  cachedStreams?: number;
  /** Events of the log's tail kept in memory (default 1,000; 0: none). */
  cachedTail?: number;
  /** application_name on the server (default 'tokengate'). */
  applicationName?: string;
  /** Whether the server can be reached, shared with the read models and key store on it (default: its own). */
  health?: PostgresHealth;
}

/** How long a statement may run, a transaction stay idle, the append lock be waited for (ms). */
const STATEMENT_TIMEOUT = 15_000;
const IDLE_IN_TRANSACTION_TIMEOUT = 10_000;
const LOCK_TIMEOUT = 10_000;

/** The configuration of every connection of the store (its pool's and its listener's). */
export function clientConfig(url: string, applicationName = 'tokengate'): pg.ClientConfig {
  return {
    connectionString: url,
    application_name: applicationName,
    connectionTimeoutMillis: 5_000,
    // A stopped or cut-off process must not hold the append lock, nor a statement wait forever.
    options: `-c statement_timeout=${STATEMENT_TIMEOUT} -c idle_in_transaction_session_timeout=${IDLE_IN_TRANSACTION_TIMEOUT} -c lock_timeout=${LOCK_TIMEOUT} ${TIME_SETTINGS}`,
    keepAlive: true,
  };
}
