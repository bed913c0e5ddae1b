// Shared helpers of the benchmark driver: where the project is, child processes (start, find
// the port, stop), memory of a process from /proc, formatting.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project's folder, whether this module runs from bench/ (source) or dist/bench/ (compiled). */
export function projectRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'tokengate') return dir;
    dir = dirname(dir);
  }
  throw new Error('bench: cannot find the tokengate project folder above ' + fileURLToPath(import.meta.url));
}

/**
 * The compiled gateway the benchmark runs: dist/ (`npm run bench` builds it), or the test run's own
 * build when the tests run the driver (TOKENGATE_DIST, scripts/test.mjs).
 */
export function buildDir(root: string): string {
  return process.env.TOKENGATE_DIST ?? join(root, 'dist');
}

/** A failure told in one line, without a stack (a missing PostgreSQL, a bad option). */
export class BenchError extends Error {}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  output(): string;
  /** Resolves with the exit code (SIGTERM, then SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<number | null>;
}

export function startChild(args: string[], env: Record<string, string>, cwd: string): Child {
  return startCommand(process.execPath, args, env, cwd);
}

/**
 * Any command as a child. With `group`, the child leads its own process group and stop() signals
 * the whole group (for `npx …`, whose server is a grandchild).
 */
export function startCommand(command: string, args: string[], env: Record<string, string>, cwd: string, group = false): Child {
  const child = spawn(command, args, { env: { ...process.env, ...env }, cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: group });
  if (child.pid === undefined) throw new Error(`bench: could not start ${command} ${args.join(' ')}`);
  const pid = child.pid;
  live.add(child);
  child.once('exit', () => live.delete(child));
  const signal = (name: NodeJS.Signals) => {
    try { if (group) process.kill(-pid, name); else child.kill(name); } catch { /* already gone */ }
  };
  let output = '';
  const keep = (chunk: Buffer) => {
    output += String(chunk);
    if (output.length > 200_000) output = output.slice(-100_000); // bounded: keep the tail
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return {
    process: child,
    pid: child.pid,
    output: () => output,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) {
        if (group) signal('SIGKILL');
        return child.exitCode;
      }
      signal('SIGTERM');
      const timer = setTimeout(() => signal('SIGKILL'), graceMs);
      const [code] = await exited;
      clearTimeout(timer);
      if (group) signal('SIGKILL'); // whatever of the group outlived its leader
      return code;
    },
  };
}

// Children still running when the driver exits (Ctrl-C, an error) get SIGTERM, so no server is left behind.
const live = new Set<ChildProcess>();
process.once('exit', () => { for (const child of live) try { child.kill('SIGTERM'); } catch { /* gone */ } });

/** A free TCP port on the loopback interface (the kernel's pick, released for the child to take). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!port) throw new Error('bench: no free port');
  return port;
}

/** The TCP port a process listens on, from /proc (the socket inodes of its fds in LISTEN state). */
export function listeningPort(pid: number): number | undefined {
  let inodes: Set<string>;
  try {
    inodes = new Set(readdirSync(`/proc/${pid}/fd`).map((fd) => {
      try { return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? ''; } catch { return ''; }
    }).filter((inode) => inode !== ''));
  } catch {
    return undefined;
  }
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try { text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8'); } catch { continue; }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9] ?? '')) continue;
      const port = Number.parseInt(cols[1]?.split(':')[1] ?? '', 16);
      if (port > 0) return port;
    }
  }
  return undefined;
}

/**
 * Wait until a child listens: "Server listening at http://…:PORT" in its output (LOG_LEVEL info)
 * or, with quieter logs, its listening socket in /proc. Polls every 10 ms, at most `timeoutMs`.
 */
export async function waitListening(child: Child, timeoutMs: number): Promise<{ port: number; ms: number }> {
  const started = performance.now();
  const deadline = started + timeoutMs;
  while (performance.now() < deadline) {
    const logged = /Server listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(child.output()) ?? /listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(child.output());
    const port = logged?.[1] ? Number(logged[1]) : listeningPort(child.pid);
    if (port) return { port, ms: performance.now() - started };
    if (child.process.exitCode !== null || child.process.signalCode !== null) {
      throw new Error(`bench: child ${child.pid} exited (${child.process.exitCode ?? child.process.signalCode}) before listening:\n${child.output()}`);
    }
    await sleep(10);
  }
  throw new Error(`bench: child ${child.pid} did not listen within ${timeoutMs} ms:\n${child.output()}`);
}

