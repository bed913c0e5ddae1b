// Another instance's events, as the PostgreSQL store reads them from the server: their data and
// metadata kept as the row's JSON text and parsed when a reader first asks, once, frozen
// (store/postgres/rows.ts), so following a busy instance costs no parse of what nobody reads; what
// a reader sees is the same. A reactor may look at the text first (store/event-text.ts).
import { parsesOf } from '../helpers/json-parse-count.js';
import t from 'tap';
import pg from 'pg';
import type { RecordedEvent } from '../../store/event-store.js';
import { dataMayMention, metadataMayMention } from '../../store/event-text.js';
import { PostgresEventStore } from '../../store/postgres/event-store.js';
import { frozenRecorded } from '../../store/postgres/rows.js';
import { newEvent } from './contract.js';
import { waitFor } from '../helpers/poll.js';
import { postgresForFile } from '../helpers/postgres.js';

const server = postgresForFile(t);

/** Every member frozen, throughout. */
const deeplyFrozen = (value: unknown): boolean =>
  typeof value !== 'object' || value === null || (Object.isFrozen(value) && Object.values(value).every(deeplyFrozen));

const row = (data: string) => ({ position: '7', id: 'id-7', stream: 'order-7', revision: '0', type: 'PaymentRecorded', data, metadata: '{}', created: '2026-11-28 17:43:09.38+00' });

t.test('dataMayMention: false only when the unparsed text proves the word absent', async (t) => {
  const plain = { data: { outcome: { result: 'SUCCESS' } } };
  t.ok(dataMayMention(plain, 'UNKNOWN'), 'an event without a text (any other store\'s): may');
  const success = frozenRecorded(row('{"outcome":{"result":"SUCCESS"},"merchantId":"M-1"}'));
  t.notOk(dataMayMention(success, 'UNKNOWN'), 'a text without the word: no');
  t.ok(dataMayMention(success, 'M-1'), 'a text with it: may');
  t.ok(dataMayMention(frozenRecorded(row('{"outcome":{"result":"\\u0055NKNOWN"}}')), 'UNKNOWN'), 'a text with a \\u escape (which may spell it): may');
  t.same(success.data, { outcome: { result: 'SUCCESS' }, merchantId: 'M-1' }, 'the data as the text says');
  t.ok(dataMayMention(success, 'UNKNOWN'), 'once parsed, the text is gone: may');
  t.same(Object.getOwnPropertySymbols({ ...success }), [], 'the look at the text is no member a spread copies');
  const named = frozenRecorded({ ...row('{}'), metadata: '{"requestId":"abc-1"}' });
  t.notOk(metadataMayMention(named, 'xyz-'), 'the metadata\'s text without the word: no');
  t.ok(metadataMayMention(named, 'abc-'), 'with it: may');
  t.same(named.metadata, { requestId: 'abc-1' });
  t.ok(metadataMayMention(named, 'xyz-'), 'once parsed: may');
  t.same(Object.keys(success), ['id', 'type', 'data', 'metadata', 'stream', 'revision', 'position', 'created'], "a RecordedEvent's members, in order");
});

if (server) {
  t.test("another instance's event: nothing parsed until its data or metadata is read, then once, frozen", async (t) => {
    const url = await server.get().createDatabase('lazy');
    const writer = new PostgresEventStore(url);
    const follower = new PostgresEventStore(url, { pollIntervalMs: 50 });
    t.teardown(async () => { await follower.close(); await writer.close(); });
    const dataParses = parsesOf('data-marker-51f3');
    const metadataParses = parsesOf('meta-note-8c2e');
    const delivered: RecordedEvent[] = [];
    const subscription = follower.subscribeAll({}, { onEvent: (e) => { delivered.push(e); } });
    t.teardown(() => subscription.close());
    await subscription.caughtUp;
    const event = newEvent('Lazy', { marker: 'data-marker-51f3', nested: { list: [1, { deep: true }] } });
    event.metadata = { ...event.metadata, note: 'meta-note-8c2e' };
    await writer.append('lazy-1', [event]);
    await waitFor(() => delivered.some((e) => e.stream === 'lazy-1'), "the writer's event delivered to the follower");
    const seen = delivered.find((e) => e.stream === 'lazy-1') as RecordedEvent;
    const read = (await follower.readAll()).find((e) => e.stream === 'lazy-1');
    const streamRead = (await follower.readStream('lazy-1'))[0];
    t.ok(read !== undefined && streamRead !== undefined, 'read by readAll and readStream too');
    t.same([seen.type, seen.stream, seen.revision, seen.id], ['Lazy', 'lazy-1', 0n, event.id], 'its type, stream, revision and id read');
    t.equal(dataParses(), 0, 'its data not parsed: nobody read it');
    t.equal(metadataParses(), 0, 'its metadata not parsed');

    const data = seen.data as { marker: string; nested: { list: unknown[] } };
    t.same(data, event.data, 'read: the data appended');
    t.equal(dataParses(), 1, 'parsed once');
    t.equal(seen.data, data, 'read again: the same value');
    t.equal(dataParses(), 1, 'not parsed again');
    t.ok(deeplyFrozen(data) && Object.isFrozen(seen), 'frozen throughout');
    t.throws(() => { (data.nested.list[1] as { deep: boolean }).deep = false; }, TypeError, 'a change refused');
    t.throws(() => { (seen as { data: unknown }).data = {}; }, TypeError, 'the member itself refuses a new value');
    t.equal(metadataParses(), 0, 'the metadata still not parsed');
    t.same(seen.metadata, event.metadata, 'the metadata appended');
    t.equal(metadataParses(), 1, 'then parsed once');
    t.ok(deeplyFrozen(seen.metadata), 'frozen too');
    const copy = { ...seen };
    t.same(copy.data, event.data, 'a spread copies the value');
    t.equal(dataParses() + metadataParses(), 2, 'without parsing again');
    t.same(streamRead, seen, 'readStream: the same event');
  });

  t.test('a row whose JSON does not parse cannot be written: the server refuses it', async (t) => {
    const url = await server.get().createDatabase('unreadable');
    const store = new PostgresEventStore(url);
    t.teardown(() => store.close());
    await store.append('fine-1', [newEvent()]);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    t.teardown(() => admin.end());
    await t.rejects(admin.query(`INSERT INTO tokengate_events VALUES (2, 'bad-id', 'bad-1', 0, 'Bad', '{"a":', '{}', now())`),
      { code: '22P02' }, 'invalid input syntax for type json');
    t.equal((await store.readAll()).length, 1, 'the log holds the one event written');
  });
}
