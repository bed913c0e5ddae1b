// What the PostgreSQL store may answer without asking the server: the streams this instance wrote
// or read recently and the tail of the log it wrote (store/recent-events.ts), kept valid by what it
// hears of every other writer. Each append transaction's NOTIFY names its positions, its writer
// and the streams it wrote (schema.ts); so this instance forgets exactly the streams another one
// wrote, and knows it has heard of every commit when the positions it has accounted for (its own
// commits, the others' notifications) run without a gap up to the highest it has seen anywhere (a
// commit's answer, a read, the head). Memory answers only while that holds and LISTEN is up.
//
// Memory alone cannot tell whether another instance committed a moment ago: the server sends the
// notification at COMMIT, but this process handles it at a later turn, possibly after a client that
// got that commit's answer asks this instance to read. So a whole stream is answered from memory
// only once a head read sent after the read was asked (store/postgres/head-reads.ts, shared by the
// reads of a moment) shows no position memory has not accounted for (accountedFor: at once, or
// when the notifications arrive, else the read asks the server): every write acknowledged before
// the read, on any instance, is then in memory or has dropped the stream it wrote. No answer is
// given without that round trip, even with no other writer known: one may start and commit at any
// moment, and nothing but a query tells it. This instance's own commits are in memory before their
// appends resolve.
import type { RecordedEvent } from '../event-store.js';
import { RecentEvents } from '../recent-events.js';
import { AccountedPositions } from './accounted.js';

/** What another writer's notification says (undefined streams: it did not say; forget them all). */
export interface Notified { first: bigint; last: bigint; streams: readonly string[] | undefined }

/** Positions the tail lacks after its end `after` (through `until`, else open), and memory's generation then. */
interface Gap { after: bigint; until: bigint | undefined; generation: number }

/** A query of the log after `after`, through `until` if given, at most `limit` events. */
type GapReader = (after: bigint, until: bigint | undefined, limit: number) => Promise<readonly RecordedEvent[]>;
/** A read of a gap in flight, the highest position known when it was sent, and the events it extended the tail by (undefined: none). */
interface GapRead { readonly gap: Gap; readonly seen: bigint; readonly events: Promise<readonly RecordedEvent[] | undefined> }

/** A read of a whole stream in flight, to be remembered by `read` if nothing changed meanwhile. */
export interface Ticket { readonly stream: string; readonly generation: number }

export class ServerMemory {
  private readonly recent: RecentEvents;
  /** Changes whenever everything is forgotten (RecentEvents drops its content when it sees it change). */
  private generation = 0;
  private listening = false;
  /** The positions accounted for (this instance's commits, the others' notifications) and the highest known. */
  private readonly accounted = new AccountedPositions();
  /**
   * This instance's commits made after another's that the tail does not hold yet (each a run of
   * positions without a gap, in log order): they join the tail once a read fills the gap before them.
   */
  private later: RecordedEvent[][] = [];
  private laterCount = 0;
  /** Streams being read from the server (how many reads), and those written meanwhile. */
  private readonly reading = new Map<string, number>();
  private readonly touched = new Set<string>();
  /** The gap being read from the server: another reader of the same gap waits for it. */
  private gapRead: GapRead | undefined;

  constructor(maxStreams: number, private readonly maxTail: number) {
    this.recent = new RecentEvents(maxStreams, maxTail, () => this.generation, true);
  }

  /** LISTEN is up again, and the head was `head` after it began: from now on every commit is heard of. */
  listeningFrom(head: bigint): void {
    this.forgetAll();
    this.accounted.note(head);
    this.listening = true;
    this.accounted.restart();
  }

  /** LISTEN is down: nothing is answered from memory until it is back. */
  deaf(): void {
    this.listening = false;
    this.forgetAll();
    this.accounted.deaf();
  }

  /** Everything dropped (an append whose outcome is unknown). */
  forgetAll(): void {
    this.generation += 1;
    this.dropLater();
    this.recent.check(true);
  }

  /** Another writer's commit, as its notification tells it. */
  notified(commit: Notified): void {
    if (commit.streams === undefined) this.forgetAll();
    else for (const stream of commit.streams) this.forget(stream);
    // The tail stays: what it holds is still the log; it no longer reaches the head until a read
    // fills the gap after it (fillGaps).
    this.account(commit.first, commit.last);
  }

  /** This instance's own commit, as its notification tells it: memory already holds it, or forgot everything when its answer was lost. */
  heardOwn(first: bigint, last: bigint): void {
    this.account(first, last);
  }

