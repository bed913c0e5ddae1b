// The event catalog. Past tense, one fact each, every decision of the simulator inside, so that
// replay never re-runs the simulator and reproduces every response.
import type { Brand, FundingMethod, Scheme } from './card.js';
import type { CscResponse, AvsResponse, PayResult } from './order/test-acquirer.js';
import type { TokenGeneration } from './token/token-id.js';

export interface CardExpiry { month: number; year: number }

/** A card as stored against a token: the number only sealed (see store/sealing.ts). */
export interface StoredCard {
  numberSealed: string;
  number: string; // masked 6.4
  brand: Brand;
  scheme: Scheme;
  fundingMethod: FundingMethod;
  expiry: CardExpiry;
}

/** ACH bank account details as stored: the account number only sealed, and masked. */
export interface StoredAch {
  accountType: 'CONSUMER_CHECKING' | 'CONSUMER_SAVINGS' | 'CORPORATE_CHECKING';
  bankAccountHolder: string;
  bankAccountNumberSealed: string;
  bankAccountNumber: string; // masked: every character but the last 4 is 'x'
  routingNumber: string;
  secCode: 'PPD' | 'TEL' | 'WEB';
}

/** Canadian direct debit bank account details as stored (account number sealed and masked). */
export interface StoredDirectDebitCanada {
  accountType?: 'CONSUMER_CHECKING' | 'CONSUMER_SAVINGS';
  bankAccountHolder: string;
  bankAccountNumberSealed: string;
  bankAccountNumber: string; // masked
  financialInstitutionNumber: string;
  transitNumber: string;
}

/** Browser-payment (wallet) billing agreement details (spec rule 6: only billing agreements). */
export interface StoredWallet {
  accountEmail?: string;
  accountHolder?: string;
  billingAgreement: { cardinality: 'MULTIPLE' | 'SINGLE'; description?: string; id: string; name?: string };
  payerId?: string;
}

export type StoredSourceOfFunds =
  | { type: 'CARD'; card: StoredCard }
  | { type: 'ACH'; ach: StoredAch }
  | { type: 'DIRECT_DEBIT_CANADA'; directDebitCanada: StoredDirectDebitCanada }
  | { type: 'WALLET'; wallet: StoredWallet };

/** Shipping details, kept only against a token holding wallet billing-agreement details (spec rule 7). */
export interface StoredShipping {
  address?: Record<string, string>;
  contact?: { firstName?: string; lastName?: string };
  origin?: { postcodeZip?: string };
}

export type VerificationStrategy = 'ACQUIRER' | 'BASIC' | 'NONE';
/** How the details were verified: BASIC checks, the acquirer (transaction.currency), or none (bank accounts, wallets). */
export interface Verification { strategy: VerificationStrategy; gatewayCode: string; currency?: string }

export type SchemeTokenProvider = 'AETS' | 'MDES' | 'VTS';
export type SchemeTokenStatus = 'ACTIVE' | 'DEACTIVATED' | 'INELIGIBLE' | 'PROVISIONING' | 'SUSPENDED' | 'TOKENIZATION_UNAVAILABLE';
export type SchemeTokenizationCode =
  | 'SCHEME_TOKENIZATION_DECLINED' | 'SCHEME_TOKENIZATION_ERROR' | 'SCHEME_TOKENIZATION_SUCCESSFUL'
  | 'SCHEME_TOKENIZATION_SUCCESSFUL_ADDITIONAL_AUTHENTICATION_REQUIRED';

/**
 * The scheme token of a gateway token as decided by the token service provider simulator
 * (domain/token/scheme-token-simulator.ts). `nextActionAt`: when the scheme-token reactor acts next
 * (provisioning to finish, or a lifecycle change to come); absent when nothing is pending.
 */
export interface SchemeTokenDetails {
  provider?: SchemeTokenProvider;
  status: SchemeTokenStatus;
  statusTime: string;
  tokenIdentifier?: string;
  /** The provider's answer to the latest attempt, as response.gatewayCode reports it. */
  gatewayCode?: SchemeTokenizationCode;
  /** The simulator rule that decided, e.g. "expiry 01/35: INELIGIBLE". */
  rule: string;
  nextActionAt?: string;
}

