// A projection folds events of the $all log into documents of a read model, one document per key.
import type { ProjectedEvent } from '../store/event-store.js';

export interface Projection<Doc = unknown> {
  /** Names the read model; documents live under this name. */
  readonly name: string;
  /** Bump when evolve changes: a stored model of another version is rebuilt at start-up. */
  readonly version: number;
  /**
   * When its documents are written (default 'inline'): 'inline' in the commit of the events
   * (SQLite) or by the catch-up before the reply; 'deferred' in batches after the reply: the
   * events are held in memory (in order, from the projection's checkpoint on) and applied by a
   * catch-up a few ms later, and before any read of the read models in this process, so every read
   * still sees its own writes. A crash loses only the held batch: its events are in the log, the
   * checkpoint is behind them, and the catch-up at start applies them (projections/read-models.ts).
   *
   * 'onRead': not written while the gateway serves at all: a read of its documents (or of its
   * checkpoint, or the hash) first applies the log from its checkpoint on, in pages. For a read
   * model no request's answer reads (the order documents: histories fold the events themselves,
   * the CLI and tests read it). Where the store cannot be read synchronously on the read models'
   * connection (no feed: KurrentDB, memory) it is kept as a deferred one.
   */
  readonly apply?: 'inline' | 'deferred' | 'onRead';
  /** Event types this projection reads. */
  readonly handles: ReadonlySet<string>;
  /**
   * Optional, for replays: by event type, every member of the event's data that keysOf, isNew and
   * evolve read (dotted paths into nested objects: 'outcome.result'); a type not listed is read
   * whole. A replay from the log (a rebuild, a start far behind) may hand this projection only
   * these members (dataShape, projections/page.ts): a member left out reads as absent there and not live,
   * and the rebuilt model differs (test/projections/rebuild-equals-live.test.ts catches it). A
   * member holding JSON null may arrive absent.
   */
  readonly reads?: Readonly<Partial<Record<string, readonly string[]>>>;
  /** The documents an event touches. */
  keysOf(event: ProjectedEvent): string[];
  /**
   * Optional: true when no document under `key` can exist before this event, so the read models
   * do not look it up (a lookup that finds nothing is a B-tree descent per new key, on every
   * payment and in every rebuild). Only for a key that the events of one stream alone write,
   * at that stream's first event (revision 0): nothing before it wrote the key.
   */
  isNew?(event: ProjectedEvent, key: string): boolean;
  /** Optional: the document's text, exactly what JSON.stringify writes, faster (projections/document-json.ts). */
  serialize?(doc: Doc): string;
  /** The document after the event; `undefined` in, `undefined` out leaves no document. */
  evolve(doc: Doc | undefined, event: ProjectedEvent, key: string): Doc | undefined;
}
