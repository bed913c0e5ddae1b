// Card data at rest: AES-256-GCM sealing under per-token keys, crypto-shredding, keyed fingerprints.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { eventually } from '../helpers/poll.js';
import { Sealer } from '../../store/sealing.js';
import { MemoryKeyStore } from '../../store/keys/key-store.js';
import { SqliteKeyStore } from '../../store/keys/sqlite-key-store.js';

const PAN = '5123450000000008';
const dir = t.testdir();
let files = 0;
const keyFile = () => join(dir, `keys-${++files}.db`);

/** Flip one bit of a decoded part of a sealed value (2 iv, 3 body: ciphertext and tag). Changing
 *  the bytes, not the base64url text: a text change in the padding bits would decode alike. */
function flip(sealed: string, part: 2 | 3, at: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[part] as string, 'base64url');
  const index = at < 0 ? bytes.length + at : at;
  bytes[index] = (bytes[index] as number) ^ 0x01;
  parts[part] = bytes.toString('base64url');
  return parts.join('.');
}

/** Rewrite the decoded body (ciphertext and tag) of a sealed value. */
function withBody(sealed: string, change: (body: Buffer) => Buffer): string {
  const parts = sealed.split('.');
  parts[3] = change(Buffer.from(parts[3] as string, 'base64url')).toString('base64url');
  return parts.join('.');
}

/** What open() does with a value: the plaintext, undefined, or the error it throws. */
function attempt(sealer: Sealer, sealed: string): { value?: string | undefined; error?: unknown } {
  try {
    return { value: sealer.open(sealed) };
  } catch (error) {
    return { error };
  }
}

t.test('seal and open round-trip, and the sealed text hides the number', async (t) => {
  const sealer = new Sealer(new MemoryKeyStore());
  const keyId = sealer.newKey();
  const sealed = sealer.seal(keyId, PAN);
  t.equal(sealer.open(sealed), PAN);
  t.notMatch(sealed, PAN, 'no plaintext in the sealed text');
  t.notMatch(sealed, PAN.slice(0, 6), 'not even the BIN');
  t.notMatch(Buffer.from(sealed.split('.')[3] ?? '', 'base64url').toString('latin1'), PAN, 'nor in the decoded ciphertext');
  t.match(sealed, /^v1\.[0-9a-f-]{36}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'v1.<keyId>.<iv>.<body>');
  t.equal(sealer.keyIdOf(sealed), keyId);
  t.equal(Buffer.from(sealed.split('.')[2] ?? '', 'base64url').length, 12, '96-bit IV');
  t.equal(Buffer.from(sealed.split('.')[3] ?? '', 'base64url').length, PAN.length + 16, 'ciphertext and a 128-bit tag');

  const unicode = 'Zoë Ångström – 名前';
  t.equal(sealer.open(sealer.seal(keyId, unicode)), unicode, 'any UTF-8 text');
  t.equal(sealer.open(sealer.seal(keyId, '')), '', 'the empty string');
  t.throws(() => sealer.seal('no-such-key', PAN), /no key/, 'sealing needs an existing key');
});

t.test('two seals of one value differ (random IV) and both open', async (t) => {
  const sealer = new Sealer(new MemoryKeyStore());
  const keyId = sealer.newKey();
  const a = sealer.seal(keyId, PAN);
  const b = sealer.seal(keyId, PAN);
  t.not(a, b);
  t.not(a.split('.')[2], b.split('.')[2], 'different IVs');
  t.not(a.split('.')[3], b.split('.')[3], 'different ciphertexts');
  t.equal(sealer.open(a), PAN);
  t.equal(sealer.open(b), PAN);
  const other = sealer.newKey();
  t.not(other, keyId, 'every key has its own id');
  t.not(sealer.seal(other, PAN).split('.')[3], a.split('.')[3]);
});

