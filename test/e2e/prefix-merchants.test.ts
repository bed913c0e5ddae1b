// Issue 19, item 2, end to end: the real process, a store file, and two merchants whose ids extend
// one another (TESTSHOP, TESTSHOP-EU). Whatever ids TESTSHOP crafts from TESTSHOP-EU's, before and
// after a restart, it reaches nothing of TESTSHOP-EU's: sessions, tokens, orders.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { basic, payAuth, payPath } from '../helpers/app.js';
import { call, startServer } from '../helpers/server.js';

const repo = (id: string) => ({ id, tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' });
const SHOP = { id: 'TESTSHOP', apiPassword: 'e2e-password-shop-0123456789-0123456', repository: repo('SHOP') };
const EU = { id: 'TESTSHOP-EU', apiPassword: 'e2e-password-shop-eu-0123456789-01234', repository: repo('SHOP-EU') };
type Merchant = typeof SHOP;
const auth = (m: Merchant) => basic(`merchant.${m.id}`, m.apiPassword);
const v100 = (m: Merchant, rest: string) => `/api/rest/version/100/merchant/${m.id}${rest}`;

t.test('TESTSHOP reaches nothing of TESTSHOP-EU through crafted ids, before and after a restart', async (t) => {
  const dir = t.testdir({});
  const merchantsFile = join(dir, 'merchants.json');
  writeFileSync(merchantsFile, JSON.stringify({ merchants: [SHOP, EU] }));
  const env = { EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: merchantsFile };
  let server = await startServer(env);
  t.teardown(() => server.stop('SIGKILL'));

  const session = (await call(server.url, 'POST', v100(EU, '/session'), auth(EU), {})).json().session.id as string;
  const card = { number: '4508750015741019', expiry: { month: '1', year: '39' }, securityCode: '100' };
  t.equal((await call(server.url, 'PUT', v100(EU, `/session/${session}`), auth(EU), { sourceOfFunds: { type: 'CARD', provided: { card } } })).status, 200);
  const euToken = (await call(server.url, 'POST', v100(EU, '/token'), auth(EU), { sourceOfFunds: { type: 'CARD', provided: { card: { number: card.number, expiry: card.expiry } } } })).json().token as string;
  const pay = { apiOperation: 'PAY', transaction: { amount: '9.00', currency: 'USD' } };
  t.equal((await call(server.url, 'PUT', payPath(EU.id, euToken, '10000000001', '1'), payAuth(EU), pay)).status, 201);

  const attempts = async (when: string) => {
    const crafted = `EU-${session}`;
    const fromSession = await call(server.url, 'POST', v100(SHOP, '/token'), auth(SHOP), { session: { id: crafted }, sourceOfFunds: { type: 'CARD' } });
    t.equal(fromSession.status, 400, `${when}: no token from TESTSHOP-EU's session`);
    t.notMatch(fromSession.text, '450875', `${when}: no card digits in the refusal`);
    const overwrite = await call(server.url, 'PUT', v100(SHOP, `/session/${crafted}`), auth(SHOP), { sourceOfFunds: { type: 'CARD', provided: { card: { number: '5123450000000008' } } } });
    t.equal(overwrite.status, 400, `${when}: no update of TESTSHOP-EU's session`);
    const payWith = await call(server.url, 'PUT', payPath(SHOP.id, euToken, '10000000002', '1'), payAuth(SHOP), pay);
    t.equal(payWith.status, 400, `${when}: no payment with TESTSHOP-EU's token`);
    const order = await call(server.url, 'GET', `/api/rest/version/3/merchant/${SHOP.id}/order/10000000001`, payAuth(SHOP));
    t.equal(order.status, 400, `${when}: TESTSHOP-EU's order is not TESTSHOP's`);
    const own = await call(server.url, 'POST', v100(EU, '/token'), auth(EU), { session: { id: session }, sourceOfFunds: { type: 'CARD' } });
    t.equal(own.status, 201, `${when}: TESTSHOP-EU's session still makes its token`);
    t.equal(own.json().sourceOfFunds.provided.card.number, '450875xxxxxx1019', `${when}: with its own card`);
  };
  await attempts('before a restart');
  t.equal(await server.stop(), 0);
  server = await startServer(env);
  await attempts('after a restart');
  t.notMatch(server.logs(), /4508750015741019|5123450000000008/, 'no card number in the logs');
  t.equal(await server.stop(), 0);
});
