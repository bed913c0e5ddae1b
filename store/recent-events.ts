// What this process wrote or read recently, kept in memory: whole streams, the ones asked for
// kept longest (a pay reads its token and order streams without a query), and the tail of the log (the
// read models read the events just appended without a query). Both are valid only while nobody
// else has written: the store tells by a version that changes when someone has (SQLite: its `PRAGMA
// data_version`, looked at at most once per millisecond of the clock by reads, always by write
// transactions; PostgreSQL: store/postgres/memory.ts, from LISTEN), and both caches are dropped
// when it changed.
import type { RecordedEvent } from './event-store.js';

export class RecentEvents {
  /**
   * Whole streams, oldest first (a Map iterates in insertion order), evicted by second chance: a
   * stream asked for since it was put in (`used`) is put back at the end instead of going out.
   * Not moved to the end at each use: a Map's delete and set of one key near its capacity cost
   * more than the use itself (bench/README.md, "What was tried").
   */
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly used = new Set<string>();
  /** The log's last events, contiguous, the last one at the head of the log. */
  private tail: RecordedEvent[] = [];
  private dataVersion = -1;
  /** The clock's millisecond (Date.now()) of the last look at data_version. */
  private checkedAt = Number.NaN;

  /**
   * `maxStreams`: streams kept (0: none); `maxTail`: events of the tail kept (at times up to twice
   * that; 0: none); `dataVersion`: what changes when someone else wrote (SQLite's data_version);
   * `everyLook`: it costs nothing to read, so reads look at it every time.
   */
  constructor(
    private readonly maxStreams: number, private readonly maxTail: number, private readonly dataVersionOf: () => number,
    private readonly everyLook = false,
  ) {}

  /**
   * Drop what is cached when another connection has written to the file since the last look
   * (our own commits do not change our connection's data_version). The look is a statement (a
   * read transaction, locks): reads look at most once per millisecond of the clock, so a read
   * may miss another connection's commit made in the same millisecond as the last look; a write
   * transaction always looks (`force`), since it decides on the cached revisions. (Once per
   * event-loop iteration was once per pay or two under load: iterations are short while the
   * WAL's sync runs.)
   */
  check(force = false): void {
    if (!this.everyLook) {
      const now = Date.now();
      if (now === this.checkedAt && !force) return;
      this.checkedAt = now;
    }
    const version = this.dataVersionOf();
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.clear();
  }

  clear(): void {
    this.streams.clear();
    this.used.clear();
    this.tail = [];
  }

  /**
   * A cached stream's events (no check: the caller has checked), marked used: a stream read often
   * (a token every pay uses) stays while streams written once (each payment's new order) pass
   * through; without the mark it went out after every `maxStreams` new streams and was read from
   * the file again.
   */
  stream(stream: string): RecordedEvent[] | undefined {
    const events = this.streams.get(stream);
    if (events !== undefined) this.used.add(stream);
    return events;
  }

  /** Whether the stream is cached (valid while no other connection wrote). */
  holds(stream: string): boolean {
    this.check();
    return this.streams.has(stream);
  }

  /** A cached stream's events after the check (holds, then stream: one lookup rather than two). */
  cached(stream: string): RecordedEvent[] | undefined {
    this.check();
    return this.stream(stream);
  }

  /** A stream dropped (someone else wrote it, or may have). */
  forget(stream: string): void {
    this.streams.delete(stream);
    this.used.delete(stream);
  }

  /** The tail dropped (it no longer reaches the head of the log). */
  forgetTail(): void {
    this.tail = [];
  }

  /** A whole stream just read from the file. */
  read(stream: string, events: RecordedEvent[]): void {
    if (this.maxStreams > 0 && events.length > 0) this.put(stream, events);
  }

  /**
   * After a commit: the written events join their cached stream and (unless `tail` is false: the
   * caller keeps them until the events before them are read) the log's tail.
   */
  remember(recorded: readonly RecordedEvent[], tail = true): void {
    const first = recorded[0];
    if (first === undefined) return;
    if (this.maxStreams > 0) {
      const cached = this.streams.get(first.stream);
      if (cached && BigInt(cached.length) === first.revision) {
        cached.push(...recorded);
        this.used.add(first.stream);
      } else if (first.revision === 0n) {
        this.put(first.stream, [...recorded]);
      } else if (cached) {
        this.streams.delete(first.stream);
        this.used.delete(first.stream);
      }
    }
    if (tail) this.extendTail(recorded, true);
  }

  /**
   * Events of the log right after the tail's last (or, `restart`, anywhere: a tail that does not
   * join them is dropped and they begin a new one) join it; false when they did not.
   */
  extendTail(recorded: readonly RecordedEvent[], restart = false): boolean {
    const first = recorded[0];
    if (this.maxTail <= 0 || first === undefined) return false;
    const last = this.tail.at(-1);
    if (last !== undefined && last.position + 1n !== first.position) {
      if (!restart) return false;
      this.tail = [];
    }
    this.tail.push(...recorded);
    if (this.tail.length > this.maxTail * 2) this.tail = this.tail.slice(-this.maxTail);
    return true;
  }

  /** A stream put in as the newest (one already in: replaced in place, marked used); beyond `maxStreams`, the oldest not used since goes. */
  private put(stream: string, events: RecordedEvent[]): void {
    if (this.streams.has(stream)) {
      this.streams.set(stream, events);
      this.used.add(stream);
      return;
    }
    this.streams.set(stream, events);
    while (this.streams.size > this.maxStreams) {
      const oldest = this.streams.keys().next();
      if (oldest.done === true) return;
      const events = this.streams.get(oldest.value) as RecordedEvent[];
      this.streams.delete(oldest.value);
      // Used since it was put in: its second chance, at the end (once per pass, not once per use);
      // the stream just put in stays (it comes up first only when every other one was used).
      if (this.used.delete(oldest.value) || oldest.value === stream) this.streams.set(oldest.value, events);
    }
  }

  /** The position of the tail's last event (undefined: no tail). */
  tailEnd(): bigint | undefined {
    return this.tail.at(-1)?.position;
  }

  /** The position of the tail's first event (undefined: no tail). */
  tailStart(): bigint | undefined {
    return this.tail[0]?.position;
  }

  /** The events after `from` (at most `max`; -1: all) when the cached tail holds them and the head. */
  fromTail(from: bigint, max: number): RecordedEvent[] | undefined {
    this.check();
    const first = this.tail[0];
    const last = this.tail.at(-1);
    if (first === undefined || last === undefined || from < first.position - 1n || from > last.position) return undefined;
    const start = Number(from - first.position + 1n);
    return this.tail.slice(start, max < 0 ? undefined : start + max);
  }
}