t.test('sealNew seals under a new key of its own, like seal(newKey())', async (t) => {
  const sealer = new Sealer(new MemoryKeyStore());
  const a = sealer.sealNew(PAN);
  const b = sealer.sealNew(PAN);
  t.match(a, /^v1\.[0-9a-f-]{36}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'v1.<keyId>.<iv>.<body>');
  t.not(sealer.keyIdOf(a), sealer.keyIdOf(b), 'a key each');
  t.not(a.split('.')[2], b.split('.')[2], 'different IVs');
  t.equal(sealer.open(a), PAN);
  t.equal(sealer.open(b), PAN);
  sealer.destroyKey(sealer.keyIdOf(a) as string);
  t.equal(sealer.open(a), undefined, 'its key can be destroyed');
  t.equal(sealer.open(b), PAN, 'the other stays');
  t.equal(sealer.open(sealer.seal(sealer.keyIdOf(b) as string, 'more')), 'more', 'its key seals other values too');
});

t.test('key ids are UUIDv7: unique, the time first, so later keys sort after earlier ones', async (t) => {
  const sealer = new Sealer(new MemoryKeyStore());
  const ids = Array.from({ length: 5000 }, () => sealer.newKey());
  t.equal(new Set(ids).size, ids.length, 'no id twice');
  t.ok(ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)), 'version 7, RFC 9562 variant');
  const ms = (id: string) => parseInt(id.replace(/-/g, '').slice(0, 12), 16);
  const now = Date.now();
  t.ok(ms(ids[0]!) <= now && ms(ids[0]!) > now - 60_000, 'the first 48 bits are the time in ms');
  t.ok(ids.every((id, i) => i === 0 || ms(id) >= ms(ids[i - 1]!)), 'in time order');
});

t.test('a tampered sealed value never opens to the plaintext', async (t) => {
  const keys = new MemoryKeyStore();
  const sealer = new Sealer(keys);
  const keyId = sealer.newKey();
  const sealed = sealer.seal(keyId, PAN);
  const otherKey = sealer.newKey();

  const tampered: Array<[string, string]> = [
    ['first ciphertext byte', flip(sealed, 3, 0)],
    ['last tag byte', flip(sealed, 3, -1)],
    ['first iv byte', flip(sealed, 2, 0)],
    ['last iv byte', flip(sealed, 2, -1)],
    ['key id swapped for another existing key (bound by the AAD)', sealed.replace(keyId, otherKey)],
    ['tag cut off', withBody(sealed, (body) => body.subarray(0, body.length - 16))],
    ['tag truncated to 8 bytes', withBody(sealed, (body) => body.subarray(0, body.length - 8))],
    ['a byte inside the ciphertext', flip(sealed, 3, 7)],
  ];
  for (const [what, value] of tampered) {
    t.not(value, sealed, `${what}: the value really changed`);
    const result = attempt(sealer, value);
    t.not(result.value, PAN, `${what}: does not open to the plaintext`);
    t.ok(result.error instanceof Error, `${what}: open() throws (GCM authentication fails)`);
  }

  // The key id is authenticated (AAD): the same key bytes under another id do not open the value.
  keys.put('alias-of-the-key', keys.get(keyId) as Buffer);
  const relabelled = attempt(sealer, sealed.replace(keyId, 'alias-of-the-key'));
  t.not(relabelled.value, PAN, 'a relabelled key id does not open to the plaintext');
  t.ok(relabelled.error instanceof Error, 'a relabelled key id throws');

  // Values that are not sealed by us at all open to undefined.
  t.equal(sealer.open(PAN), undefined, 'a plain number');
  t.equal(sealer.open(`v2.${sealed.slice(3)}`), undefined, 'another version');
  t.equal(sealer.open(sealed.split('.').slice(0, 3).join('.')), undefined, 'missing body');
  t.equal(sealer.open(sealed.replace(keyId, '00000000-0000-4000-8000-000000000000')), undefined, 'an unknown key id');
  t.equal(sealer.open(sealed), PAN, 'the original still opens');
});

t.test('destroyKey forgets the number: open returns undefined, other keys unaffected', async (t) => {
  const sealer = new Sealer(new MemoryKeyStore());
  const doomed = sealer.newKey();
  const kept = sealer.newKey();
  const sealedDoomed = sealer.seal(doomed, PAN);
  const sealedKept = sealer.seal(kept, '4508750015741019');
  t.equal(sealer.open(sealedDoomed), PAN);
  sealer.destroyKey(doomed);
  t.equal(sealer.open(sealedDoomed), undefined);
  t.throws(() => sealer.seal(doomed, PAN), /no key/, 'a destroyed key seals nothing more');
  t.equal(sealer.open(sealedKept), '4508750015741019');
});

