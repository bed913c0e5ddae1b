// The decider of Pay with token (the order's state is in order-state.ts, the outcome is chosen in
// payment-outcome.ts).
import { cardTypeOf } from '../card.js';
import { InvalidRequest } from '../errors.js';
import type { CardExpiry, CardHolder, PaymentRecorded, PaymentStarted, StoredCard } from '../events.js';
import { firstMatchingRule, type MerchantRule, type RuleAnswer } from '../merchant-rules.js';
import { decideOutcome, gatewayDecision, type OutcomeRequest } from './payment-outcome.js';
import { LOCK_MARGIN_MS, orderStatus, ZERO_TOTALS, type OrderState } from './order-state.js';
import { checkTotalWithin } from './totals.js';

export { evolveOrder, initialOrderState, LOCK_MARGIN_MS, orderStatus, type OrderState, type PaymentInProgress } from './order-state.js';

type Recorded = PaymentRecorded['data'];

/**
 * References the acquirer would assign, made by the caller so decide stays pure (from the
 * transaction's ids: services/order/acquirer-ids.ts; every third character a letter).
 */
export interface AcquirerIds {
  authorizationCode: string; // 6 characters
  receipt: string; // 12 characters
  stan: string; // 6 characters
  acquirerTransactionId: string; // 20 hexadecimal digits
  batch: number;
}

export interface PayWithToken {
  type: 'PayWithToken';
  merchantId: string;
  orderId: string;
  transactionId: string;
  requestFingerprint: string;
  repositoryId: string;
  token: string;
  card: Omit<StoredCard, 'numberSealed'>;
  amount: number;
  currency: string;
  /** Only used to choose the CSC response; never recorded. */
  securityCode: string | undefined;
  billingStreet: string | undefined;
  orderReference: string | undefined;
  transactionReference: string | undefined;
  source: string | undefined;
  frequency: string | undefined;
  cashAdvance: boolean | undefined;
  taxLocal: { amount?: number; exempt?: boolean; reference?: string } | undefined;
  holder?: CardHolder | undefined;
  /** The merchant's own rules (merchants file). */
  rules?: readonly MerchantRule[];
  /** action.bypassMerchantRiskRules ALL. */
  bypassMerchantRiskRules?: boolean;
  /** Identifies this request among repeats of it: the one whose PaymentStarted holds the lock records. */
  attemptId?: string;
  acquirerMerchantId: string;
  ids: AcquirerIds;
  now: string;
}

export type PayDecision =
  | { kind: 'recorded'; events: PaymentRecorded[]; payment: Recorded }
  | { kind: 'replayed'; payment: Recorded }
  /** A merchant rule adds latency: hold the order, wait `latencyMs`, then decide again. */
  | { kind: 'started'; events: PaymentStarted[]; latencyMs: number }
  /** The identical request is in progress elsewhere: wait for its record (or for its lock to expire). */
  | { kind: 'inFlight'; until: string }
  /** Another transaction holds the order: LOCK_FAILURE, answered but not recorded. */
  | { kind: 'locked'; payment: Recorded }
  /** A merchant rule's simulated SERVER_BUSY, after `latencyMs`: nothing is recorded. */
  | { kind: 'busy'; latencyMs: number };

const differentRequest = (command: PayWithToken, state: 'recorded' | 'in progress' = 'recorded') => new InvalidRequest(
  `Transaction '${command.transactionId}' of order '${command.orderId}' is ${state === 'recorded' ? 'already recorded' : 'in progress'} with a different request. ` +
  'Repeat the identical request to read its outcome, or use a new transaction id.',
);

