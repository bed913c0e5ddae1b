// How a tokengate process (the server, the command-line tool) ends on a fatal error. Apart from
// server.ts so the command-line tool reports its errors without loading the server's modules.
import { ConfigError } from './config.js';
import { oneLine, StoreUnavailable } from './store/storage-fault.js';

/**
 * An error that says what is wrong in one line, no bug: a configuration error, a store that cannot
 * be opened, a system error (a port in use, a file that cannot be read); undefined for another.
 */
export function knownProblem(error: unknown): string | undefined {
  const systemError = typeof (error as { code?: unknown } | null)?.code === 'string' && /^E[A-Z]+$/.test((error as { code: string }).code);
  return error instanceof ConfigError || error instanceof StoreUnavailable ? error.message
    : systemError ? oneLine(error)
    : undefined;
}

/** One line on stderr, exit code 1: a known problem named; only a bug shows its stack. */
export function exitWithError(error: unknown): never {
  const message = knownProblem(error) ?? (error as Error).stack ?? String(error);
  process.stderr.write(`tokengate: ${message}\n`);
  process.exit(1);
}
