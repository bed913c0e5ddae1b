// Waiting in a test for something to happen: poll it with a deadline, never sleep a fixed time and
// hope. The deadline bounds a hang or a lost event, never a speed: it is generous and scaled by
// the machine's slowdown (test/helpers/slowdown.ts), so a busy machine only makes the wait longer.
import { budget } from './slowdown.js';

export interface PollOptions<T> {
  /** Whether the value read is the one waited for (default: it is truthy). */
  until?: (value: T) => boolean;
  /** The deadline on a quiet machine (default 20 s), scaled by the slowdown. */
  timeoutMs?: number;
  /** Between two reads (default 10 ms). */
  intervalMs?: number;
}

/**
 * Reads `read` until its value is the one waited for or the deadline passes, and resolves with the
 * last value read either way: for an assertion that fails with what was seen, e.g.
 * `t.ok(await eventually(() => app.inFlight() === 0), 'the slot is free')`.
 */
export async function eventually<T>(read: () => T | Promise<T>, options: PollOptions<T> = {}): Promise<T> {
  const until = options.until ?? ((value: T) => Boolean(value));
  const deadline = Date.now() + budget(options.timeoutMs ?? 20_000);
  for (;;) {
    const value = await read();
    if (until(value) || Date.now() >= deadline) return value;
    await sleep(options.intervalMs ?? 10);
  }
}

/** As eventually(), but rejects (saying it waited for `what`) when the deadline passes. */
export async function waitFor<T>(read: () => T | Promise<T>, what: string, options: PollOptions<T> = {}): Promise<T> {
  const until = options.until ?? ((value: T) => Boolean(value));
  const started = Date.now();
  const value = await eventually(read, options);
  if (!until(value)) throw new Error(`waited ${Date.now() - started} ms for ${what}: not yet (the last value read: ${shown(value)})`);
  return value;
}

function shown(value: unknown): string {
  try {
    return (JSON.stringify(value, (_key, v: unknown) => (typeof v === 'bigint' ? String(v) : v)) ?? String(value)).slice(0, 500);
  } catch {
    return String(value);
  }
}

/**
 * A fixed pause, for the tests where time passing is the behaviour under test (nothing happens
 * before a timeout, a client that sends slowly): each use says why in a comment.
 */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