export function decidePay(state: OrderState, command: PayWithToken): PayDecision {
  const previous = state.exists ? state.transactions.get(command.transactionId) : undefined;
  if (previous) {
    if (previous.requestFingerprint === command.requestFingerprint) return { kind: 'replayed', payment: previous };
    throw differentRequest(command);
  }
  // A transaction id taken by the order API of versions 1-100 but the deactivated ones on the same
  // order.
  if (state.exists && state.modern?.operations.has(command.transactionId)) throw differentRequest(command);
  const hold = holdOf(state, command);
  if (hold.kind === 'other') return { kind: 'locked', payment: lockFailure(state, command) };
  if (hold.kind === 'differentRequest') throw differentRequest(command, 'in progress');
  if (hold.kind === 'same') return { kind: 'inFlight', until: hold.until };
  const { ours } = hold;
  if (state.exists && state.currency !== command.currency) {
    throw new InvalidRequest(`Value '${command.currency}' is invalid. The order's currency is ${state.currency}`, 'transaction.currency');
  }
  checkTotalWithin(state, command.amount, command.currency, 'transaction.amount');
  const rule = firstMatchingRule(command.rules ?? [], {
    amount: command.amount, currency: command.currency, cardNumber: command.card.number, brand: command.card.brand,
    token: command.token, orderReference: command.orderReference, transactionReference: command.transactionReference,
  }, command.bypassMerchantRiskRules === true);
  const latencyMs = rule?.answer.latencyMs ?? 0;
  if (rule?.answer.fault === 'SERVER_BUSY') return { kind: 'busy', latencyMs };
  if (latencyMs > 0 && !ours) return { kind: 'started', events: [startedEvent(command, latencyMs)], latencyMs };
  const payment = recordedPayment(state, command, rule);
  return { kind: 'recorded', events: [{ type: 'PaymentRecorded', data: payment }], payment };
}

/** What a request that may hold the order says of itself (both order paths). */
export interface HoldingRequest {
  merchantId: string; orderId: string; transactionId: string; requestFingerprint: string;
  attemptId?: string | undefined; amount: number; currency: string; now: string;
}

/**
 * The order's hold (a merchant rule's latency) as this request sees it: held by another
 * transaction, by this one in another request (`same`, until the lock expires), by this one with
 * another body, or free (`ours`: this very request holds it and now records).
 */
export function holdOf(state: OrderState, request: Pick<HoldingRequest, 'attemptId' | 'transactionId' | 'requestFingerprint' | 'now'>):
  { kind: 'other' } | { kind: 'same'; until: string } | { kind: 'differentRequest' } | { kind: 'free'; ours: boolean } {
  const lock = state.inProgress;
  const ours = lock !== undefined && request.attemptId !== undefined && lock.attemptId === request.attemptId;
  if (!lock || ours || lock.lockExpiresAt <= request.now) return { kind: 'free', ours };
  if (lock.transactionId !== request.transactionId) return { kind: 'other' };
  if (lock.requestFingerprint !== request.requestFingerprint) return { kind: 'differentRequest' };
  return { kind: 'same', until: lock.lockExpiresAt };
}

/** PaymentStarted: the request holds the order for the rule's latency and a margin (a dead process frees it then). */
export function startedEvent(request: HoldingRequest, latencyMs: number): PaymentStarted {
  const lockExpiresAt = new Date(Date.parse(request.now) + latencyMs + LOCK_MARGIN_MS).toISOString();
  const { merchantId, orderId, transactionId, requestFingerprint, amount, currency, now } = request;
  const attemptId = request.attemptId ?? `${transactionId}@${now}`;
  return {
    type: 'PaymentStarted',
    data: { merchantId, orderId, transactionId, requestFingerprint, attemptId, amount, currency, latencyMs, startedAt: now, lockExpiresAt },
  };
}

const outcomeRequest = (command: PayWithToken): OutcomeRequest => ({
  card: command.card,
  securityCode: command.securityCode,
  billingStreet: command.billingStreet,
  orderReference: command.orderReference,
  holderLastName: command.holder?.lastName,
  bypassMerchantRiskRules: command.bypassMerchantRiskRules === true,
  rules: command.rules ?? [],
  acquirerMerchantId: command.acquirerMerchantId,
  ids: command.ids,
  now: command.now,
});

