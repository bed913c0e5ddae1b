// What the PostgreSQL store may answer without asking the server: the streams this instance wrote
// or read recently and the tail of the log it wrote (store/recent-events.ts), kept valid by what it
// hears of every other writer. Each append transaction's NOTIFY names its positions, its writer
// and the streams it wrote (schema.ts); so this instance forgets exactly the streams another one
// wrote, and knows it has heard of every commit when the positions it has accounted for (its own
// commits, the others' notifications) run without a gap up to the highest it has seen anywhere (a
// commit's answer, a read, the head). Memory answers only while that holds and LISTEN is up.
//
// The race it leaves: between another instance's COMMIT and the moment this one handles its
// notification (the server sends it at once; this process reads it at its next turn), a read of a
// stream that commit wrote may be answered from memory as it was before. Nothing is lost by it:
// every append is checked against its expected revision on the server (a stale order is refused
// there and read again), and the first sign of the commit (its notification, or any position above
// the known ones in an answer) ends it. A pay reaching this instance in that moment may be decided
// on a token as it was just before another instance updated or deleted it, as if it had come a
// moment earlier. This instance's own commits are in memory before their appends resolve.
import type { RecordedEvent } from '../event-store.js';
import { RecentEvents } from '../recent-events.js';

/** A gap in the accounted positions that no notification fills within this long is given up on: everything is forgotten. */
const GAP_PATIENCE_MS = 1_000;

/** What another writer's notification says (undefined streams: it did not say; forget them all). */
export interface Notified { first: bigint; last: bigint; streams: readonly string[] | undefined }

/** A read of a whole stream in flight, to be remembered by `read` if nothing changed meanwhile. */
export interface Ticket { readonly stream: string; readonly generation: number }

export class ServerMemory {
  private readonly recent: RecentEvents;
  /** Changes whenever everything is forgotten (RecentEvents drops its content when it sees it change). */
  private generation = 0;
  private listening = false;
  /** Every position up to this one is accounted for: written by this instance or notified by another. */
  private accountedTo = 0n;
  /** Accounted ranges above accountedTo + 1 (first → last), waiting for the ones between. */
  private readonly ahead = new Map<bigint, bigint>();
  /** The highest position known to exist. */
  private seen = 0n;
  /** Since when (ms) accountedTo has been behind `seen`. */
  private gapSince: number | undefined;
  /** Streams being read from the server (how many reads), and those written meanwhile. */
  private readonly reading = new Map<string, number>();
  private readonly touched = new Set<string>();

  constructor(maxStreams: number, maxTail: number) {
    this.recent = new RecentEvents(maxStreams, maxTail, () => this.generation, true);
  }

  /** LISTEN is up again, and the head was `head` after it began: from now on every commit is heard of. */
  listeningFrom(head: bigint): void {
    this.forgetAll();
    this.note(head);
    this.accountedTo = this.seen;
    this.ahead.clear();
    this.gapSince = undefined;
    this.listening = true;
  }

  /** LISTEN is down: nothing is answered from memory until it is back. */
  deaf(): void {
    this.listening = false;
    this.forgetAll();
  }

  /** Everything dropped (an append whose outcome is unknown). */
  forgetAll(): void {
    this.generation += 1;
    this.recent.check(true);
  }

  /** Another writer's commit, as its notification tells it. */
  notified(commit: Notified): void {
    if (commit.streams === undefined) this.forgetAll();
    else for (const stream of commit.streams) this.forget(stream);
    // The tail holds a run of this instance's commits without a gap: one before it leaves it whole.
    const start = this.recent.tailStart();
    if (start === undefined || commit.last >= start) this.recent.forgetTail();
    this.account(commit.first, commit.last);
  }

  /** This instance's own commit, as its notification tells it: memory already holds it, or forgot everything when its answer was lost. */
  heardOwn(first: bigint, last: bigint): void {
    this.account(first, last);
  }

  /** A position known to exist (a read's, the head's). */
  note(position: bigint): void {
    if (position > this.seen) this.seen = position;
    if (this.accountedTo < this.seen) this.gapSince ??= Date.now();
  }

  /** This instance's commit of `appends` (each one stream's events, in log order): in memory before they resolve. */
  committed(appends: ReadonlyArray<readonly RecordedEvent[]>): void {
    const first = appends[0]?.[0];
    const last = appends.at(-1)?.at(-1);
    if (first === undefined || last === undefined) return;
    // The positions just below were someone else's: until their notification, the tail does not reach the head.
    this.note(first.position - 1n);
    for (const events of appends) {
      const stream = (events[0] as RecordedEvent).stream;
      if (this.reading.has(stream)) this.touched.add(stream);
      this.recent.remember(events);
    }
    this.account(first.position, last.position);
  }

  /**
   * This instance's commit that it did not keep in memory (a batch decided append by append):
   * its streams are dropped, and its positions (first..last, none when it wrote nothing) accounted.
   */
  committedUnkept(streams: readonly string[], written: { first: bigint; last: bigint } | undefined): void {
    for (const stream of streams) this.forget(stream);
    this.recent.forgetTail();
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
    return this.recent.holds(stream) ? this.recent.stream(stream) : undefined;
  }

  /** The events after `from` (at most `max`; -1: all) from the tail, when it reaches the head as known. */
  fromTail(from: bigint, max: number): RecordedEvent[] | undefined {
    // The tail's end must be the head: else there are events after it that it does not hold.
    if (!this.current() || this.recent.tailEnd() !== this.seen) return undefined;
    return this.recent.fromTail(from, max);
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
    if (this.accountedTo >= this.seen) return true;
    if (this.gapSince !== undefined && Date.now() - this.gapSince > GAP_PATIENCE_MS) {
      // A commit whose notification never came (a writer that sends none): forget everything, start from here.
      this.forgetAll();
      this.accountedTo = this.seen;
      this.ahead.clear();
      this.gapSince = undefined;
      return true;
    }
    return false;
  }

  private account(first: bigint, last: bigint): void {
    this.note(last);
    if (first > this.accountedTo + 1n) {
      if ((this.ahead.get(first) ?? -1n) < last) this.ahead.set(first, last);
      return;
    }
    const before = this.accountedTo;
    if (last > this.accountedTo) this.accountedTo = last;
    for (let moved = true; moved && this.ahead.size > 0;) {
      moved = false;
      for (const [from, to] of this.ahead) {
        if (from > this.accountedTo + 1n) continue;
        this.ahead.delete(from);
        if (to > this.accountedTo) this.accountedTo = to;
        moved = true;
      }
    }
    // Patience counts from the last progress: notifications that keep coming are no stuck gap.
    if (this.accountedTo >= this.seen) this.gapSince = undefined;
    else if (this.accountedTo > before) this.gapSince = Date.now();
  }
}
