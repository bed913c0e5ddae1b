// The Docker deployment, read as data (no Docker engine needed): docker-compose.yml runs the
// gateway alone on SQLite (the default store) with a demo webhook receiver beside it;
// docker-compose.kurrentdb.yml wires a healthy KurrentDB node to the gateway;
// docker-compose.cluster.yml has three nodes whose gossip seeds name each other, and gateways that
// share their key store. Every file passes ADMIN_PASSWORD to its gateways and sends the demo
// merchants' notifications to its receiver service, whose command runs here against a gateway.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { parseEventStore, PROJECT_ROOT } from '../../config.js';
import { loadMerchants } from '../../merchants.js';
import { parseKurrentDbUrl } from '../../store/kurrentdb-mapping.js';
import { cardBody, payAuth, payPath, tokenAuth, tokenPath } from '../helpers/app.js';
import { BIN } from '../helpers/build.js';
import { eventually } from '../helpers/poll.js';
import { call, startServer } from '../helpers/server.js';

interface Service {
  image?: string;
  command?: string[];
  build?: unknown;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  networks?: Record<string, { ipv4_address?: string }>;
}
interface Compose { services: Record<string, Service>; volumes?: Record<string, unknown> }

const read = (file: string) => parse(readFileSync(join(PROJECT_ROOT, file), 'utf8'), { merge: true }) as Compose;
const env = (service: Service | undefined) => service?.environment ?? {};
/** The image a `${VAR:-default}` reference falls back to. */
const defaultImage = (image = '') => image.replace(/^\$\{[A-Z_]+:-(.*)\}$/, '$1');

function checkNode(t: Test, node: Service | undefined, name: string) {
  t.match(defaultImage(node?.image), /^docker\.kurrent\.io\/kurrent-latest\/kurrentdb:/, `${name}: the KurrentDB image`);
  t.equal(env(node).KURRENTDB_INSECURE, 'true', `${name}: insecure mode (tls=false in the gateway's URL)`);
  t.equal(env(node).KURRENTDB_RUN_PROJECTIONS, 'None', `${name}: no server-side projections`);
  t.same(node?.healthcheck?.test, ['CMD', 'curl', '-fsS', 'http://localhost:2113/health/live'], `${name}: health check on /health/live`);
  t.ok(node?.volumes?.some((v) => v.endsWith(':/var/lib/kurrentdb')), `${name}: its data on a volume`);
}

function checkGateway(t: Test, gateway: Service | undefined, name: string, nodes: string[]) {
  t.ok(gateway?.build, `${name}: built from the repository's Dockerfile`);
  const e = env(gateway);
  t.equal(e.HOST, '0.0.0.0', `${name}: listens on every interface`);
  t.equal(e.PORT, '8080');
  const store = parseEventStore(e.EVENT_STORE ?? '');
  t.equal(store.kind, 'kurrentdb', `${name}: EVENT_STORE selects KurrentDB`);
  const connection = parseKurrentDbUrl(e.EVENT_STORE ?? '');
  t.same(connection.hosts, nodes.map((host) => ({ host, port: 2113 })), `${name}: EVENT_STORE names the node service(s) on 2113`);
  t.equal(connection.tls, false, `${name}: without TLS, as the insecure nodes`);
  t.ok(e.READ_MODELS_FILE && e.KEYS_FILE, `${name}: read models and keys in files`);
  t.same(Object.fromEntries(nodes.map((n) => [n, { condition: 'service_healthy' }])), gateway?.depends_on, `${name}: starts once the node(s) are healthy`);
  const check = gateway?.healthcheck?.test ?? [];
  t.same(check.slice(0, 3), ['CMD', 'node', '-e'], `${name}: a health check run by Node (the slim image has no curl)`);
  t.match(check[3], "'http://127.0.0.1:8080/api/rest/version/100/information'", `${name}: on Check Gateway, on the gateway's port`);
  healthChecks.add(check[3] ?? '');
}

/** The scripts of the gateways' health checks (run against a real server below). */
const healthChecks = new Set<string>();

