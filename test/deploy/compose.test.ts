// The Docker deployment, read as data (no Docker engine needed): docker-compose.yml wires a
// healthy KurrentDB node to the gateway built from the Dockerfile; docker-compose.cluster.yml has
// three nodes whose gossip seeds name each other, and gateways that share their key store.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parse } from 'yaml';
import { parseEventStore, PROJECT_ROOT } from '../../config.js';
import { parseKurrentDbUrl } from '../../store/kurrentdb-mapping.js';
import { startServer } from '../helpers/server.js';

interface Service {
  image?: string;
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

t.test('docker-compose.yml: a KurrentDB node and the gateway', async (t) => {
  const compose = read('docker-compose.yml');
  t.same(Object.keys(compose.services).sort(), ['gateway', 'kurrentdb']);
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

t.test("the gateways' health check passes against a running gateway and fails without one", async (t) => {
  t.equal(healthChecks.size, 1, 'one script in both files');
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