t.test('destroyKey is durable in a SQLite key store', async (t) => {
  const path = keyFile();
  const keys1 = new SqliteKeyStore(path);
  t.teardown(() => keys1.close());
  const s1 = new Sealer(keys1);
  const doomed = s1.newKey();
  const kept = s1.newKey();
  const sealedDoomed = s1.seal(doomed, PAN);
  const sealedKept = s1.seal(kept, PAN);
  s1.destroyKey(doomed);
  keys1.close();

  const keys2 = new SqliteKeyStore(path);
  t.teardown(() => keys2.close());
  const s2 = new Sealer(keys2);
  t.equal(s2.open(sealedKept), PAN, 'a kept key survives the restart');
  t.equal(s2.open(sealedDoomed), undefined, 'a destroyed key stays destroyed');
});

t.test('fingerprints: deterministic per key store, different across key stores, stable across restarts', async (t) => {
  const keys = new MemoryKeyStore();
  const a = new Sealer(keys);
  const fp = a.fingerprint(PAN);
  t.equal(a.fingerprint(PAN), fp, 'deterministic');
  t.equal(new Sealer(keys).fingerprint(PAN), fp, 'a second sealer on the same key store agrees');
  t.match(fp, /^[A-Za-z0-9_-]{43}$/, 'HMAC-SHA-256 in base64url');
  t.not(a.fingerprint('5123450000000016'), fp, 'another value, another fingerprint');
  t.notMatch(fp, PAN);
  t.not(new Sealer(new MemoryKeyStore()).fingerprint(PAN), fp, 'another key store, another fingerprint');

  const path = keyFile();
  const k1 = new SqliteKeyStore(path);
  t.teardown(() => k1.close());
  const fileFp = new Sealer(k1).fingerprint(PAN);
  // Another process opening the same key file at the same time shares the secret.
  const k1b = new SqliteKeyStore(path);
  t.teardown(() => k1b.close());
  t.equal(new Sealer(k1b).fingerprint(PAN), fileFp, 'a second connection to the key file agrees');
  k1.close();
  k1b.close();

  const k2 = new SqliteKeyStore(path);
  t.teardown(() => k2.close());
  const reopened = new Sealer(k2);
  t.equal(reopened.fingerprint(PAN), fileFp, 'stable after closing and reopening the key file');
  t.not(fileFp, fp, 'the key file has its own secret');

  const other = new SqliteKeyStore(keyFile());
  t.teardown(() => other.close());
  t.not(new Sealer(other).fingerprint(PAN), fileFp, 'another key file, another fingerprint');
});

t.test('sealed values from one process open in another sharing the key file', async (t) => {
  const path = keyFile();
  const k1 = new SqliteKeyStore(path);
  const k2 = new SqliteKeyStore(path);
  t.teardown(() => { k1.close(); k2.close(); });
  const writer = new Sealer(k1);
  const reader = new Sealer(k2);
  const keyId = writer.newKey();
  const sealed = writer.seal(keyId, PAN);
  t.equal(reader.open(sealed), PAN, 'the key is visible to the other connection once newKey returns');
  reader.destroyKey(keyId);
  t.equal(writer.open(sealed), undefined, 'and its destruction too');
});

/** Every file of the key store (the database, its WAL and shared memory), as bytes. */
function filesOf(path: string): Array<[string, Buffer]> {
  return [path, `${path}-wal`, `${path}-shm`].filter((file) => existsSync(file)).map((file) => [file, readFileSync(file)]);
}

/** Whether none of the key store's files holds any of `keys` (the WAL is scrubbed on a timer after a destroy). */
const scrubbed = (path: string, keys: Buffer[]) => filesOf(path).every(([, data]) => keys.every((key) => !data.includes(key)));

