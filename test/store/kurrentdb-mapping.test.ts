// Everything of the KurrentDB adapter that needs no server: expected revisions, events and their
// metadata, positions, the $all filter, error translation (with the client's own error classes
// and with objects shaped like them), connection strings, EVENT_STORE parsing, and the gateway's
// wiring of the kurrentdb store (files, errors at start-up).
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import t from 'tap';
import {
  AccessDeniedError, excludeSystemEvents, jsonEvent, StreamNotFoundError, streamNameFilter, UnavailableError,
  WrongExpectedVersionError, type AllStreamResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { ConfigError, loadConfig, parseEventStore } from '../../config.js';
import { parseMerchants } from '../../merchants.js';
import { openGateway } from '../../root.js';
import { WrongExpectedRevisionError, type EventData } from '../../store/event-store.js';
import {
  allFilter, fromKurrentPosition, fromMetadata, fromResolvedEvent, isStreamNotFound, isTransient, KurrentDbUnavailableError,
  parseKurrentDbUrl, toJsonEvent, toReadPosition, toStreamState, translateAppendError, translateClientError,
} from '../../store/kurrentdb-mapping.js';
import { MERCHANTS } from '../helpers/app.js';

const event = (overrides: Partial<EventData> = {}): EventData => ({
  id: '0b7c2a5e-4f1d-4e7a-9c3b-2d8e6f1a5b9c',
  type: 'PaymentRecorded',
  data: { amount: 1250, currency: 'USD', card: { number: '512345xxxxxx0008' }, list: [1, null, 'ü'] },
  metadata: { correlationId: 'corr-1', causationId: 'req-1', requestId: 'req-1', merchantId: 'TESTMERCHANT01', recordedAt: '2026-11-21T22:42:23.513Z' },
  ...overrides,
});

/** What the client hands back for a stored JSON event (it parses data and metadata itself). */
function asRead(e: ReturnType<typeof toJsonEvent>, at: { stream: string; revision: bigint; commit: bigint; prepare?: bigint }): AllStreamResolvedEvent {
  return {
    event: {
      streamId: at.stream, id: e.id, isJson: true, revision: at.revision, type: e.type, created: new Date('2026-11-21T22:42:23.600Z'),
      data: JSON.parse(JSON.stringify(e.data)) as Record<string, unknown>,
      metadata: JSON.parse(JSON.stringify(e.metadata)) as Record<string, unknown>,
      position: { commit: at.commit, prepare: at.prepare ?? at.commit },
    },
    commitPosition: at.commit,
  };
}

t.test('expected revisions map to the client’s stream states', async (t) => {
  t.equal(toStreamState('any'), 'any');
  t.equal(toStreamState('no_stream'), 'no_stream');
  t.equal(toStreamState('stream_exists'), 'stream_exists');
  t.equal(toStreamState(0n), 0n);
  t.equal(toStreamState(41n), 41n);
  t.throws(() => toStreamState(-1n), RangeError, 'a negative revision is refused, not sent');
});

t.test('an event becomes the client’s JSON event with our id and the reserved metadata members', async (t) => {
  const ours = event();
  const json = toJsonEvent(ours);
  t.equal(json.id, ours.id, 'our event id is the KurrentDB event id (the server’s idempotency key)');
  t.equal(json.contentType, 'application/json');
  t.equal(json.type, 'PaymentRecorded');
  t.same(json.data, ours.data);
  t.same(json.metadata, { ...ours.metadata, $correlationId: 'corr-1', $causationId: 'req-1' });
  t.same(Object.keys(json).sort(), Object.keys(jsonEvent({ id: ours.id, type: 'x', data: {}, metadata: {} })).sort(), 'the shape jsonEvent() makes');

  const data = ours.data as { amount: number };
  data.amount = 1;
  ours.metadata.correlationId = 'changed';
  t.equal((json.data as { amount: number }).amount, 1250, 'data is copied when the append is called');
  t.equal((json.metadata as { correlationId: string }).correlationId, 'corr-1', 'metadata too');

  const { causationId: _none, ...withoutCausation } = event().metadata;
  const noCause = toJsonEvent(event({ metadata: withoutCausation }));
  t.notOk('$causationId' in (noCause.metadata as object), 'no $causationId when there is no causation id');
  t.equal((noCause.metadata as { $correlationId: string }).$correlationId, 'corr-1');

  t.throws(() => toJsonEvent(event({ id: 'e1' })), /not a UUID/);
  t.throws(() => toJsonEvent(event({ type: '$metadata' })), /reserves for system events/);
  t.throws(() => toJsonEvent(event({ data: undefined })), /not JSON/);
});

t.test('a resolved event reads back as ours, exactly as appended', async (t) => {
  const ours = event();
  const read = fromResolvedEvent(asRead(toJsonEvent(ours), { stream: 'order-TESTMERCHANT01-10000000001', revision: 3n, commit: 18_442n }));
  t.same(read, {
    ...ours, stream: 'order-TESTMERCHANT01-10000000001', revision: 3n, position: 18_442n, created: '2026-11-21T22:42:23.600Z',
  }, 'id, type, data, metadata without $ members; revision; commit position; created as ISO 8601');

  const prefixed = fromResolvedEvent(asRead(toJsonEvent(ours), { stream: 'run7-order-1', revision: 0n, commit: 9n }), 'run7-');
  t.equal(prefixed?.stream, 'order-1', 'a store prefix is removed');
  t.equal(fromResolvedEvent(asRead(toJsonEvent(ours), { stream: 'run8-order-1', revision: 0n, commit: 9n }), 'run7-'), undefined, 'another prefix is not ours');

  const system = asRead(toJsonEvent(ours), { stream: '$stats-127.0.0.1:2113', revision: 0n, commit: 5n });
  system.event!.type = '$statsCollected';
  t.equal(fromResolvedEvent(system), undefined, 'system events are not ours');
  t.equal(fromResolvedEvent({ commitPosition: 5n }), undefined, 'nor is a link whose event is gone');

  const old = asRead(toJsonEvent(ours), { stream: 'order-1', revision: 0n, commit: 77n });
  delete (old.event as { position?: unknown }).position;
  t.equal(fromResolvedEvent(old)?.position, 77n, 'a stream read without event positions falls back to the commit position');
  delete old.commitPosition;
  t.throws(() => fromResolvedEvent(old), /KurrentDB 22\.6 or later/);
});

t.test('metadata from other writers: $ members dropped, correlation id and time filled in', async (t) => {
  t.same(fromMetadata({ $correlationId: 'c', $causationId: 'x', other: 1 }, '2026-01-01T00:00:00.000Z'),
    { other: 1, correlationId: 'c', recordedAt: '2026-01-01T00:00:00.000Z' });
  t.same(fromMetadata(undefined, '2026-01-01T00:00:00.000Z'), { correlationId: '', recordedAt: '2026-01-01T00:00:00.000Z' });
  t.same(fromMetadata(new Uint8Array([1, 2]), 'x'), { correlationId: '', recordedAt: 'x' }, 'binary metadata is not ours');
});

t.test('positions: the commit position, strictly increasing in $all order, and back', async (t) => {
  t.equal(fromKurrentPosition({ commit: 1_234_567n, prepare: 1_234_567n }), 1_234_567n);
  t.equal(toReadPosition(0n), 'start', '0n: before the first event');
  t.same(toReadPosition(1_234_567n), { commit: 1_234_567n, prepare: 1_234_567n }, 'commit = prepare for events appended over gRPC');
  const inAllOrder = [{ commit: 0n, prepare: 0n }, { commit: 226n, prepare: 226n }, { commit: 431n, prepare: 431n }, { commit: 2n ** 40n, prepare: 2n ** 40n }];
  const mapped = inAllOrder.map(fromKurrentPosition);
  t.ok(mapped.every((p, i) => i === 0 || p > (mapped[i - 1] as bigint)), 'order is kept');
  t.same(mapped.map(toReadPosition).slice(1), inAllOrder.slice(1), 'and reading resumes exactly where it left off');
});

t.test('the $all filter leaves system events out, or keeps one stream prefix', async (t) => {
  const defined = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  t.same(allFilter(), defined(excludeSystemEvents()), 'the client’s own excludeSystemEvents()');
  t.same(allFilter('run7-'), defined(streamNameFilter({ prefixes: ['run7-'] })), 'a stream-name prefix filter for a prefixed store');
});

t.test('client errors are translated at the boundary', async (t) => {
  const conflict = new WrongExpectedVersionError(undefined, { streamName: 'run7-order-1', expected: 1n, current: 2n });
  const translated = translateAppendError(conflict, 'order-1', 1n);
  t.type(translated, WrongExpectedRevisionError);
  t.match(translated, { name: 'WrongExpectedRevisionError', stream: 'order-1', expected: 1n, actual: 2n }, 'our stream name, the revision we expected, the actual one');
  t.match(translateAppendError(new WrongExpectedVersionError(undefined, { streamName: 's', expected: 'stream_exists', current: 'no_stream' }), 's', 'stream_exists'),
    { expected: 'stream_exists', actual: 'no_stream' });
  t.match(translateAppendError({ type: 'wrong-expected-version', actualVersion: -1n }, 's', 'no_stream'), { actual: 'no_stream' },
    'an object shaped like @eventstore/db-client’s error (actualVersion, -1 for no stream)');
  t.match(translateAppendError({ type: 'wrong-expected-version', actualState: '7' }, 's', 3n), { actual: 7n });
  const denied = new AccessDeniedError();
  t.equal(translateAppendError(denied, 's', 'any'), denied, 'other errors pass unchanged');

  t.ok(isStreamNotFound(new StreamNotFoundError(undefined, 'order-1')), 'StreamNotFoundError (read as an empty stream)');
  t.ok(isStreamNotFound({ type: 'stream-not-found' }));
  t.notOk(isStreamNotFound(new UnavailableError()));

  t.ok(isTransient(new UnavailableError()), 'unavailable: retry');
  t.ok(isTransient(Object.assign(new Error('14 UNAVAILABLE: No connection established'), { code: 14 })), 'the raw gRPC error an append rejects with');
  t.notOk(isTransient(denied), 'access denied: do not retry');
  const unavailable = translateClientError(new UnavailableError(), 'kurrentdb:2113');
  t.type(unavailable, KurrentDbUnavailableError);
  t.match(unavailable, { message: 'KurrentDB at kurrentdb:2113 is unavailable: no connection', type: 'unavailable' }, 'names the node');
  t.ok(isTransient(unavailable), 'and stays transient');
  t.equal(translateClientError(denied, 'x'), denied);
});

t.test('connection strings', async (t) => {
  const require = createRequire(import.meta.url);
  const { parseConnectionString } = require('@kurrent/kurrentdb-client/dist/Client/parseConnectionString') as {
    parseConnectionString(s: string): { dnsDiscover: boolean; hosts: Array<{ address: string; port: number }>; tls?: boolean };
  };
  const single = parseKurrentDbUrl('kurrentdb://kurrentdb:2113?tls=false');
  t.same(single, { connectionString: 'kurrentdb://kurrentdb:2113?tls=false', hosts: [{ host: 'kurrentdb', port: 2113 }], tls: false, discover: false, streamPrefix: '' });
  t.same(parseConnectionString(single.connectionString), { dnsDiscover: false, hosts: [{ address: 'kurrentdb', port: 2113 }], tls: false }, 'the client reads it the same way');

  const cluster = parseKurrentDbUrl('esdb://node1:2113,node2,node3:2113/?tls=false&nodePreference=leader&streamPrefix=tg-1.');
  t.equal(cluster.connectionString, 'kurrentdb://node1:2113,node2:2113,node3:2113?tls=false&nodePreference=leader', 'esdb becomes kurrentdb; the default port; our parameter removed');
  t.equal(cluster.streamPrefix, 'tg-1.');
  t.same(parseConnectionString(cluster.connectionString).hosts.map((h) => `${h.address}:${h.port}`), ['node1:2113', 'node2:2113', 'node3:2113']);

  const discover = parseKurrentDbUrl('kurrentdb+discover://admin:changeit@cluster.example:2113');
  t.same({ ...discover, connectionString: undefined }, { connectionString: undefined, hosts: [{ host: 'cluster.example', port: 2113 }], tls: true, discover: true, streamPrefix: '' }, 'TLS unless tls=false, as the client');
  t.equal(discover.connectionString, 'kurrentdb+discover://admin:changeit@cluster.example:2113', 'credentials kept');
  t.same(parseKurrentDbUrl('kurrentdb://[::1]:2113').hosts, [{ host: '::1', port: 2113 }]);

  for (const bad of ['kurrentdb://', 'kurrentdb://h:99999', 'kurrentdb://h:x', 'http://h:2113', 'kurrentdb://h?streamPrefix=$all']) {
    t.throws(() => parseKurrentDbUrl(bad), Error, bad);
  }
});

t.test('EVENT_STORE=kurrentdb://... is parsed by config.ts', async (t) => {
  t.same(parseEventStore('kurrentdb://kurrentdb:2113?tls=false'), { kind: 'kurrentdb', url: 'kurrentdb://kurrentdb:2113?tls=false' });
  t.same(parseEventStore('esdb://localhost:2113?tls=false'), { kind: 'kurrentdb', url: 'esdb://localhost:2113?tls=false' });
  t.same(loadConfig({ EVENT_STORE: 'kurrentdb://kurrentdb:2113?tls=false' }).eventStore, { kind: 'kurrentdb', url: 'kurrentdb://kurrentdb:2113?tls=false' });
});

t.test('the gateway opens a kurrentdb store with local read models and a key-store file', async (t) => {
  const merchants = parseMerchants(MERCHANTS, 'test merchants');
  await t.rejects(openGateway({ kind: 'kurrentdb', url: 'kurrentdb://' }, merchants), ConfigError, 'a bad URL stops the start with a ConfigError');

  // A port nobody listens on: the start fails, naming the node, after creating the two local files.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const dir = t.testdir();
  const saved = { KEYS_FILE: process.env.KEYS_FILE, READ_MODELS_FILE: process.env.READ_MODELS_FILE };
  process.env.KEYS_FILE = join(dir, 'shared', 'keys.db');
  process.env.READ_MODELS_FILE = join(dir, 'local', 'read-models.db');
  try {
    await t.rejects(openGateway({ kind: 'kurrentdb', url: `kurrentdb://127.0.0.1:${port}?tls=false` }, merchants),
      { name: 'StoreUnavailable', message: new RegExp(`^the event store kurrentdb://127\\.0\\.0\\.1:${port}\\?tls=false cannot be opened: KurrentDB at 127\\.0\\.0\\.1:${port} is unavailable`) });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  t.ok(existsSync(join(dir, 'shared', 'keys.db')), 'KEYS_FILE holds the keys');
  t.ok(existsSync(join(dir, 'local', 'read-models.db')), 'READ_MODELS_FILE holds the read models');
});
