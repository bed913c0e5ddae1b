// The texts the request journal keeps (journal.ts: each entry's masked body and answer), as bytes
// in one buffer outside the JavaScript heap: kept by every request for a long time, they were most
// of the journal's heap as strings, which the collector copies as entries age and marks on every
// full collection. A ring: a new text overwrites the oldest; an entry whose texts were overwritten
// is dropped.
//
// Sized by what is kept: the ring starts small and grows (up to its most) while a new text would
// overwrite a text the journal still holds, so JOURNAL_SIZE entries of small answers take the room
// they need rather than the room the largest answers would.

/** Bytes the ring starts with (or its most, when smaller). */
const FIRST_SIZE = 1 << 20;
/** How much larger the ring gets each time it grows: a small step, so it ends near what it needs. */
const GROWTH = 1.25;

export class TextRing {
  private buffer: Buffer;
  /** Bytes used since the ring was made (a skipped end counts): the next text's place. */
  private written = 0;
  /** The place kept at the buffer's start (places before it are in no buffer since it grew). */
  private shift = 0;
  /** Places before this one were not kept when the ring grew. */
  private floor = 0;

  /** @param most the most bytes the ring grows to */
  constructor(readonly most: number) {
    this.buffer = Buffer.allocUnsafeSlow(Math.min(most, FIRST_SIZE));
  }

  /** Bytes the ring holds now. */
  get size(): number { return this.buffer.length; }

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
    // (A text's length is its bytes when it is ASCII, as answers are: the ring grows for those.)
    while (this.size < this.most && (most > this.size || (oldest >= 0 && this.start(most) + text.length + first.length - this.size > oldest))) this.grow();
    if (most > this.size) return -1;
    const at = this.start(most);
    this.written = at;
    const offset = this.offsetOf(at);
    const firstBytes = first === '' ? 0 : this.buffer.write(first, offset, 'utf8');
    const bytes = typeof text === 'string' ? this.buffer.write(text, offset + firstBytes, 'utf8') : text.copy(this.buffer, offset + firstBytes);
    this.written += firstBytes + bytes;
    this.firstBytes = firstBytes;
    this.lastBytes = firstBytes + bytes;
    return at;
  }

  /** Whether a text kept at `at` is whole still (no newer text has overwritten it). */
  holds(at: number): boolean {
    return at >= this.floor && this.written - at <= this.size;
  }

  /** A kept text, or its bytes from `from` on (undefined: overwritten since). */
  read(at: number, bytes: number, from = 0): string | undefined {
    if (at < 0 || !this.holds(at)) return undefined;
    const offset = this.offsetOf(at);
    return this.buffer.toString('utf8', offset + from, offset + bytes);
  }

  private offsetOf(at: number): number {
    return (at - this.shift) % this.size;
  }

  /** Where a text of at most `most` bytes goes: kept whole, one that might not fit before the end starts the ring again. */
  private start(most: number): number {
    const offset = this.offsetOf(this.written);
    return offset + most > this.size ? this.written + this.size - offset : this.written;
  }

  /** A larger buffer, holding what this one holds from its start (no text across its end). */
  private grow(): void {
    const from = Math.max(this.floor, this.written - this.size);
    const buffer = Buffer.allocUnsafeSlow(Math.min(this.most, Math.ceil(this.size * GROWTH)));
    const start = this.offsetOf(from);
    const length = this.written - from;
    const before = Math.min(length, this.size - start);
    this.buffer.copy(buffer, 0, start, start + before);
    if (length > before) this.buffer.copy(buffer, before, 0, length - before);
    this.buffer = buffer;
    this.shift = from;
    this.floor = from;
  }
}
