// The key store: card-data keys, unique-account reservations and the shredder's checkpoint, kept
// apart from the events (crypto-shredding: destroying a key forgets what it sealed, even in old
// events). The cipher that uses it is store/sealing.ts; the SQLite one is sqlite-key-store.ts.

export interface KeyStore {
  get(keyId: string): Buffer | undefined;
  /** Make every key put so far durable (a no-op where puts are durable at once). */
  flush?(): void;
  /** Store a new key; the key is durable when this returns. */
  put(keyId: string, key: Buffer): void;
  /**
   * A new random key of its own, already durable (where the store keeps keys made in advance);
   * absent: the sealer makes one and puts it.
   */
  newKey?(): NewKey;
  destroy(keyId: string): void;
  /**
   * Which of `keyIds` exist, in one statement (absent: the store has no cheaper way than get() per
   * key). The token shredder asks it before redoing a deletion that is most often done already.
   */
  held?(keyIds: readonly string[]): Set<string>;
  /**
   * Remove from the files, now, what the keys destroyed and the reservations released so far
   * leave there (old page images), durably: true when done; false when it cannot be done at this
   * moment (another connection reading), and is done in the background soon after. Absent: a
   * store that leaves nothing behind to remove now (the memory store), or that scrubs later.
   */
  forget?(): boolean;
  /**
   * Unique-account repositories: the reservation id an account's keyed hash maps to, if any. The
   * mapping lives here, not in the events, so that forgetting it (release) unlinks the account from
   * its reservation stream, named by the random id, for good (services/token/token-writes.ts).
   */
  reservation(accountHash: string): string | undefined;
  /**
   * Map `accountHash` to `reservationId` unless it maps to one already (another request or another
   * process sharing the file may have won); returns the id it maps to, durable when this returns.
   */
  reserve(accountHash: string, reservationId: string): string;
  /** Forget the mapping if it still names `reservationId`, securely deleted like a key. */
  release(accountHash: string, reservationId: string): void;
  /** The log position through which every deleted token's keys are destroyed (undefined: never recorded). */
  shreddedThrough(): bigint | undefined;
  /**
   * Record that position (a lower one than recorded is ignored). It may be written after this
   * returns (PostgreSQL posts it): this key store's later statements, and close(), come after it.
   */
  setShreddedThrough(position: bigint): void;
  /**
   * Made by this open (its tables did not exist): it holds no key of any event written before, so
   * no deletion before now has anything here to shred (undefined: it cannot tell; taken as false).
   */
  readonly fresh?: boolean;
  /** Why new keys are refused until a restart (a failed sync), if they are. */
  readonly failure?: Error | undefined;
  close(): void;
}

export interface NewKey { keyId: string; key: Buffer }

export class MemoryKeyStore implements KeyStore {
  private readonly keys = new Map<string, Buffer>();
  private readonly reservations = new Map<string, string>();
  private shredded: bigint | undefined;
  readonly fresh = true;
  get(keyId: string) { return this.keys.get(keyId); }
  put(keyId: string, key: Buffer) { this.keys.set(keyId, key); }
  destroy(keyId: string) { this.keys.delete(keyId); }
  held(keyIds: readonly string[]) { return new Set(keyIds.filter((keyId) => this.keys.has(keyId))); }
  reservation(accountHash: string) { return this.reservations.get(accountHash); }
  reserve(accountHash: string, reservationId: string) {
    const existing = this.reservations.get(accountHash);
    if (existing !== undefined) return existing;
    this.reservations.set(accountHash, reservationId);
    return reservationId;
  }
  release(accountHash: string, reservationId: string) {
    if (this.reservations.get(accountHash) === reservationId) this.reservations.delete(accountHash);
  }
  shreddedThrough() { return this.shredded; }
  setShreddedThrough(position: bigint) { if (this.shredded === undefined || position > this.shredded) this.shredded = position; }
  close() {}
}
