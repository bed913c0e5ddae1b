// A stand-in for @kurrent/kurrentdb-client's KurrentDBClient, in memory, for testing the
// adapter's own logic without a server. It copies what the adapter relies on, as the client and
// the server behave: sparse commit positions (commit = prepare, log offsets), system events in
// $all, reads of $all starting AT the given position, subscriptions starting AFTER it, the
// server's weaker idempotency (a repeat is recognised only at the expected revision, or with
// 'any' when every id is in the stream; otherwise duplicates are written), the client's error
// classes, a caughtUp event, and unsubscribe() that cancels without ending the stream.
// It is not KurrentDB: what only a server proves runs in kurrentdb.test.ts with KURRENTDB_URL.
import { Readable } from 'node:stream';
import {
  StreamNotFoundError, UnavailableError, WrongExpectedVersionError,
  type AllStreamResolvedEvent, type AppendResult, type AppendStreamState, type EventData, type Filter,
  type Position, type ReadPosition,
} from '@kurrent/kurrentdb-client';
import type { KurrentClient } from '../../store/kurrentdb.js';

interface Row {
  streamId: string; id: string; type: string; data: string; metadata: string;
  revision: bigint; position: bigint; created: Date;
}

const matches = (row: Row, filter: Filter | undefined) => {
  if (!filter) return true;
  if ('prefixes' in filter) return filter.prefixes.some((p) => (filter.filterOn === 'streamName' ? row.streamId : row.type).startsWith(p));
  return new RegExp(filter.regex).test(filter.filterOn === 'streamName' ? row.streamId : row.type);
};

const resolved = (row: Row): AllStreamResolvedEvent => ({
  event: {
    streamId: row.streamId, id: row.id, isJson: true, revision: row.revision, type: row.type, created: new Date(row.created),
    data: JSON.parse(row.data) as Record<string, unknown>, metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    position: { commit: row.position, prepare: row.position },
  },
  commitPosition: row.position,
});

const start = (p: ReadPosition | undefined, fallback: bigint) => (p === undefined || p === 'start' ? 0n : p === 'end' ? fallback : p.commit);

export class FakeKurrentClient {
  readonly log: Row[] = [];
  private next = 0n;
  private readonly live = new Set<() => void>();
  /** Set to n: every subscription opened from now fails (unavailable) after delivering n events. */
  failSubscriptionsAfter: number | undefined;
  subscriptionsOpened = 0;
  disposed = false;

  constructor() {
    this.write('$epoch-information', '$epoch-information', {});
    this.write('$scavenges', '$scavengeIndexInitialized', {});
  }

  private write(streamId: string, type: string, data: unknown, metadata: unknown = {}, id: string = crypto.randomUUID()): Row {
    const revision = BigInt(this.log.filter((r) => r.streamId === streamId).length);
    const row: Row = { streamId, id, type, data: JSON.stringify(data), metadata: JSON.stringify(metadata), revision, position: this.next, created: new Date() };
    this.next += 137n + BigInt(row.data.length);
    this.log.push(row);
    return row;
  }

  async appendToStream(streamId: string, events: EventData | EventData[], options: { streamState?: AppendStreamState } = {}): Promise<AppendResult> {
    await new Promise((resolve) => setImmediate(resolve));
    const list = Array.isArray(events) ? events : [events];
    const state = options.streamState ?? 'any';
    const stream = this.log.filter((r) => r.streamId === streamId);
    const current = BigInt(stream.length - 1);
    const after = typeof state === 'bigint' ? state + 1n : state === 'no_stream' ? 0n : undefined;
    const repeat = after === undefined
      ? list.every((e) => stream.some((r) => r.id === e.id))
      : list.every((e, i) => stream[Number(after) + i]?.id === e.id);
    if (list.length > 0 && repeat) return { success: true, nextExpectedRevision: current, position: undefined };
    const ok = state === 'any' || (state === 'no_stream' && current === -1n) || (state === 'stream_exists' && current >= 0n) || state === current;
    if (!ok) throw new WrongExpectedVersionError(undefined, { streamName: streamId, expected: state, current: current < 0n ? 'no_stream' : current });
    let last: Row | undefined;
    for (const e of list) last = this.write(streamId, e.type, e.data, e.metadata, e.id);
    if (this.log.length % 5 === 0) this.write('$stats-127.0.0.1:2113', '$statsCollected', {});
    for (const notify of this.live) notify();
    const position: Position | undefined = last ? { commit: last.position, prepare: last.position } : undefined;
    return { success: true, nextExpectedRevision: last?.revision ?? current, position };
  }

  async *readStream(streamId: string, options: { fromRevision?: 'start' | 'end' | bigint; maxCount?: number | bigint } = {}): AsyncIterableIterator<AllStreamResolvedEvent> {
    const rows = this.log.filter((r) => r.streamId === streamId);
    if (rows.length === 0) throw new StreamNotFoundError(undefined, streamId);
    const from = options.fromRevision === undefined || options.fromRevision === 'start' ? 0n : options.fromRevision === 'end' ? BigInt(rows.length) : options.fromRevision;
    const max = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
    for (const row of rows.filter((r) => r.revision >= from).slice(0, max)) yield resolved(row);
  }

  async *readAll(options: { fromPosition?: ReadPosition; maxCount?: number | bigint; direction?: 'forwards' | 'backwards'; filter?: Filter } = {}): AsyncIterableIterator<AllStreamResolvedEvent> {
    const max = Number(options.maxCount ?? Number.MAX_SAFE_INTEGER);
    const from = start(options.fromPosition, this.next);
    const rows = options.direction === 'backwards'
      ? this.log.filter((r) => r.position < from).reverse()
      : this.log.filter((r) => r.position >= from); // a read starts at the position itself
    for (const row of rows.filter((r) => matches(r, options.filter)).slice(0, max)) yield resolved(row);
  }

  subscribeToAll(options: { fromPosition?: ReadPosition; filter?: Filter } = {}) {
    this.subscriptionsOpened++;
    const from = options.fromPosition;
    let last: bigint | undefined = from === undefined || from === 'start' ? undefined : start(from, this.next); // after it
    let delivered = 0;
    const failAfter = this.failSubscriptionsAfter;
    const stream = Object.assign(new Readable({ objectMode: true, read() {} }), {
      unsubscribe: async () => { this.live.delete(feed); },
    });
    const feed = () => {
      for (const row of this.log) {
        if (stream.destroyed) return;
        if (last !== undefined && row.position <= last) continue;
        last = row.position;
        if (!matches(row, options.filter)) continue;
        if (failAfter !== undefined && delivered === failAfter) {
          // The connection drops once the events already sent were read.
          this.live.delete(feed);
          const drop = () => (stream.readableLength === 0 ? stream.destroy(new UnavailableError(undefined, 'the node went away')) : setTimeout(drop, 2));
          drop();
          return;
        }
        delivered++;
        stream.push(resolved(row));
      }
    };
    setImmediate(() => {
      feed();
      if (!stream.destroyed) stream.emit('caughtUp', {});
      this.live.add(feed);
    });
    return stream;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.live.clear();
  }

  /** Typed as the part of the client the adapter uses. */
  asClient(): KurrentClient {
    return this as unknown as KurrentClient;
  }
}