export type ProvisioningMode = 'ASYNCHRONOUS' | 'ATTEMPT_SYNCHRONOUS' | 'SYNCHRONOUS';

/** Where the stored details came from, when not (only) from the request itself. */
export interface TokenOrigin {
  sessionId?: string;
  sourceToken?: string;
  referenceOrderId?: string;
  pushProvisioning?: boolean;
}

export interface TokenCreated {
  type: 'TokenCreated';
  data: {
    merchantId: string;
    repositoryId: string;
    token: string;
    tokenGeneration: Exclude<TokenGeneration, 'MERCHANT_SUPPLIED'>;
    sourceOfFunds: StoredSourceOfFunds;
    verification: Verification;
    status: 'VALID';
    createdAt: string;
    shipping?: StoredShipping;
    schemeToken?: SchemeTokenDetails;
    provisioningMode?: ProvisioningMode;
    origin?: TokenOrigin;
  };
}

/**
 * Details changed on an existing token (unique-account management saw the account again, or a
 * request named it in sourceOfFunds.token). Only the members that changed are present.
 */
export interface TokenUpdated {
  type: 'TokenUpdated';
  data: {
    merchantId: string;
    repositoryId: string;
    token: string;
    card?: StoredCard;
    ach?: StoredAch;
    directDebitCanada?: StoredDirectDebitCanada;
    wallet?: StoredWallet;
    shipping?: StoredShipping;
    verification?: Verification;
    /** A new scheme token is requested when the card number changed. */
    schemeToken?: SchemeTokenDetails;
    /** Dotted names of the members that changed, e.g. ["sourceOfFunds.provided.card.expiry"]. */
    changed: string[];
    updatedAt: string;
    origin?: TokenOrigin;
  };
}

/** The scheme token's status changed after the request (services/token/scheme-tokens.ts reactor). */
export interface SchemeTokenStatusChanged {
  type: 'SchemeTokenStatusChanged';
  data: {
    merchantId: string;
    repositoryId: string;
    token: string;
    previousStatus: SchemeTokenStatus;
    schemeToken: SchemeTokenDetails;
  };
}

/**
 * The token was deleted (Delete Token). Its card-number key is destroyed after this event is
 * stored, so the sealed number in older events can never be read again (crypto-shredding);
 * the history still replays, with masked values.
 */
export interface TokenDeleted {
  type: 'TokenDeleted';
  data: { merchantId: string; repositoryId: string; token: string; deletedAt: string };
}

/** A card as a session holds it (Update Session): any member may be missing; the number and security code sealed. */
export interface SessionCard {
  numberSealed?: string;
  number?: string; // masked 6.4
  brand?: Brand;
  scheme?: Scheme;
  fundingMethod?: FundingMethod;
  expiry?: CardExpiry;
  nameOnCard?: string;
  /**
   * Sealed under a key of its own that is destroyed once a token request has used the session:
   * the security code is never readable from the events after that.
   */
  securityCodeSealed?: string;
}

export interface SessionCreated {
  type: 'SessionCreated';
  /**
   * `expiresAt`: when the session stops being usable (createdAt + SESSION_LIFETIME_MS, decided at
   * creation); absent in sessions created before sessions expired (their expiry: createdAt + the
   * lifetime configured now).
   */
  data: { merchantId: string; sessionId: string; version: string; authenticationLimit?: number; createdAt: string; expiresAt?: string };
}

export interface SessionUpdated {
  type: 'SessionUpdated';
  data: { merchantId: string; sessionId: string; previousVersion: string; version: string; card: SessionCard; updatedAt: string };
}

/**
 * The session's lifetime ended (services/session/session-expiry.ts reactor): its card-data keys were
 * destroyed just before this event was stored, and it is refused from now on like an unknown one.
 */
export interface SessionExpired {
  type: 'SessionExpired';
  data: { merchantId: string; sessionId: string; expiresAt: string; expiredAt: string };
}

export type SessionEvent = SessionCreated | SessionUpdated | SessionExpired;
export const SESSION_EVENT_TYPES: ReadonlySet<string> = new Set<SessionEvent['type']>(['SessionCreated', 'SessionUpdated', 'SessionExpired']);

