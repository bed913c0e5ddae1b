// The pure half of the KurrentDB adapter: how our port's values become the client's and back.
// No I/O and no runtime import of @kurrent/kurrentdb-client (types only), so these functions
// are unit-tested without a server and the client (gRPC, native bridge) loads only when
// EVENT_STORE=kurrentdb:// asks for it.
//
// Positions. KurrentDB places an event at {commit, prepare}, two offsets in its transaction
// log. Every event appended through gRPC is an implicitly committed record whose commit and
// prepare positions are both its own log offset (they differ only for the explicit
// transactions of the retired TCP API). So our single bigint position is the commit position:
// unique per event, strictly increasing in $all order, and turned back into {commit: p,
// prepare: p} to read or subscribe after it. Positions are therefore sparse byte offsets, not
// 1, 2, 3; 0n still means "before the first event".
import type {
  AllStreamResolvedEvent, AppendStreamState, Filter, JSONEventData, Position, ReadPosition, ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import type { KurrentDBClient } from '@kurrent/kurrentdb-client';
import { WrongExpectedRevisionError, type EventData, type EventMetadata, type ExpectedRevision, type RecordedEvent } from './event-store.js';
import { StoreUnreachable } from '../domain/errors.js';

/** What the adapter uses of the KurrentDB client (a test fakes it). */
export type KurrentClient = Pick<KurrentDBClient, 'appendToStream' | 'readStream' | 'readAll' | 'subscribeToAll' | 'dispose'>;

// ---------------------------------------------------------------------------------------------
// Connection string

export interface KurrentDbConnection {
  /** What KurrentDBClient.connectionString() gets: the `kurrentdb://` scheme, hosts with ports. */
  connectionString: string;
  hosts: Array<{ host: string; port: number }>;
  /** The client's default is TLS on; `?tls=false` talks to an insecure node. */
  tls: boolean;
  /** `+discover`: the host is a DNS name listing the cluster's nodes. */
  discover: boolean;
  /** `?streamPrefix=`: ours, not the client's (removed from its string). Confines the store to
   *  streams named with this prefix, so several tokengate deployments can share one node. */
  streamPrefix: string;
}

const SCHEMES = new Map([
  ['kurrentdb', false], ['kurrent', false], ['kdb', false], ['esdb', false],
  ['kurrentdb+discover', true], ['kurrent+discover', true], ['kdb+discover', true], ['esdb+discover', true],
]);
const DEFAULT_PORT = 2113;

/** EVENT_STORE=kurrentdb://host:2113?tls=false (or esdb://, several hosts, +discover) to the
 *  client's connection string. `esdb` becomes `kurrentdb` (the client warns on the old name);
 *  our own `streamPrefix` parameter is taken out. */
export function parseKurrentDbUrl(url: string): KurrentDbConnection {
  const match = /^([a-z+]+):\/\/(?:([^@/?]*)@)?([^/?]*)\/?(?:\?(.*))?$/.exec(url.trim());
  const scheme = match?.[1];
  const discover = scheme === undefined ? undefined : SCHEMES.get(scheme);
  if (!match || discover === undefined) {
    throw new Error(`'${url}' is not a KurrentDB connection string: expected kurrentdb://host:2113?tls=false`);
  }
  const [, , credentials, hostList = '', query] = match;
  const hosts = hostList.split(',').filter((h) => h !== '').map((entry) => parseHost(entry, url));
  if (hosts.length === 0) throw new Error(`'${url}' names no KurrentDB host: expected kurrentdb://host:2113?tls=false`);
  const params = (query ?? '').split('&').filter((p) => p !== '');
  const value = (key: string) => params.find((p) => p.split('=')[0]?.toLowerCase() === key.toLowerCase())?.split('=')[1];
  const tls = (value('tls') ?? 'true').toLowerCase() !== 'false';
  const streamPrefix = decodeURIComponent(value('streamPrefix') ?? '');
  if (value('streamPrefix') !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(streamPrefix)) {
    throw new Error(`streamPrefix '${streamPrefix}' in '${url}' must be letters, digits, '_', '.' or '-' (not starting with '$')`);
  }
  const clientParams = params.filter((p) => p.split('=')[0]?.toLowerCase() !== 'streamprefix');
  const connectionString = `kurrentdb${discover ? '+discover' : ''}://${credentials === undefined ? '' : `${credentials}@`}`
    + hosts.map((h) => `${h.host.includes(':') ? `[${h.host}]` : h.host}:${h.port}`).join(',')
    + (clientParams.length > 0 ? `?${clientParams.join('&')}` : '');
  return { connectionString, hosts, tls, discover, streamPrefix };
}

function parseHost(entry: string, url: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d+))?$/.exec(entry);
  const host = match?.[1] ?? match?.[2];
  const port = match?.[3] === undefined ? DEFAULT_PORT : Number(match[3]);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`'${entry}' in '${url}' is not a host[:port]`);
  }
  return { host, port };
}