export interface Memory { rssMB: number; hwmMB: number }

/** VmRSS and VmHWM (peak RSS since start) of a process, in MB; undefined once it is gone. */
export function memoryOf(pid: number): Memory | undefined {
  let text: string;
  try { text = readFileSync(`/proc/${pid}/status`, 'utf8'); } catch { return undefined; }
  const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssMB: round(kb('VmRSS') / 1024, 1), hwmMB: round(kb('VmHWM') / 1024, 1) };
}

/** CPU time a process has used so far (user + system, every thread), in ms; undefined once it is gone. */
export function cpuMsOf(pid: number): number | undefined {
  let text: string;
  try { text = readFileSync(`/proc/${pid}/stat`, 'utf8'); } catch { return undefined; }
  // Fields after the command name (which may hold spaces, inside parentheses): utime and stime are 14th and 15th.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * (1000 / CLOCK_TICKS) : undefined;
}
/** A process and its descendants (a cluster's primary and workers, the PostgreSQL server and its backends), from /proc. */
export function processTree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length && i < 1_000; i++) {
    const parent = pids[i];
    let tasks: string[];
    try { tasks = readdirSync(`/proc/${parent}/task`); } catch { continue; }
    for (const task of tasks) {
      let children = '';
      try { children = readFileSync(`/proc/${parent}/task/${task}/children`, 'utf8'); } catch { /* gone */ }
      for (const child of children.split(' ')) if (child.trim() !== '') pids.push(Number(child));
    }
  }
  return pids;
}

/** CPU time of a process and of its descendants alive now, in ms; undefined once the process is gone. */
export function treeCpuMsOf(pid: number): { total: number; pids: Map<number, number> } | undefined {
  const own = cpuMsOf(pid);
  if (own === undefined) return undefined;
  const pids = new Map<number, number>([[pid, own]]);
  for (const p of processTree(pid).slice(1)) {
    const ms = cpuMsOf(p);
    if (ms !== undefined) pids.set(p, ms);
  }
  return { total: [...pids.values()].reduce((a, b) => a + b, 0), pids };
}

/**
 * CPU used by a process tree between two readings, in ms: each process's own difference (a
 * process that started between them counts from 0, one that ended in between is not counted:
 * PostgreSQL's backends live as long as their connection, the gateway's pool keeps them open).
 */
export function treeCpuDelta(from: ReturnType<typeof treeCpuMsOf>, to: ReturnType<typeof treeCpuMsOf>): number | undefined {
  if (from === undefined || to === undefined) return undefined;
  let ms = 0;
  for (const [pid, now] of to.pids) ms += now - (from.pids.get(pid) ?? 0);
  return ms;
}

/** USER_HZ: Linux reports /proc times in 1/100 s on every architecture Node runs on. */
const CLOCK_TICKS = 100;

/** Samples a process's memory every `everyMs` until stopped; reports the peaks seen. */
export function memorySampler(pid: number, everyMs = 100) {
  let peakRss = 0;
  let hwm = 0;
  const sample = () => {
    const m = memoryOf(pid);
    if (m) { peakRss = Math.max(peakRss, m.rssMB); hwm = Math.max(hwm, m.hwmMB); }
  };
  sample();
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    stop(): { peakRssMB: number; hwmMB: number } {
      clearInterval(timer);
      sample();
      return { peakRssMB: peakRss, hwmMB: hwm };
    },
  };
}

export const round = (value: number, digits = 2) => {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
};

/** A plain-text table: the first row is the header; numbers right-aligned. */
export function table(rows: ReadonlyArray<ReadonlyArray<string | number>>): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[], isHeader: boolean) => r.map((c, i) => {
    const raw = rows[cells.indexOf(r)]?.[i];
    return !isHeader && typeof raw === 'number' ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0);
  }).join('  ');
  return cells.map((r, i) => line(r, i === 0)).join('\n');
}
