// A throwaway PostgreSQL server from the machine's packages (Debian's postgresql: initdb, pg_ctl),
// for the tests (test/helpers/postgres.ts: one server per test file) and the benchmark
// (`npm run bench -- --store postgres`). Each user makes its own databases with createDatabase().
//
//   const server = await startPostgres();                 // throws SKIP_MESSAGE when not installed
//   const url = await server.createDatabase('contract');  // postgres://tokengate:<password>@127.0.0.1:<port>/contract_1
//   await server.stop();
//
// The server runs as the `postgres` user when we are root (it refuses to run as root), in a
// temporary folder that holds its data, its unix socket and its log; it listens on 127.0.0.1 only,
// on a free port, with a password (so the tests see that it never shows up in logs or errors),
// and fsync on (durability is what the tests are about). stop() ends it and removes the folder;
// a test process that exits without stop() still ends it (process 'exit' hook).
import { execFile, execFileSync, spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
  /** The temporary folder of its data, socket and log (removed by stop()). */
  dir: string;
  /** Creates a fresh, empty database (named `<name>_<n>`) and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** The server's log so far (for failure messages). */
  log(): string;
  /** The postmaster's pid (its backends are its children), or undefined when it is not running. */
  serverPid(): number | undefined;
  /** Stops the server (fast: clients disconnected), runs `whileDown`, starts it again on the same port. */
  restart(whileDown?: () => Promise<void>): Promise<void>;
  /**
   * Takes the server away as an outage would: `fast` and `immediate` are pg_ctl's stop modes (a
   * shutdown checkpoint or none, crash recovery at the next start), `kill` a SIGKILL of the
   * postmaster (its backends notice and end on their own). Resolves once it no longer accepts.
   */
  halt(mode: HaltMode): Promise<void>;
  /** Starts it again on the same data folder and port (after halt()). */
  resume(): Promise<void>;
  stop(): Promise<void>;
}

export type HaltMode = 'fast' | 'immediate' | 'kill';

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

/** A PostgreSQL binary's command line, as the `postgres` user when we are root (the server refuses root). */
const asPostgres = (bin: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]);

function run(bin: string, args: string[]): string {
  const [file, argv] = asPostgres(bin, args);
  return execFileSync(file, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

const execFileAsync = promisify(execFile);

/** run(), without blocking this process meanwhile. */
async function runAsync(bin: string, args: string[]): Promise<void> {
  const [file, argv] = asPostgres(bin, args);
  await execFileAsync(file, argv, { encoding: 'utf8' });
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
    const serverPid = (): number | undefined => {
      // postmaster.pid's first line; the file is readable by its group only when we are root.
      try {
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        return Number.isInteger(pid) && pid > 0 ? pid : undefined;
      } catch {
        return undefined;
      }
    };
    // Asynchronous, so that a caller's clients go on sending while the server stops.
    const halt = async (mode: HaltMode): Promise<void> => {
      if (mode !== 'kill') {
        await runAsync(join(bin, 'pg_ctl'), ['stop', '-w', '-m', mode, '-D', data]);
        return;
      }
      const pid = serverPid();
      if (pid === undefined) throw new Error('the PostgreSQL server is not running');
      process.kill(pid, 'SIGKILL');
      // Its listening socket closes with it (the backends do not hold it).
      const deadline = Date.now() + 10_000;
      while (await accepts(port)) {
        if (Date.now() > deadline) throw new Error('the killed PostgreSQL server still accepts connections after 10 s');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const resume = async (): Promise<void> => {
      // After a SIGKILL of the postmaster its backends end on their own, a moment later; until
      // they have, the server refuses to start (their shared memory is still in use).
      const deadline = Date.now() + 30_000;
      for (;;) {
        try {
          await runAsync(join(bin, 'pg_ctl'), ['start', '-w', '-t', '30', '-D', data, '-l', logFile, '-o', optionsFor(port)]);
          return;
        } catch (error) {
          if (Date.now() > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    return {
      url,
      port,
      password,
      dir,
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
      serverPid,
      async restart(whileDown) {
        await halt('fast');
        try {
          await whileDown?.();
        } finally {
          await resume();
        }
      },
      halt,
      resume,
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

/** Whether a TCP connection to 127.0.0.1:`port` is accepted. */
const accepts = (port: number) => new Promise<boolean>((resolve) => {
  const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true); });
  socket.once('error', () => resolve(false));
});

function stopSync(server: { bin: string; data: string; dir: string }, mode: 'fast' | 'immediate'): void {
  running.delete(server);
  if (existsSync(join(server.data, 'postmaster.pid'))) {
    const [file, argv] = asPostgres(join(server.bin, 'pg_ctl'), ['stop', '-w', '-m', mode, '-D', server.data]);
    spawnSync(file, argv, { stdio: 'ignore' });
  }
  rmSync(server.dir, { recursive: true, force: true });
}
