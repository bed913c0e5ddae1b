// Starts the gateway per the run contract: HOST, PORT, EVENT_STORE, MERCHANTS_FILE, LOG_LEVEL
// (and WORKERS: several processes on one port, cluster.ts). Once listening it prints the start-up
// block (startup.ts) on stderr. On SIGTERM/SIGINT it stops accepting, finishes requests in
// flight, closes the store, exits.
import cluster from 'node:cluster';
import { readFileSync, realpathSync } from 'node:fs';
import { isIP, type AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { buildApp, loggerOptions } from './app.js';
import { runPrimary, shareAuthFailures } from './cluster.js';
import { shareJournal } from './journal-cluster.js';
import { adminAccess } from './admin-access.js';
import { loadConfig, type Config } from './config.js';
import { exitWithError, knownProblem } from './exit.js';
import { GatewayError } from './domain/errors.js';
import { oneLine } from './store/storage-fault.js';

import { loadMerchants, type Merchants } from './merchants.js';
import { generateAdminPassword, startupBlock } from './startup.js';
import { terminalLogStream } from './lib/terminal-logs.js';

/**
 * Start the gateway: one process, or with WORKERS > 1 the primary of a cluster (cluster.ts) whose
 * workers run this same function. One process, or the primary, prints the start-up block.
 */
export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const merchants = loadMerchants(config.merchantsFile);
  if (cluster.isWorker) {
    // A worker of cluster.ts: the primary chose the admin password (passed as ADMIN_PASSWORD) and
    // prints the block; a worker never generates a password of its own.
    const app = await startGateway(config, merchants, config.adminPassword);
    app.log.info({ eventStore: config.eventStore.kind, worker: cluster.worker?.id }, 'tokengate worker ready');
    return;
  }
  const access = adminAccess(config, generateAdminPassword);
  const info = { host: config.host, tls: config.tls !== undefined, access, merchantsFile: config.merchantsFile, merchants, eventStore: config.eventStore, workers: config.workers };
  if (config.workers > 1) {
    runPrimary({
      workers: config.workers,
      authFailureLimit: config.limits.authFailureLimit,
      logLevel: config.logLevel,
      env: access.state === 'open' ? { ADMIN_PASSWORD: access.password } : {},
      onReady: (port) => process.stderr.write(startupBlock({ ...info, port })),
    });
    return;
  }
  const app = await startGateway(config, merchants, access.state === 'open' ? access.password : undefined);
  app.log.info({ eventStore: config.eventStore.kind, merchants: merchants.list.length, merchantsFile: config.merchantsFile }, 'tokengate ready');
  process.stderr.write(startupBlock({ ...info, port: (app.server.address() as AddressInfo).port }));
}

/** Build the app and listen; on SIGTERM/SIGINT (a worker: SIGTERM) close gracefully. */
async function startGateway(config: Config, merchants: Merchants, adminPassword: string | undefined): Promise<FastifyInstance> {
  // JSON lines on stdout; in a terminal, pino-pretty's.
  const stream = await terminalLogStream();
  // The admin pages answer a Host naming HOST too, when it is a name (routes/admin-guard.ts).
  const adminHosts = [...config.adminHosts, ...(isIP(config.host) === 0 ? [config.host.toLowerCase()] : [])];
  const app = await buildApp({ eventStore: config.eventStore, settings: config, merchants, logger: { ...loggerOptions(config.logLevel), ...(stream ? { stream } : {}) }, adminPassword, adminHosts, testControl: config.testControl, limits: config.limits, journal: config.journal,
    tls: config.tls && {
      cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile),
      clientCa: config.tls.clientCaFile ? readFileSync(config.tls.clientCaFile) : undefined,
    },
  });
  // The workers count wrong passwords together (cluster.ts): the others' counts taken before it listens.
  if (cluster.isWorker) {
    await shareAuthFailures(app.authFailures);
    shareJournal(app.journal);
  }
  // A worker closes on SIGTERM from its primary (cluster.ts), which forwards SIGTERM and SIGINT.
  // It may get the same signal twice: Ctrl-C in a terminal, `timeout` and systemd signal the whole
  // process group, the primary included. Close-with-grace would exit at once on a second signal,
  // dropping the requests in flight, so a worker handles SIGTERM and SIGINT itself: the first
  // SIGTERM closes it, repeats and SIGINT (the primary's to handle) are ignored.
  const closer = closeWithGrace({ delay: 10_000, logger: closeLogger(app), ...(cluster.isWorker ? { skip: ['SIGINT', 'SIGTERM'] as Array<'SIGINT' | 'SIGTERM'> } : {}) }, async ({ signal, err, manual }) => {
    if (err) app.log.error({ err }, 'closing after an error');
    else app.log.info({ signal: manual ? 'SIGTERM' : signal }, 'closing');
    await app.close();
  });
  if (cluster.isWorker) {
    let closing = false;
    process.on('SIGINT', () => undefined);
    process.on('SIGTERM', () => {
      if (closing) return;
      closing = true;
      closer.close();
    });
  }
  await app.listen({ host: config.host, port: config.port });
  return app;
}

/**
 * What close-with-grace reports before it exits 1 (a close that failed, took too long, a second
 * signal) as one log line: a store that cannot write or be reached, or a system error, in words
 * (no stack: it is no bug); anything else with its stack (a bug).
 */
function closeLogger(app: FastifyInstance) {
  return {
    error(what: unknown) {
      const problem = what instanceof GatewayError ? oneLine(what) : knownProblem(what);
      if (typeof what === 'string') app.log.error(what);
      else if (problem !== undefined) app.log.error({ fault: problem }, `closing did not finish: ${problem}`);
      else app.log.error({ err: what }, 'closing did not finish');
    },
  };
}

const invokedDirectly = process.argv[1] !== undefined && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
if (invokedDirectly) serve().catch(exitWithError);
