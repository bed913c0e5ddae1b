// Card data at rest: card numbers are sealed with AES-256-GCM under a key of their own (one per
// token), kept in a key store apart from the events, so destroying the key forgets the number
// even in old events (crypto-shredding). Request fingerprints and account-identifier lookups
// use HMAC-SHA-256 under a secret of the key store, so no digest can be brute-forced offline.
import { createCipheriv, createDecipheriv, createHmac, randomBytes, randomUUID } from 'node:crypto';
import type Database from 'better-sqlite3';
import { openDatabase } from './sqlite.js';

export interface KeyStore {
  get(keyId: string): Buffer | undefined;
  /** Make every key put so far durable (a no-op where puts are durable at once). */
  flush?(): void;
  /** Store a new key; the key is durable when this returns. */
  put(keyId: string, key: Buffer): void;
  destroy(keyId: string): void;
  close(): void;
}

export class MemoryKeyStore implements KeyStore {
  private readonly keys = new Map<string, Buffer>();
  get(keyId: string) { return this.keys.get(keyId); }
  put(keyId: string, key: Buffer) { this.keys.set(keyId, key); }
  destroy(keyId: string) { this.keys.delete(keyId); }
  close() {}
}

/** Keys in their own SQLite file (for `sqlite:<path>`, the file `<path>.keys`). */
export class SqliteKeyStore implements KeyStore {
  private readonly db: Database.Database;
  private readonly stmt;
  private readonly pending = new Map<string, Buffer>();
  private flushScheduled = false;

  /**
   * Keys in their own SQLite file (for `sqlite:<path>`, the file `<path>.keys`). With `batched`,
   * new keys of one event-loop turn are written in one transaction (one fsync), by `flush()`,
   * which the event store calls before committing the events that reference them; without it,
   * each key is on disk when `put` returns.
   */
  constructor(path: string, private readonly batched = false) {
    this.db = openDatabase(path);
    this.db.exec('CREATE TABLE IF NOT EXISTS keys (key_id TEXT PRIMARY KEY, key BLOB NOT NULL)');
    this.stmt = {
      get: this.db.prepare<[string], { key: Buffer }>('SELECT key FROM keys WHERE key_id = ?'),
      put: this.db.prepare('INSERT OR IGNORE INTO keys (key_id, key) VALUES (?, ?)'),
      destroy: this.db.prepare('DELETE FROM keys WHERE key_id = ?'),
    };
  }
  get(keyId: string) { return this.pending.get(keyId) ?? this.stmt.get.get(keyId)?.key; }
  put(keyId: string, key: Buffer) {
    if (!this.batched) { this.stmt.put.run(keyId, key); return; }
    this.pending.set(keyId, key);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        try { this.flush(); } catch (error) { process.emitWarning(`keys could not be stored: ${String(error)}`); }
      });
    }
  }
  /** Write every pending key in one transaction; throws if they cannot be stored. */
  flush() {
    this.flushScheduled = false;
    if (this.pending.size === 0 || !this.db.open) return;
    const entries = [...this.pending];
    this.db.transaction(() => { for (const [keyId, key] of entries) this.stmt.put.run(keyId, key); })();
    for (const [keyId] of entries) this.pending.delete(keyId);
  }
  destroy(keyId: string) { this.pending.delete(keyId); this.stmt.destroy.run(keyId); }
  close() {
    if (!this.db.open) return;
    this.flush();
    this.db.close();
  }
}

const FINGERPRINT_KEY_ID = 'hmac:fingerprints';
const VERSION = 'v1';

export class Sealer {
  private readonly hmacKey: Buffer;
  constructor(private readonly keys: KeyStore) {
    let key = keys.get(FINGERPRINT_KEY_ID);
    if (!key) {
      keys.put(FINGERPRINT_KEY_ID, randomBytes(32));
      keys.flush?.();
      // Re-read: another process sharing the key store may have won the race.
      key = keys.get(FINGERPRINT_KEY_ID) as Buffer;
    }
    this.hmacKey = key;
  }

  /** A new data key; returns its id. */
  newKey(): string {
    const keyId = randomUUID();
    this.keys.put(keyId, randomBytes(32));
    return keyId;
  }

  /** `v1.<keyId>.<iv>.<ciphertext+tag>` (base64url parts). */
  seal(keyId: string, plaintext: string): string {
    const key = this.keys.get(keyId);
    if (!key) throw new Error(`no key ${keyId}`);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(keyId));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, keyId, iv.toString('base64url'), body.toString('base64url')].join('.');
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

  destroyKey(keyId: string): void {
    this.keys.destroy(keyId);
  }

  /** Keyed hash (HMAC-SHA-256, base64url) of a value that must not be stored in plaintext. */
  fingerprint(value: string): string {
    return createHmac('sha256', this.hmacKey).update(value).digest('base64url');
  }
}
