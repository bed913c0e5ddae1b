// A merchant's sandbox (its stream streams.sandbox folded): how many times it was reset and how
// far its clock leads the real time; and the decisions of the test-control API on it. Pure: the
// time and the repository's sharing arrive in the commands.
import { InvalidRequest } from '../errors.js';
import type { MerchantReset, SandboxClockAdvanced, SandboxEvent } from './events.js';

export interface SandboxState {
  resets: number;
  /** The clock's lead over the real time (ms; 0: the real time). */
  offsetMs: number;
}

export const initialSandboxState = (): SandboxState => ({ resets: 0, offsetMs: 0 });

export function evolveSandbox(state: SandboxState, event: SandboxEvent): SandboxState {
  switch (event.type) {
    case 'MerchantReset': return { ...state, resets: event.data.reset };
    case 'SandboxClockAdvanced': return { ...state, offsetMs: event.data.offsetMs };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

export interface ResetMerchant {
  type: 'ResetMerchant';
  merchantId: string;
  repositoryId: string;
  /** The other merchants of the merchants file with the same repository (their tokens are theirs too). */
  sharedWith: readonly string[];
  now: string;
}

/** A reset is always recorded (a test may reset an empty sandbox: the answer is the same). */
export function decideReset(state: SandboxState, command: ResetMerchant): MerchantReset[] {
  const repository = command.sharedWith.length === 0
    ? { repositoryId: command.repositoryId }
    : { repositorySharedWith: [...command.sharedWith] };
  return [{ type: 'MerchantReset', data: { merchantId: command.merchantId, reset: state.resets + 1, ...repository, resetAt: command.now } }];
}

/** One advance moves the clock at most a year; all of them together at most ten (dates stay ordinary). */
export const MAX_ADVANCE_MS = 366 * 86_400_000;
export const MAX_OFFSET_MS = 10 * MAX_ADVANCE_MS;

export interface AdvanceClock {
  type: 'AdvanceClock';
  merchantId: string;
  byMs: number;
  /** The real time now (epoch ms): the clock reads it plus the offset. */
  realNowMs: number;
}

/** Forward only (a clock set back would record times before those already recorded). */
export function decideAdvance(state: SandboxState, command: AdvanceClock): SandboxClockAdvanced[] {
  const { byMs } = command;
  if (!Number.isSafeInteger(byMs) || byMs < 1 || byMs > MAX_ADVANCE_MS) {
    throw new InvalidRequest(`Value '${byMs}' is invalid. Expected a whole number of milliseconds from 1 to ${MAX_ADVANCE_MS}`, 'milliseconds');
  }
  const offsetMs = state.offsetMs + byMs;
  if (offsetMs > MAX_OFFSET_MS) {
    throw new InvalidRequest(`Value '${byMs}' is invalid. The merchant's clock would lead the real time by more than ${MAX_OFFSET_MS} ms (it leads by ${state.offsetMs} ms)`, 'milliseconds');
  }
  return [{
    type: 'SandboxClockAdvanced',
    data: {
      merchantId: command.merchantId, advancedByMs: byMs, offsetMs,
      from: new Date(command.realNowMs + state.offsetMs).toISOString(), to: new Date(command.realNowMs + offsetMs).toISOString(),
    },
  }];
}
