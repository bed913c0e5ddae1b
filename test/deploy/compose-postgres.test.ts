// docker-compose.postgres.yml read as data (no Docker engine here): PostgreSQL (official image,
// pg_isready health check, a volume), two gateways built from the Dockerfile on
// EVENT_STORE=postgres://...@postgres:5432/... once it is healthy, and nginx on the one published
// port, whose config (deploy/nginx-postgres.conf) names both gateways. The proxy's health check
// runs against a real gateway.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { parseEventStore, PROJECT_ROOT } from '../../config.js';
import { startServer } from '../helpers/server.js';

interface Service {
  image?: string;
  command?: string[];
  build?: unknown;
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}
interface Compose { services: Record<string, Service>; volumes?: Record<string, unknown> }

const read = (file: string) => parse(readFileSync(join(PROJECT_ROOT, file), 'utf8'), { merge: true }) as Compose;
/** What `docker compose` makes of `${VAR:-default}` with VAR unset. */
const interpolate = (text = '') => text.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');

const compose = read('docker-compose.postgres.yml');
const { postgres, gateway1, gateway2, proxy } = compose.services;

t.test('the services', async (t) => {
  t.same(Object.keys(compose.services).sort(), ['gateway1', 'gateway2', 'postgres', 'proxy', 'receiver'], 'the receiver of the demo webhook too (compose.test.ts)');
  t.same(Object.entries(compose.services).filter(([, s]) => s.ports).map(([name, s]) => [name, s.ports]), [['proxy', ['8080:8080']]],
    'one published port, the proxy’s: neither the gateways nor the database are reachable from the host');
});

t.test('PostgreSQL: the official image, a health check with pg_isready, its data on a volume', async (t) => {
  t.match(interpolate(postgres?.image), /^postgres:\d+$/, 'the official image, a pinned major version');
  const e = postgres?.environment ?? {};
  t.same(postgres?.healthcheck?.test, ['CMD', 'pg_isready', '-U', e.POSTGRES_USER, '-d', e.POSTGRES_DB], 'pg_isready for its user and database');
  t.same(postgres?.command, ['postgres', '-c', 'wal_recycle=off'], 'WAL segments removed, not recycled (crypto-shredding reaches the files)');
  const data = postgres?.volumes?.find((v) => v.endsWith(':/var/lib/postgresql/data'));
  t.ok(data && compose.volumes && data.split(':')[0]! in compose.volumes, 'the data directory on a declared named volume');
});

t.test('two gateways on that database, started once it is healthy', async (t) => {
  const e = postgres?.environment ?? {};
  const clusterFile = read('docker-compose.cluster.yml');
  const clusterCheck = clusterFile.services.gateway1?.healthcheck?.test;
  const admins = new Set<string>();
  for (const [name, gateway] of [['gateway1', gateway1], ['gateway2', gateway2]] as const) {
    t.ok(gateway?.build, `${name}: built from the Dockerfile`);
    const env = gateway?.environment ?? {};
    t.equal(env.HOST, '0.0.0.0', `${name}: listens on every interface of its container`);
    t.equal(env.PORT, '8080');
    t.equal(parseEventStore(interpolate(env.EVENT_STORE)).kind, 'postgres', `${name}: EVENT_STORE selects the PostgreSQL store`);
    const url = new URL(interpolate(env.EVENT_STORE));
    t.equal(url.protocol, 'postgres:', `${name}: EVENT_STORE=postgres://`);
    t.equal(url.hostname, 'postgres', `${name}: the database service`);
    t.equal(url.port, '5432');
    t.equal(url.username, e.POSTGRES_USER, `${name}: its user`);
    t.equal(url.password, interpolate(e.POSTGRES_PASSWORD), `${name}: its password, the same default`);
    t.equal(url.pathname, `/${e.POSTGRES_DB}`, `${name}: its database`);
    t.match(env.EVENT_STORE, '${POSTGRES_PASSWORD:-', `${name}: the password from the same variable as the database's`);
    t.same(gateway?.depends_on, { postgres: { condition: 'service_healthy' } }, `${name}: starts once PostgreSQL is healthy`);
    t.same(gateway?.healthcheck?.test, clusterCheck, `${name}: Check Gateway, the health check of the other compose files (run against a server by compose.test.ts)`);
    t.notOk(gateway?.volumes, `${name}: no local files (the store holds everything)`);
    admins.add(env.ADMIN_PASSWORD ?? '(unset)');
  }
  t.same([...admins], ['${ADMIN_PASSWORD:-}'], 'both take the one ADMIN_PASSWORD (empty: the timeline closed)');
});

t.test('nginx on the one port, to both gateways', async (t) => {
  t.match(interpolate(proxy?.image), /^nginx:/);
  t.same(proxy?.depends_on, { gateway1: { condition: 'service_healthy' }, gateway2: { condition: 'service_healthy' } }, 'starts once both gateways are healthy');
  const mount = proxy?.volumes?.find((v) => v.includes(':/etc/nginx/conf.d/default.conf'));
  const source = mount?.split(':')[0] ?? '';
  t.ok(existsSync(join(PROJECT_ROOT, source)), `its config is in the repository (${source})`);
  const conf = readFileSync(join(PROJECT_ROOT, source), 'utf8');
  const upstream = /upstream (\w+) \{([^}]*)\}/.exec(conf);
  const servers = [...(upstream?.[2] ?? '').matchAll(/^\s*server ([\w.-]+:\d+)/gm)].map((m) => m[1]);
  t.same(servers, ['gateway1:8080', 'gateway2:8080'], 'the upstream is both gateways on their port');
  t.match(conf, /^\s*listen 8080;/m, 'listens on the published port');
  t.equal([...conf.matchAll(/proxy_pass http:\/\/(\w+);/g)].filter((m) => m[1] === upstream?.[1]).length, 2, 'both locations pass to the upstream');
  t.match(conf, /location \/admin\/api\/events\/live \{[^}]*proxy_buffering off;/, 'live timeline events are not buffered');
  t.notMatch(conf, /non_idempotent/, 'a POST (token creation) is never sent twice');
});

// The check runs in the nginx image with busybox's wget; here with the machine's, when it has one.
const hasWget = spawnSync('sh', ['-c', 'command -v wget'], { stdio: 'ignore' }).status === 0;

t.test("the proxy's health check passes through a running gateway and fails without one", { skip: hasWget ? false : 'no wget on this machine to run the check with' }, async (t) => {
  const check = proxy?.healthcheck?.test ?? [];
  t.equal(check[0], 'CMD-SHELL');
  t.match(check[1], 'http://127.0.0.1:8080/api/rest/version/100/information', 'Check Gateway, through the proxy’s port');
  const dir = t.testdir();
  const server = await startServer({ EVENT_STORE: `sqlite:${join(dir, 'gateway.db')}` });
  const port = new URL(server.url).port;
  const run = () => new Promise<number | null>((resolve) => {
    const child = spawn('sh', ['-c', (check[1] ?? '').replace('127.0.0.1:8080', `127.0.0.1:${port}`)], { stdio: 'ignore' });
    child.once('exit', (code) => resolve(code));
  });
  t.equal(await run(), 0, 'exit 0: OPERATING');
  t.equal(await server.stop(), 0);
  t.not(await run(), 0, 'not 0: nothing answers');
});