  /** A position known to exist (a read's, the head's). */
  note(position: bigint): void {
    this.accounted.note(position);
  }

  /** This instance's commit of `appends` (each one stream's events, in log order): in memory before they resolve. */
  committed(appends: ReadonlyArray<readonly RecordedEvent[]>): void {
    const first = appends[0]?.[0];
    const last = appends.at(-1)?.at(-1);
    if (first === undefined || last === undefined) return;
    // The positions just below were someone else's: until their notification, the tail does not reach the head.
    this.note(first.position - 1n);
    // After a gap (another instance's commit not read yet): held until a read fills the gap.
    // Already in the tail: a read of the server showed this commit before its answer came.
    const end = this.recent.tailEnd();
    const afterGap = this.later.length > 0 || (end !== undefined && end + 1n < first.position);
    const inTail = end !== undefined && first.position <= end;
    for (const events of appends) {
      const stream = (events[0] as RecordedEvent).stream;
      if (this.reading.has(stream)) this.touched.add(stream);
      this.recent.remember(events, !afterGap && !inTail);
    }
    if (afterGap && !inTail) this.holdLater(appends.flat());
    this.account(first.position, last.position);
  }

  private holdLater(events: RecordedEvent[]): void {
    this.later.push(events);
    this.laterCount += events.length;
    // The gap is not being read (nobody reads the log): the tail starts again from these.
    if (this.laterCount > this.maxTail) {
      this.recent.forgetTail();
      for (const run of this.later) this.recent.extendTail(run, true);
      this.dropLater();
    }
  }

  private dropLater(): void {
    this.later = [];
    this.laterCount = 0;
  }

  /**
   * The events after `from` (at most `max`; -1: all) from the tail, once `read` filled what it
   * lacks after it: each instance's events are read from the server once, its own never. A read
   * of the server shows every event below the highest it shows (positions are seen in commit
   * order), so the tail it extends is the log. Undefined when `from` is not in the tail.
   */
  async fillGaps(from: bigint, max: number, read: GapReader): Promise<RecordedEvent[] | undefined> {
    // A few reads: a commit held after a gap, other instances committing while one is in flight.
    for (let reads = 0; reads < 4; reads++) {
      const held = this.fromTail(from, max);
      if (held !== undefined) return held;
      const gap = this.gapAfter(from);
      if (gap === undefined) return undefined;
      // Readers woken by the same commit (the reactors, the read models) share a read of the gap sent knowing all they know of.
      const shared = this.gapRead;
      const joined = shared?.gap.after === gap.after && shared.gap.generation === gap.generation && this.accounted.seen <= shared.seen ? shared : undefined;
      const step = joined ?? this.readGap(gap, read);
      const events = joined ? await step.events.catch(() => undefined) : await step.events;
      // Not filled: everything forgotten meanwhile (the server answers), or the tail moved on (read what it still lacks).
      if (events === undefined && step.gap.generation !== this.generation) return undefined;
      if (events === undefined) continue;
      // Through the head as the server showed it, or a whole page: the tail answers as the server would.
      const end = this.recent.tailEnd() ?? from;
      if ((step.gap.until === undefined && events.length < this.maxTail) || (max >= 0 && end - from >= BigInt(max))) return this.recent.fromTail(from, max);
    }
    return undefined;
  }

  /** `gap` read from the server: its events once they extend the tail (undefined: they did not). */
  private readGap(gap: Gap, read: GapReader): GapRead {
    const step: GapRead = { gap, seen: this.accounted.seen, events: read(gap.after, gap.until, this.maxTail).then((events) => {
      const last = events.at(-1);
      if (last !== undefined) this.note(last.position);
      return this.filled(gap, events) ? events : undefined;
    }).finally(() => { if (this.gapRead === step) this.gapRead = undefined; }) };
    this.gapRead = step;
    return step;
  }

  /** When `from` is in the tail: the positions after its end it lacks, up to this instance's next commit held (else open). */
  private gapAfter(from: bigint): Gap | undefined {
    if (!this.listening) return undefined;
    this.recent.check();
    const start = this.recent.tailStart();
    const end = this.recent.tailEnd();
    if (start === undefined || end === undefined || from < start - 1n || from > end) return undefined;
    const next = this.later[0]?.[0]?.position;
    return { after: end, until: next === undefined ? undefined : next - 1n, generation: this.generation };
  }

