// The answers the request journal keeps (journal.ts), as bytes in one buffer outside the
// JavaScript heap: kept by every request for a long time, answers as strings were most of the
// journal's heap, which the collector copies as entries age and marks on every full collection.
// A ring: a new text overwrites the oldest; an entry whose answer was overwritten is dropped.

export class TextRing {
  private readonly buffer: Buffer;
  /** Bytes used since the ring was made (a skipped end counts): the next text's place. */
  private written = 0;

  constructor(readonly size: number) {
    this.buffer = Buffer.allocUnsafeSlow(size);
  }

  /** The length in bytes of the text kept last. */
  lastBytes = 0;

  /** Keeps a text: its place among all the bytes ever kept (-1: one larger than the ring). */
  keep(text: string | Buffer): number {
    const most = typeof text === 'string' ? text.length * 3 : text.length;
    if (most > this.size) return -1;
    let offset = this.written % this.size;
    // A text is kept whole: one that might not fit before the end starts the ring again.
    if (offset + most > this.size) {
      this.written += this.size - offset;
      offset = 0;
    }
    const bytes = typeof text === 'string' ? this.buffer.write(text, offset, 'utf8') : text.copy(this.buffer, offset);
    const at = this.written;
    this.written += bytes;
    this.lastBytes = bytes;
    return at;
  }

  /** Whether a text kept at `at` is whole still (no newer text has overwritten it). */
  holds(at: number): boolean {
    return this.written - at <= this.size;
  }

  /** A kept text (undefined: overwritten since). */
  read(at: number, bytes: number): string | undefined {
    if (at < 0 || !this.holds(at)) return undefined;
    const offset = at % this.size;
    return this.buffer.toString('utf8', offset, offset + bytes);
  }
}
