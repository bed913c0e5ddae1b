// The request journal: every API request this process answered, accepted or refused, with its
// masked bodies and the events it caused, newest kept, oldest dropped. Not the event log: a
// refused request appends nothing there, and the journal is what finds it. In memory, a ring of
// JOURNAL_SIZE entries, none older than JOURNAL_MAX_AGE_MS, their bodies and answers in a ring of
// bytes (texts.ts: an entry whose texts it overwrote is dropped); gone when the process ends.
//
// Linked both ways: an entry's id is its request id, which every event the request appended
// carries as metadata.requestId (services/context.ts); the entry lists those events (stream,
// revision, position, type) as the log hands them over (Gateway.observeLog), before or after the
// answer is sent.
//
// Recording is on every request's path, and entries are kept long (a collector traces every
// object each holds, again and again): an entry is one object holding strings, kept as they come
// where it can be. The request's body as its masked JSON text (lib/mask-body.ts: the text as sent
// when nothing in it needs masking), then the answer's text as sent (the gateway's answers mask
// card numbers and bank accounts themselves; one that shows them unmasked is masked before it is
// kept: plugins/journal.ts), both as bytes outside the heap (texts.ts). The times and the bodies'
// parsing are made when the entry is read (views.ts).

import { flat } from '../../lib/flat.js';
import { REQUEST_ID_PREFIX } from '../../lib/request-ids.js';
import { metadataMayMention } from '../../store/event-text.js';
import { TextRing } from './texts.js';
import type { JournalEvent, RequestFilter, RequestView } from './view-types.js';
export type { Difference, JournalEvent, DiffersFrom, Refusal, RequestFilter, RequestView, StreamConcern } from './view-types.js';

export interface JournalSettings {
  /** JOURNAL_SIZE: entries kept (0: no journal, nothing recorded). */
  size: number;
  /** JOURNAL_MAX_AGE_MS: an entry older than this is dropped. */
  maxAgeMs: number;
}

export const DEFAULT_JOURNAL: JournalSettings = { size: 10_000, maxAgeMs: 3_600_000 };

/** The most bytes of texts (body and answer) the ring grows to per entry (a pay's are 1.3 KB); at least 1 MB. */
const ANSWER_BYTES = 2048;

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
  /**
   * The request's body: its masked JSON text (null: none, or one that could not be read). Once
   * recorded with an answer kept as text, it is in the ring before the answer (requestBytes), and
   * this null.
   */
  request: string | null;
  /** The body's length in bytes in the ring (0: not there). */
  requestBytes: number;
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
  /** How many of the oldest entries are known to have no texts in the ring (oldestText). */
  private textless = 0;
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
    return this.answers.read(entry.answerAt, entry.answerBytes, entry.requestBytes) ?? null;
  }

  /** An entry's body: its masked JSON text, or null (none, or no longer kept). */
  bodyOf(entry: JournalEntry): string | null {
    if (entry.requestBytes === 0) return entry.request;
    return this.answers.read(entry.answerAt, entry.requestBytes) ?? null;
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
      // The body and the answer in one place: no string of either left on the heap.
      let at = this.answers.keep(response, entry.request ?? '', this.oldestText());
      // Both larger than the ring can be (a body as large as BODY_LIMIT): the answer alone, the body on the entry.
      if (at < 0 && entry.request !== null) at = this.answers.keep(response, '', this.oldestText());
      entry.answerAt = at;
      entry.answerBytes = this.answers.lastBytes;
      entry.response = null;
      if (at >= 0 && entry.request !== null && this.answers.firstBytes > 0) {
        entry.requestBytes = this.answers.firstBytes;
        entry.request = null;
      }
      // Entries whose texts the ring no longer holds whole: dropped, oldest first. The oldest with
      // texts is the one looked at (an older one without, an answer kept as a value, would hide it),
      // and those before it go with it: a text is overwritten only after every older one.
      for (let oldest = this.oldestText(); oldest >= 0 && !this.answers.holds(oldest); oldest = this.oldestText()) this.dropOldest();
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

  /** The entry of a request id: the newest, should two have it. */
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

  /** Where the ring holds the texts of the oldest entry with some (-1: none). */
  private oldestText(): number {
    const size = this.settings.size;
    // Past the oldest entries known to have none (counted once each: record is on every request's path).
    while (this.textless < this.count) {
      const at = this.ring[(this.next - this.count + this.textless + size) % size]?.answerAt;
      if (at !== undefined && at >= 0) return at;
      this.textless++;
    }
    return -1;
  }

  private fresh(entry: JournalEntry): boolean {
    return this.now() - entry.atMs <= this.settings.maxAgeMs;
  }

  private dropOldest(): void {
    const size = this.settings.size;
    const index = (this.next - this.count + size) % size;
    const oldest = this.ring[index];
    // An id recorded again (two entries of one id) finds the newest: dropping the older keeps it.
    if (oldest && this.byId.get(oldest.id) === oldest) this.byId.delete(oldest.id);
    this.ring[index] = undefined;
    this.count--;
    if (this.textless > 0) this.textless--;
  }
}
