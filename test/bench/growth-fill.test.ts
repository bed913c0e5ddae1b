// The PostgreSQL growth's fill (bench/growth-stores.ts fillPostgres) leaves a store the gateway uses
// as its own: positions 1..n in order, revisions from 0 in each stream, a fill in steps going on
// from the head; the fixture's tokens retrieved, and their cards opened (a token made from a
// fixture order's card: its key is in card_keys); the shredder's checkpoint at the head after the
// first fill, as a first start would set it, left to the gateway after. Runs the test build's server.js.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { fillPostgres } from '../../bench/growth-stores.js';
import { MERCHANT, TOKEN_HEADERS } from '../../bench/http.js';
import { SERVER, startGateway } from '../helpers/gateway-process.js';
import { postgresForFile, rowsOf } from '../helpers/postgres.js';

const server = postgresForFile(t);

const owner = (firstToken: number) => ({ merchantId: MERCHANT.id, repositoryId: MERCHANT.repository.id, firstToken, orderBase: 50_000_000_000 });
const fixtureToken = (index: number) => `9${String(index).padStart(15, '0')}`;

if (server) {
  t.test('filled in two steps, then served: fixture tokens retrieved, their cards opened', async (t) => {
    const url = await server.get().createDatabase('grown');
    const first = await fillPostgres(url, 300, owner(0), () => undefined);
    t.equal(first.tokens, 30, '1 token : 10 events');
    t.same(await rowsOf(url, "SELECT value FROM key_store_meta WHERE name = 'shredded-through'"), [{ value: '300' }], 'the shredder\'s checkpoint: the head');
    const second = await fillPostgres(url, 205, owner(first.tokens), () => undefined);
    t.equal(second.tokens, 21, 'the last token cut short');
    t.same(await rowsOf(url, "SELECT value FROM key_store_meta WHERE name = 'shredded-through'"), [{ value: '300' }], 'a key store already made keeps its checkpoint');
    const [log] = await rowsOf<{ n: string; min: string; max: string; streams: string; bad: string }>(url, `
      SELECT count(*) AS n, min(position) AS min, max(position) AS max, count(DISTINCT stream) AS streams,
             count(*) FILTER (WHERE revision <> r) AS bad
        FROM (SELECT position, revision, row_number() OVER (PARTITION BY stream ORDER BY position) - 1 AS r, stream FROM tokengate_events) e`);
    t.same(log, { n: '505', min: '1', max: '505', streams: String(50 * 9 + 4), bad: '0' }, 'positions 1..505, revisions from 0 in position order');
    t.same(await rowsOf(url, 'SELECT count(*) AS n FROM card_keys'), [{ n: '51' }], 'a card key per fixture token');

    const dir = t.testdir({});
    const merchantsFile = join(dir, 'merchants.json');
    writeFileSync(merchantsFile, JSON.stringify({ merchants: [MERCHANT] }));
    const gateway = await startGateway([SERVER], { EVENT_STORE: url, WORKERS: '1', MERCHANTS_FILE: merchantsFile });
    t.teardown(() => gateway.stop());
    const tokenUrl = `${gateway.url}/api/rest/version/100/merchant/${MERCHANT.id}/token`;
    for (const index of [0, 50]) {
      const res = await fetch(`${tokenUrl}/${fixtureToken(index)}`, { headers: { authorization: TOKEN_HEADERS.authorization } });
      const body = await res.json() as { status?: string; sourceOfFunds?: { provided?: { card?: { number?: string } } } };
      t.equal(res.status, 200, `fixture token ${index} retrieved`);
      t.equal(body.status, 'VALID');
      t.match(body.sourceOfFunds?.provided?.card?.number, /^\d{6}x+\d{4}$|^x+\d{4}$/, 'its number masked');
    }
    // Token 48's first order (a card the trigger table approves): the card is opened from the token's sealed number.
    const made = await fetch(tokenUrl, {
      method: 'POST', headers: TOKEN_HEADERS,
      body: JSON.stringify({ referenceOrderId: String(50_000_000_000 + 48 * 8), sourceOfFunds: { type: 'CARD' } }),
    });
    t.equal(made.status, 201, `a token made from a fixture order's card: ${made.status === 201 ? '' : await made.text()}`);
  });
}
