// The texts the request journal keeps (journal.ts: each entry's masked body and answer), as bytes
// in one buffer outside the JavaScript heap: kept by every request for a long time, they were most
// of the journal's heap as strings, which the collector copies as entries age and marks on every
// full collection. A ring: a new text overwrites the oldest; an entry whose texts were overwritten
// is dropped.
//
// Sized by what is kept: the buffer is allocated at its most, but only its first part is used (a
// page never written takes no memory of the machine's), and that part grows, rather than the ring
// start again over a text the journal still holds. So JOURNAL_SIZE entries of small answers take
// the memory they need rather than the memory the largest answers would. Nothing is moved when it
// grows: a pass over the buffer (a lap) goes on further before the next one starts at 0.

/** Bytes of the buffer used at first (or all of it, when smaller). */
const FIRST_SIZE = 1 << 20;
/** How much more of it is used each time the ring grows: a small step, so it ends near what it needs. */
const GROWTH = 1.25;

export class TextRing {
  private readonly buffer: Buffer;
  /** Bytes of the buffer in use. */
  private size: number;
  /** Bytes kept since the ring was made: the next text's place. */
  private written = 0;
  /** The place kept at the buffer's start in this lap, and in the lap before. */
  private lapStart = 0;
  private previousLapStart = 0;

  /** @param most the buffer's size: the most bytes the ring grows to */
  constructor(readonly most: number) {
    this.buffer = Buffer.allocUnsafeSlow(most);
    this.size = Math.min(most, FIRST_SIZE);
  }

  /** The length in bytes of the text kept last. */
  lastBytes = 0;
  /** Of these, the first text's (keep's `first`). */
  firstBytes = 0;

  /**
   * Keeps a text, after `first` when given (one place for both, read apart by firstBytes): its place
   * among all the bytes ever kept (-1: larger than the ring can be). `oldest`: the place of the
   * oldest text the journal holds (-1: none): the ring grows rather than overwrite it, while it can.
   */
  keep(text: string | Buffer, first = '', oldest = -1): number {
    const most = (typeof text === 'string' ? text.length * 3 : text.length) + first.length * 3;
    if (most > this.most) return -1;
    // A text is kept whole: one that might not fit before the end grows the ring, or starts it again.
    if (this.written - this.lapStart + most > this.size) {
      // (A text's length is its bytes when it is ASCII, as answers are.)
      const least = text.length + first.length;
      while (this.size < this.most && this.written - this.lapStart + most > this.size && (most > this.size || this.wouldOverwrite(oldest, least))) {
        this.size = Math.min(this.most, Math.ceil(this.size * GROWTH));
      }
      if (this.written - this.lapStart + most > this.size) {
        this.previousLapStart = this.lapStart;
        this.lapStart = this.written;
      }
    }
    const at = this.written;
    const offset = at - this.lapStart;
    const firstBytes = first === '' ? 0 : this.buffer.write(first, offset, 'utf8');
    const bytes = typeof text === 'string' ? this.buffer.write(text, offset + firstBytes, 'utf8') : text.copy(this.buffer, offset + firstBytes);
    this.written += firstBytes + bytes;
    this.firstBytes = firstBytes;
    this.lastBytes = firstBytes + bytes;
    return at;
  }

  /** Whether a text kept at `at` is whole still (no newer text has overwritten it). */
  holds(at: number): boolean {
    if (at >= this.lapStart) return at >= 0;
    // From the lap before: whole while this lap has not reached it.
    return at >= this.previousLapStart && this.written - this.lapStart <= at - this.previousLapStart;
  }

  /** A kept text, or its bytes from `from` on (undefined: overwritten since). */
  read(at: number, bytes: number, from = 0): string | undefined {
    if (at < 0 || !this.holds(at)) return undefined;
    const offset = at - (at >= this.lapStart ? this.lapStart : this.previousLapStart);
    return this.buffer.toString('utf8', offset + from, offset + bytes);
  }

  /** Whether starting the ring again for a text of `bytes` would overwrite the text kept at `oldest`. */
  private wouldOverwrite(oldest: number, bytes: number): boolean {
    if (oldest < 0) return false;
    // The lap before is overwritten as a whole when a new one starts; this one from its start.
    return oldest < this.lapStart || oldest - this.lapStart < bytes;
  }
}
