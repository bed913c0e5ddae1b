// LISTEN for the append transactions' NOTIFY (schema.ts CHANNEL), on a connection of its own (a
// pooled one would be handed to others). Only a wake-up: subscriptions then read the log from
// their last position, so a notification lost while the connection was down loses nothing. A
// dropped connection is reconnected (with a growing pause); on each (re)connection the waiters are
// woken, since notifications sent meanwhile are gone; the subscriptions' poll covers the gap. Its
// drop and its return are told to the store's health (health.ts) at once, with or without requests.
import pg from 'pg';
import { PostgresHealth } from './health.js';
import { CHANNEL } from './schema.js';

export class CommitListener {
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = 100;
  private timer: NodeJS.Timeout | undefined;
  private started = false;

  constructor(private readonly config: pg.ClientConfig, private readonly wake: () => void, private readonly health = new PostgresHealth()) {}

  /** Connects (once; idempotent) in the background. */
  start(): void {
    if (this.started || this.closed) return;
    this.started = true;
    void this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.config);
    // An idle connection's error (the server restarted) arrives here, not through a query.
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('Connection terminated unexpectedly')));
    client.on('notification', () => this.wake());
    this.client = client;
    const ticket = this.health.ticket();
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.health.succeeded(ticket);
      this.retryMs = 100;
      // Whatever was appended while not listening is read now.
      this.wake();
    } catch (error) {
      this.lost(client, error);
    }
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (!this.closed) this.health.failed(error);
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.timer = setTimeout(() => { this.timer = undefined; void this.connect(); }, this.retryMs);
    this.timer.unref();
    this.retryMs = Math.min(this.retryMs * 2, 2_000);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}
