// The reactors' host (services/reactors.ts) and what every reactor shares (services/reactor.ts):
// one subscription to the log for all reactors, each handed only the events after its own start
// position and of its types; a reactor stopped alone, then all together; failed work logged in one
// line (name, key, message with no card number, attempt, next delay) and retried with a delay that
// doubles up to a cap; the gateway's root opens one subscription for its four reactors.
import t from 'tap';
import { randomUUID } from 'node:crypto';
import { MAX_RETRY_MS, Reactor, retryDelay, type ReactorLog } from '../../services/reactor.js';
import { ReactorHost } from '../../services/reactors.js';
import type { ReadModels } from '../../projections/read-models.js';
import { MemoryEventStore } from '../../store/memory.js';
import type { EventStore, RecordedEvent } from '../../store/event-store.js';
import { openGateway } from '../../root.js';
import { loadGatewaySettings } from '../../config.js';
import { parseMerchants } from '../../merchants.js';
import { MERCHANTS } from '../helpers/app.js';
import { sleep, waitFor } from '../helpers/poll.js';

/** A reactor that records what it is handed, starting after `startAt`, of `types` only (all: undefined). */
class Probe extends Reactor {
  readonly seen: bigint[] = [];
  override readonly eventTypes: ReadonlySet<string> | undefined = undefined;
  constructor(store: EventStore, readonly name: string, private readonly startAt: bigint, types?: string[], delayMs = 20) {
    super(store, {} as ReadModels, delayMs);
    this.eventTypes = types ? new Set(types) : undefined;
  }
  protected async prepare(): Promise<bigint> {
    return this.startAt;
  }
  protected onEvent(event: RecordedEvent): void {
    this.seen.push(event.position);
  }
  run(key: string, delayMs: number, work: () => Promise<void>): void {
    this.schedule(key, delayMs, work);
  }
}

const append = (store: EventStore, type: string) => store.append(`thing-${randomUUID()}`, [{
  id: randomUUID(), type, data: {}, metadata: { correlationId: 'c', recordedAt: new Date().toISOString() },
}]);

/** The memory store, its subscriptions counted. */
function counted() {
  const store = new MemoryEventStore();
  const counter = { subscriptions: 0 };
  const wrapped = Object.assign(Object.create(store) as EventStore, {
    subscribeAll: (...args: Parameters<EventStore['subscribeAll']>) => {
      counter.subscriptions += 1;
      return store.subscribeAll(...args);
    },
  });
  return { store: wrapped, counter };
}

t.test('one subscription hands each reactor the events after its own start, of its types', async (t) => {
  const { store, counter } = counted();
  for (const type of ['A', 'B', 'A']) await append(store, type);
  const a = new Probe(store, 'a', 0n, ['A']);
  const b = new Probe(store, 'b', 2n);
  const c = new Probe(store, 'c', 1n, ['B']);
  const host = new ReactorHost(store, [a, b, c]);
  await host.start();
  await host.caughtUp;
  t.equal(counter.subscriptions, 1, 'one subscription for three reactors');
  t.same(a.seen, [1n, 3n], 'a: every A');
  t.same(b.seen, [3n], 'b: nothing its start covered (positions 1 and 2)');
  t.same(c.seen, [2n], 'c: the B after its start');

  await append(store, 'B');
  await waitFor(() => b.seen.length === 2, 'b sees position 4');
  t.same(c.seen, [2n, 4n], 'live events too');
  t.same(a.seen, [1n, 3n], 'not handed to a reactor of other types');

  await a.stop();
  await append(store, 'A');
  await waitFor(() => b.seen.length === 3, 'b sees position 5');
  t.same(a.seen, [1n, 3n], 'a reactor stopped alone is handed nothing more');

  await host.stop();
  await append(store, 'A');
  await append(store, 'B');
  await sleep(20); // nothing may be handed over after stop(): waiting is the test
  t.same(b.seen, [3n, 4n, 5n], 'nothing after the host stopped');
  t.same(c.seen, [2n, 4n]);
  t.equal(counter.subscriptions, 1);
});

