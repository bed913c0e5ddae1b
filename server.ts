// Starts the gateway per the run contract: HOST, PORT, EVENT_STORE, MERCHANTS_FILE, LOG_LEVEL.
// On SIGTERM/SIGINT it stops accepting, finishes requests in flight, closes the store, exits.
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import closeWithGrace from 'close-with-grace';
import { buildApp, loggerOptions } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { loadMerchants } from './merchants.js';
import { oneLine, StoreUnavailable } from './store/storage-fault.js';

export async function serve(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const merchants = loadMerchants(config.merchantsFile);
  const app = await buildApp({ eventStore: config.eventStore, settings: config, merchants, logger: loggerOptions(config.logLevel), adminPassword: config.adminPassword, limits: config.limits,
    tls: config.tls && {
      cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile),
      clientCa: config.tls.clientCaFile ? readFileSync(config.tls.clientCaFile) : undefined,
    },
  });
  closeWithGrace({ delay: 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error');
    else app.log.info({ signal }, 'closing');
    await app.close();
  });
  await app.listen({ host: config.host, port: config.port });
  app.log.info({ eventStore: config.eventStore.kind, merchants: merchants.list.length, merchantsFile: config.merchantsFile }, 'tokengate ready');
}

/**
 * One line on stderr, exit code 1: a configuration error, a store that cannot be opened, a system
 * error (a port in use, a file that cannot be read) name the problem; only a bug shows its stack.
 */
export function exitWithError(error: unknown): never {
  const systemError = typeof (error as { code?: unknown } | null)?.code === 'string' && /^E[A-Z]+$/.test((error as { code: string }).code);
  const message = error instanceof ConfigError || error instanceof StoreUnavailable ? error.message
    : systemError ? oneLine(error)
    : (error as Error).stack ?? String(error);
  process.stderr.write(`tokengate: ${message}\n`);
  process.exit(1);
}

const invokedDirectly = process.argv[1] !== undefined && pathToFileURL(realpathSync(process.argv[1])).href === import.meta.url;
if (invokedDirectly) serve().catch(exitWithError);
