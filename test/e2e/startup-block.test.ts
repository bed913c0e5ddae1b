// What a person sees when the gateway starts: one block on stderr (the URL, the API reference, the
// timeline and how to log in, the demo merchant, the store), while stdout stays JSON lines. On a
// loopback HOST without ADMIN_PASSWORD the timeline opens with the password the block printed
// (generated for the run), and wrong guesses lock the admin credential as before.
import { join } from 'node:path';
import t from 'tap';
import { basic, cardBody, M1, MERCHANTS, tokenAuth, tokenPath } from '../helpers/app.js';
import { SERVER, startGateway } from '../helpers/gateway-process.js';
import { call } from '../helpers/server.js';

t.test('npm start on loopback: the block shows where everything is, and the timeline opens with its password', async (t) => {
  const dir = t.testdir();
  const store = `sqlite:${join(dir, 'gateway.db')}`;
  // No MERCHANTS_FILE: the bundled demo merchants, whose password the block may show.
  const gateway = await startGateway([SERVER], { EVENT_STORE: store, AUTH_FAILURE_LIMIT: '3', ADMIN_PASSWORD: '' });
  t.teardown(() => gateway.stop('SIGKILL'));
  const { block, url } = gateway;
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/, 'the gateway URL, with the port it got');
  t.match(block, `API reference  ${url}/documentation`);
  t.match(block, `timeline       ${url}/admin/timeline`);
  t.match(block, 'demo merchant  TESTMERCHANT01, API password demo-api-password-0123456789abcdef');
  t.match(block, `store          ${store}`);
  const password = /user admin, password (\S+) {2}\(generated for this run/.exec(block)?.[1] ?? '';
  t.ok(password.length >= 16, `a generated password of at least 16 characters (${password.length})`);
  t.equal(gateway.stderr().split('tokengate is ready').length, 2, 'one block');
  // stdout and stderr are two pipes: the log line may arrive after the block.
  await gateway.until(() => gateway.stdout().includes('"msg":"tokengate ready"'), 'the ready log line');
  t.doesNotThrow(() => gateway.logs(), 'stdout is JSON lines only');
  t.ok(gateway.logs().some((line) => line.msg === 'tokengate ready'), 'the ready log line too');
  t.notMatch(gateway.stdout(), password, 'the password is not in the JSON log');

  const documentation = await fetch(`${url}/documentation/json`);
  t.equal(documentation.status, 200, 'the API reference answers');
  const page = await fetch(`${url}/admin/timeline`, { headers: { authorization: basic('admin', password) } });
  t.equal(page.status, 200, 'the timeline page opens with the printed password');
  const created = await call(url, 'POST', tokenPath('TESTMERCHANT01'), basic('merchant.TESTMERCHANT01', 'demo-api-password-0123456789abcdef'), cardBody());
  t.equal(created.status, 201, 'the demo merchant works with the printed password');
  const events = await fetch(`${url}/admin/api/events`, { headers: { authorization: basic('admin', password) } });
  t.equal(events.status, 200);
  t.same(((await events.json()) as { events: Array<{ type: string }> }).events.map((e) => e.type), ['TokenCreated'], 'and the timeline shows its event');
  t.equal((await fetch(`${url}/admin/api/events`)).status, 401, 'without credentials: 401');

  // The per-credential lock holds for the generated password: 3 wrong ones, then the right one is refused.
  for (let i = 0; i < 3; i++) {
    t.equal((await fetch(`${url}/admin/api/events`, { headers: { authorization: basic('admin', `wrong-${i}`) } })).status, 401);
  }
  const locked = await fetch(`${url}/admin/api/events`, { headers: { authorization: basic('admin', password) } });
  t.equal(locked.status, 429, 'locked after AUTH_FAILURE_LIMIT wrong passwords, the right one too');
  t.equal(await gateway.stop(), 0);
});

t.test('a set ADMIN_PASSWORD is not printed; a custom merchants file shows its size, not its passwords', async (t) => {
  const dir = t.testdir({ 'merchants.json': JSON.stringify(MERCHANTS) });
  const merchantsFile = join(dir, 'merchants.json');
  const gateway = await startGateway([SERVER], {
    EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: merchantsFile, ADMIN_PASSWORD: 'my-own-admin-password-123',
  });
  t.teardown(() => gateway.stop('SIGKILL'));
  t.match(gateway.block, 'user admin, password: your ADMIN_PASSWORD');
  t.match(gateway.block, `merchants      4 merchants from ${merchantsFile}`);
  for (const secret of ['my-own-admin-password-123', ...MERCHANTS.merchants.map((m) => m.apiPassword)]) {
    t.notMatch(gateway.stderr() + gateway.stdout(), secret, 'no password printed or logged');
  }
  t.notMatch(gateway.block, 'demo merchant');
  t.equal((await fetch(`${gateway.url}/admin/api/events`, { headers: { authorization: basic('admin', 'my-own-admin-password-123') } })).status, 200, 'the set password opens the timeline');
  t.equal((await call(gateway.url, 'POST', tokenPath(M1.id), tokenAuth(M1), cardBody())).status, 201);
  t.equal(await gateway.stop(), 0);
});
