// A test app's store given readStreamUnconfirmed (promise 8), answered from snapshots the test
// takes: a stream frozen at a moment is served as it was then, as by an instance whose memory
// missed another instance's later write; a stream not frozen is not held (undefined: read it the
// careful way). The memory store checks append conditions, so a stale snapshot makes the append
// that carries its revision fail as it would on a shared store. Also counts the careful reads
// (readStream, readStreamSoon) of each stream and keeps every append's options.
import type { AppendOptions, EventStore, RecordedEvent } from '../../store/event-store.js';

export interface UnconfirmedReads {
  /** From now on readStreamUnconfirmed answers `stream` as it is now. */
  freeze(stream: string): Promise<void>;
  /** From now on readStreamUnconfirmed answers `stream` with `events` (a history it never had). */
  serve(stream: string, events: readonly RecordedEvent[]): void;
  /** readStreamUnconfirmed no longer holds `stream`. */
  thaw(stream: string): void;
  /** The careful reads of `stream` so far. */
  carefulReads(stream: string): number;
  /** The options of every append to `stream` so far. */
  appends(stream: string): AppendOptions[];
  /** The condition each append to `stream` carried so far (undefined: none). */
  conditions(stream: string): Array<AppendOptions['condition']>;
}

export function unconfirmedReads(store: EventStore): UnconfirmedReads {
  const snapshots = new Map<string, readonly RecordedEvent[]>();
  const careful = new Map<string, number>();
  const appended = new Map<string, AppendOptions[]>();
  const readStream = store.readStream.bind(store);
  const readStreamSoon = store.readStreamSoon.bind(store);
  const append = store.append.bind(store);
  const counted = (stream: string) => careful.set(stream, (careful.get(stream) ?? 0) + 1);
  store.readStream = (stream, options) => { counted(stream); return readStream(stream, options); };
  store.readStreamSoon = (stream) => { counted(stream); return readStreamSoon(stream); };
  store.append = (stream, events, options) => {
    appended.set(stream, [...(appended.get(stream) ?? []), { ...options }]);
    return append(stream, events, options);
  };
  store.readStreamUnconfirmed = (stream) => {
    const held = snapshots.get(stream);
    return held === undefined || held.length === 0 ? undefined : held;
  };
  return {
    async freeze(stream) { snapshots.set(stream, Object.freeze(await readStream(stream))); },
    serve(stream, events) { snapshots.set(stream, Object.freeze([...events])); },
    thaw(stream) { snapshots.delete(stream); },
    carefulReads: (stream) => careful.get(stream) ?? 0,
    appends: (stream) => appended.get(stream) ?? [],
    conditions: (stream) => (appended.get(stream) ?? []).map((options) => options.condition),
  };
}
