// The order aggregate's state: its transactions, totals and the payment in progress, folded
// from the order stream (PaymentStarted, PaymentRecorded, PaymentOutcomeResolved).
import type {
  AuthenticationEvent, OrderEvent, OrderSource, OrderTotals, OrderTransactionRecorded, PaymentOutcome, PaymentOutcomeResolved, PaymentRecorded, PaymentStarted,
} from '../events.js';
import { nextAuthentication, type Authentication } from './authentication-state.js';

type Recorded = PaymentRecorded['data'];
/**
 * A transaction of the order API of versions 1-100 but the deactivated ones
 * (OrderTransactionRecorded).
 */
export type OrderTransaction = OrderTransactionRecorded['data'];

/**
 * What the order API (versions 1-100 but the deactivated ones) adds to an order: present only once
 * such a transaction is recorded, so the state of a version 3 order is exactly what it was.
 */
export interface ModernOrderFacts {
  /** Its transactions, by id (the version 3 payments stay in `transactions`). */
  operations: ReadonlyMap<string, OrderTransaction>;
  /** Ids of the transactions voided. */
  voided: ReadonlySet<string>;
  /** order.amount of the latest PAY or AUTHORIZE. */
  orderAmount?: number;
  /** The card of the order's first PAY, AUTHORIZE or VERIFY. */
  source?: OrderSource;
  /**
   * order.amount as it stood right after each transaction whose event carries none (CAPTURE,
   * REFUND, VOID, VERIFY): its answer, first or repeated, shows the order as that transaction left it.
   */
  amountsAfter?: ReadonlyMap<string, number>;
  /** Its 3-D Secure authentications (AUTHENTICATION transactions), by transaction id. */
  authentications?: ReadonlyMap<string, Authentication>;
}

/** A PaymentStarted not yet followed by its PaymentRecorded. */
export type PaymentInProgress = Pick<PaymentStarted['data'], 'transactionId' | 'requestFingerprint' | 'attemptId' | 'startedAt' | 'lockExpiresAt'>;

export type OrderState =
  | { exists: false; inProgress?: PaymentInProgress }
  | {
      exists: true;
      merchantId: string;
      orderId: string;
      currency: string;
      reference: string | undefined;
      creationTime: string;
      lastUpdatedTime: string;
      status: string;
      totals: OrderTotals;
      transactions: Map<string, Recorded>;
      /**
       * The transactions recorded while the order had no reference, when a later one gave it one
       * (the first order.reference sent stays the order's): their answers show none.
       */
      unreferenced?: ReadonlySet<string>;
      inProgress?: PaymentInProgress;
      modern?: ModernOrderFacts;
    };

export const initialOrderState = (): OrderState => ({ exists: false });

/** How long a lock outlives the latency it covers: a process that died mid-payment frees the order then. */
export const LOCK_MARGIN_MS = 10_000;

export const ZERO_TOTALS: OrderTotals = { authorized: 0, captured: 0, refunded: 0 };
const withLock = (lock: PaymentInProgress | undefined) => (lock ? { inProgress: lock } : {});

type ExistingOrder = Extract<OrderState, { exists: true }>;

/**
 * `unreferenced` after a transaction that sends `reference`: when it is the first reference of an
 * order that already has transactions, those transactions are the ones recorded without one.
 */
function unreferencedAfter(state: OrderState, reference: string | undefined): ReadonlySet<string> | undefined {
  if (!state.exists) return undefined;
  if (state.reference !== undefined || reference === undefined) return state.unreferenced;
  return new Set([...state.transactions.keys(), ...(state.modern?.operations.keys() ?? []), ...(state.modern?.authentications?.keys() ?? [])]);
}

/** The order's reference as it stood right after transaction `transactionId` (what its answers show). */
export const referenceAsOf = (order: ExistingOrder, transactionId: string): string | undefined =>
  order.unreferenced?.has(transactionId) === true ? undefined : order.reference;

/** order.amount: of the latest PAY or AUTHORIZE of the order API, else what the version 3 payments add up to. */
export const currentOrderAmount = (order: ExistingOrder): number =>
  order.modern?.orderAmount ?? [...order.transactions.values()].reduce((sum, p) => sum + p.amount, 0);

