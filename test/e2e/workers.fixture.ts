// Shared by the WORKERS tests (workers.test.ts, workers-cli.test.ts): a merchant whose rule makes
// a payment slow (a request in flight to stop during), and what the primary's log says of its
// workers. Named *.fixture.ts so tap does not run it as a test file.
import type { GatewayProcess } from '../helpers/gateway-process.js';

export const SLOW = {
  id: 'SLOW01',
  apiPassword: 'test-password-slow-01-0123456789abcd',
  repository: { id: 'REPO06', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN', schemeTokenization: false, schemeTokenProvisioningMode: 'ASYNCHRONOUS' },
  rules: [{ match: { reference: 'slow' }, answer: { latencyMs: 800 } }],
};

export const alive = (pid: number) => {
  try { process.kill(pid, 0); return true; } catch { return false; }
};

/** The pids of the workers the primary started, in order (its 'worker started' lines). */
export const workerPids = (g: GatewayProcess) => g.logs().filter((l) => l.msg === 'worker started').map((l) => l.workerPid as number);
