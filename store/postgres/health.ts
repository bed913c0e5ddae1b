// Whether PostgreSQL can be reached, as this process's connections to it last found, for Check
// Gateway (SHUTDOWN while it cannot): at no cost, no probe. Unreachable from the first connection
// error (a statement's, a failed connect, or an error on a connection between statements: the
// server stopped, crashed or restarted); reachable again once a statement succeeds that began
// after the last such error (one that began before may have been answered before the server went
// away). The event store, its LISTEN connection, the read models and the key store share one, so
// the LISTEN connection's reconnection and the read models' poll (once a second) tell a return
// even when no request comes.
//
// guardPool() also gives every connection of a pool an 'error' listener for its whole life: `pg`
// emits 'error' on a connection whose server goes away, idle or checked out between two
// statements, and an 'error' event without a listener ends the process.
import type pg from 'pg';
import { isConnectionError } from './errors.js';

export class PostgresHealth {
  private lastError: Error | undefined;
  /** Counts connection errors: a statement's ticket is the count when it began. */
  private errors = 0;

  /** Taken when a statement or connection attempt begins; handed back to succeeded(). */
  ticket(): number {
    return this.errors;
  }

  /** An error of a statement or connection: only a connection error makes the server unreachable. */
  failed(error: unknown): void {
    if (!isConnectionError(error)) return;
    this.errors++;
    this.lastError = error instanceof Error ? error : new Error(String(error));
  }

  /** A statement (or connection) that began at `ticket` succeeded. */
  succeeded(ticket: number): void {
    if (ticket === this.errors) this.lastError = undefined;
  }

  /** The last connection error while the server is taken to be unreachable, else undefined. */
  get unreachable(): Error | undefined {
    return this.lastError;
  }
}

/** Every connection of `pool`, idle or checked out, tells its errors to `health` instead of ending the process. */
export function guardPool(pool: pg.Pool, health: PostgresHealth): void {
  pool.on('error', (error) => health.failed(error));
  pool.on('connect', (client) => { client.on('error', (error) => health.failed(error)); });
}
