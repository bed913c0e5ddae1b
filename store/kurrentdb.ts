// KurrentDB adapter of the event store port (@kurrent/kurrentdb-client, EVENT_STORE=kurrentdb://).
// The value mapping lives in kurrentdb-mapping.ts; here is what needs the server: appends with
// the stream state, reads, the $all subscription. Client errors are translated here and never
// travel past this file (WrongExpectedVersionError → WrongExpectedRevisionError, a missing
// stream → []).
//
// Idempotency. The port promises that re-appending event ids already in the stream is a no-op
// whatever the expected revision, and that repeating only some of them is refused. The server
// promises less (it recognises a repeat at the expected revision, and with 'any' on a best-effort
// basis), so an append first reads the stream and answers repeats itself, and re-reads after a
// conflict (a concurrent identical append may have won). tokengate's streams are short (one
// token, one order), so that read is cheap. Unlike the SQLite adapter, ids already used by
// another stream are not detected: KurrentDB keeps no index of event ids across streams.
import { createRequire } from 'node:module';
import {
  checkExpectedRevision, IdempotencyConflictError, WrongExpectedRevisionError,
  type AppendOptions, type AppendResult, type EventData, type EventStore, type ReadAllOptions,
  type ReadStreamOptions, type RecordedEvent, type SubscribeOptions, type Subscription, type SubscriptionHandlers,
} from './event-store.js';
import {
  allFilter, fromKurrentPosition, fromResolvedEvent, isStreamNotFound, parseKurrentDbUrl, toJsonEvent,
  toReadPosition, toStreamState, translateAppendError, translateClientError,
} from './kurrentdb-mapping.js';
import { subscribeToAll } from './kurrentdb-subscription.js';
import type { KurrentClient } from './kurrentdb-mapping.js';

/** The part of the client this adapter uses (a test may pass its own). */
export type { KurrentClient } from './kurrentdb-mapping.js';

export interface KurrentDbStoreOptions {
  /** Confine the store to streams named with this prefix (the prefix is invisible to callers):
   *  several independent stores (deployments, test runs) on one KurrentDB. In EVENT_STORE:
   *  `?streamPrefix=`. */
  streamPrefix?: string;
  /** Names the node(s) in errors, e.g. `kurrentdb:2113`. */
  target?: string;
}

const PAGE = 1000;

export class KurrentDbEventStore implements EventStore {
  readonly kind = 'kurrentdb';
  private readonly prefix: string;
  private readonly target: string;
  private readonly subscriptions = new Set<Subscription>();

  constructor(private readonly client: KurrentClient, options: KurrentDbStoreOptions = {}) {
    this.prefix = options.streamPrefix ?? '';
    this.target = options.target ?? 'the configured node';
  }

  /** Connects lazily: the first call reaches the server. The client module loads only here. */
  static fromUrl(url: string, options: KurrentDbStoreOptions = {}): KurrentDbEventStore {
    const { connectionString, hosts, streamPrefix } = parseKurrentDbUrl(url);
    const require = createRequire(import.meta.url);
    const { KurrentDBClient: Client } = require('@kurrent/kurrentdb-client') as typeof import('@kurrent/kurrentdb-client');
    const target = hosts.map((h) => `${h.host}:${h.port}`).join(',');
    return new KurrentDbEventStore(Client.connectionString(connectionString), { target, streamPrefix, ...options });
  }

