// A reset (test-control) and the refusal decided on an order guessed new: after a reset the order
// an id named before is unknown, its authentication too; a PAY naming that old authentication is
// refused as on a new order, on every store and on a second instance of a SQLite file, and the
// 3-D Secure of the new epoch then pays.
import { join } from 'node:path';
import t from 'tap';
import { tokenAuth } from '../helpers/app.js';
import { control, controlApp, TEST1, type App } from './test-control.fixture.js';

const ORDER = 'order-3ds-epochs';
const url = (transaction: string) => `/api/rest/version/100/merchant/${TEST1.id}/order/${ORDER}/transaction/${transaction}`;
const put = (app: App, transaction: string, payload: object) => app.inject({ method: 'PUT', url: url(transaction), headers: { authorization: tokenAuth(TEST1) }, payload });
const sourceOfFunds = { provided: { card: { number: '5123456789012346', expiry: { month: '1', year: '39' } } } };
const pay = { apiOperation: 'PAY', authentication: { transactionId: 'auth-1' }, order: { amount: '12.50', currency: 'USD' }, sourceOfFunds };

async function authenticate(app: App) {
  const initiated = await put(app, 'auth-1', { apiOperation: 'INITIATE_AUTHENTICATION', authentication: { channel: 'PAYER_BROWSER' }, order: { currency: 'USD' }, sourceOfFunds });
  if (initiated.statusCode !== 201) throw new Error(initiated.body);
  const payer = await put(app, 'auth-1', { apiOperation: 'AUTHENTICATE_PAYER', authentication: { redirectResponseUrl: 'https://shop.example/3ds/return' }, order: { amount: '12.50', currency: 'USD' } });
  if (payer.statusCode !== 201) throw new Error(payer.body);
}

for (const kind of ['memory', 'sqlite', 'sqlite, the PAY on a second instance'] as const) {
  t.test(`${kind}: an authentication of the epoch before a reset is none; the new epoch's pays`, async (t) => {
    const eventStore = kind === 'memory' ? { kind: 'memory' as const } : { kind: 'sqlite' as const, path: join(t.testdir({}), 'gateway.db') };
    const app = await controlApp(t, { eventStore });
    const payer = kind.includes('second') ? await controlApp(t, { eventStore }) : app;
    await authenticate(app);
    t.equal((await control(app, 'POST', `/merchants/${TEST1.id}/reset`)).statusCode, 200);
    // The other instance learns of the reset from the log: wait until the order is unknown to it.
    const retrieve = () => payer.inject({ method: 'GET', url: `/api/rest/version/100/merchant/${TEST1.id}/order/${ORDER}`, headers: { authorization: tokenAuth(TEST1) } });
    for (const deadline = Date.now() + 10_000; (await retrieve()).statusCode === 200 && Date.now() < deadline;) await new Promise((resolve) => setTimeout(resolve, 20));
    let old = await put(payer, 'pay-1', pay);
    t.equal(old.statusCode, 400, `the old epoch's authentication: ${old.body}`);
    t.match(old.json(), { result: 'ERROR', error: { cause: 'INVALID_REQUEST', field: 'authentication.transactionId', validationType: 'INVALID' } });
    old = await put(payer, 'pay-1', pay);
    t.equal(old.statusCode, 400, 'its repeat too');
    await authenticate(app);
    const paid = await put(payer, 'pay-1', pay);
    t.equal(paid.statusCode, 201, paid.body);
    t.match(paid.json(), { result: 'SUCCESS', response: { gatewayCode: 'APPROVED' }, authentication: { transactionId: 'auth-1' } });
  });
}
