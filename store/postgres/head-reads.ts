// Reads of the log's head, shared by the callers of a moment: a caller joins the next read sent
// after its call, never one already sent (that one's snapshot may have been taken before the call,
// and miss a commit answered before it). Under load a read of the head is then one statement per
// round trip rather than one per request, and every caller still gets a head read after it asked.
export class HeadReads {
  /** The read sent last, until it settles. */
  private sent: Promise<bigint> | undefined;
  /** The read callers wait for while `sent` is under way: sent once it settles. */
  private queued: Promise<bigint> | undefined;

  constructor(private readonly read: () => Promise<bigint>) {}

  next(): Promise<bigint> {
    if (this.sent === undefined) return this.send();
    this.queued ??= this.sent.catch(() => undefined).then(() => {
      this.queued = undefined;
      return this.send();
    });
    return this.queued;
  }

  private send(): Promise<bigint> {
    const read = this.read();
    this.sent = read;
    const settled = () => { if (this.sent === read) this.sent = undefined; };
    read.then(settled, settled);
    return read;
  }
}
