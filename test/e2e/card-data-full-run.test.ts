// A full run of the real server: every test card of the facts stored and paid with, bad requests
// carrying card numbers too; then the store files and the logs hold none of the numbers, no
// security code, and no API password.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { cardBody, M1, M2, MERCHANTS, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';

const CARDS = [
  '5123450000000008', '2223000000000007', '5111111111111118', '2223000000000023', '4508750015741019', '4012000033330026',
  '345678901234564', '30123400000000', '36259600000012', '3528000000000007', '3528111100000001', '6011003179988686',
  '6011963280099774', '5000000000000000005', '5666555544443333', '135492354874528', '135420001569134',
];
const SECURITY_CODE = '7391';

t.test('no card number, security code or password in the store files or the logs', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const server = await startServer({ EVENT_STORE: `sqlite:${join(dir, 'data', 'gateway.db')}`, MERCHANTS_FILE: join(dir, 'merchants.json'), LOG_LEVEL: 'trace' });
  t.teardown(() => server.stop('SIGKILL'));
  let order = 10000000001;
  for (const number of CARDS) {
    for (const m of [M1, M2]) {
      const created = await call(server.url, 'POST', tokenPath(m.id), tokenAuth(m), cardBody(number, '1', '39', { securityCode: SECURITY_CODE, nameOnCard: 'Card Holder' }));
      t.equal(created.status, 201, created.text);
      const token = created.json().token as string;
      const paid = await call(server.url, 'PUT', payPath(m.id, token, String(order++), '1'), payAuth(m), { apiOperation: 'PAY', transaction: { amount: '1.00', currency: 'USD' }, card: { securityCode: SECURITY_CODE } });
      t.equal(paid.status, 201);
    }
    // Refused requests that carry the number: bad Luhn neighbour, too long, malformed JSON, wrong type.
    await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody(`${number.slice(0, -1)}${(Number(number.slice(-1)) + 1) % 10}`));
    await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody(`${number}00000`));
    await fetch(server.url + tokenPath(M1.id), { method: 'POST', headers: { authorization: tokenAuth(M1) }, body: `{"sourceOfFunds":{"provided":{"card":{"number":"${number}","securityCode":"${SECURITY_CODE}",}}}}` });
    await call(server.url, 'POST', tokenPath(M1.id), tokenAuth(M1), { sourceOfFunds: { type: 'CARD', provided: { card: JSON.stringify({ number, securityCode: SECURITY_CODE }) } } });
    await call(server.url, 'POST', tokenPath(M1.id), 'Basic ' + Buffer.from(`merchant.${M1.id}:${number}`).toString('base64'), cardBody(number));
  }
  t.equal(await server.stop(), 0);
  const logs = server.logs();
  t.ok(logs.length > 10_000, 'the run logged plenty at trace level');
  const files = readdirSync(join(dir, 'data')).map((f) => join(dir, 'data', f));
  t.ok(files.some((f) => f.endsWith('.keys')), 'the key store is there');
  const haystacks: Array<[string, string]> = [['logs', logs], ...files.map((f): [string, string] => [f, readFileSync(f).toString('latin1')])];
  for (const [name, text] of haystacks) {
    const leaked = CARDS.filter((n) => text.includes(n));
    t.same(leaked, [], `${name}: no card number`);
    // Quoted, as any JSON value or explanation would carry it (bare digits occur in timestamps).
    const at = text.search(new RegExp(`["'=:]${SECURITY_CODE}["'&,}]`));
    t.notOk(at >= 0, `${name}: no security code`, { context: text.slice(Math.max(0, at - 300), at + 100) });
    for (const m of MERCHANTS.merchants) t.notOk(text.includes(m.apiPassword), `${name}: no API password of ${m.id}`);
  }
});
