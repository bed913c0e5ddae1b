// Stream names, and the checks a read makes of the owner a stream's name names.
/**
 * A stream name's owner part (a merchant or repository id): '%' and ':' percent-escaped, so the first
 * ':' of a name always ends it. Merchant ids may hold '-' (TESTSHOP and TESTSHOP-EU are two
 * merchants): with '-' as the separator, `session-TESTSHOP-EU-1` named a stream of either.
 */
const ownerPart = (id: string) => (id.includes('%') || id.includes(':') ? id.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A')) : id);

/**
 * Stream names, one helper per aggregate (architecture.md): `<category>-<owner>:<id>`. The category
 * is the text before the first '-' (categories hold none), the owner ends at the first ':' (it holds
 * none, escaped), and the id is the rest, whatever characters it has: no two (owner, id) pairs of a
 * category share a name, whatever the ids.
 */
export const streams = {
  merchant: (merchantId: string) => `merchant-${merchantId}`,
  token: (repositoryId: string, token: string) => `token-${ownerPart(repositoryId)}:${token}`,
  order: (merchantId: string, orderId: string) => `order-${ownerPart(merchantId)}:${orderId}`,
  /**
   * `reservationId`: a random id, mapped from the account identifier's keyed hash in the key store
   * (services/token/token-writes.ts); in stores of older versions, that keyed hash (HMAC) itself.
   */
  accountReservation: (repositoryId: string, reservationId: string) => `accountref-${ownerPart(repositoryId)}:${reservationId}`,
  session: (merchantId: string, sessionId: string) => `session-${ownerPart(merchantId)}:${sessionId}`,
  /** `referenceHash` is a keyed hash (HMAC) of transaction.reference. */
  transactionReference: (merchantId: string, referenceHash: string) => `txref-${ownerPart(merchantId)}:${referenceHash}`,
  /** A webhook notification (docs/notifications.md): its schedule, attempts and answers. */
  notification: (merchantId: string, notificationId: string) => `notification-${ownerPart(merchantId)}:${notificationId}`,
  /** A merchant's sandbox, steered by the test-control API (docs/timeline-and-cli.md): its resets and its clock. */
  sandbox: (merchantId: string) => `sandbox-${ownerPart(merchantId)}:control`,
} as const;

/** Which field of an event's data names the owner of each category's streams. */
const OWNER_FIELD: Record<string, 'merchantId' | 'repositoryId'> = {
  token: 'repositoryId', order: 'merchantId', accountref: 'repositoryId', session: 'merchantId', txref: 'merchantId',
  notification: 'merchantId', sandbox: 'merchantId',
};

/**
 * The owner a stream's name names, and which kind of owner it is (a merchant's or a repository's
 * streams); undefined for a name of another form (no owner field for its category, or no ':').
 */
export function streamOwner(stream: string): { field: 'merchantId' | 'repositoryId'; owner: string } | undefined {
  const dash = stream.indexOf('-');
  const colon = stream.indexOf(':', dash + 1);
  const field = dash < 0 ? undefined : OWNER_FIELD[stream.slice(0, dash)];
  if (field === undefined || colon < 0) return undefined;
  const escaped = stream.slice(dash + 1, colon);
  return { field, owner: escaped.includes('%') ? escaped.replace(/%25|%3A/g, (c) => (c === '%25' ? '%' : ':')) : escaped };
}

/**
 * Whether every event of a stream names, in its data, the owner its stream name names: a read
 * checks it, so that no mistake in naming a stream can hand one merchant another's data.
 */
export function ownedByStreamOwner(stream: string, events: ReadonlyArray<{ data: unknown }>): boolean {
  const named = streamOwner(stream);
  if (named === undefined) return true;
  const { field, owner } = named;
  for (const e of events) {
    if (e.data !== null && typeof e.data === 'object' && field in e.data && (e.data as Record<string, unknown>)[field] !== owner) return false;
  }
  return true;
}

/**
 * The name a stream had before names were `<category>-<owner>:<id>` (`<category>-<owner>-<id>`,
 * ambiguous), renamed from the owner its event names in its data; undefined when the name is not
 * of that form (a current name, a merchant stream, another category).
 */
export function renamedStream(stream: string, data: unknown): string | undefined {
  const dash = stream.indexOf('-');
  const category = dash < 0 ? stream : stream.slice(0, dash);
  const field = OWNER_FIELD[category];
  const owner = field && data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[field] : undefined;
  if (typeof owner !== 'string') return undefined;
  const old = `${category}-${owner}-`;
  if (!stream.startsWith(old)) return undefined;
  const id = stream.slice(old.length);
  if (id === '') return undefined;
  return `${category}-${ownerPart(owner)}:${id}`;
}
