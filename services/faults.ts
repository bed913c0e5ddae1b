// Faults a merchant rule asks for (merchants file, rules[].answer.fault): rendered by
// plugins/errors.ts exactly like the real ones, SERVER_BUSY as 503 with an explanation,
// SERVER_FAILED as 500 with a supportCode.
import type { Fault } from '../domain/merchant-rules.js';

export class SimulatedFault extends Error {
  override name = 'SimulatedFault';
  constructor(readonly fault: Fault) {
    super(fault === 'SERVER_BUSY'
      ? 'The gateway is busy: repeat the identical request later'
      : 'simulated internal failure (merchant rule)');
  }
}
