// What the tests of two PostgreSQL instances need beside twoGateways (two-gateways.ts): holding
// back one instance's notifications, so that its memory stays behind the other's commits for as
// long as a test needs, and counting the head reads made on behalf of some code path.
import type { Test } from 'tap';
import type pg from 'pg';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import type { ServerMemory } from '../../store/postgres/memory.js';
import { readPayload } from '../../store/postgres/schema.js';
import type { buildTestApp } from './app.js';
import { waitFor } from './poll.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;

/** The instance's store (through the epochs view: what is set on it is set on the store). */
export const storeOf = (app: App) => app.gateway.store as unknown as PostgresEventStore;

/** What `holdNotifications` returns: `run` for each request to the held instance, `release` to end it. */
export interface Held {
  /**
   * A request to the held instance: while it runs, its reads of the server and every other go out
   * (they may show memory commits made after the hold began, as they would without it); resolves
   * with its reply once no read of the instance's is in flight again.
   */
  run<T>(request: () => Promise<T>): Promise<T>;
  release(): void;
}

/** The store's head read: its reads in flight are shared (head-reads.ts), so one is never held, only the calls before it. */
const HEAD_STATEMENT = 'tokengate-head';

/**
 * Holds back, until `release`, every way the instance's memory could learn of commits made after
 * the hold began, but while a request `run` sends runs: the notifications its LISTEN connection
 * hears, and the reads of the server made by anything else on it (its read models' look every
 * second and catch-ups, its reactors' polls): a head read or a read of the log shows positions
 * memory has not accounted for, and memory then stands back from every stream; a read of a stream
 * remembers it as it is now. It resolves once no read of the instance's is in flight and its memory
 * has accounted for every commit before the hold (their notifications go through): from then on,
 * between requests, its memory answers exactly as it does now whatever the other instance commits.
 * Product code is untouched: only when its other reads reach the server and notifications arrive moves.
 */
export async function holdNotifications(t: Test, app: App): Promise<Held> {
  const store = storeOf(app) as unknown as StoreInside;
  // The class's methods as they are when called (countHeadReads may patch the prototype meanwhile).
  const original = PostgresEventStore.prototype as unknown as StoreInside;
  const held: Array<{ last: bigint | undefined; go: () => void }> = [];
  let holding = true;
  let running = 0;
  let before = -1n;
  const later = <T>(go: () => Promise<T>): Promise<T> => {
    if (!holding || running > 0) return go();
    return new Promise<T>((resolve, reject) => { held.push({ last: undefined, go: () => { go().then(resolve, reject); } }); });
  };
  store.notified = function notified(this: StoreInside, payload) {
    const last = readPayload(payload)?.last;
    if (!holding || (last !== undefined && last <= before)) return original.notified.call(this, payload);
    held.push({ last, go: () => original.notified.call(this, payload) });
  };
  store.headPosition = function headPosition(this: StoreInside) {
    return later(() => original.headPosition.call(this));
  };
  store.query = function query(this: StoreInside, statement, values) {
    if (statement.name === HEAD_STATEMENT) return original.query.call(this, statement, values);
    return later(() => original.query.call(this, statement, values));
  };
  const release = () => {
    if (!holding) return;
    holding = false;
    delete (store as Partial<StoreInside>).notified;
    delete (store as Partial<StoreInside>).headPosition;
    delete (store as Partial<StoreInside>).query;
    for (const { go } of held.splice(0)) go();
  };
  t.teardown(release);
  await idle(store);
  // The commits up to the head as it is now were made before the hold: their notifications go through.
  const { rows } = await store.pool.query<{ head: string }>('SELECT coalesce(max(position), 0)::text AS head FROM tokengate_events');
  before = BigInt(rows[0]?.head ?? '0');
  for (const entry of held.filter(({ last }) => last !== undefined && last <= before)) {
    held.splice(held.indexOf(entry), 1);
    entry.go();
  }
  await waitFor(() => store.memory.accountedFor(before, 100), 'the held instance accounting for every commit before the hold');
  const run = async <T>(request: () => Promise<T>): Promise<T> => {
    running += 1;
    try {
      return await request();
    } finally {
      running -= 1;
      await idle(store);
    }
  };
  return { release, run };
}

/** Once no read of `store`'s is in flight (a few looks apart: a read that leads to another is seen). */
async function idle(store: StoreInside): Promise<void> {
  const pool = store.pool;
  let looks = 0;
  await waitFor(() => {
    looks = pool.totalCount === pool.idleCount && pool.waitingCount === 0 ? looks + 1 : 0;
    return looks >= 3;
  }, 'no read of the held instance in flight', { intervalMs: 5 });
}

/** The members of the store the hold replaces or reads (private to the class, reached by tests only). */
interface StoreInside {
  notified(payload: string | undefined): void;
  headPosition(): Promise<bigint>;
  query(statement: { name: string }, values: unknown[]): Promise<unknown>;
  readonly pool: Pick<pg.Pool, 'totalCount' | 'idleCount' | 'waitingCount' | 'query'>;
  readonly memory: Pick<ServerMemory, 'accountedFor'>;
}

/**
 * Counts the head reads asked with one of the functions `callers` matches in the call stack (the
 * reactors' and the read models' own timers run meanwhile and are not counted).
 */
export function countHeadReads(t: Test, callers: RegExp): { reads: number } {
  const counter = { reads: 0 };
  const original = PostgresEventStore.prototype.headPosition;
  PostgresEventStore.prototype.headPosition = function headPosition(this: PostgresEventStore) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 100;
    const stack = new Error('where').stack ?? '';
    Error.stackTraceLimit = limit;
    if (callers.test(stack)) counter.reads += 1;
    return original.call(this);
  };
  t.teardown(() => { PostgresEventStore.prototype.headPosition = original; });
  return counter;
}
