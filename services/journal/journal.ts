// The request journal: every API request this process answered, accepted or refused, with its
// masked bodies and the events it caused, newest kept, oldest dropped. Not the event log: a
// refused request appends nothing there, and the journal is what finds it. In memory, a ring of
// JOURNAL_SIZE entries, none older than JOURNAL_MAX_AGE_MS, their answers in a ring of bytes
// (texts.ts: an entry whose answer it overwrote is dropped); gone when the process ends.
//
// Linked both ways: an entry's id is its request id, which every event the request appended
// carries as metadata.requestId (services/context.ts); the entry lists those events (stream,
// revision, position, type) as the log hands them over (Gateway.observeLog), before or after the
// answer is sent.
//
// Recording is on every request's path, and entries are kept long (a collector traces every
// object each holds, again and again): an entry is one object holding strings, kept as they come
// where it can be. The answer's text as sent (the gateway's answers mask card numbers and bank
// accounts themselves; one that shows them unmasked is masked before it is kept:
// plugins/journal.ts) as bytes outside the heap (texts.ts), the request's body as its masked JSON
// text (lib/mask-body.ts: the text as sent when nothing in it needs masking). The times and the
// bodies' parsing are made when the entry is read (views.ts).

import { flat } from '../../lib/flat.js';
import { REQUEST_ID_PREFIX } from '../../lib/request-ids.js';
import { metadataMayMention } from '../../store/event-text.js';
import { TextRing } from './texts.js';

export interface JournalSettings {
  /** JOURNAL_SIZE: entries kept (0: no journal, nothing recorded). */
  size: number;
  /** JOURNAL_MAX_AGE_MS: an entry older than this is dropped. */
  maxAgeMs: number;
}

export const DEFAULT_JOURNAL: JournalSettings = { size: 10_000, maxAgeMs: 3_600_000 };

/** Bytes of answers kept per entry (a pay's is 1.2 KB); the ring holds at least 1 MB. */
const ANSWER_BYTES = 2048;

/** An event a request appended: where it is in its stream and in the log. */
export interface JournalEvent { stream: string; revision: number; position: number; type: string }

/** What the journal keeps of one request (services/journal/views.ts makes what the API answers). */
export interface JournalEntry {
  /** The request id (X-Request-Id; the events' metadata.requestId). */
  id: string;
  /** When the request arrived, ms since the epoch. */
  atMs: number;
  method: string;
  /** The path as sent, no query string, card numbers masked (plugins/gateway.ts). */
  path: string;
  /** PAY, AUTHORIZE, ..., CREATE_TOKEN, RETRIEVE_ORDER (null: a path or operation the gateway does not know). */
  operation: string | null;
  status: number;
  /** From the request's arrival until its answer was handed to the connection. */
  durationMs: number;
  merchant: string | null;
  correlationId: string;
  order: string | null;
  transaction: string | null;
  token: string | null;
  /** The request's body: its masked JSON text (null: none, or one that could not be read). */
  request: string | null;
  /**
   * The answer as sent: its text (to parse when read), or a value masked already. Once recorded,
   * a text is in the journal's ring of answers (answerAt), and this null.
   */
  response: string | Buffer | object | null;
  /** Where the ring of answers holds its text (-1: nowhere), and its length in bytes. */
  answerAt: number;
  answerBytes: number;
  /** An NVP request: its answer's text is pairs, not JSON. */
  nvp: boolean;
  /** The events it appended, as text (eventsOf reads it; '': none). */
  events: string;
}

/** What the admin API filters the journal by (services/journal/views.ts); plain data, sent between workers. */
export interface RequestFilter {
  /** One request, by its id. */
  id?: string | undefined;
  merchant?: string | undefined;
  /** An HTTP status (400), or a class (4: 4xx). */
  status?: { exact: number } | { class: number } | undefined;
  operation?: string | undefined;
  /** A part of the path. */
  path?: string | undefined;
  correlationId?: string | undefined;
  order?: string | undefined;
  transaction?: string | undefined;
  token?: string | undefined;
  /** Requests that arrived at or after this instant (ms since the epoch). */
  sinceMs?: number | undefined;
  /** Requests concerning a stream (views.ts streamConcern). */
  stream?: StreamConcern | undefined;
}

/**
 * The requests of a stream's history: those that appended to it, and, since a refused request
 * appends nothing, those of one of its merchants naming its order, or its token.
 */
export interface StreamConcern { name: string; merchants: readonly string[]; order?: string | undefined; token?: string | undefined }

export interface Refusal { field: string | null; explanation: string }

/** An entry as the admin API answers it (services/journal/views.ts requestView). */
export interface RequestView {
  id: string;
  at: string;
  method: string;
  path: string;
  operation: string | null;
  status: number;
  durationMs: number;
  merchant: string | null;
  correlationId: string;
  order: string | null;
  transaction: string | null;
  token: string | null;
  request: unknown;
  response: unknown;
  events: JournalEvent[];
  refusal?: Refusal;
  /** A repeat refused for a different body: the entry that recorded its transaction (differences.ts). */
  differsFrom?: DiffersFrom;
  /** Dotted paths whose masked values differ: `before` the recording request's, `after` this one's (absent: no such field). */
  differences?: Difference[];
  /** Differing paths past the ones listed. */
  differencesLeftOut?: number;
}

export interface DiffersFrom { id: string; at: string; correlationId: string }
export interface Difference { path: string; before?: unknown; after?: unknown }

/**
 * An event in an entry's events: its position, revision, type, its stream's length and its stream
 * (one string per entry rather than an object per event: kept long, strings cost the collector
 * least).
 */
