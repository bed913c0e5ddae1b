// Time budgets inside the tests, sized for the machine as it is now: a budget is what the work
// takes on a quiet machine with room to spare, times the slowdown. A budget bounds a hang or a
// lost event; it is never a speed check (speed is the benchmarks' job).
import { cpus, loadavg } from 'node:os';

/**
 * How much slower than a quiet machine this one runs now: the 1-minute load average per core
 * (between 1 and 4), or TOKENGATE_TEST_SLOWDOWN when that is larger (CI may set it). Read at each
 * call, so a budget taken when another run has started since is sized for that.
 */
export function slowdown(): number {
  const set = Number(process.env.TOKENGATE_TEST_SLOWDOWN);
  const load = (loadavg()[0] ?? 0) / Math.max(1, cpus().length);
  return Math.max(Number.isFinite(set) && set > 0 ? set : 1, Math.min(4, Math.max(1, load)));
}

/** `ms` (enough on a quiet machine) scaled by the slowdown. */
export const budget = (ms: number): number => Math.round(ms * slowdown());
