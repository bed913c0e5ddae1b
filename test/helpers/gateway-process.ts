// Starts the real gateway (the test run's build, test/helpers/build.ts: server.js, or
// bin/tokengate.js serve ...) with stdout (JSON log lines) and stderr (the start-up block) kept
// apart, and waits for the start-up block: the gateway is ready, every worker listening.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { waitFor } from './poll.js';

export { BIN, SERVER } from './build.js';

export interface GatewayProcess {
  child: ChildProcess;
  /** The gateway's URL, as the start-up block gives it. */
  url: string;
  /** The start-up block (stderr up to and including its last line). */
  block: string;
  stdout(): string;
  stderr(): string;
  /** stdout's JSON lines, parsed. */
  logs(): Array<Record<string, any>>;
  /** Waits (polling, at most `timeoutMs` scaled by the slowdown) until `ready()` holds; rejects with the output otherwise, or at once if the gateway exits. */
  until(ready: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code once it has exited and its output is all read (sends nothing). */
  exited(): Promise<number | null>;
  /** Sends `signal` (default SIGTERM) unless it has exited; resolves with the exit code once its output is all read. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** `args`: what node runs, e.g. [SERVER] or [BIN, 'serve', '--workers', '2']. */
/** `group`: in a process group of its own, so that a signal can reach all its processes at once, as Ctrl-C does. */
export async function startGateway(args: string[], env: Record<string, string>, options: { group?: boolean } = {}): Promise<GatewayProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.group === true,
  });
  // 'close' comes after the process exited and its output was all read.
  const closed = once(child, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => { out += String(chunk); });
  child.stderr!.on('data', (chunk) => { err += String(chunk); });
  const until = async (ready: () => boolean, what: string, timeoutMs = 45_000) => {
    const readyOrGone = () => {
      if (ready()) return true;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what}: the gateway exited (${child.exitCode ?? child.signalCode})\nstdout:\n${out}\nstderr:\n${err}`);
      return false;
    };
    await waitFor(readyOrGone, what, { timeoutMs, intervalMs: 20 }).catch((error: Error) => {
      throw error.message.startsWith(what) ? error : new Error(`${error.message}\nstdout:\n${out}\nstderr:\n${err}`);
    });
  };
  const blockMatch = () => /tokengate is ready[^\n]*\n(?: {2}[^\n]*\n)*? {2}store {10}[^\n]*\n/.exec(err);
  try {
    await until(() => blockMatch() !== null, 'the start-up block', 60_000);
  } catch (error) {
    child.kill('SIGKILL'); // a gateway that did not start is not left behind
    throw error;
  }
  const block = blockMatch()![0];
  const url = /^ {2}gateway {8}(https?:\/\/\S+)/m.exec(block)?.[1] ?? '';
  return {
    child, url, block, until,
    stdout: () => out,
    stderr: () => err,
    logs: () => out.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Record<string, any>),
    exited: async () => (await closed)[0],
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      const [code] = await closed;
      return code;
    },
  };
}