const eventText = (e: LoggedEvent): string => `${e.position} ${e.revision} ${e.type} ${e.stream.length} ${e.stream}`;

/** An entry's events as a list (eventText's, one after another). */
export function eventsOf(text: string): JournalEvent[] {
  const events: JournalEvent[] = [];
  let at = 0;
  const field = (): string => {
    const end = text.indexOf(' ', at);
    const value = text.slice(at, end);
    at = end + 1;
    return value;
  };
  while (at < text.length) {
    const position = Number(field());
    const revision = Number(field());
    const type = field();
    const length = Number(field());
    events.push({ stream: text.slice(at, at + length), revision, position, type });
    at += length;
  }
  return events;
}

/**
 * Whether an event may be one of this process's requests': false for one whose metadata is still a
 * text naming no request id drawn here (another instance's, on PostgreSQL), told without parsing it.
 */
export const mayBeOwnEvent = (event: object): boolean => metadataMayMention(event, REQUEST_ID_PREFIX);

/** Events of requests not yet recorded (the log handed them over before the answer was sent). */
const EARLY_MAX = 1024;

interface LoggedEvent { stream: string; revision: bigint; position: bigint; type: string; metadata: { requestId?: string | undefined } }

export class Journal {
  private readonly ring: Array<JournalEntry | undefined>;
  /** Where the next entry goes; `count` entries end there. */
  private next = 0;
  private count = 0;
  private readonly byId = new Map<string, JournalEntry>();
  private readonly early = new Map<string, string>();

  /**
   * @param ownRequest whether a request id is one of this process's (an event of another
   *   process's request is never recorded here: no need to hold it until its entry comes)
   */
  constructor(readonly settings: JournalSettings, private readonly ownRequest: (id: string) => boolean, readonly now: () => number = Date.now) {
    this.ring = new Array<JournalEntry | undefined>(settings.size);
    this.answers = new TextRing(settings.size > 0 ? Math.max(settings.size * ANSWER_BYTES, 1 << 20) : 0);
  }

  private readonly answers: TextRing;

  /** An entry's answer: its text, a value masked already, or null (none, or no longer kept). */
  answerOf(entry: JournalEntry): string | Buffer | object | null {
    if (entry.answerAt < 0) return entry.response;
    return this.answers.read(entry.answerAt, entry.answerBytes) ?? null;
  }

  /**
   * With WORKERS > 1: the entries the other workers' journals find (journal-cluster.ts); unset in
   * one process.
   */
  peers: ((filter: RequestFilter, limit: number) => Promise<RequestView[]>) | undefined;

  get enabled(): boolean { return this.settings.size > 0; }

  record(entry: JournalEntry): void {
    if (!this.enabled) return;
    this.prune();
    if (this.count === this.settings.size) this.dropOldest();
    if (this.early.size > 0) {
      const events = this.early.get(entry.id);
      if (events) {
        this.early.delete(entry.id);
        entry.events = flat(entry.events + events);
      }
    }
    const response = entry.response;
    if (typeof response === 'string' || Buffer.isBuffer(response)) {
      entry.answerAt = this.answers.keep(response);
      entry.answerBytes = this.answers.lastBytes;
      entry.response = null;
      // Entries whose answers the ring no longer holds whole: dropped, oldest first.
      while (this.count > 0 && !this.holdsOldest()) this.dropOldest();
    }
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.settings.size;
    this.count++;
    this.byId.set(entry.id, entry);
  }

  /** An event of the log: listed under the request that appended it. */
  eventAppended(event: LoggedEvent): void {
    const requestId = event.metadata.requestId;
    if (requestId === undefined) return;
    const entry = this.byId.get(requestId);
    if (entry) {
      entry.events = flat(entry.events + eventText(event));
    } else if (this.enabled && this.ownRequest(requestId)) {
      const ref = eventText(event);
      const held = this.early.get(requestId);
      this.early.set(requestId, held === undefined ? ref : held + ref);
      if (this.early.size > EARLY_MAX) this.early.delete(this.early.keys().next().value as string);
    }
  }

  get(id: string): JournalEntry | undefined {
    const entry = this.byId.get(id);
    return entry && this.fresh(entry) ? entry : undefined;
  }

  /** Every entry younger than the maximum age, newest first. */
  *newestFirst(): Generator<JournalEntry> {
    const size = this.settings.size;
    for (let i = 1; i <= this.count; i++) {
      const entry = this.ring[(this.next - i + size) % size];
      if (entry && this.fresh(entry)) yield entry;
    }
  }

  /** Entries past the maximum age dropped, oldest first (a timer calls it too: plugins/journal.ts). */
  prune(): void {
    const size = this.settings.size;
    while (this.count > 0) {
      const oldest = this.ring[(this.next - this.count + size) % size];
      if (oldest && this.fresh(oldest)) return;
      this.dropOldest();
    }
  }

  private holdsOldest(): boolean {
    const at = this.ring[(this.next - this.count + this.settings.size) % this.settings.size]?.answerAt;
    return at === undefined || at < 0 || this.answers.holds(at);
  }

  private fresh(entry: JournalEntry): boolean {
    return this.now() - entry.atMs <= this.settings.maxAgeMs;
  }

  private dropOldest(): void {
    const size = this.settings.size;
    const index = (this.next - this.count + size) % size;
    const oldest = this.ring[index];
    if (oldest) this.byId.delete(oldest.id);
    this.ring[index] = undefined;
    this.count--;
  }
}
