// The merchants' sandboxes of one gateway, as their sandbox streams say (domain/sandbox/): where
// each merchant's epoch begins (a reset: store/epochs.ts makes reads ignore what came before) and
// how far its clock leads the real time. Loaded when the gateway opens (root.ts), kept current
// from the log: this process's control operations apply their events at once, other processes'
// arrive through the reactors' subscription (Gateway.observeLog). Found from the store the
// gateway writes with (sandboxOf), so that the command handler, the services and the reactors
// read a merchant's own time where they read the clock: a session's expiry, an UNKNOWN's
// resolution, a scheme token's next step and a notification's retry follow the merchant's clock.
import { isSandboxEvent, streamOwner, streams } from '../../domain/events.js';
import { isoNow, isoOf } from '../../lib/clock.js';
import type { Merchants } from '../../merchants.js';
import { Epochs } from '../../store/epochs.js';
import type { EventStore, RecordedEvent } from '../../store/event-store.js';

export class Sandbox {
  readonly epochs = new Epochs();
  /** merchant id → its clock's lead (ms) and the position of the event that set it. */
  private readonly clocks = new Map<string, { offsetMs: number; position: bigint }>();
  /** repository id → its one merchant (undefined: shared by several, its streams follow the real time). */
  private readonly repositoryMerchant = new Map<string, string | undefined>();
  private readonly listeners = new Set<(merchantId: string) => void>();

  constructor(readonly merchants: Merchants) {
    for (const m of merchants.list) {
      const id = m.repository.id;
      this.repositoryMerchant.set(id, this.repositoryMerchant.has(id) ? undefined : m.id);
    }
  }

  /** The other merchants of the merchants file whose repository is `merchantId`'s. */
  sharingRepository(merchantId: string): string[] {
    const repositoryId = this.merchants.get(merchantId)?.repository.id;
    return this.merchants.list.filter((m) => m.id !== merchantId && m.repository.id === repositoryId).map((m) => m.id);
  }

  /** The merchant whose clock a stream follows (a repository's: its one merchant's). */
  merchantOf(stream: string): string | undefined {
    const named = streamOwner(stream);
    if (named === undefined) return undefined;
    return named.field === 'merchantId' ? named.owner : this.repositoryMerchant.get(named.owner);
  }

  offsetMs(merchantId: string): number {
    return this.clocks.get(merchantId)?.offsetMs ?? 0;
  }

  /** The merchant's time now, in epoch ms. */
  nowMs(merchantId: string): number {
    return Date.now() + this.offsetMs(merchantId);
  }

  /** The merchant's time now, as ISO 8601 text. */
  now(merchantId: string): string {
    return this.clocks.size === 0 ? isoNow() : isoOf(this.nowMs(merchantId));
  }

  /** The time now of the merchant a stream belongs to (the real time for others). */
  nowMsOfStream(stream: string): number {
    if (this.clocks.size === 0) return Date.now();
    const merchantId = this.merchantOf(stream);
    return merchantId === undefined ? Date.now() : this.nowMs(merchantId);
  }

  nowOfStream(stream: string): string {
    return this.clocks.size === 0 ? isoNow() : isoOf(this.nowMsOfStream(stream));
  }

  /** A recorded event of a sandbox stream (others are ignored); applying one twice changes nothing. */
  apply(event: Pick<RecordedEvent, 'type' | 'data' | 'position'>): void {
    if (!isSandboxEvent(event)) return;
    const { merchantId } = event.data;
    if (event.type === 'MerchantReset') {
      this.epochs.begin('merchantId', merchantId, event.position);
      if (event.data.repositoryId !== undefined) this.epochs.begin('repositoryId', event.data.repositoryId, event.position);
      return;
    }
    const clock = this.clocks.get(merchantId);
    if (clock !== undefined && clock.position >= event.position) return;
    this.clocks.set(merchantId, { offsetMs: event.data.offsetMs, position: event.position });
    for (const listener of this.listeners) listener(merchantId);
  }

  /** `listener` is told of each merchant whose clock moves; returns what stops that. */
  onClockAdvanced(listener: (merchantId: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The sandbox streams of the merchants file's merchants, read from `store` (the log itself). */
  async load(store: EventStore): Promise<void> {
    const read = await Promise.all(this.merchants.list.map((m) => store.readStream(streams.sandbox(m.id))));
    for (const events of read) for (const event of events) this.apply(event);
  }
}

// The gateway's sandbox (Gateway.sandbox) reaches the command handler in its deps and the reactors
// from their host: undefined where a gateway is assembled without one (unit tests), the real time.

/** The time of a command on `stream`: its merchant's sandbox time (the real time without a sandbox). */
export function nowOfStream(sandbox: Sandbox | undefined, stream: string): string {
  return sandbox === undefined ? isoNow() : sandbox.nowOfStream(stream);
}

/** The merchant's sandbox time, for a service that reads the time itself (a session's). */
export function merchantNow(sandbox: Sandbox | undefined, merchantId: string): string {
  return sandbox === undefined ? isoNow() : sandbox.now(merchantId);
}

/** The time of a repository's tokens: its one merchant's sandbox time (the real time for a shared one), as their streams' commands take it. */
export function repositoryNow(sandbox: Sandbox | undefined, repositoryId: string): string {
  return nowOfStream(sandbox, streams.token(repositoryId, ''));
}
