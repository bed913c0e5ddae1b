// Where a webhook attempt connects. An allowed host name is resolved once per attempt and the
// address it gives checked (services/notification/destination.ts): a name that resolves to the
// gateway's own machine (127.0.0.1) or the cloud's metadata service (169.254.169.254) is not
// called; the request goes to the checked address, not to a second resolution. There is no DNS
// here: the system resolver (dns.lookup, which Node's HTTP clients use) is replaced for the
// test's own names, and the functions take a resolver of their own.
import dns from 'node:dns';
import t, { type Test } from 'tap';
import { buildApp } from '../../app.js';
import { parseMerchants } from '../../merchants.js';
import { addressKind, destinationOf, type HostLookup } from '../../services/notification/destination.js';
import { MERCHANTS, M1, createToken } from '../helpers/app.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { payAs, payBody } from './pay-triggers.fixture.js';
import { waitFor } from '../helpers/poll.js';

process.env.NOTIFICATION_RETRY_DELAY_MS = '60000';
process.env.NOTIFICATION_MAX_ATTEMPTS = '2';
process.env.NOTIFICATION_TIMEOUT_MS = '2000';

const SECRET = 'notification-secret-0123456789abcdef-QZ';

/** The test's names, and how many times each was resolved (every other name: the real resolver). */
const NAMES: Record<string, string[]> = {
  'rebound.shop.test': ['127.0.0.1'],
  'metadata.shop.test': ['169.254.169.254'],
  'mapped.shop.test': ['::ffff:169.254.169.254'],
  'hooks.internal': ['127.0.0.1', '169.254.169.254'],
};
const resolved = new Map<string, number>();
const realLookup = dns.lookup;
function fakeLookup(hostname: string, options: unknown, callback?: unknown): void {
  const cb = (typeof options === 'function' ? options : callback) as (e: Error | null, a: unknown, f?: number) => void;
  const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
  const names = NAMES[hostname];
  if (names === undefined) return (realLookup as (...a: unknown[]) => void)(hostname, options, callback);
  resolved.set(hostname, (resolved.get(hostname) ?? 0) + 1);
  // A second resolution of hooks.internal would give the metadata address (DNS rebinding).
  const answer = hostname === 'hooks.internal' && (resolved.get(hostname) ?? 0) > 1 ? ['169.254.169.254'] : names;
  const list = answer.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  setImmediate(() => (all ? cb(null, list) : cb(null, list[0]?.address, list[0]?.family)));
}
(dns as { lookup: unknown }).lookup = fakeLookup;
t.teardown(() => { (dns as { lookup: unknown }).lookup = realLookup; });

async function appWith(t: Test, url: string, extra: Record<string, unknown> = {}) {
  const merchants = { merchants: MERCHANTS.merchants.map((m) => (m.id === M1.id ? { ...m, notifications: { url, secret: SECRET, ...extra } } : m)) };
  const app = await buildApp({ eventStore: { kind: 'memory' }, merchants: parseMerchants(merchants, 'test'), limits: { authFailureLimit: 1_000_000 } });
  t.teardown(() => app.close());
  return app;
}

async function firstAnswer(app: Awaited<ReturnType<typeof buildApp>>) {
  const answered = async () => (await app.gateway.store.readAll()).find((e) => e.type === 'NotificationFailed' || e.type === 'NotificationDelivered');
  const answer = await waitFor(answered, 'an attempt answered (NotificationFailed or NotificationDelivered)', { intervalMs: 20 });
  if (answer === undefined) throw new Error('unreachable: waitFor resolves only with an answer');
  return answer;
}

const portOf = (receiver: Receiver) => new URL(receiver.origin).port;

t.test('an allowed name that resolves to the loopback or the metadata address is not called', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  for (const [host, kind] of [['rebound.shop.test', 'loopback'], ['metadata.shop.test', 'link-local'], ['mapped.shop.test', 'link-local']] as const) {
    const app = await appWith(t, `http://${host}:${portOf(receiver)}/hooks/main`);
    const token = await createToken(app);
    t.equal((await payAs(app, M1, token, payBody('1.00'))).statusCode, 201);
    const answer = await firstAnswer(app);
    t.equal(answer.type, 'NotificationFailed', `${host}: the attempt failed`);
    t.match((answer.data as { error?: string }).error, new RegExp(`^not sent: ${host.replace(/\./g, '\\.')} resolves to .*, a ${kind} address`), `${host}: refused, naming why`);
  }
  t.equal(receiver.received.length, 0, 'the receiver on 127.0.0.1 was never called');
});