function recordedPayment(state: OrderState, command: PayWithToken, rule: { index: number; answer: RuleAnswer } | undefined): Recorded {
  const { outcome, captured, reversed, decidedBy } = decideOutcome(outcomeRequest(command), rule);
  const before = state.exists ? state.totals : ZERO_TOTALS;
  const totalsAfter = captured
    ? { authorized: before.authorized + command.amount, captured: before.captured + command.amount, refunded: before.refunded }
    : before;
  // Member by member, in the order the spreads of an earlier version wrote (issue 17: one object).
  const payment = paymentFacts(command) as Recorded;
  if (command.holder && Object.keys(command.holder).length > 0) payment.holder = command.holder;
  if (rule !== undefined) payment.rule = rule.index;
  if (rule?.answer.latencyMs) payment.latencyMs = rule.answer.latencyMs;
  if (rule?.answer.fault === 'SERVER_FAILED') payment.fault = 'SERVER_FAILED';
  payment.outcome = outcome;
  payment.decidedBy = decidedBy;
  payment.orderStatus = orderStatus(totalsAfter, outcome.result, reversed);
  payment.totalsAfter = totalsAfter;
  payment.timeOfRecord = command.now;
  return payment;
}

/**
 * The card as a payment records it (with its response type), made once per card object: the
 * caller hands the same frozen card for every pay with a token it holds in memory, and the result
 * is frozen too, so every payment may share it (a pure function, remembered).
 */
const TYPED_CARDS = new WeakMap<PayWithToken['card'], Recorded['card']>();
function typedCard(card: PayWithToken['card']): Recorded['card'] {
  let typed = TYPED_CARDS.get(card);
  if (typed === undefined) {
    typed = Object.freeze({ ...card, type: cardTypeOf(card.brand, card.fundingMethod) });
    if (Object.isFrozen(card)) TYPED_CARDS.set(card, typed);
  }
  return typed;
}

/** What the request says of the payment, as recorded (the members without a value left out). */
function paymentFacts(command: PayWithToken): Omit<Recorded, 'outcome' | 'orderStatus' | 'totalsAfter' | 'timeOfRecord'> {
  const facts: Omit<Recorded, 'outcome' | 'orderStatus' | 'totalsAfter' | 'timeOfRecord'> = {
    merchantId: command.merchantId,
    orderId: command.orderId,
    transactionId: command.transactionId,
    requestFingerprint: command.requestFingerprint,
    repositoryId: command.repositoryId,
    token: command.token,
    card: typedCard(command.card),
    amount: command.amount,
    currency: command.currency,
  } as Omit<Recorded, 'outcome' | 'orderStatus' | 'totalsAfter' | 'timeOfRecord'>;
  if (command.orderReference !== undefined) facts.orderReference = command.orderReference;
  if (command.transactionReference !== undefined) facts.transactionReference = command.transactionReference;
  if (command.frequency !== undefined) facts.frequency = command.frequency as Recorded['frequency'];
  if (command.cashAdvance !== undefined) facts.cashAdvance = command.cashAdvance;
  if (command.taxLocal !== undefined) facts.taxLocal = command.taxLocal;
  facts.source = (command.source ?? 'INTERNET') as Recorded['source'];
  return facts;
}

/** LOCK_FAILURE: the payment as it would read, with the order as it stands; never recorded. */
function lockFailure(state: OrderState, command: PayWithToken): Recorded {
  return {
    ...paymentFacts(command),
    outcome: gatewayDecision(outcomeRequest(command), 'LOCK_FAILURE'),
    orderStatus: state.exists ? state.status : 'INITIATED',
    totalsAfter: state.exists ? state.totals : ZERO_TOTALS,
    timeOfRecord: command.now,
  };
}

/** Copy only the members whose value is defined (events never carry `undefined`). */
export function optional<T extends Record<string, unknown>>(values: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(values) as Array<keyof T>) {
    if (values[key] !== undefined) out[key] = values[key];
  }
  return out;
}

export type { CardExpiry };
