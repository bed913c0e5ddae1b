// Delete Token answers once the files have forgotten the card: a copy of every file of the store
// taken as soon as the 200 arrives (before any timer of the gateway runs) holds the token's key
// nowhere and opens its sealed number nowhere, nor the keys of the session it was made from, nor
// the reservation of a unique-card repository. (The key store's own scrub used to run just after
// the answer: files copied in between still opened the card.)
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { accountKey } from '../../domain/token/accounts.js';
import { buildTestApp, cardBody, M1, tokenAuth, UNIQUE } from '../helpers/app.js';
import { filesHolding, keyBytes, keyIdOf, storeFiles, windowsThatOpen } from './shredding.fixture.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;
type Merchant = typeof M1;

/** Every key id that sealed a value in the events of `stream`, and one sealed value of the token. */
function sealedIn(file: string, streamPrefix: string): { keyIds: string[]; sealed: string[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const text = db.prepare<[string], { data: string }>('SELECT data FROM events WHERE stream LIKE ?').all(`${streamPrefix}%`).map((r) => r.data).join('\n');
    const sealed = [...new Set(text.match(/v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g) ?? [])];
    return { keyIds: [...new Set(sealed.map(keyIdOf))], sealed };
  } finally {
    db.close();
  }
}

const api = (app: App, merchant: Merchant, method: 'POST' | 'PUT' | 'DELETE', path: string, payload?: unknown) =>
  app.inject({ method, url: `/api/rest/version/100/merchant/${merchant.id}${path}`, headers: { authorization: tokenAuth(merchant) }, ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }) });

for (const [what, merchant, fromSession] of [['a token', M1, false], ['a token made from a session', M1, true], ['a unique card', UNIQUE, false]] as const) {
  t.test(`${what}: no copy of the files taken at the 200 opens the card`, async (t) => {
    const dir = t.testdir();
    const file = join(dir, 'gateway.db');
    const app = await buildTestApp(t, { eventStore: { kind: 'sqlite', path: file } });
    let created;
    if (fromSession) {
      const session = (await api(app, merchant, 'POST', '/session')).json().session.id as string;
      t.equal((await api(app, merchant, 'PUT', `/session/${session}`, cardBody('5123450000000008', '1', '39', { securityCode: '123' }))).statusCode, 200);
      created = await api(app, merchant, 'POST', '/token', { session: { id: session }, sourceOfFunds: { type: 'CARD' } });
    } else {
      created = await api(app, merchant, 'POST', '/token', cardBody('5123450000000008'));
    }
    t.equal(created.statusCode, 201, created.body);
    const token = created.json().token as string;
    const { keyIds, sealed } = sealedIn(file, fromSession ? '' : `token-${merchant.repository.id}:${token}`);
    // (A session's security code's key is destroyed once used: the others are still there.)
    const keys = keyIds.flatMap((id) => { try { return [keyBytes(`${file}.keys`, id)]; } catch { return []; } });
    t.ok(keys.length >= (fromSession ? 2 : 1), `${keys.length} keys sealed its values`);
    const secret = keyBytes(`${file}.keys`, 'hmac:fingerprints');
    const hash = createHmac('sha256', secret).update(accountKey(merchant.repository.id, { type: 'CARD', number: '5123450000000008' })).digest('base64url');
    if (merchant === UNIQUE) t.ok(readFileSync(`${file}.keys`).includes(hash) || readFileSync(`${file}.keys-wal`).includes(hash), 'the reservation names the hash before the deletion');

    const deleted = await api(app, merchant, 'DELETE', `/token/${token}`);
    // Read at once, in the turn the answer arrived in: no timer of the gateway has run since.
    const files = storeFiles(dir);
    t.equal(deleted.statusCode, 200);
    t.same(keys.flatMap((key) => filesHolding(files, key)), [], 'no file holds a key that sealed its values');
    t.same(sealed.flatMap((value) => windowsThatOpen(files, value)), [], 'no 32 bytes of any file open a sealed value');
    t.same(files.filter(([, data]) => data.includes(hash)).map(([name]) => name), [], 'no file names the keyed hash of the number');
  });
}
