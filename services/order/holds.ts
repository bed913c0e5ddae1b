// What both order paths (version 3's Pay with token, the order API) answer while a merchant rule's
// latency holds an order: a repeat of the transaction in progress looks again for its record every
// POLL_MS; a rule's simulated SERVER_BUSY answers after the rule's latency, recording nothing.
import { SimulatedFault } from '../../domain/errors.js';

/** How often a repeat of a transaction in progress looks for its record. */
export const POLL_MS = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The answer of a simulated SERVER_BUSY: a 503 after `latencyMs`. */
export const busyAfter = (latencyMs: number) => async (): Promise<never> => {
  await sleep(latencyMs);
  throw new SimulatedFault('SERVER_BUSY');
};