  /** A read of a gap (frozen events, in log order): the tail extended by it, then by the commits held after it. */
  private filled(gap: Gap, events: readonly RecordedEvent[]): boolean {
    if (gap.generation !== this.generation || this.recent.tailEnd() !== gap.after) return false;
    if (events.length > 0 && !this.recent.extendTail(events)) return false;
    if (gap.until !== undefined && this.recent.tailEnd() !== gap.until) return false;
    this.joinLater();
    return true;
  }

  /**
   * Events of the log read from the server after `from` (frozen, in log order, every one up to the
   * last): they extend the tail, or begin it again where it ends before `from`.
   */
  readFromServer(from: bigint, events: readonly RecordedEvent[]): void {
    const last = events.at(-1);
    if (last === undefined) return;
    this.note(last.position);
    if (!this.listening) return;
    const end = this.recent.tailEnd();
    if (end !== undefined && from <= end) {
      if (last.position > end) this.recent.extendTail(events.slice(Number(end - from)));
    } else {
      this.recent.forgetTail();
      this.recent.extendTail(events, true);
    }
    this.joinLater();
  }

  /** This instance's commits held after a gap that the tail now reaches join it (those it holds already are dropped). */
  private joinLater(): void {
    for (let run = this.later[0]; run !== undefined; run = this.later[0]) {
      // A commit of this instance's the read showed too is in the tail already.
      const inTail = (run.at(-1) as RecordedEvent).position <= (this.recent.tailEnd() ?? 0n);
      if (!inTail && !this.recent.extendTail(run)) break;
      this.later.shift();
      this.laterCount -= run.length;
    }
  }

  /**
   * This instance's commit that it did not keep in memory (a batch decided append by append):
   * its streams are dropped, and its positions (first..last, none when it wrote nothing) accounted.
   */
  committedUnkept(streams: readonly string[], written: { first: bigint; last: bigint } | undefined): void {
    for (const stream of streams) this.forget(stream);
    this.recent.forgetTail();
    this.dropLater();
    if (written !== undefined) this.account(written.first, written.last);
  }

  /** A stream this instance may have written without knowing the outcome, or found changed: dropped. */
  forget(stream: string): void {
    if (this.reading.has(stream)) this.touched.add(stream);
    this.recent.forget(stream);
  }

  /** The whole stream from memory, when it holds it and has heard of every commit. */
  stream(stream: string): readonly RecordedEvent[] | undefined {
    if (!this.current()) return undefined;
    return this.recent.cached(stream);
  }

  /** The events after `from` (at most `max`; -1: all) from the tail, when it reaches the head as known. */
  fromTail(from: bigint, max: number): RecordedEvent[] | undefined {
    // The tail's end must be the head: else there are events after it that it does not hold.
    if (!this.current() || this.recent.tailEnd() !== this.accounted.seen) return undefined;
    return this.recent.fromTail(from, max);
  }

  /**
   * Whether memory answers for every commit up to `head` (a head read after the read was asked):
   * at once when it has accounted for them, else once their notifications come, false if they do
   * not within `patienceMs` (the read then asks the server).
   */
  accountedFor(head: bigint, patienceMs: number): boolean | Promise<boolean> {
    return this.listening && this.accounted.through(head, patienceMs);
  }

  /** A read of a whole stream from the server begins. */
  beginRead(stream: string): Ticket {
    this.reading.set(stream, (this.reading.get(stream) ?? 0) + 1);
    return { stream, generation: this.generation };
  }

  /** The read's answer (undefined: it failed): remembered when nothing written meanwhile may be missing from it. */
  read(ticket: Ticket, events: RecordedEvent[] | undefined): void {
    const { stream } = ticket;
    const count = (this.reading.get(stream) ?? 1) - 1;
    const touched = this.touched.has(stream);
    if (count > 0) this.reading.set(stream, count);
    else {
      this.reading.delete(stream);
      this.touched.delete(stream);
    }
    if (events !== undefined && !touched && ticket.generation === this.generation && this.listening) this.recent.read(stream, events);
  }

  /** Whether memory has heard of every commit it knows exists (a gap no notification fills is given up on). */
  private current(): boolean {
    if (!this.listening) return false;
    this.recent.check();
    const complete = this.accounted.complete();
    if (complete !== 'stuck') return complete;
    // A commit whose notification never came (a writer that sends none): forget everything, start from here.
    this.forgetAll();
    this.accounted.restart();
    return true;
  }

  private account(first: bigint, last: bigint): void {
    this.accounted.account(first, last);
  }
}
