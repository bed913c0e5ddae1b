// The PostgreSQL outages of `npm run soak -- --postgres` (scripts/drop-soak.ts): the soak's own
// throwaway server (scripts/postgres-server.ts) stopped fast, stopped immediately or killed
// (SIGKILL of the postmaster) in turn while the soak's clients go on, then started again. Each
// outage is checked as a client sees it: Check Gateway SHUTDOWN and a pay answered 503 with the
// SERVER_BUSY body while the server is away (on fresh connections, so that with WORKERS every
// worker is asked), then Check Gateway OPERATING and every merchant's pay answered 201 once it is
// back; the time each took is kept for the summary.
import { request } from 'node:http';
import type { HaltMode, RunningPostgres } from './postgres-server.js';

export const OUTAGE_MODES: HaltMode[] = ['fast', 'immediate', 'kill'];

export interface OutageResult {
  mode: HaltMode;
  /** From the stop to Check Gateway SHUTDOWN and a 503 SERVER_BUSY (ms), or undefined if not seen within 20 s. */
  downSeenMs: number | undefined;
  /** From the server's start to OPERATING and every merchant paid (ms), or undefined if not within 30 s. */
  servingAgainMs: number | undefined;
}

export interface GatewayProbe {
  /** One pay of a new order per merchant: each answer's status and body. */
  pays(): Promise<Array<{ status: number; body: string }>>;
}

/** A GET on a connection of its own (WORKERS: each new connection goes to the next worker); status and body, or status 0 and why. */
export function getFresh(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(url, { agent: false, headers: { connection: 'close' }, timeout: 10_000 }, (res) => {
      let body = '';
      res.on('data', (chunk) => { body += String(chunk); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 10 s')));
    req.on('error', (error) => resolve({ status: 0, body: String(error) }));
    req.end();
  });
}

/** Check Gateway's status (or what came instead). */
export async function gatewayStatus(url: string): Promise<string> {
  const reply = await getFresh(`${url}/api/rest/version/100/information`);
  try {
    return reply.status === 200 ? (JSON.parse(reply.body) as { status: string }).status : `${reply.status} ${reply.body.slice(0, 120)}`;
  } catch {
    return `${reply.status} ${reply.body.slice(0, 120)}`;
  }
}

export const isServerBusy = (reply: { status: number; body: string }): boolean => {
  if (reply.status !== 503) return false;
  try {
    const body = JSON.parse(reply.body) as { result?: string; error?: { cause?: string; explanation?: unknown } };
    return body.result === 'ERROR' && body.error?.cause === 'SERVER_BUSY' && typeof body.error.explanation === 'string';
  } catch {
    return false;
  }
};

/** Polls `check` every 50 ms for up to `ms`: the time it took, or undefined. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < ms) {
    if (await check()) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** `times` answers in a row (with WORKERS, more than one per worker). */
async function statusHolds(url: string, expected: string, times: number): Promise<boolean> {
  for (let i = 0; i < times; i++) if (await gatewayStatus(url) !== expected) return false;
  return true;
}

/** One outage: stop (`mode`), check the gateway while the server is away, start it, check the gateway serves again. */
export async function outage(pg: RunningPostgres, url: string, probe: GatewayProbe, mode: HaltMode, workers: number): Promise<OutageResult> {
  await pg.halt(mode);
  let downSeenMs: number | undefined;
  try {
    downSeenMs = await within(20_000, async () =>
      await statusHolds(url, 'SHUTDOWN', 2 * workers) && (await probe.pays()).every(isServerBusy));
  } finally {
    await pg.resume();
  }
  const servingAgainMs = await within(30_000, async () =>
    (await probe.pays()).every((reply) => reply.status === 201) && await statusHolds(url, 'OPERATING', 2 * workers));
  return { mode, downSeenMs, servingAgainMs };
}
