// Logs for a person: when stdout is a terminal, each pino line is printed by pino-pretty (local
// time, level in colour, one line each, a request as "PUT /api/... → 201 3.1 ms  merchant …
// correlation …"). When it is not (a pipe, a file, Docker, the tests), the lines stay the JSON of
// the run contract, and pino-pretty is not even loaded.
import type { DestinationStream } from 'pino';

/** The request fields plugins/observe.ts writes, shown in the message rather than after it. */
const IN_MESSAGE = ['method', 'path', 'status', 'durationMs', 'merchant', 'correlationId', 'operation'];

/** A line's message with its request fields first (plugins/observe.ts writes `request` as the message). */
export function requestMessage(log: Record<string, unknown>, messageKey: string): string {
  const parts: string[] = [];
  if (typeof log.method === 'string' && typeof log.path === 'string') parts.push(`${log.method} ${log.path}`);
  if (log.status !== undefined) parts.push(`→ ${String(log.status)}`);
  if (log.durationMs !== undefined) parts.push(`${String(log.durationMs)} ms`);
  if (log.merchant !== undefined) parts.push(` merchant ${String(log.merchant)}`);
  if (log.correlationId !== undefined) parts.push(` correlation ${String(log.correlationId)}`);
  const message = log[messageKey];
  if (typeof message === 'string' && message !== '' && message !== 'request') parts.push(parts.length > 0 ? ` ${message}` : message);
  return parts.join(' ');
}

/** pino's destination: pino-pretty writing to `stdout` when it is a terminal, else undefined (JSON lines on stdout). */
export async function terminalLogStream(stdout: NodeJS.WriteStream = process.stdout): Promise<DestinationStream | undefined> {
  if (!stdout.isTTY) return undefined;
  const { default: pretty } = await import('pino-pretty');
  return pretty({
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: ['pid', 'hostname', ...IN_MESSAGE].join(','),
    singleLine: true,
    destination: stdout,
    sync: true,
    messageFormat: (log, messageKey) => requestMessage(log, messageKey),
  });
}
