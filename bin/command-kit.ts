// What the commands of the command-line tool share: their shape, usage errors, the stores opened
// by --store or EVENT_STORE through the composition root (root.ts), and their options' values.
import type { Opened } from '../root.js';
import type { AsOf, HistoryEntry } from '../services/queries/history.js';
import { loadEventStore } from '../config.js';

interface OptionSpec { type: 'string' | 'boolean'; value?: string; help: string }
export type Values = Record<string, string | boolean | undefined>;
export interface Command {
  summary: string;
  args: string;
  options: Record<string, OptionSpec>;
  example?: string;
  run(positionals: string[], values: Values): Promise<number>;
}

export class UsageError extends Error {}

/**
 * The modules a command's work needs (the stores, the queries, the merchants file's parser),
 * imported once a command runs: `--help` and a mistyped option start without them.
 */
export async function work() {
  const [root, history, merchants, delivery] = await Promise.all([
    import('../root.js'), import('../services/queries/history.js'), import('../merchants.js'), import('../services/notification/delivery.js'),
  ]);
  return {
    openStores: root.openStores, PROJECTIONS: root.PROJECTIONS,
    orderHistory: history.orderHistory, recordedAt: history.recordedAt, repositoriesOfToken: history.repositoriesOfToken, tokenHistory: history.tokenHistory,
    loadMerchants: merchants.loadMerchants,
    attemptDelivery: delivery.attemptDelivery, notificationAggregate: delivery.notificationAggregate,
  };
}
export type Work = Awaited<ReturnType<typeof work>>;

export async function withStores<T>(values: Values, task: (opened: Opened, modules: Work) => Promise<T>): Promise<T> {
  const modules = await work();
  const opened = modules.openStores(loadEventStore(process.env, typeof values.store === 'string' ? values.store : undefined));
  try {
    return await task(opened, modules);
  } finally {
    await opened.close();
  }
}

export function instant(value: unknown, flag: string): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new UsageError(`--${flag} '${String(value)}' is not an ISO 8601 instant`);
  return date;
}

export function integer(value: unknown, flag: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(String(value))) throw new UsageError(`--${flag} '${String(value)}' is not a whole number`);
  return BigInt(String(value));
}

export const asOfOptions: Record<string, OptionSpec> = {
  'as-of-revision': { type: 'string', value: 'N', help: 'state as of this revision of the stream (0-based)' },
  'as-of': { type: 'string', value: 'instant', help: 'state as of this instant (ISO 8601), e.g. 2026-11-21T10:00:00Z' },
  json: { type: 'boolean', help: 'print JSON instead of text' },
};

export function asOf(values: Values): AsOf {
  const revision = integer(values['as-of-revision'], 'as-of-revision');
  const time = instant(values['as-of'], 'as-of');
  return { ...(revision !== undefined ? { revision } : {}), ...(time ? { time } : {}) };
}

const show = (v: unknown) => (v === undefined ? '∅' : typeof v === 'string' ? v : JSON.stringify(v));

export function formatHistory(title: string, entries: HistoryEntry[], doc: unknown): string {
  const lines = [title, ''];
  for (const e of entries) {
    lines.push(`#${e.position}  ${e.recordedAt}  ${e.type}  ${e.stream}@${e.revision}`);
    lines.push(`    merchant ${e.merchantId ?? '-'}  request ${e.requestId ?? '-'}  correlation ${e.correlationId ?? '-'}`);
    for (const c of e.changes) lines.push(`    ${c.path}: ${show(c.before)} → ${show(c.after)}`);
  }
  lines.push('', 'State:', JSON.stringify(doc ?? null, null, 2));
  return `${lines.join('\n')}\n`;
}

export function printHistory(values: Values, title: string, result: { entries: HistoryEntry[]; doc: unknown }): number {
  if (values.json) process.stdout.write(`${JSON.stringify({ events: result.entries, state: result.doc ?? null }, null, 2)}\n`);
  else process.stdout.write(formatHistory(title, result.entries, result.doc));
  return 0;
}
