// The texts the request journal keeps (journal.ts: each entry's masked body and answer), as bytes
// in one buffer outside the JavaScript heap: kept by every request for a long time, they were most
// of the journal's heap as strings, which the collector copies as entries age and marks on every
// full collection. A ring: a new text overwrites the oldest; an entry whose texts were overwritten
// is dropped.
//
// Sized by what is kept: the buffer is allocated at its most, but only its first part is used (a
// page never written takes no memory of the machine's), and that part grows, rather than a new
// text overwrite one the journal still holds, until it is all used. A pass over the buffer (a lap)
// writes from 0; the texts of the lap before stay after the place written next until this lap
// reaches them. It grows at the end of a lap (this lap goes on further), or where this lap reaches
// the oldest text held of the lap before: those texts move up, by as much as it grows.
//
// Invariants (every keep keeps them; holds and read rely on them):
// - This lap's texts are at offset at - lapStart, all in [0, cursor) (cursor: written - lapStart),
//   none overwritten.
// - The lap before's texts from previousFrom on are at offset at - previousLapStart, all ending by
//   previousEnd (lapStart - previousLapStart) <= size; this lap has written [0, cursor) only, so
//   one of them is whole exactly when its offset >= cursor. Older texts are gone (not held).
// - A move copies the lap before's texts from the journal's oldest (whole) on, up by d, and lowers
//   previousLapStart by d: each keeps its place, read at its new offset; previousFrom becomes that
//   oldest, as the bytes below it are no longer that lap's (older texts are no entry's).
// - Nothing is written past `size`, which only grows, up to `most`.
// - Texts are lost oldest first: the lap before's before this lap's, each lap's in the order kept
//   (the journal drops entries by looking at the oldest text only).

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
  /** The place at the buffer's start in this lap, and in the lap before (lowered when it moves). */
  private lapStart = 0;
  private previousLapStart = 0;
  /** The oldest place of the lap before that may be held. */
  private previousFrom = 0;

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
    // A text is kept whole: one that might not fit, or might reach the oldest held, makes room first
    // (its exact length counted then only: a scan of it).
    if (this.written - this.lapStart + most > Math.min(this.size, this.heldAhead(oldest))) {
      this.makeRoom((typeof text === 'string' ? Buffer.byteLength(text) : text.length) + Buffer.byteLength(first), oldest);
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
    return at >= this.previousFrom && this.written - this.lapStart <= at - this.previousLapStart;
  }

  /** A kept text, or its bytes from `from` on (undefined: overwritten since). */
  read(at: number, bytes: number, from = 0): string | undefined {
    if (at < 0 || !this.holds(at)) return undefined;
    const offset = at - (at >= this.lapStart ? this.lapStart : this.previousLapStart);
    return this.buffer.toString('utf8', offset + from, offset + bytes);
  }

  /** The offset of `oldest` when it is a text of the lap before, whole (else Infinity: nothing of that lap held ahead). */
  private heldAhead(oldest: number): number {
    return oldest < this.lapStart && this.holds(oldest) ? oldest - this.previousLapStart : Infinity;
  }

  /** Makes room for `bytes` at the next place: by growing (moving the lap before's held texts up), or in a new lap. */
  private makeRoom(bytes: number, oldest: number): void {
    const cursor = this.written - this.lapStart;
    const ahead = this.heldAhead(oldest);
    if (cursor + bytes > ahead && this.size < this.most) {
      // It would overwrite the oldest held: that text and the newer ones of its lap move up by as
      // much as the ring grows (all of what it lacks, when it can), ending before the new size.
      const before = this.size;
      this.grow(Math.min(this.most, before + cursor + bytes - ahead));
      const by = this.size - before;
      this.buffer.copy(this.buffer, ahead + by, ahead, this.lapStart - this.previousLapStart);
      this.previousLapStart -= by;
      this.previousFrom = oldest;
    }
    if (cursor + bytes <= this.size) return;
    while (this.size < this.most && cursor + bytes > this.size && (bytes > this.size || this.wouldOverwrite(oldest, bytes))) this.grow(this.size + 1);
    if (cursor + bytes > this.size) {
      this.previousLapStart = this.lapStart;
      this.previousFrom = this.lapStart;
      this.lapStart = this.written;
    }
  }

  /** Uses at least `bytes` of the buffer (no more than all of it), a step at a time. */
  private grow(bytes: number): void {
    while (this.size < bytes) this.size = Math.min(this.most, Math.ceil(this.size * GROWTH));
  }

  /** Whether starting the ring again for a text of `bytes` would overwrite the text kept at `oldest`. */
  private wouldOverwrite(oldest: number, bytes: number): boolean {
    if (oldest < 0) return false;
    // The lap before is forgotten as a whole when a new one starts; this one is overwritten from its start.
    return oldest < this.lapStart || oldest - this.lapStart < bytes;
  }
}
