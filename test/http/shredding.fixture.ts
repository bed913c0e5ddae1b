// What someone holding a copy of a store's files could do with them: read every file of the store
// directory (the event database, the key file, any -wal and -shm), and try every 32-byte window of
// every file as the AES-256-GCM key of a sealed value. Named *.fixture.ts so tap does not run it.
import { createDecipheriv } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** Every file of the directory, as bytes. */
export function storeFiles(dir: string): Array<[string, Buffer]> {
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).map((e) => [e.name, readFileSync(join(dir, e.name))]);
}

/** A key's bytes, read from the key file by a connection of its own (closed at once). */
export function keyBytes(keysFile: string, keyId: string): Buffer {
  const db = new Database(keysFile, { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare<[string], { key: Buffer }>('SELECT key FROM keys WHERE key_id = ?').get(keyId);
    if (!row) throw new Error(`no key ${keyId} in ${keysFile}`);
    return Buffer.from(row.key);
  } finally {
    db.close();
  }
}

export const keyIdOf = (sealed: string): string => sealed.split('.')[1] as string;

/**
 * The files (and offsets) where a 32-byte window opens the sealed value `v1.<keyId>.<iv>.<body>`:
 * none, when the value can no longer be read from a copy of the files.
 */
export function windowsThatOpen(files: Array<[string, Buffer]>, sealed: string): string[] {
  const [, keyId, ivText, bodyText] = sealed.split('.') as [string, string, string, string];
  const iv = Buffer.from(ivText, 'base64url');
  const body = Buffer.from(bodyText, 'base64url');
  const tag = body.subarray(body.length - 16);
  const ciphertext = body.subarray(0, body.length - 16);
  const found: string[] = [];
  for (const [name, data] of files) {
    for (let at = 0; at + 32 <= data.length; at++) {
      // An all-zero window (the zeroed space secure deletion leaves) is tried once per file.
      const key = data.subarray(at, at + 32);
      if (at > 0 && key.every((b) => b === 0)) continue;
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: 16 });
      decipher.setAAD(Buffer.from(keyId));
      decipher.setAuthTag(tag);
      decipher.update(ciphertext);
      try {
        decipher.final();
        found.push(`${name}@${at}`);
      } catch { /* not the key */ }
    }
  }
  return found;
}

/** The files that hold `bytes` anywhere. */
export const filesHolding = (files: Array<[string, Buffer]>, bytes: Buffer): string[] => files.filter(([, data]) => data.includes(bytes)).map(([name]) => name);
