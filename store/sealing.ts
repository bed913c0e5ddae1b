// Card data at rest: card numbers are sealed with AES-256-GCM under a key of their own (one per
// token), kept in a key store apart from the events (store/keys/), so destroying the key forgets
// the number even in old events (crypto-shredding). Request fingerprints and account-identifier
// lookups use HMAC-SHA-256 under a secret of the key store, so no digest can be brute-forced offline.
import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto';
import type { KeyStore, NewKey } from './keys/key-store.js';
import { newDataKey, random } from './keys/random.js';

export type { KeyStore, NewKey } from './keys/key-store.js';

const FINGERPRINT_KEY_ID = 'hmac:fingerprints';
const VERSION = 'v1';
/** forgetDestroyed: tries while another connection reads the key file (up to about 200 ms). */
const FORGET_ATTEMPTS = 10;
const FORGET_RETRY_MS = 20;

function sealWith(keyId: string, key: Buffer, plaintext: string): string {
  const iv = random.take(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(keyId));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${VERSION}.${keyId}.${iv.toString('base64url')}.${body.toString('base64url')}`;
}

/**
 * HMAC-SHA-256 (RFC 2104) of a text under `key`, base64url: exactly createHmac's, computed with
 * two one-shot crypto.hash calls over the key's padded blocks, prepared once (the text is written
 * into a buffer kept after the inner block: no buffer made per call). createHmac makes a
 * Hmac stream object (and its OpenSSL context) per call, a visible part of a pay in profiles.
 */
export function hmacSha256(key: Buffer): (value: string) => string {
  const block = Buffer.alloc(64);
  (key.length > 64 ? (hash('sha256', key, 'buffer') as unknown as Buffer) : key).copy(block);
  // The inner block, then the value written after it (grown when a value needs more room).
  let inner = Buffer.alloc(64 + 1024);
  block.forEach((b, i) => { inner[i] = b ^ 0x36; });
  const outer = Buffer.alloc(64 + 32);
  block.forEach((b, i) => { outer[i] = b ^ 0x5c; });
  block.fill(0);
  return (value) => {
    if (value.length * 3 > inner.length - 64) {
      const larger = Buffer.alloc(64 + value.length * 3);
      inner.copy(larger, 0, 0, 64);
      inner.fill(0);
      inner = larger;
    }
    const length = inner.write(value, 64, 'utf8');
    // The inner digest as a 'binary' (latin1) string, a character per byte, written after the
    // outer block: no Buffer made for it.
    const digest = hash('sha256', inner.subarray(0, 64 + length), 'binary') as string;
    inner.fill(0, 64, 64 + length); // the text (a card number, for an account lookup) not kept
    outer.write(digest, 64, 'latin1');
    return hash('sha256', outer, 'base64url') as string;
  };
}

export class Sealer {
  private readonly hmacKey: Buffer;
  private readonly hmac: (value: string) => string;
  constructor(private readonly keys: KeyStore) {
    let key = keys.get(FINGERPRINT_KEY_ID);
    if (!key) {
      keys.put(FINGERPRINT_KEY_ID, randomBytes(32));
      keys.flush?.();
      // Re-read: another process sharing the key store may have won the race.
      key = keys.get(FINGERPRINT_KEY_ID) as Buffer;
    }
    this.hmacKey = key;
    this.hmac = hmacSha256(key);
  }

  private makeKey(): NewKey {
    const made = this.keys.newKey?.();
    if (made) return made;
    const key = newDataKey();
    this.keys.put(key.keyId, key.key);
    return key;
  }

  /** A new data key; returns its id. */
  newKey(): string {
    return this.makeKey().keyId;
  }

  /** `v1.<keyId>.<iv>.<ciphertext+tag>` (base64url parts). */
  seal(keyId: string, plaintext: string): string {
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`no key ${keyId}`);
    return sealWith(keyId, key, plaintext);
  }

  /** seal(newKey(), plaintext), without reading back the key just made. */
  sealNew(plaintext: string): string {
    const { keyId, key } = this.makeKey();
    return sealWith(keyId, key, plaintext);
  }

  /** The plaintext, or undefined when the key was destroyed (or the value is not sealed by us). */
  open(sealed: string): string | undefined {
    const [version, keyId, ivText, bodyText] = sealed.split('.');
    if (version !== VERSION || !keyId || !ivText || !bodyText) return undefined;
    const key = this.keys.get(keyId);
    if (!key) return undefined;
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(keyId));
    if (body.length < 16) return undefined;
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
  }

  keyIdOf(sealed: string): string | undefined {
    return sealed.split('.')[1];
  }

  /** See KeyStore.held: undefined where the key store cannot tell in one statement. */
  heldKeys(keyIds: readonly string[]): ReadonlySet<string> | undefined {
    if (!this.keys.held) return undefined;
    return keyIds.length === 0 ? new Set() : this.keys.held(keyIds);
  }

  destroyKey(keyId: string): void {
    this.keys.destroy(keyId);
  }

  /**
   * The keys destroyed and reservations released so far removed from the files now (see
   * KeyStore.forget), tried a few times while another connection's read prevents it; false when
   * it still did: the key store's background scrub finishes it.
   */
  async forgetDestroyed(): Promise<boolean> {
    if (!this.keys.forget) return true;
    for (let attempt = 0; attempt < FORGET_ATTEMPTS; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, FORGET_RETRY_MS));
      if (this.keys.forget()) return true;
    }
    return false;
  }

  /** A new random reservation id: 32 bytes, base64url (43 characters, like a fingerprint). */
  newReservationId(): string {
    return random.take(32).toString('base64url');
  }

  /** See KeyStore.reservation, reserve and release. */
  reservation(accountHash: string): string | undefined {
    return this.keys.reservation(accountHash);
  }

  reserve(accountHash: string, reservationId: string): string {
    return this.keys.reserve(accountHash, reservationId);
  }

  release(accountHash: string, reservationId: string): void {
    this.keys.release(accountHash, reservationId);
  }

  /** See KeyStore.shreddedThrough. */
  shreddedThrough(): bigint | undefined {
    return this.keys.shreddedThrough();
  }

  setShreddedThrough(position: bigint): void {
    this.keys.setShreddedThrough(position);
  }

  /** See KeyStore.fresh. */
  get freshKeys(): boolean {
    return this.keys.fresh === true;
  }

  /** Keyed hash (HMAC-SHA-256, base64url) of a value that must not be stored in plaintext. */
  fingerprint(value: string): string {
    return this.hmac(value);
  }
}
