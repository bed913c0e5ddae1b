// For tests of two instances on one PostgreSQL database (two-gateways.ts): what one instance's
// memory hears of the other's writes held back, and the head reads asked on behalf of a request.
import type { Test } from 'tap';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import type { buildTestApp } from './app.js';

type App = Awaited<ReturnType<typeof buildTestApp>>;

/** The instance's store (through the epochs view: what is set on it is set on the store). */
export const storeOf = (app: App) => app.gateway.store as unknown as PostgresEventStore;

/** Holds back the notifications the instance's LISTEN connection hears until `release`. */
export function holdNotifications(t: Test, app: App): { release(): void } {
  const store = storeOf(app) as unknown as { notified: (payload: string | undefined) => void };
  const original = store.notified.bind(store);
  const held: Array<string | undefined> = [];
  let holding = true;
  store.notified = (payload) => { if (holding) held.push(payload); else original(payload); };
  const release = () => {
    holding = false;
    for (const payload of held.splice(0)) original(payload);
  };
  t.teardown(release);
  return { release };
}

/**
 * Counts the head reads asked with one of the functions `callers` names in the stack (the
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