/**
 * An account identifier (card number, bank account, billing agreement id) was claimed for a token
 * of a repository with unique-card or unique-account-identifier management. The stream is named by a
 * random reservation id (older versions: a keyed hash of the identifier), never the identifier; the
 * link from the identifier to it lives in the key store only, and is forgotten when the token is deleted.
 */
export interface AccountIdentifierReserved {
  type: 'AccountIdentifierReserved';
  data: { repositoryId: string; token: string; reservedAt: string };
}

export type RiskGatewayCode = 'ACCEPT' | 'NOT_CHECKED' | 'REJECT' | 'REVIEW' | 'SYSTEM_REJECT';

/** response.risk: the risk assessment, present when one applies (see domain/order/triggers.ts). */
export interface RiskResponse {
  gatewayCode: RiskGatewayCode;
  reviewResult?: 'NOT_REQUIRED' | 'ORDER_CANCELLED' | 'ORDER_RELEASED' | 'PENDING';
  /** A payment rejected after authorization is reversed automatically: did the reversal work? */
  reversalTransactionResult?: 'FAIL' | 'NOT_APPLICABLE' | 'OKAY';
}

export interface PaymentOutcome {
  gatewayCode: string;
  result: PayResult;
  /** Absent when the acquirer was not contacted (blocked by the gateway first). */
  acquirerCode?: string;
  acquirerMessage?: string;
  authorizationCode?: string;
  cardSecurityCode?: CscResponse;
  avs?: AvsResponse;
  risk?: RiskResponse;
  /** response.3dsecure.gatewayCode, when the request carried a 3-D Secure marker. */
  threeDSecure?: { gatewayCode: string };
  acquirer: {
    id: string;
    batch: number;
    date: string; // MMDD
    merchantId: string;
    settlementDate: string; // YYYY-MM-DD
    timeZone: string;
    transactionId: string;
  };
  receipt?: string;
  stan?: string;
  terminal: string;
}

export interface OrderTotals { authorized: number; captured: number; refunded: number } // minor units

export interface PaymentRecorded {
  type: 'PaymentRecorded';
  data: {
    merchantId: string;
    orderId: string;
    transactionId: string;
    /** Keyed hash of the request (path and body, correlationId excluded): detects reused ids. */
    requestFingerprint: string;
    repositoryId: string;
    token: string;
    card: { number: string; brand: Brand; scheme: Scheme; fundingMethod: FundingMethod; type: string; expiry: CardExpiry };
    amount: number; // minor units
    currency: string;
    orderReference?: string;
    transactionReference?: string;
    source: string;
    frequency?: string;
    cashAdvance?: boolean;
    taxLocal?: { amount?: number; exempt?: boolean; reference?: string };
    /** card.holder.* of the request, echoed in the response. */
    holder?: CardHolder;
    /** Index of the merchant rule (merchants file) that matched, if any. */
    rule?: number;
    /** Latency a merchant rule added before the acquirer answered (ms). */
    latencyMs?: number;
    /** A merchant rule made the first answer to this payment a simulated SERVER_FAILED (500). */
    fault?: 'SERVER_FAILED';
    outcome: PaymentOutcome;
    orderStatus: string;
    totalsAfter: OrderTotals;
    timeOfRecord: string;
  };
}

export interface CardHolder { firstName?: string; fullName?: string; lastName?: string; middleName?: string; title?: string }

/**
 * A payment began and holds the order until `lockExpiresAt` (only when a merchant rule adds
 * acquirer latency): another transaction on the order meanwhile is answered LOCK_FAILURE, an
 * identical repeat waits for the PaymentRecorded that follows.
 */
export interface PaymentStarted {
  type: 'PaymentStarted';
  data: {
    merchantId: string;
    orderId: string;
    transactionId: string;
    requestFingerprint: string;
    /** Identifies the request that holds the lock (a repeat of it waits, it alone records). */
    attemptId: string;
    amount: number;
    currency: string;
    latencyMs: number;
    startedAt: string;
    lockExpiresAt: string;
  };
}

