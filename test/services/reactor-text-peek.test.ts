// The reactors that read one field of every payment (the UNKNOWN resolver, the notifier) look at
// its data's text first, where the store holds it unparsed (another PostgreSQL instance's events:
// store/postgres/rows.ts, store/event-text.ts): a payment that cannot concern them is not parsed;
// one that may is handled as before.
import t from 'tap';
import type { ReadModelsPort } from '../../projections/read-models.js';
import type { EventStore, RecordedEvent } from '../../store/event-store.js';
import { dataMayMention } from '../../store/event-text.js';
import { frozenRecorded } from '../../store/postgres/rows.js';
import { Merchants, type MerchantProfile } from '../../merchants.js';
import { UnknownResolver } from '../../services/order/unknown-resolver.js';
import { Notifier } from '../../services/notification/notifier.js';

const readModels = { checkpoint: () => Promise.resolve(0n), withPrefix: () => Promise.resolve([]), get: () => Promise.resolve(undefined) } as unknown as ReadModelsPort;
const store = {} as EventStore;
const quiet = { warn: () => undefined };

let position = 0;
function payment(result: string, merchantId = 'M-PLAIN'): RecordedEvent {
  position++;
  const data = { merchantId, orderId: `o-${position}`, transactionId: '1', timeOfRecord: '2026-11-28T17:43:09.380Z', outcome: { result, gatewayCode: 'APPROVED' } };
  return frozenRecorded({ position: String(position), id: `id-${position}`, stream: `order-${merchantId}-o-${position}`, revision: '0', type: 'PaymentRecorded',
    data: JSON.stringify(data), metadata: '{}', created: '2026-11-28 17:43:09.38+00' });
}

/** Whether the event's data is still its text, unparsed (a word it lacks: only the text can say so). */
const unparsed = (event: RecordedEvent) => !dataMayMention(event, 'absent-word');
const timers = (reactor: object) => (reactor as { timers: Map<string, unknown> }).timers.size;

t.test('the UNKNOWN resolver: a payment whose text has no UNKNOWN is not parsed; an UNKNOWN one is scheduled', async (t) => {
  const resolver = new UnknownResolver(store, readModels, 3_600_000);
  await resolver.start(quiet);
  t.teardown(() => resolver.stop());
  const success = payment('SUCCESS');
  resolver.deliver(success);
  t.ok(unparsed(success), 'not parsed');
  t.equal(timers(resolver), 0, 'nothing scheduled');
  const unknown = payment('UNKNOWN');
  resolver.deliver(unknown);
  t.notOk(unparsed(unknown), 'parsed');
  t.equal(timers(resolver), 1, 'its resolution scheduled');
});

t.test('the notifier: a payment whose text names no merchant with notifications is not parsed', async (t) => {
  const notifying = { id: 'M-NOTIFY', notifications: { url: 'https://shop.example/hook' } } as unknown as MerchantProfile;
  const plain = { id: 'M-PLAIN' } as unknown as MerchantProfile;
  const notifier = new Notifier(store, readModels, new Merchants([notifying, plain]), { retryDelayMs: 1_000, maxAttempts: 3, timeoutMs: 1_000 });
  await notifier.start(quiet);
  t.teardown(() => notifier.stop());
  const event = payment('SUCCESS', 'M-PLAIN');
  notifier.deliver(event);
  t.ok(unparsed(event), 'not parsed');
  const alone = new Notifier(store, readModels, new Merchants([plain]), { retryDelayMs: 1_000, maxAttempts: 3, timeoutMs: 1_000 });
  await alone.start(quiet);
  t.teardown(() => alone.stop());
  const other = payment('SUCCESS', 'M-PLAIN');
  alone.deliver(other);
  t.ok(unparsed(other), 'without a merchant with notifications: none parsed');
});

t.test('the notifier: a payment of a merchant with notifications is parsed and scheduled; an id that extends its id is not scheduled', async (t) => {
  const notifying = { id: 'M-NOTIFY', notifications: { url: 'https://shop.example/hook' } } as unknown as MerchantProfile;
  const longer = { id: 'M-NOTIFY2' } as unknown as MerchantProfile;
  const notifier = new Notifier(store, readModels, new Merchants([notifying, longer]), { retryDelayMs: 1_000, maxAttempts: 3, timeoutMs: 1_000 });
  const scheduled: string[] = [];
  // What scheduling does next needs a store: here only whether the notifier gets that far.
  (notifier as unknown as { scheduleUntilDone: (e: RecordedEvent) => Promise<void> }).scheduleUntilDone = (e) => {
    scheduled.push(e.stream);
    return Promise.resolve();
  };
  await notifier.start(quiet);
  t.teardown(() => notifier.stop());
  const mine = payment('SUCCESS', 'M-NOTIFY');
  notifier.deliver(mine);
  const theirs = payment('SUCCESS', 'M-NOTIFY2');
  notifier.deliver(theirs);
  await new Promise((resolve) => setImmediate(resolve));
  t.notOk(unparsed(mine), "the notifying merchant's payment is parsed");
  t.notOk(unparsed(theirs), 'a payment whose merchant id extends it is parsed (its text names the shorter id)');
  t.same(scheduled, [mine.stream], "only the notifying merchant's payment is scheduled");
});
