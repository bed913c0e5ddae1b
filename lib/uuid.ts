// Event ids are UUIDv7 (RFC 9562: 48 bits of Unix time in ms, then 74 random bits): ids of new
// events sort after older ones, so the store's UNIQUE index on event ids grows at its right
// edge — a batch of appends changes a page or two of it instead of one random page per event
// (with random v4 ids every event costs a page of WAL and, on a big store, a page read).
import { randomFillSync } from 'node:crypto';

const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** An id is written here, then read out as one string (no parts made and joined: garbage on every event). */
const SCRATCH = Buffer.from('00000000-0000-7000-8000-000000000000', 'latin1');
/** Where SCRATCH's random hex digits are (the variant's, 19, apart). */
const RANDOM_DIGITS = [15, 16, 17, 20, 21, 22, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35];
/** Random bytes, one per digit, drawn from the CSPRNG 4 KiB at a time. */
const POOL = Buffer.alloc(4096);
let drawn = POOL.length;

/** The millisecond SCRATCH's time part is of (ids of one millisecond share it). */
let lastMs = -1;

export function uuidV7(now: number = Date.now()): string {
  if (now !== lastMs) {
    lastMs = now;
    const time = now.toString(16).padStart(12, '0').slice(-12);
    SCRATCH.write(time.slice(0, 8), 0, 'latin1');
    SCRATCH.write(time.slice(8, 12), 9, 'latin1');
  }
  if (drawn + RANDOM_DIGITS.length + 1 > POOL.length) {
    randomFillSync(POOL);
    drawn = 0;
  }
  // xxxxxxxx-xxxx-7rrr-Vrrr-rrrrrrrrrrrr: 18 random hex digits (4 bits each) and the variant V,
  // 8 to b (binary 10 and 2 random bits): 74 random bits.
  for (const at of RANDOM_DIGITS) SCRATCH[at] = HEX[(POOL[drawn++] as number) & 15] as number;
  SCRATCH[19] = HEX[8 | ((POOL[drawn++] as number) & 3)] as number;
  return SCRATCH.toString('latin1', 0, 36);
}