/** A payment answered UNKNOWN got its final outcome (the reactor of services/order/unknown-resolver.ts). */
export interface PaymentOutcomeResolved {
  type: 'PaymentOutcomeResolved';
  data: {
    merchantId: string;
    orderId: string;
    transactionId: string;
    gatewayCode: 'APPROVED' | 'DECLINED';
    result: 'SUCCESS' | 'FAILURE';
    acquirerCode: string;
    acquirerMessage: string;
    authorizationCode?: string;
    /** The rule that chose the outcome, e.g. "amount in minor units even: APPROVED". */
    rule: string;
    totalsAfter: OrderTotals;
    orderStatus: string;
    resolvedAt: string;
  };
}

/** transaction.reference claimed by one transaction of the merchant (stream named from an HMAC of it). */
export interface TransactionReferenceReserved {
  type: 'TransactionReferenceReserved';
  data: { merchantId: string; orderId: string; transactionId: string; reservedAt: string };
}

export type TokenEvent = TokenCreated | TokenUpdated | TokenDeleted | SchemeTokenStatusChanged;
export type OrderEvent = PaymentRecorded | PaymentStarted | PaymentOutcomeResolved;
export const TOKEN_EVENT_TYPES: ReadonlySet<string> = new Set<TokenEvent['type']>(['TokenCreated', 'TokenUpdated', 'TokenDeleted', 'SchemeTokenStatusChanged']);
export const ORDER_EVENT_TYPES: ReadonlySet<string> = new Set<OrderEvent['type']>(['PaymentRecorded', 'PaymentStarted', 'PaymentOutcomeResolved']);
export type DomainEvent = TokenEvent | OrderEvent | SessionEvent | AccountIdentifierReserved | TransactionReferenceReserved;
export type DomainEventType = DomainEvent['type'];

/** An event as read from a stream: its type names which of the catalog's events it is. */
type Typed = { readonly type: string; readonly data: unknown };
/** Type guards of each aggregate's events (a stream may hold other types: they are skipped). */
export const isTokenEvent = (e: Typed): e is TokenEvent => TOKEN_EVENT_TYPES.has(e.type);
export const isOrderEvent = (e: Typed): e is OrderEvent => ORDER_EVENT_TYPES.has(e.type);
export const isSessionEvent = (e: Typed): e is SessionEvent => SESSION_EVENT_TYPES.has(e.type);
export const isAccountIdentifierReserved = (e: Typed): e is AccountIdentifierReserved => e.type === 'AccountIdentifierReserved';
export const isTransactionReferenceReserved = (e: Typed): e is TransactionReferenceReserved => e.type === 'TransactionReferenceReserved';

/**
 * A stream name's owner part (a merchant or repository id): '%' and ':' percent-escaped, so the first
 * ':' of a name always ends it. Merchant ids may hold '-' (TESTSHOP and TESTSHOP-EU are two
 * merchants): with '-' as the separator, `session-TESTSHOP-EU-1` named a stream of either.
 */
const ownerPart = (id: string) => id.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));

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
} as const;

/** Which field of an event's data names the owner of each category's streams. */
const OWNER_FIELD: Record<string, 'merchantId' | 'repositoryId'> = {
  token: 'repositoryId', order: 'merchantId', accountref: 'repositoryId', session: 'merchantId', txref: 'merchantId',
};

/**
 * Whether every event of a stream names, in its data, the owner its stream name names: a read
 * checks it, so that no mistake in naming a stream can hand one merchant another's data.
 */
export function ownedByStreamOwner(stream: string, events: ReadonlyArray<{ data: unknown }>): boolean {
  const dash = stream.indexOf('-');
  const colon = stream.indexOf(':', dash + 1);
  const field = dash < 0 ? undefined : OWNER_FIELD[stream.slice(0, dash)];
  if (field === undefined || colon < 0) return true;
  const owner = stream.slice(dash + 1, colon).replace(/%25|%3A/g, (c) => (c === '%25' ? '%' : ':'));
  return events.every((e) => e.data === null || typeof e.data !== 'object' || !(field in e.data) || (e.data as Record<string, unknown>)[field] === owner);
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