t.test('a destroyed key is in none of the key store files: not in a free page, not in the WAL (secure deletion)', async (t) => {
  for (const batched of [false, true]) {
    const path = keyFile();
    const keys = new SqliteKeyStore(path, batched);
    // A second connection, as another process sharing the file would hold: the last connection to
    // close no longer checkpoints the WAL away for us.
    const other = new SqliteKeyStore(path);
    t.teardown(() => { keys.close(); other.close(); });
    const sealer = new Sealer(keys);
    const sealed = Array.from({ length: 40 }, (_, i) => sealer.sealNew(`${PAN}-${i}`));
    keys.flush();
    const doomed = [0, 7, 39].map((i) => sealer.keyIdOf(sealed[i] as string) as string);
    const bytes = doomed.map((keyId) => Buffer.from(keys.get(keyId) as Buffer));
    const kept = Buffer.from(keys.get(sealer.keyIdOf(sealed[1] as string) as string) as Buffer);
    t.ok(bytes.every((b) => b.length === 32), 'the keys are 32 bytes');
    t.ok(filesOf(path).some(([, data]) => data.includes(bytes[0] as Buffer)), 'before: the key is in the files');

    for (const keyId of doomed) sealer.destroyKey(keyId);
    await eventually(() => scrubbed(path, bytes));
    for (const [file, data] of filesOf(path)) {
      bytes.forEach((b, i) => t.notOk(data.includes(b), `batched ${batched}, still open: key ${i} is not in ${file.slice(path.length) || 'the database'}`));
    }
    t.ok(filesOf(path).some(([, data]) => data.includes(kept)), 'a key kept is still there');
    t.equal(sealer.open(sealed[1] as string), `${PAN}-1`, 'and still opens');
    t.equal(new Sealer(other).open(sealed[0] as string), undefined, 'the other connection finds no destroyed key');

    keys.close();
    for (const [file, data] of filesOf(path)) {
      bytes.forEach((b, i) => t.notOk(data.includes(b), `batched ${batched}, closed: key ${i} is not in ${file.slice(path.length) || 'the database'}`));
    }
    other.close();
    for (const [file, data] of filesOf(path)) {
      bytes.forEach((b, i) => t.notOk(data.includes(b), `batched ${batched}, all closed: key ${i} is not in ${file.slice(path.length) || 'the database'}`));
    }
  }
});

t.test('a key file written without secure deletion is scrubbed once when opened', async (t) => {
  const path = keyFile();
  // The file as an older tokengate left it: a destroyed key's bytes still in a free page.
  const old = new Database(path);
  old.pragma('journal_mode = WAL');
  old.pragma('secure_delete = OFF');
  old.exec('CREATE TABLE keys (key_id TEXT PRIMARY KEY, key BLOB NOT NULL)');
  const key = randomBytes(32);
  const insert = old.prepare('INSERT INTO keys (key_id, key) VALUES (?, ?)');
  insert.run('doomed', key);
  for (let i = 0; i < 300; i++) insert.run(`filler-${i}`, randomBytes(32));
  old.pragma('wal_checkpoint(TRUNCATE)');
  old.prepare('DELETE FROM keys WHERE key_id = ?').run('doomed');
  old.close();
  t.ok(readFileSync(path).includes(key), 'the old file still holds the destroyed key');

  const keys = new SqliteKeyStore(path);
  t.teardown(() => keys.close());
  for (const [file, data] of filesOf(path)) t.notOk(data.includes(key), `opened: not in ${file}`);
  t.equal(keys.get('filler-1')?.length, 32, 'the other keys are kept');
  keys.close();
  for (const [file, data] of filesOf(path)) t.notOk(data.includes(key), `closed: not in ${file}`);
});

t.test('the fingerprint is HMAC-SHA-256 exactly, for any key and text (one-shot hashes, not createHmac)', async (t) => {
  const { createHmac } = await import('node:crypto');
  const { default: fc } = await import('fast-check');
  const { hmacSha256 } = await import('../../store/sealing.js');
  fc.assert(fc.property(fc.uint8Array({ minLength: 0, maxLength: 100 }), fc.string({ unit: 'grapheme', maxLength: 300 }), (keyBytes, text) => {
    const key = Buffer.from(keyBytes);
    return hmacSha256(key)(text) === createHmac('sha256', key).update(text).digest('base64url');
  }), { numRuns: 500 });
  const key = randomBytes(32);
  const sealer = new Sealer(new MemoryKeyStore());
  t.equal(sealer.fingerprint('x').length, 43, 'base64url of 32 bytes');
  t.equal(hmacSha256(key)('repeat'), hmacSha256(key)('repeat'), 'the same text, the same fingerprint, call after call');
});