  async append(stream: string, events: readonly EventData[], options: AppendOptions = {}): Promise<AppendResult> {
    // Promise 8: one append request checks one stream's state, so another stream's revision cannot
    // be checked atomically with it; refused rather than ignored (no readStreamUnconfirmed here,
    // so the gateway never sends one).
    if (options.condition !== undefined) throw new Error('kurrentdb: append conditions are not supported');
    const expected = options.expectedRevision ?? 'any';
    const proposed = events.map(toJsonEvent); // copies now: the caller may change its objects while we wait
    const ids = events.map((e) => e.id);
    const before = await this.readStream(stream);
    const repeat = repeatedAppend(stream, before, ids);
    if (repeat) return repeat;
    const current = before.at(-1)?.revision ?? -1n;
    if (proposed.length === 0) {
      checkExpectedRevision(stream, expected, current);
      return { nextExpectedRevision: current, position: await this.headPosition() };
    }
    try {
      const result = await this.client.appendToStream(this.prefix + stream, proposed, { streamState: toStreamState(expected) });
      const position = result.position ? fromKurrentPosition(result.position) : await this.positionOf(stream, ids.at(-1));
      return { nextExpectedRevision: result.nextExpectedRevision, position };
    } catch (error) {
      const translated = translateAppendError(error, stream, expected);
      if (translated instanceof WrongExpectedRevisionError) {
        const won = repeatedAppend(stream, await this.readStream(stream), ids);
        if (won) return won;
      }
      throw translateClientError(translated, this.target);
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromRevision ?? 0n;
    const until = options.untilRevision;
    if (until !== undefined && until < from) return [];
    const untilMs = options.untilTime?.getTime();
    const out: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(this.prefix + stream, {
        fromRevision: from === 0n ? 'start' : from,
        ...(until === undefined ? {} : { maxCount: until - from + 1n }),
      });
      for await (const resolved of read) {
        const event = fromResolvedEvent(resolved, this.prefix);
        if (event && (untilMs === undefined || Date.parse(event.created) <= untilMs)) out.push(event);
      }
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw translateClientError(error, this.target);
    }
    return out;
  }

  /** Reads pages of $all (filtered on the server) after `fromPosition`. KurrentDB starts a read
   *  at the position itself, so one more event than needed is asked for and the first dropped. */
  readStreamSoon(stream: string): Promise<readonly RecordedEvent[]> {
    return this.readStream(stream);
  }

  /** Other instances write to the same server: only a read can tell. */
  knownRevision(): undefined {
    return undefined;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    try {
      return await this.readAllPages(options);
    } catch (error) {
      throw translateClientError(error, this.target);
    }
  }

  private async readAllPages(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const limit = options.maxCount ?? Number.POSITIVE_INFINITY;
    const out: RecordedEvent[] = [];
    let cursor = options.fromPosition ?? 0n;
    while (out.length < limit) {
      const want = Math.min(PAGE, limit - out.length) + 1;
      let seen = 0;
      for await (const resolved of this.client.readAll({ fromPosition: toReadPosition(cursor), maxCount: want, filter: allFilter(this.prefix) })) {
        seen++;
        const event = fromResolvedEvent(resolved, this.prefix);
        if (!event || event.position <= cursor) continue;
        cursor = event.position;
        out.push(event);
        if (out.length === limit) return out;
      }
      if (seen < want) break; // the end of the log
    }
    return out;
  }

  subscribeAll(options: SubscribeOptions, handlers: SubscriptionHandlers): Subscription {
    const subscription = subscribeToAll({
      client: this.client,
      filter: allFilter(this.prefix),
      streamPrefix: this.prefix,
      fromPosition: options.fromPosition ?? 0n,
      headPosition: () => this.headPosition(),
    }, handlers);
    this.subscriptions.add(subscription);
    return {
      caughtUp: subscription.caughtUp,
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  async headPosition(): Promise<bigint> {
    try {
      const read = this.client.readAll({ fromPosition: 'end', direction: 'backwards', maxCount: PAGE, filter: allFilter(this.prefix) });
      for await (const resolved of read) {
        const event = fromResolvedEvent(resolved, this.prefix);
        if (event) return event.position;
      }
      return 0n;
    } catch (error) {
      throw translateClientError(error, this.target);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.subscriptions.clear();
    await this.client.dispose();
  }

  /** The position of an event of the stream (the server may not report one for a repeat). */
  private async positionOf(stream: string, id: string | undefined): Promise<bigint> {
    const found = (await this.readStream(stream)).find((e) => e.id === id);
    return found?.position ?? this.headPosition();
  }
}

/** The port's answer when every id is already in the stream (the append is a repeat), undefined
 *  when none is; a repeat of only some ids is refused. */
export function repeatedAppend(stream: string, existing: readonly RecordedEvent[], ids: readonly string[]): AppendResult | undefined {
  const byId = new Map(existing.map((e) => [e.id, e]));
  const found = ids.map((id) => byId.get(id));
  if (found.length === 0 || found.every((e) => e === undefined)) return undefined;
  const last = found.at(-1);
  if (!found.every((e) => e !== undefined) || !last) throw new IdempotencyConflictError(stream);
  return { nextExpectedRevision: existing.at(-1)?.revision ?? -1n, position: last.position };
}