export function evolveOrder(state: OrderState, event: OrderEvent): OrderState {
  switch (event.type) {
    case 'PaymentStarted': {
      const { transactionId, requestFingerprint, attemptId, startedAt, lockExpiresAt } = event.data;
      return { ...state, inProgress: { transactionId, requestFingerprint, attemptId, startedAt, lockExpiresAt } };
    }
    case 'PaymentRecorded': {
      const d = event.data;
      const transactions: Map<string, Recorded> = state.exists ? new Map(state.transactions) : new Map();
      transactions.set(d.transactionId, d);
      const lock = state.inProgress?.transactionId === d.transactionId ? undefined : state.inProgress;
      // Member by member, in the order the stored states have always had (every pay folds one:
      // no copies for the optional parts).
      const next: OrderState = {
        exists: true,
        merchantId: d.merchantId,
        orderId: d.orderId,
        currency: d.currency,
        reference: (state.exists ? state.reference : undefined) ?? d.orderReference,
        creationTime: state.exists ? state.creationTime : d.timeOfRecord,
        lastUpdatedTime: d.timeOfRecord,
        status: d.orderStatus,
        totals: d.totalsAfter,
        transactions,
      };
      const unreferenced = unreferencedAfter(state, d.orderReference);
      if (unreferenced) next.unreferenced = unreferenced;
      if (lock) next.inProgress = lock;
      if (state.exists && state.modern) next.modern = state.modern;
      return next;
    }
    case 'OrderTransactionRecorded':
      return evolveModern(state, event.data);
    case 'AuthenticationInitiated':
    case 'PayerAuthenticationStarted':
    case 'PayerAuthenticated':
    case 'ChallengeAnswered':
      return evolveAuthentication(state, event);
    case 'PaymentOutcomeResolved': {
      const d = event.data;
      const payment = state.exists ? state.transactions.get(d.transactionId) : undefined;
      if (state.exists && !payment) return resolveModern(state, event.data);
      if (!state.exists || !payment) return state;
      const { gatewayCode, result, acquirerCode, acquirerMessage, authorizationCode } = d;
      const outcome: PaymentOutcome = { ...payment.outcome, gatewayCode, result, acquirerCode, acquirerMessage, ...(authorizationCode ? { authorizationCode } : {}) };
      const transactions = new Map(state.transactions);
      transactions.set(d.transactionId, { ...payment, outcome, totalsAfter: d.totalsAfter, orderStatus: d.orderStatus });
      return { ...state, transactions, totals: d.totalsAfter, status: d.orderStatus, lastUpdatedTime: d.resolvedAt };
    }
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** A transaction of the order API answered UNKNOWN, made final (PaymentOutcomeResolved). */
function resolveModern(state: Extract<OrderState, { exists: true }>, d: PaymentOutcomeResolved['data']): OrderState {
  const t = state.modern?.operations.get(d.transactionId);
  if (!state.modern || !t) return state;
  const { gatewayCode, result, acquirerCode, acquirerMessage, authorizationCode } = d;
  const outcome: PaymentOutcome = { ...t.outcome, gatewayCode, result, acquirerCode, acquirerMessage, ...(authorizationCode ? { authorizationCode } : {}) };
  const operations = new Map(state.modern.operations);
  operations.set(d.transactionId, { ...t, outcome, totalsAfter: d.totalsAfter, orderStatus: d.orderStatus });
  return { ...state, modern: { ...state.modern, operations }, totals: d.totalsAfter, status: d.orderStatus, lastUpdatedTime: d.resolvedAt };
}

function evolveModern(state: OrderState, d: OrderTransaction): OrderState {
  const before = state.exists ? state.modern : undefined;
  const operations = new Map(before?.operations ?? []);
  operations.set(d.transactionId, d);
  const voided = new Set(before?.voided ?? []);
  if (d.targetTransactionId !== undefined && d.outcome.result === 'SUCCESS') voided.add(d.targetTransactionId);
  const orderAmount = d.orderAmount ?? before?.orderAmount;
  const source = before?.source ?? d.source;
  let amountsAfter = before?.amountsAfter;
  if (d.orderAmount === undefined) {
    const amount = orderAmount ?? (state.exists ? currentOrderAmount(state) : 0);
    amountsAfter = new Map(amountsAfter ?? []).set(d.transactionId, amount);
  }
  const modern: ModernOrderFacts = {
    operations, voided, ...(orderAmount !== undefined ? { orderAmount } : {}), ...(source ? { source } : {}), ...(amountsAfter ? { amountsAfter } : {}),
    ...(before?.authentications ? { authentications: before.authentications } : {}),
  };
  const unreferenced = unreferencedAfter(state, d.orderReference);
  return {
    exists: true,
    merchantId: d.merchantId,
    orderId: d.orderId,
    currency: state.exists ? state.currency : d.currency,
    reference: (state.exists ? state.reference : undefined) ?? d.orderReference,
    creationTime: state.exists ? state.creationTime : d.timeOfRecord,
    lastUpdatedTime: d.timeOfRecord,
    status: d.orderStatus,
    totals: d.totalsAfter,
    transactions: state.exists ? state.transactions : new Map(),
    ...(unreferenced ? { unreferenced } : {}),
    // The transaction that held the order (a merchant rule's latency) is recorded: the order is free.
    ...withLock(state.inProgress?.transactionId === d.transactionId ? undefined : state.inProgress),
    modern,
  };
}

/**
 * An authentication's step: the authentication as it now stands, the order's status and time after
 * it. Initiate Authentication may open the order (no amount yet: totals zero, no payment).
 */
function evolveAuthentication(state: OrderState, event: AuthenticationEvent): OrderState {
  const d = event.data;
  const before = state.exists ? state.modern : undefined;
  const authentication = nextAuthentication(before?.authentications?.get(d.transactionId), event);
  if (!authentication) return state;
  const authentications = new Map(before?.authentications ?? []).set(d.transactionId, authentication);
  const modern: ModernOrderFacts = { ...(before ?? { operations: new Map(), voided: new Set() }), authentications };
  if (state.exists) {
    const reference = event.type === 'AuthenticationInitiated' ? event.data.orderReference : undefined;
    const unreferenced = unreferencedAfter(state, reference);
    return {
      ...state, status: d.orderStatus, lastUpdatedTime: d.timeOfRecord, reference: state.reference ?? reference, modern,
      ...(unreferenced ? { unreferenced } : {}),
    };
  }
  const { initiated } = authentication;
  return {
    exists: true, merchantId: d.merchantId, orderId: d.orderId, currency: initiated.currency, reference: initiated.orderReference,
    creationTime: d.timeOfRecord, lastUpdatedTime: d.timeOfRecord, status: d.orderStatus, totals: ZERO_TOTALS, transactions: new Map(),
    ...withLock(state.inProgress), modern,
  };
}

/** Order status after a transaction: CAPTURED once money moved, CANCELLED after a reversal, else by the latest result. */
export function orderStatus(totals: OrderTotals, latest: PaymentOutcome['result'], reversed = false): string {
  if (totals.captured > 0) return 'CAPTURED';
  if (reversed) return 'CANCELLED';
  return latest === 'UNKNOWN' || latest === 'PENDING' ? 'INITIATED' : 'FAILED';
}

