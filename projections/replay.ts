// Replaying the log into the read models: a long stretch read ahead by the store on another
// thread while a page is applied (where it can: SQLite's feed), then page by page; a rebuild's
// replay may stop at a position or an instant (time travel).
import type { Maybe } from '../lib/maybe.js';
import type { EventStore, ProjectedEvent, ReadAllOptions, RecordedEvent } from '../store/event-store.js';
import type { ProjectionFeed } from '../store/projection-feed.js';
import { dataShape } from './page.js';
import type { Projection } from './projection.js';
import type { RebuildOptions, RebuildResult } from './read-models-port.js';
import type { LocalTables, SharedTables } from '../store/read-model-tables.js';

/** What a replay reads from and writes to (the runner, projections/read-models.ts). */
export interface ReplayTarget {
  readonly page: number;
  readonly store: EventStore;
  readonly feed: ProjectionFeed | undefined;
  /** One page applied to `only`, in one transaction. */
  write(events: readonly ProjectedEvent[], only: readonly Projection[]): Maybe<void>;
}

/** The log for folding read models: the store's reads for projections (no ids, no metadata) where it has them. */
export function readForProjections(target: ReplayTarget, options: ReadAllOptions): Promise<ProjectedEvent[]> {
  return target.feed?.readAllForProjections ? target.feed.readAllForProjections(options) : target.store.readAll(options);
}

/**
 * Apply the log in (from, until] to `only`, read ahead by the store while a page is applied, if
 * it can (else nothing); of each event's data, only what those projections read (their `reads`).
 */
export async function replayAhead(target: ReplayTarget, from: bigint, until: bigint, only: readonly Projection[], onPage?: (page: readonly ProjectedEvent[]) => void): Promise<void> {
  const readPagesAhead = target.feed?.readPagesAhead;
  if (!readPagesAhead) return;
  for await (const page of readPagesAhead({ fromPosition: from, untilPosition: until, pageSize: target.page, data: dataShape(only) })) {
    await target.write(page, only);
    onPage?.(page);
  }
}

/**
 * Replay the whole log into `only` (dropped before), up to `options.untilPosition` or
 * `options.untilTime` (each event's metadata.recordedAt), telling `onProgress` after every page.
 */
export async function replayLog(target: ReplayTarget, head: bigint, only: readonly Projection[], options: RebuildOptions): Promise<RebuildResult> {
  const untilTime = options.untilTime?.toISOString();
  const started = performance.now();
  let position = 0n;
  let events = 0;
  const replayed = (page: readonly ProjectedEvent[]) => {
    events += page.length;
    position = page.at(-1)?.position ?? position;
    options.onProgress?.(events, position, head);
  };
  if (untilTime === undefined) {
    const until = options.untilPosition !== undefined && options.untilPosition < head ? options.untilPosition : head;
    await replayAhead(target, 0n, until, only, replayed);
  }
  // Then page by page: everything (time travel reads metadata; a store that cannot read ahead),
  // or what was appended since the replay began (nothing past untilPosition).
  for (;;) {
    const page: ReadonlyArray<ProjectedEvent & { metadata?: RecordedEvent['metadata'] }> = untilTime === undefined
      ? await readForProjections(target, { fromPosition: position, maxCount: target.page })
      : await target.store.readAll({ fromPosition: position, maxCount: target.page });
    const stop = page.findIndex((e) =>
      (options.untilPosition !== undefined && e.position > options.untilPosition) ||
      (untilTime !== undefined && String(e.metadata?.recordedAt ?? e.created) > untilTime));
    const slice = stop < 0 ? page : page.slice(0, stop);
    await target.write(slice, only);
    replayed(slice);
    if (stop >= 0 || page.length < target.page) break;
  }
  const seconds = (performance.now() - started) / 1000;
  return { events, position, seconds, eventsPerSecond: seconds > 0 ? events / seconds : events };
}

/**
 * 'onRead' models on shared tables (those `projection` names; undefined: all), brought up by a read:
 * the log after each one's checkpoint up to `head` (the one the read read when it began), a page
 * per transaction (another instance bringing one up at once: each page's transaction skips what
 * the other applied).
 */
export function bringUpShared(target: ReplayTarget, tables: SharedTables, onRead: readonly Projection[], head: bigint, projection?: string): Promise<void> | undefined {
  const models = onRead.filter((p) => projection === undefined || p.name === projection);
  return models.length === 0 ? undefined : bringUp(target, tables, models, head);
}

async function bringUp(target: ReplayTarget, tables: SharedTables, models: readonly Projection[], head: bigint): Promise<void> {
  for (const model of models) {
    for (let from = await tables.checkpoint(model.name); from < head;) {
      const page = await readForProjections(target, { fromPosition: from, maxCount: target.page });
      const until = page.findIndex((e) => e.position > head);
      const slice = until < 0 ? page : page.slice(0, until);
      if (slice.length === 0) break;
      await target.write(slice, [model]);
      from = (slice.at(-1) as ProjectedEvent).position;
    }
  }
}

/**
 * An 'onRead' model on this process's own tables, brought up by a read: the log after its
 * checkpoint, up to what this connection last committed, a page per transaction through `write`
 * (so every event this process answered for is in it). Synchronous: the first read after a long
 * run replays that run.
 */
export function bringUpLocal(target: ReplayTarget, tables: LocalTables, projection: Projection, write: (page: readonly ProjectedEvent[]) => void): void {
  const feed = target.feed;
  if (!feed?.readForProjectionsNow) return;
  for (;;) {
    const page = feed.readForProjectionsNow(tables.checkpoint(projection.name), target.page);
    write(page);
    if (page.length < target.page) return;
  }
}