// ---------------------------------------------------------------------------------------------
// Appends

/** Our expected revision is the client's stream state, value for value. */
export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'any': return 'any';
    case 'no_stream': return 'no_stream';
    case 'stream_exists': return 'stream_exists';
    default:
      if (expected < 0n) throw new RangeError(`expected revision ${expected} is negative`);
      return expected;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** KurrentDB's reserved metadata members, beside ours, so its own tooling (the $by_correlation_id
 *  projection, the UI) follows the causal chain. */
export interface StoredMetadata extends EventMetadata {
  $correlationId: string;
  $causationId?: string;
}

/** An event of ours as the client's JSON event: our id is the KurrentDB event id (the server's
 *  idempotency key), data and metadata are copied now (the caller may change them later). */
export function toJsonEvent(event: EventData): JSONEventData {
  if (!UUID.test(event.id)) throw new TypeError(`event id '${event.id}' is not a UUID (KurrentDB event ids are UUIDs)`);
  if (event.type.startsWith('$')) throw new TypeError(`event type '${event.type}' starts with '$', which KurrentDB reserves for system events`);
  const metadata: StoredMetadata = {
    ...(copyJson(event.metadata, 'metadata') as EventMetadata),
    $correlationId: event.metadata.correlationId,
    ...(event.metadata.causationId === undefined ? {} : { $causationId: event.metadata.causationId }),
  };
  return {
    id: event.id,
    contentType: 'application/json',
    type: event.type,
    data: copyJson(event.data, 'data') as JSONEventData['data'],
    metadata: metadata as unknown as JSONEventData['metadata'],
  };
}

function copyJson(value: unknown, what: string): unknown {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError(`event ${what} is not JSON`);
  return JSON.parse(text) as unknown;
}

// ---------------------------------------------------------------------------------------------
// Reads

/** Our metadata from a stored event's: the reserved `$` members removed. Events written by other
 *  tools may lack ours; their correlation id then comes from `$correlationId`. */
export function fromMetadata(raw: unknown, created: string): EventMetadata {
  const stored = raw !== null && typeof raw === 'object' && !(raw instanceof Uint8Array) ? (raw as Record<string, unknown>) : {};
  const { $correlationId, $causationId: _causation, ...ours } = stored;
  return {
    ...ours,
    correlationId: typeof ours.correlationId === 'string' ? ours.correlationId : typeof $correlationId === 'string' ? $correlationId : '',
    recordedAt: typeof ours.recordedAt === 'string' ? ours.recordedAt : created,
  };
}

/** A resolved event of the client as ours, or undefined when it is not one of ours: a system
 *  event or link (`$` type), or outside the store's stream prefix. */
export function fromResolvedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent, streamPrefix = ''): RecordedEvent | undefined {
  const event = resolved.event;
  if (!event || event.type.startsWith('$') || !event.streamId.startsWith(streamPrefix)) return undefined;
  const commit = event.position?.commit ?? resolved.commitPosition;
  if (commit === undefined) {
    throw new Error(`KurrentDB returned event ${event.id} without its position: tokengate needs KurrentDB 22.6 or later`);
  }
  const created = event.created.toISOString();
  return {
    id: event.id,
    type: event.type,
    data: event.isJson ? (event.data as unknown) : Buffer.from(event.data as Uint8Array).toString('base64'),
    metadata: fromMetadata(event.metadata, created),
    stream: event.streamId.slice(streamPrefix.length),
    revision: event.revision,
    position: commit,
    created,
  };
}