t.test('docker-compose.yml: the gateway alone on SQLite, and the receiver', async (t) => {
  const compose = read('docker-compose.yml');
  t.same(Object.keys(compose.services).sort(), ['gateway', 'receiver']);
  const { gateway } = compose.services;
  t.ok(gateway?.build, "built from the repository's Dockerfile");
  const e = env(gateway);
  t.equal(e.HOST, '0.0.0.0', 'listens on every interface');
  t.equal(e.PORT, '8080');
  const store = parseEventStore(e.EVENT_STORE ?? '');
  t.equal(store.kind, 'sqlite', 'EVENT_STORE selects SQLite');
  t.match(e.EVENT_STORE, /^sqlite:\/app\/data\//, 'its file under /app/data');
  t.same(gateway?.ports, ['8080:8080'], 'the gateway on 8080');
  const data = gateway?.volumes?.find((v) => v.endsWith(':/app/data'));
  t.ok(data && compose.volumes && data.split(':')[0]! in compose.volumes, 'the gateway’s ./data (/app/data in the image) on a declared named volume');
  t.notOk(gateway?.depends_on, 'nothing to wait for');
  const check = gateway?.healthcheck?.test ?? [];
  t.same(check.slice(0, 3), ['CMD', 'node', '-e'], 'a health check run by Node');
  healthChecks.add(check[3] ?? '');
});

t.test('docker-compose.kurrentdb.yml: a KurrentDB node and the gateway', async (t) => {
  const compose = read('docker-compose.kurrentdb.yml');
  t.same(Object.keys(compose.services).sort(), ['gateway', 'kurrentdb', 'receiver']);
  const { kurrentdb, gateway } = compose.services;
  checkNode(t, kurrentdb, 'kurrentdb');
  t.same(kurrentdb?.ports, ['2113:2113'], 'KurrentDB on 2113 (its UI and gRPC)');
  t.equal(env(kurrentdb).KURRENTDB_CLUSTER_SIZE, '1');
  checkGateway(t, gateway, 'gateway', ['kurrentdb']);
  t.same(gateway?.ports, ['8080:8080'], 'the gateway on 8080');
  const data = gateway?.volumes?.find((v) => v.endsWith(':/app/data'));
  t.ok(data, 'the gateway’s ./data (/app/data in the image) on a volume');
  t.ok(env(gateway).READ_MODELS_FILE?.startsWith('/app/data/') && env(gateway).KEYS_FILE?.startsWith('/app/data/'), 'both files on it');
  t.ok(compose.volumes && data && data.split(':')[0]! in compose.volumes, 'a named volume, declared');
});

t.test('docker-compose.cluster.yml: three nodes seeding each other, two gateways sharing keys', async (t) => {
  const compose = read('docker-compose.cluster.yml');
  const nodes = Object.keys(compose.services).filter((name) => name.startsWith('kurrentdb')).sort();
  t.same(nodes, ['kurrentdb1', 'kurrentdb2', 'kurrentdb3'], 'three nodes');
  const addressOf = new Map(nodes.map((n) => [n, compose.services[n]?.networks?.['kurrentdb-cluster']?.ipv4_address]));
  t.equal(new Set(addressOf.values()).size, 3, 'each node at its own fixed address');
  for (const name of nodes) {
    const node = compose.services[name];
    checkNode(t, node, name);
    t.equal(env(node).KURRENTDB_CLUSTER_SIZE, '3', `${name}: a cluster of three`);
    t.equal(env(node).KURRENTDB_REPLICATION_IP, addressOf.get(name), `${name}: replicates on its own address`);
    const seeds = (env(node).KURRENTDB_GOSSIP_SEED ?? '').split(',').sort();
    const others = nodes.filter((n) => n !== name).map((n) => `${addressOf.get(n)}:2113`).sort();
    t.same(seeds, others, `${name}: gossip seeds are exactly the two other nodes`);
  }
  t.same(nodes.map((n) => compose.services[n]?.ports?.[0]?.split(':')[1]), ['2113', '2113', '2113'], 'every node serves 2113 inside the network');

  const gateways = Object.keys(compose.services).filter((name) => name.startsWith('gateway')).sort();
  t.same(gateways, ['gateway1', 'gateway2']);
  const keyStores = new Set<string>();
  for (const name of gateways) {
    const gateway = compose.services[name];
    checkGateway(t, gateway, name, nodes);
    const keysDir = env(gateway).KEYS_FILE?.replace(/\/[^/]+$/, '');
    const mount = gateway?.volumes?.find((v) => v.endsWith(`:${keysDir}`));
    t.ok(mount, `${name}: KEYS_FILE on a mounted volume`);
    keyStores.add(`${mount?.split(':')[0]}:${env(gateway).KEYS_FILE}`);
  }
  t.equal(keyStores.size, 1, 'both gateways use the same key-store file on the same volume');
  t.same(gateways.map((g) => compose.services[g]?.ports?.[0]?.split(':')[1]), ['8080', '8080'], 'each gateway serves 8080');
});

const COMPOSE_FILES = ['docker-compose.yml', 'docker-compose.kurrentdb.yml', 'docker-compose.cluster.yml', 'docker-compose.postgres.yml'];
const gatewaysOf = (compose: Compose) => Object.entries(compose.services).filter(([, service]) => service.build !== undefined && service.command === undefined);

t.test('every compose file: its gateways take ADMIN_PASSWORD and the compose merchants, and a receiver service is beside them', async (t) => {
  for (const file of COMPOSE_FILES) {
    const compose = read(file);
    const gateways = gatewaysOf(compose);
    t.ok(gateways.length >= 1, `${file}: gateways`);
    for (const [name, gateway] of gateways) {
      t.equal(env(gateway).ADMIN_PASSWORD, '${ADMIN_PASSWORD:-}', `${file} ${name}: ADMIN_PASSWORD passed through (unset: the timeline answers 401)`);
      t.equal(env(gateway).MERCHANTS_FILE, '/app/config/merchants.compose.json', `${file} ${name}: the compose merchants file`);
      healthChecks.add(gateway.healthcheck?.test[3] ?? '');
    }
    const receiver = compose.services.receiver;
    t.ok(receiver?.build, `${file}: the receiver, built from the same Dockerfile`);
    t.same(receiver?.command, RECEIVER_COMMAND, `${file}: runs tokengate notifications receive on 0.0.0.0:8081`);
    t.equal(env(receiver).MERCHANTS_FILE, '/app/config/merchants.compose.json', `${file}: with the same merchants (the secret)`);
    t.notOk(receiver?.ports, `${file}: the receiver publishes no port (only the gateways call it)`);
    const networks = (service: Service | undefined) => Object.keys(service?.networks ?? { default: {} }).sort();
    for (const [name, gateway] of gateways) t.same(networks(receiver), networks(gateway), `${file}: the receiver on ${name}'s network`);
  }
});

const RECEIVER_COMMAND = ['node', 'dist/bin/tokengate.js', 'notifications', 'receive', 'TESTMERCHANT01', '--host', '0.0.0.0', '--port', '8081'];

t.test('config/merchants.compose.json: the demo merchants, their notifications sent to the receiver service', async (t) => {
  const demo = JSON.parse(readFileSync(join(PROJECT_ROOT, 'config', 'merchants.demo.json'), 'utf8')) as { merchants: Array<Record<string, any>> };
  const composed = JSON.parse(readFileSync(join(PROJECT_ROOT, 'config', 'merchants.compose.json'), 'utf8')) as { merchants: Array<Record<string, any>> };
  const withoutUrls = (file: typeof demo) => file.merchants.map(({ notifications, ...m }) => ({ ...m, ...(notifications ? { secret: notifications.secret } : {}) }));
  t.same(withoutUrls(composed), withoutUrls(demo), 'the same merchants, passwords and secrets as the demo file');
  const notifying = composed.merchants.filter((m) => m.notifications);
  t.same(notifying.map((m) => m.id), ['TESTMERCHANT01'], 'the merchant the receiver checks the secret of');
  for (const m of notifying) {
    t.equal(m.notifications.url, 'http://receiver:8081/notifications', 'to the receiver service on its port');
    t.same(m.notifications.allowedUrls, ['http://receiver:8081/']);
  }
  t.ok(loadMerchants(join(PROJECT_ROOT, 'config', 'merchants.compose.json')).get('TESTMERCHANT01'), 'a valid merchants file');
});

t.test("the receiver's command, as compose runs it, gets the notifications of a gateway on the compose merchants", async (t) => {
  const dir = t.testdir();
  const args = RECEIVER_COMMAND.slice(1).map((arg) => (arg === '0.0.0.0' ? '127.0.0.1' : arg === '8081' ? '0' : arg));
  // dist/bin/tokengate.js in the image; here the test run's build of it (test/helpers/build.ts).
  const receiver = spawn(process.execPath, [args[0] === 'dist/bin/tokengate.js' ? BIN : join(PROJECT_ROOT, args[0]!), ...args.slice(1)], { env: { ...process.env, MERCHANTS_FILE: join(PROJECT_ROOT, 'config', 'merchants.compose.json') } });
  t.teardown(() => { if (receiver.exitCode === null && receiver.signalCode === null) receiver.kill('SIGKILL'); });
  let out = '';
  let err = '';
  receiver.stdout.on('data', (chunk: Buffer) => { out += String(chunk); });
  const port = await new Promise<string>((resolve, reject) => {
    receiver.stderr.on('data', (chunk: Buffer) => { err += String(chunk); const m = /127\.0\.0\.1:(\d+)\//.exec(err); if (m) resolve(m[1]!); });
    receiver.once('exit', () => reject(new Error(`receiver exited: ${err}`)));
  });
  // The compose network's name for the receiver, here its loopback address.
  const merchants = join(dir, 'merchants.json');
  writeFileSync(merchants, readFileSync(join(PROJECT_ROOT, 'config', 'merchants.compose.json'), 'utf8').replaceAll('receiver:8081', `127.0.0.1:${port}`));
  const server = await startServer({ EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}`, MERCHANTS_FILE: merchants });
  t.teardown(() => server.stop());
  const m = { id: 'TESTMERCHANT01', apiPassword: 'demo-api-password-0123456789abcdef' };
  const token = (await call(server.url, 'POST', tokenPath(m.id), tokenAuth(m), cardBody())).json().token as string;
  t.equal((await call(server.url, 'PUT', payPath(m.id, token, '10000000001', '1'), payAuth(m), { apiOperation: 'PAY', transaction: { amount: '12.50', currency: 'USD' } })).status, 201);
  await eventually(() => out.includes('\n'), { intervalMs: 50 });
  t.match(out, /POST \/notifications {2}id \S+ {2}attempt 1 {2}200 {2}order 10000000001 CAPTURED {2}transaction 1 PAYMENT {2}SUCCESS APPROVED/, 'received with the right secret (200) and printed');
});

t.test("the gateways' health check passes against a running gateway and fails without one", async (t) => {
  t.equal(healthChecks.size, 1, 'one script in every file');
  const script = [...healthChecks][0] ?? '';
  const dir = t.testdir();
  const server = await startServer({ EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}` });
  const port = new URL(server.url).port;
  const run = (target: string) => new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ['-e', script.replace('127.0.0.1:8080', target)], { stdio: 'ignore' });
    child.once('exit', (code) => resolve(code));
  });
  t.equal(await run(`127.0.0.1:${port}`), 0, 'exit 0: OPERATING');
  t.equal(await server.stop(), 0);
  t.equal(await run(`127.0.0.1:${port}`), 1, 'exit 1: nothing answers');
});

t.test('the Dockerfile builds and starts the gateway as the brief says', async (t) => {
  const dockerfile = readFileSync(join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
  t.match(dockerfile, /^FROM node:20/m, 'a Node 20 image');
  t.match(dockerfile, /RUN npm ci\b/, 'npm ci from the lockfile');
  t.match(dockerfile, /RUN npm run build\b/, 'npm run build');
  t.match(dockerfile, /CMD \["node", "dist\/server\.js"\]/, 'node dist/server.js');
  t.match(dockerfile, /HOST=0\.0\.0\.0/, 'HOST=0.0.0.0');
  const ignored = readFileSync(join(PROJECT_ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const entry of ['node_modules', 'dist', 'data', '.git']) t.ok(ignored.includes(entry), `.dockerignore: ${entry}`);
  t.ok(existsSync(join(PROJECT_ROOT, 'config', 'merchants.demo.json')), 'the demo merchants the image starts with');
});