t.test('stop cancels pending work and waits for work under way', async (t) => {
  const { store } = counted();
  const probe = new Probe(store, 'probe', 0n);
  const host = new ReactorHost(store, [probe]);
  await host.start();
  let later = false;
  probe.run('later', 60_000, async () => { later = true; });
  let finished = false;
  let started!: () => void;
  const running = new Promise<void>((resolve) => { started = resolve; });
  probe.run('now', 0, async () => {
    started();
    await sleep(20); // work that takes a while: stop() must wait for it
    finished = true;
  });
  await running;
  await host.stop();
  t.ok(finished, 'the work under way finished before stop resolved');
  t.notOk(later, 'the pending work never ran');
});

t.test('work due beyond setTimeout\'s longest delay (about 24.8 days) waits, rather than running at once', async (t) => {
  const { store } = counted();
  const probe = new Probe(store, 'probe', 0n);
  const host = new ReactorHost(store, [probe]);
  await host.start();
  t.teardown(() => host.stop());
  let far = 0;
  // A payment link may last longer than 2^31 - 1 ms: node fires such a timer after 1 ms.
  probe.run('far', 40 * 86_400_000, async () => { far += 1; });
  let marked!: () => void;
  const marker = new Promise<void>((resolve) => { marked = resolve; });
  probe.run('marker', 100, async () => { marked(); });
  await marker;
  t.equal(far, 0, 'the work 40 days away has not run');
});

t.test('failed work is logged in one line each time and retried with a growing delay', async (t) => {
  const { store } = counted();
  const lines: Array<{ fields: Record<string, unknown>; message: string }> = [];
  const log: ReactorLog = { warn: (fields, message) => { lines.push({ fields, message }); } };
  const probe = new Probe(store, 'probe', 0n, undefined, 20);
  const host = new ReactorHost(store, [probe], log);
  await host.start();
  let calls = 0;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => { done = resolve; });
  probe.run('order-M1:7', 0, async () => {
    calls += 1;
    if (calls <= 2) throw new Error(`the store refused (card 5123450000000008, try ${calls})`);
    done();
  });
  await finished;
  await host.stop();
  t.equal(calls, 3, 'tried three times: finished');
  t.equal(lines.length, 2, 'one line per failure');
  t.same(lines.map(({ fields }) => [fields.reactor, fields.key, fields.attempt, fields.nextDelayMs]),
    [['probe', 'order-M1:7', 1, 20], ['probe', 'order-M1:7', 2, 40]], 'the attempt, and a delay that grows');
  for (const { fields, message } of lines) {
    t.match(message, /^reactor probe: work on order-M1:7 failed \(attempt \d\), retried in \d+ ms: the store refused/, message);
    t.match(String(fields.error), /the store refused/);
    t.notMatch(`${message} ${JSON.stringify(fields)}`, /5123450000000008/, 'no card number');
    t.match(message, /512345xxxxxx0008/, 'masked as the gateway shows it');
  }
});

t.test('the retry delay doubles from the reactor\'s delay up to a cap', async (t) => {
  t.same([1, 2, 3, 4].map((attempt) => retryDelay(1000, attempt)), [1000, 2000, 4000, 8000]);
  t.equal(retryDelay(2000, 6), MAX_RETRY_MS, 'capped');
  t.equal(retryDelay(5000, 1000), MAX_RETRY_MS, 'however many attempts');
  t.ok(retryDelay(0, 1) > 0, 'a reactor without delay does not spin');
});

t.test('the gateway follows the log once for its four reactors (and once for its read models)', async (t) => {
  const original = MemoryEventStore.prototype.subscribeAll;
  let subscriptions = 0;
  MemoryEventStore.prototype.subscribeAll = function (this: MemoryEventStore, ...args) {
    subscriptions += 1;
    return original.apply(this, args);
  };
  t.teardown(() => { MemoryEventStore.prototype.subscribeAll = original; });
  const gateway = await openGateway({ kind: 'memory' }, parseMerchants(MERCHANTS, 'test merchants'), loadGatewaySettings({}));
  await gateway.tokenShredder.settled();
  await gateway.close();
  t.equal(subscriptions, 2);
});