/** Our position from KurrentDB's: the commit position (see the top of this file). */
export const fromKurrentPosition = (position: Position): bigint => position.commit;

/** Where to start reading or subscribing to $all after our position `p` (0n: the start). */
export const toReadPosition = (p: bigint): ReadPosition => (p <= 0n ? 'start' : { commit: p, prepare: p });

/** $all without the system's events (types starting with `$`: stats, settings, links, stream
 *  metadata), or, for a store confined to a stream prefix, only the prefix's streams. */
export function allFilter(streamPrefix = ''): Filter {
  return streamPrefix
    ? { filterOn: 'streamName', prefixes: [streamPrefix], checkpointInterval: 1 }
    : { filterOn: 'eventType', regex: '^[^$].*', checkpointInterval: 1 };
}

// ---------------------------------------------------------------------------------------------
// Errors: recognised by the client's `type` tag, so a second copy of the client package (or an
// object shaped like its errors) is recognised as well as its own classes.

const typeOf = (error: unknown): unknown =>
  error !== null && typeof error === 'object' ? (error as { type?: unknown }).type : undefined;

export const isStreamNotFound = (error: unknown): boolean => typeOf(error) === 'stream-not-found';
export const isWrongExpectedVersion = (error: unknown): boolean => typeOf(error) === 'wrong-expected-version';

const TRANSIENT_TYPES = new Set(['unavailable', 'deadline-exceeded', 'timeout', 'not-leader']);
/** gRPC status codes UNAVAILABLE and DEADLINE_EXCEEDED: appends reject with the raw gRPC error. */
const TRANSIENT_GRPC_CODES = new Set([14, 4]);

/** Errors after which the same call may succeed: the node is restarting, a leader election. */
export function isTransient(error: unknown): boolean {
  if (TRANSIENT_TYPES.has(String(typeOf(error)))) return true;
  const code = error !== null && typeof error === 'object' ? (error as { code?: unknown }).code : undefined;
  return error instanceof Error && typeof code === 'number' && TRANSIENT_GRPC_CODES.has(code);
}

/** The node could not be reached: the port's StoreUnreachable (503 SERVER_BUSY), says which,
 *  keeps the client's error as the cause, and stays transient (type 'unavailable'). */
export class KurrentDbUnavailableError extends StoreUnreachable {
  override name = 'KurrentDbUnavailableError';
  readonly type = 'unavailable';
  constructor(readonly target: string, cause: unknown) {
    const detail = cause instanceof Error && cause.message && cause.message !== cause.name ? cause.message : 'no connection';
    super(`KurrentDB at ${target} is unavailable: ${detail}`, { cause });
  }
}

/** A client error of a read or an append as ours: unreachable nodes named, others unchanged. */
export function translateClientError(error: unknown, target: string): unknown {
  return isTransient(error) && !(error instanceof KurrentDbUnavailableError) ? new KurrentDbUnavailableError(target, error) : error;
}

/** The stream's actual revision from the client's WrongExpectedVersionError (`actualState` in
 *  @kurrent/kurrentdb-client, `actualVersion` in older @eventstore/db-client). */
function actualRevision(error: object): bigint | 'no_stream' {
  const { actualState, actualVersion } = error as { actualState?: unknown; actualVersion?: unknown };
  const actual = actualState ?? actualVersion;
  if (typeof actual === 'bigint') return actual < 0n ? 'no_stream' : actual;
  if (typeof actual === 'number' || (typeof actual === 'string' && /^-?\d+$/.test(actual))) {
    const revision = BigInt(actual);
    return revision < 0n ? 'no_stream' : revision;
  }
  return 'no_stream';
}

/** A failed append's error as ours: WrongExpectedVersionError becomes WrongExpectedRevisionError
 *  with our stream name and the expected revision we asked for; anything else is unchanged. */
export function translateAppendError(error: unknown, stream: string, expected: ExpectedRevision): unknown {
  if (!isWrongExpectedVersion(error)) return error;
  return new WrongExpectedRevisionError(stream, expected, actualRevision(error as object));
}
