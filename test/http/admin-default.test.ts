// The admin default (admin-access.ts): a password generated at start on a loopback HOST,
// closed on any other until ADMIN_PASSWORD is set; what the start-up block says in each case; and
// WORKERS, whose bad values stop the start with one line.
import t from 'tap';
import { adminAccess, isLoopbackHost } from '../../admin-access.js';
import { ConfigError, DEMO_MERCHANTS_FILE, loadConfig } from '../../config.js';
import { parseMerchants } from '../../merchants.js';
import { generateAdminPassword, startupBlock, type StartupInfo } from '../../startup.js';
import { basic, buildTestApp, MERCHANTS } from '../helpers/app.js';

t.test('which HOST values are loopback', async (t) => {
  for (const host of ['127.0.0.1', 'localhost', 'LOCALHOST', '::1', '[::1]', '127.1.2.3', '::ffff:127.0.0.1']) {
    t.ok(isLoopbackHost(host), `${host}: only this machine reaches it`);
  }
  for (const host of ['0.0.0.0', '::', '', '192.168.1.10', '10.0.0.1', '128.0.0.1', '127.0.0.256', 'example.com', 'localhost.example.com', '::2']) {
    t.notOk(isLoopbackHost(host), `${JSON.stringify(host)}: reachable from elsewhere`);
  }
});

t.test('the admin access for each HOST and ADMIN_PASSWORD', async (t) => {
  let generated = 0;
  const generate = () => { generated += 1; return generateAdminPassword(); };
  const loopback = adminAccess({ host: '127.0.0.1', adminPassword: undefined }, generate);
  t.equal(loopback.state, 'open');
  t.ok(loopback.state === 'open' && loopback.generated && loopback.password.length >= 16, 'loopback, unset: a generated password of 16+ characters');
  const again = adminAccess({ host: 'localhost', adminPassword: undefined }, generate);
  t.not(again.state === 'open' && again.password, loopback.state === 'open' && loopback.password, 'a new one at each start');
  t.same(adminAccess({ host: '0.0.0.0', adminPassword: undefined }, generate), { state: 'closed' }, 'every interface, unset: closed');
  t.same(adminAccess({ host: '0.0.0.0', adminPassword: 'set-by-the-operator-1234' }, generate), { state: 'open', password: 'set-by-the-operator-1234', generated: false }, 'set: that password, on any address');
  t.same(adminAccess({ host: '::1', adminPassword: 'set-by-the-operator-1234' }, generate), { state: 'open', password: 'set-by-the-operator-1234', generated: false });
  t.equal(generated, 2, 'generated only when needed');
  t.equal(loadConfig({ HOST: '0.0.0.0' }).adminPassword, undefined, 'loadConfig itself generates nothing');
});

const info = (over: Partial<StartupInfo>): StartupInfo => ({
  host: '127.0.0.1', port: 8080, tls: false, access: { state: 'closed' }, merchantsFile: DEMO_MERCHANTS_FILE,
  merchants: parseMerchants(MERCHANTS, 'test'), eventStore: { kind: 'sqlite', path: './data/gateway.db' }, workers: 1, ...over,
});

t.test('the start-up block on every interface, without a password: the timeline is closed and says how to open it', async (t) => {
  const block = startupBlock(info({ host: '0.0.0.0', port: 9090 }));
  t.match(block, 'gateway        http://127.0.0.1:9090  (listening on every interface, HOST=0.0.0.0)');
  t.match(block, 'timeline       closed: HOST=0.0.0.0 is reachable from other machines;');
  t.match(block, 'set ADMIN_PASSWORD (16 characters or more) to open http://127.0.0.1:9090/admin/timeline');
  t.notMatch(block, 'user admin', 'no admin password shown');
});

t.test('the start-up block names the store without credentials, the workers, and HTTPS', async (t) => {
  const block = startupBlock(info({ host: '::1', tls: true, workers: 3, eventStore: { kind: 'kurrentdb', url: 'kurrentdb://user:secret-pw@db.example:2113?tls=true' } }));
  t.match(block, 'tokengate is ready (3 worker processes)');
  t.match(block, 'gateway        https://[::1]:8080');
  t.match(block, 'store          kurrentdb://db.example:2113?tls=true');
  t.notMatch(block, 'secret-pw');
});

t.test('the admin API without a password says how to get one', async (t) => {
  const app = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/admin/api/events', headers: { authorization: basic('admin', 'anything-at-all-16') } });
  t.equal(res.statusCode, 401);
  t.match(res.json().error.explanation, 'ADMIN_PASSWORD set (on a loopback HOST one is generated at start and printed)');
});

t.test('WORKERS: 1 by default, 1 to 64, anything else is one line', async (t) => {
  t.equal(loadConfig({}).workers, 1);
  t.equal(loadConfig({ WORKERS: '' }).workers, 1);
  t.equal(loadConfig({ WORKERS: '2' }).workers, 2);
  t.equal(loadConfig({ WORKERS: '64' }).workers, 64);
  for (const bad of ['0', '-1', 'abc', '65', '1.5', '2 ', '0x2', '1e1']) {
    t.throws(() => loadConfig({ WORKERS: bad }), new ConfigError(`WORKERS '${bad}' is not a whole number from 1 to 64`), `WORKERS=${JSON.stringify(bad)}`);
  }
});
