// Starts the real server process (server.js of the test run's build, test/helpers/build.ts) and
// talks to it over HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { SERVER } from './build.js';
import { budget } from './slowdown.js';

export { SERVER };

export interface RunningServer {
  url: string;
  child: ChildProcess;
  logs: () => string;
  /** SIGTERM and wait for a clean exit; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startServer(env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, [SERVER], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => { output += String(chunk); });
  child.stderr.on('data', (chunk) => { output += String(chunk); });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // a server that did not start is not left behind
      reject(new Error(`server did not start:\n${output}`));
    }, budget(60_000));
    const check = () => {
      const match = /Server listening at (https?:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) { clearTimeout(timer); resolve(match[1]); }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`server exited with ${code}:\n${output}`)); });
  });
  return {
    url,
    child,
    logs: () => output,
    async stop(signal = 'SIGTERM') {
      // Already gone (an exit, or a kill by signal: exitCode stays null then): nothing to wait for.
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await once(child, 'exit')) as [number | null];
      return code;
    },
  };
}

export async function call(url: string, method: string, path: string, authorization: string, body?: unknown) {
  const res = await fetch(url + path, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, text, json: () => JSON.parse(text) as Record<string, any> };
}
