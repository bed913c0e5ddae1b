// What the request journal's readers ask and get (views.ts, journal-cluster.ts): plain data, the
// same in every worker.
/** An event a request appended: where it is in its stream and in the log. */
export interface JournalEvent { stream: string; revision: number; position: number; type: string }

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