t.test('a name of the private network (privateHosts) is resolved once and called at the checked address', async (t) => {
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  resolved.delete('hooks.internal');
  const app = await appWith(t, `http://hooks.internal:${portOf(receiver)}/hooks/main`, { privateHosts: ['hooks.internal'] });
  const token = await createToken(app);
  t.equal((await payAs(app, M1, token, payBody('1.00'))).statusCode, 201);
  const [hit] = await receiver.waitFor(1);
  t.equal(hit?.headers.host, `hooks.internal:${portOf(receiver)}`, 'the name in the Host header');
  t.equal((await firstAnswer(app)).type, 'NotificationDelivered');
  t.equal(resolved.get('hooks.internal'), 1, 'one resolution for the attempt: its address is the one connected to');
});

t.test('which addresses a host name may reach', async (t) => {
  const kinds: Array<[string, string | undefined]> = [
    ['127.0.0.1', 'loopback'], ['127.255.0.9', 'loopback'], ['::1', 'loopback'], ['::ffff:127.0.0.1', 'loopback'], ['::ffff:7f00:1', 'loopback'],
    ['169.254.169.254', 'link-local'], ['fe80::1', 'link-local'], ['64:ff9b::a9fe:a9fe', 'link-local'], ['2002:a9fe:a9fe::1', 'link-local'],
    ['10.1.2.3', 'private'], ['172.16.0.1', 'private'], ['172.31.255.255', 'private'], ['192.168.1.1', 'private'], ['100.64.0.1', 'private'], ['fd00::1', 'private'],
    ['0.0.0.0', 'special'], ['::', 'special'], ['224.0.0.1', 'special'], ['255.255.255.255', 'special'], ['192.0.2.1', 'special'], ['ff02::1', 'special'],
    ['8.8.8.8', undefined], ['172.32.0.1', undefined], ['93.184.216.34', undefined], ['2606:4700::1111', undefined], ['::ffff:8.8.8.8', undefined],
  ];
  for (const [address, kind] of kinds) t.equal(addressKind(address), kind, `${address}: ${kind ?? 'public'}`);

  const calls: string[] = [];
  const lookup = (table: Record<string, string[]>): HostLookup => async (host) => {
    calls.push(host);
    const list = table[host];
    if (!list) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  const table = { 'shop.example': ['127.0.0.1', '93.184.216.34'], localhost: ['127.0.0.1'], 'evil.localhost': ['10.0.0.1'], 'db.internal': ['10.0.0.7'], 'meta.internal': ['169.254.169.254'] };
  const to = (url: string, privateHosts: string[] = []) => destinationOf(new URL(url), lookup(table), privateHosts);
  t.same(await to('https://shop.example/hook'), { address: '93.184.216.34', family: 4 }, 'the first address the rules allow');
  t.same(await to('http://localhost:8081/hook'), { address: '127.0.0.1', family: 4 }, 'localhost: the loopback');
  t.match(await to('http://evil.localhost/hook'), { refused: /resolves to 10\.0\.0\.1, a private address/ }, 'a .localhost name: the loopback only');
  t.match(await to('http://db.internal/hook'), { refused: /a private address/ }, 'a private address: not without privateHosts');
  t.same(await to('http://db.internal/hook', ['DB.internal']), { address: '10.0.0.7', family: 4 }, 'listed in privateHosts');
  t.match(await to('http://meta.internal/hook', ['meta.internal']), { refused: /a link-local address/ }, 'never a link-local one');
  t.match(await to('http://nowhere.example/hook'), { refused: /does not resolve: ENOTFOUND/ });
  calls.length = 0;
  t.same(await to('http://127.0.0.1:8081/hook'), { address: '127.0.0.1', family: 4 }, 'an address in the URL: called as the merchants file names it');
  t.same(await to('http://[::1]:8081/hook'), { address: '::1', family: 6 });
  t.same(calls, [], 'no resolution for an address');
});
