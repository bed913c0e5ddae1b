// LISTEN for the append transactions' NOTIFY (schema.ts CHANNEL), on a connection of its own (a
// pooled one would be handed to others). Each notification names the commit's positions, writer
// and streams (schema.ts notifyPayload): the store forgets what another instance wrote and wakes
// its subscriptions, which read the log from their last position, so a notification lost while the
// connection was down loses nothing. After LISTEN, the head is read on the same connection: every
// commit after it is notified. A dropped connection is reconnected (with a growing pause); the
// store is told of the drop and of the return, and the subscriptions' poll covers the gap. The
// drop and the return are told to the store's health (health.ts) at once, with or without requests.
import pg from 'pg';
import { PostgresHealth } from './health.js';
import { CHANNEL } from './schema.js';

export interface ListenerHandlers {
  /** The schema is there (the head is read from its table). */
  ready(): Promise<void>;
  /** Listening (again), and the head was this after LISTEN began. */
  listening(head: bigint): void;
  /** A commit's notification (its payload). */
  notified(payload: string | undefined): void;
  /** The connection dropped: notifications may be missed until `listening`. */
  lost(): void;
}

export class CommitListener {
  private client: pg.Client | undefined;
  private closed = false;
  private retryMs = 100;
  private timer: NodeJS.Timeout | undefined;
  private started = false;

  constructor(private readonly config: pg.ClientConfig, private readonly handlers: ListenerHandlers, private readonly health = new PostgresHealth()) {}

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
    client.on('notification', (message) => { if (this.client === client) this.handlers.notified(message.payload); });
    this.client = client;
    const ticket = this.health.ticket();
    try {
      await this.handlers.ready();
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      const { rows } = await client.query<{ head: string }>('SELECT coalesce(max(position), 0)::text AS head FROM tokengate_events');
      if (this.client !== client) return;
      this.health.succeeded(ticket);
      this.retryMs = 100;
      // Whatever was appended while not listening is read now.
      this.handlers.listening(BigInt(rows[0]?.head ?? '0'));
    } catch (error) {
      this.lost(client, error);
    }
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = undefined;
    this.handlers.lost();
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
    this.handlers.lost();
    await client?.end().catch(() => undefined);
  }
}
