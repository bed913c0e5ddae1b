// A throwaway PostgreSQL server from the machine's packages (Debian's postgresql: initdb, pg_ctl),
// for the tests that need a real one. One server per test FILE: start it in t.before, stop it in
// t.teardown; each test makes its own database with createDatabase(), so tests stay independent.
//
//   const pg = await requirePostgres(t);            // skips the file loudly when not installed
//   const url = await pg.createDatabase('contract'); // postgres://tokengate:<password>@127.0.0.1:<port>/contract_1
//
// The server runs as the `postgres` user when we are root (it refuses to run as root), in a
// temporary folder that holds its data, its unix socket and its log; it listens on 127.0.0.1 only,
// on a free port, with a password (so the tests see that it never shows up in logs or errors),
// and fsync on (durability is what the tests are about). stop() ends it and removes the folder;
// a test process that exits without stop() still ends it (process 'exit' hook).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const PG_USER = 'tokengate';

/** The folder of initdb/pg_ctl (the newest installed version), or undefined when PostgreSQL is not installed. */
export function postgresBinaries(): string | undefined {
  // PG_BIN names the folder to use instead (PG_BIN=/nonexistent: as if not installed).
  if (process.env.PG_BIN !== undefined) return existsSync(join(process.env.PG_BIN, 'initdb')) ? process.env.PG_BIN : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')) && existsSync(join(root, v, 'bin', 'pg_ctl')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

export function postgresAvailable(): boolean {
  return postgresBinaries() !== undefined;
}

export const SKIP_MESSAGE =
  'PostgreSQL not installed: no /usr/lib/postgresql/*/bin/initdb (apt-get install postgresql; .ci/run does): the PostgreSQL tests are SKIPPED';

export interface RunningPostgres {
  /** The URL of the server's `postgres` database (a superuser with a password). */
  url: string;
  port: number;
  password: string;
  /** Creates a fresh, empty database (named `<name>_<n>`) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** The server's log so far (for failure messages). */
  log(): string;
  /** Stops the server (fast: clients disconnected), runs `whileDown`, starts it again on the same port. */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL binary as the `postgres` user when we are root (the server refuses root). */
function run(bin: string, args: string[]): string {
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const running = new Set<{ bin: string; data: string; dir: string }>();
let exitHook = false;

export async function startPostgres(): Promise<RunningPostgres> {
  const bin = postgresBinaries();
  if (bin === undefined) throw new Error(SKIP_MESSAGE);
  // As root the server runs as `postgres`, which must reach the folder: /tmp, not a TMPDIR under /root.
  const dir = mkdtempSync(join(asRoot && existsSync('/tmp') ? '/tmp' : tmpdir(), 'tokengate-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  const password = randomBytes(12).toString('hex');
  const pwfile = join(dir, 'pwfile');
  writeFileSync(pwfile, password + '\n', { mode: 0o600 });
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  chmodSync(dir, 0o700);
  const server = { bin, data, dir };
  try {
    // --no-sync: the empty cluster need not survive a power cut; the server itself runs with fsync on.
    run(join(bin, 'initdb'), ['-D', data, '-U', PG_USER, `--pwfile=${pwfile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--locale=C', '--no-instructions', '--no-sync']);
    rmSync(pwfile);
    let port = 0;
    const optionsFor = (port: number) => [
      `-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", '-c fsync=on', '-c synchronous_commit=on',
      '-c max_connections=200', '-c shared_buffers=32MB', "-c log_min_messages=warning",
    ].join(' ');
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const options = optionsFor(port);
      try {
        run(join(bin, 'pg_ctl'), ['start', '-w', '-t', '30', '-D', data, '-l', logFile, '-o', options]);
        break;
      } catch (error) {
        // Another process took the port between freePort() and the server's bind: try another.
        if (attempt >= 3) throw error;
      }
    }
    running.add(server);
    if (!exitHook) {
      exitHook = true;
      // A test process that ends without stop() must not leave a server behind.
      process.once('exit', () => { for (const s of running) stopSync(s, 'immediate'); });
    }
    // Nor one that is killed (a test runner's timeout): a detached watcher stops the server and
    // removes its folder once this process is gone.
    const pgCtl = `${asRoot ? 'runuser -u postgres -- ' : ''}'${join(bin, 'pg_ctl')}'`;
    spawn('sh', ['-c', `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; ` +
      `[ -f '${join(data, 'postmaster.pid')}' ] && ${pgCtl} stop -m immediate -D '${data}' >/dev/null 2>&1; rm -rf '${dir}'`],
    { detached: true, stdio: 'ignore' }).unref();
    const url = `postgres://${PG_USER}:${password}@127.0.0.1:${port}/postgres`;
    let databases = 0;
    return {
      url,
      port,
      password,
      async createDatabase(name: string) {
        const db = `${name.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_${++databases}`;
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE ${db}`);
        } finally {
          await client.end();
        }
        return `postgres://${PG_USER}:${password}@127.0.0.1:${port}/${db}`;
      },
      log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
      async restart(whileDown) {
        run(join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', data]);
        try {
          await whileDown?.();
        } finally {
          run(join(bin, 'pg_ctl'), ['start', '-w', '-t', '30', '-D', data, '-l', logFile, '-o', optionsFor(port)]);
        }
      },
      async stop() {
        // Immediate: its data is thrown away, so no shutdown checkpoint (seconds of fsync).
        stopSync(server, 'immediate');
      },
    };
  } catch (error) {
    stopSync(server, 'immediate');
    throw error;
  }
}

function stopSync(server: { bin: string; data: string; dir: string }, mode: 'fast' | 'immediate'): void {
  running.delete(server);
  if (existsSync(join(server.data, 'postmaster.pid'))) {
    const [file, argv] = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(server.bin, 'pg_ctl'), 'stop', '-w', '-m', mode, '-D', server.data]]
      : [join(server.bin, 'pg_ctl'), ['stop', '-w', '-m', mode, '-D', server.data]];
    spawnSync(file, argv, { stdio: 'ignore' });
  }
  rmSync(server.dir, { recursive: true, force: true });
}

interface TapLike {
  skip(message?: string): void;
  before(fn: () => unknown): void;
  teardown(fn: () => unknown): void;
  comment(...args: unknown[]): void;
}

/**
 * One server for this test file: started in t.before, stopped in t.teardown. Returns undefined
 * (and skips the file with a loud message) when PostgreSQL is not installed; the server is
 * usable inside the tests (after t.before has run), through the returned handle.
 */
export function postgresForFile(t: TapLike): { get(): RunningPostgres } | undefined {
  if (!postgresAvailable()) {
    console.error(`\n*** ${SKIP_MESSAGE} ***\n`);
    t.comment(SKIP_MESSAGE);
    t.skip(SKIP_MESSAGE);
    return undefined;
  }
  let server: RunningPostgres | undefined;
  t.before(async () => { server = await startPostgres(); });
  t.teardown(async () => { await server?.stop(); });
  return {
    get() {
      if (server === undefined) throw new Error('the PostgreSQL server is started in t.before: use it inside a test');
      return server;
    },
  };
}
