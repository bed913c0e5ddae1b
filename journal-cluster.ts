// With WORKERS > 1, each worker's request journal holds the requests that worker answered
// (services/journal/journal.ts: in its memory, recorded at no cost beyond its own). A journal
// query is answered from all of them: the worker that takes it asks the primary, the primary asks
// every other worker, each answers with the entries it finds, and the asking worker merges them
// with its own, newest first. A worker that does not answer within PEER_WAIT_MS (busy, dying) is
// left out of that answer. Nothing is sent between processes while requests are served; only a
// query costs messages.
import type { Worker } from 'node:cluster';
import type { Journal } from './services/journal/journal.js';
import { findRequests, type RequestFilter, type RequestView } from './services/journal/views.js';

/** worker → primary: a query to put to the others; primary → worker: their answers. */
const ASK = 'tokengate:journal-ask';
const ANSWERED = 'tokengate:journal-answered';
/** primary → worker: a query to answer from its own journal; worker → primary: its entries. */
const QUERY = 'tokengate:journal-query';
const ANSWER = 'tokengate:journal-answer';
/** How long the primary waits for the workers' answers (ms). */
const PEER_WAIT_MS = 2_000;

interface Question { filter: RequestFilter; limit: number }

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isQuestion = (value: Record<string, unknown>): boolean => isRecord(value.filter) && typeof value.limit === 'number';
const viewsOf = (value: unknown): RequestView[] => (Array.isArray(value) ? value.filter((v): v is RequestView => isRecord(v) && typeof v.id === 'string' && typeof v.at === 'string') : []);

/**
 * A worker's side: answer the primary's queries from this journal, and ask the other workers'
 * journals through it (journal.peers). A message that cannot be sent is dropped.
 */
export function shareJournal(journal: Journal, channel: NodeJS.Process = process): void {
  if (!channel.send) return;
  const send = (message: Record<string, unknown>) => {
    if (channel.connected && channel.send) channel.send(message, undefined, {}, () => undefined);
  };
  const waiting = new Map<number, (views: RequestView[]) => void>();
  let asked = 0;
  channel.on('message', (message: unknown) => {
    if (!isRecord(message)) return;
    if (message.type === QUERY && typeof message.query === 'number' && isQuestion(message)) {
      const { filter, limit } = message as unknown as Question;
      send({ type: ANSWER, query: message.query, requests: findRequests(journal, filter, limit) });
    } else if (message.type === ANSWERED && typeof message.ask === 'number') {
      waiting.get(message.ask)?.(viewsOf(message.requests));
      waiting.delete(message.ask);
    }
  });
  journal.peers = (filter, limit) => new Promise<RequestView[]>((resolve) => {
    const ask = ++asked;
    // The primary answers within its own wait; this one only guards against a primary gone.
    const timer = setTimeout(() => { waiting.delete(ask); resolve([]); }, PEER_WAIT_MS * 2);
    timer.unref();
    waiting.set(ask, (views) => { clearTimeout(timer); resolve(views); });
    send({ type: ASK, ask, filter, limit });
  });
}

/** The primary's side: a worker's question put to every other live worker, their answers gathered. */
export class JournalRelay {
  private queries = 0;
  private readonly open = new Map<number, { views: RequestView[]; missing: Set<Worker>; done: () => void }>();

  /** Whether `message` was the journal's (handled here). */
  handle(from: Worker, message: unknown, workers: ReadonlySet<Worker>): boolean {
    if (!isRecord(message)) return false;
    if (message.type === ANSWER) {
      const query = typeof message.query === 'number' ? this.open.get(message.query) : undefined;
      if (query?.missing.delete(from)) {
        query.views.push(...viewsOf(message.requests));
        if (query.missing.size === 0) query.done();
      }
      return true;
    }
    if (message.type !== ASK) return false;
    if (typeof message.ask === 'number' && isQuestion(message)) this.ask(from, message.ask, message as unknown as Question, workers);
    return true;
  }

  private ask(from: Worker, ask: number, question: Question, workers: ReadonlySet<Worker>): void {
    const query = ++this.queries;
    const missing = new Set([...workers].filter((w) => w !== from && w.isConnected()));
    const views: RequestView[] = [];
    const done = () => {
      clearTimeout(timer);
      this.open.delete(query);
      if (from.isConnected()) from.send({ type: ANSWERED, ask, requests: views }, undefined, () => undefined);
    };
    const timer = setTimeout(done, PEER_WAIT_MS);
    this.open.set(query, { views, missing, done });
    if (missing.size === 0) return done();
    for (const worker of missing) worker.send({ type: QUERY, query, filter: question.filter, limit: question.limit }, undefined, () => undefined);
  }
}
