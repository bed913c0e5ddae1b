// Random bytes for keys, IVs and reservation ids; key ids that sort by time.
import { randomBytes } from 'node:crypto';
import type { NewKey } from './key-store.js';

/**
 * Random bytes for keys and IVs, drawn from a buffer filled 4 KiB at a time from the CSPRNG (one
 * call into OpenSSL per 4 KiB instead of one per key and IV, each dear). Every value is a copy
 * in memory of its own (not Node's shared pool of small buffers, which allocUnsafe hands out
 * uninitialized), and the bytes handed out are zeroed in the buffer, so it never holds a key in use.
 */
export class RandomPool {
  private buffer = Buffer.alloc(0);
  private at = 0;
  take(length: number): Buffer {
    if (this.at + length > this.buffer.length) {
      this.buffer = randomBytes(Math.max(4096, length));
      this.at = 0;
    }
    const out = Buffer.alloc(length);
    this.buffer.copy(out, 0, this.at, this.at + length);
    this.buffer.fill(0, this.at, this.at + length);
    this.at += length;
    return out;
  }

  /** One random byte (0-255), zeroed in the buffer as it is handed out: digits, without a Buffer per call. */
  byte(): number {
    if (this.at >= this.buffer.length) {
      this.buffer = randomBytes(4096);
      this.at = 0;
    }
    const byte = this.buffer[this.at] as number;
    this.buffer[this.at++] = 0;
    return byte;
  }
}
export const random = new RandomPool();

/**
 * A key id: a UUIDv7 (RFC 9562: the time in ms, then 74 random bits), so the ids of new keys
 * sort after the older ones and a batch of keys lands at the end of the key table's index (a few
 * pages written) instead of on a random page each (random v4 ids: ≈ 4 times the time per batch,
 * a page of WAL per key).
 */
export function newKeyId(): string {
  const bytes = random.take(16);
  bytes.writeUIntBE(Date.now(), 0, 6);
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
export const newDataKey = (): NewKey => ({ keyId: newKeyId(), key: random.take(32) });

