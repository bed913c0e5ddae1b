// The decider of the order API (PUT .../order/{orderId}/transaction/{transactionId}; versions 1-100
// but the deactivated ones): PAY, AUTHORIZE, CAPTURE, REFUND, VOID and VERIFY on the order
// aggregate (order-state.ts). Pure: the acquirer's references and the time are in the command. PAY,
// AUTHORIZE and VERIFY are decided by the same rules as version 3's Pay with token
// (payment-outcome.ts: test acquirer, risk and 3-D Secure markers, merchant rules' gatewayCode and
// risk); CAPTURE, REFUND and VOID are approved when the order's totals allow them (totals.ts) and
// refused (400, nothing recorded) otherwise.
import { InvalidRequest } from '../errors.js';
import type { ApiOperation, OrderSource, OrderTotals, OrderTransactionRecorded, PaymentOutcome, PaymentRecorded, PaymentStarted, TransactionType } from '../events.js';
import { firstMatchingRule, type MerchantRule } from '../merchant-rules.js';
import { holdOf, startedEvent, type AcquirerIds } from './order.js';
import { acquirerReferences, decideOutcome, gatewayDecision, type MatchedRule, type OutcomeRequest } from './payment-outcome.js';
import { ZERO_TOTALS, type OrderState, type OrderTransaction } from './order-state.js';
import { checkTotalWithin, statusOfTotals, totalsAfterFollowOn, totalsAfterVoid } from './totals.js';

export interface OrderTransactionCommand {
  type: 'OrderTransaction';
  merchantId: string;
  orderId: string;
  transactionId: string;
  requestFingerprint: string;
  apiOperation: ApiOperation;
  /** Minor units: order.amount (PAY, AUTHORIZE), transaction.amount (CAPTURE, REFUND); absent for VOID and VERIFY. */
  amount?: number;
  /** order.currency or transaction.currency; absent for VOID. */
  currency?: string;
  targetTransactionId?: string;
  /** PAY, AUTHORIZE, VERIFY: the token's card. */
  source?: OrderSource;
  /** Only used to choose the CSC response; never recorded. */
  securityCode?: string;
  billingStreet?: string;
  orderReference?: string;
  transactionReference?: string;
  holderLastName?: string;
  rules?: readonly MerchantRule[];
  bypassMerchantRiskRules?: boolean;
  acquirerMerchantId: string;
  /** Identifies this request among repeats of it: the one whose PaymentStarted holds the order records. */
  attemptId?: string;
  ids: AcquirerIds;
  now: string;
}

/**
 * As version 3's Pay with token (order.ts decidePay): a merchant rule's latency holds the order
 * (PaymentStarted) while the acquirer "thinks"; meanwhile another transaction on the order is
 * answered LOCK_FAILURE (not recorded) and an identical repeat waits for the record. A rule's
 * SERVER_BUSY answers 503 and records nothing; SERVER_FAILED records, and the first answer is a 500.
 */
export type OrderTransactionDecision =
  | { kind: 'recorded'; events: OrderTransactionRecorded[]; transaction: OrderTransaction; fault?: 'SERVER_FAILED' }
  | { kind: 'replayed'; transaction: OrderTransaction }
  | { kind: 'started'; events: PaymentStarted[]; latencyMs: number }
  | { kind: 'inFlight'; until: string }
  | { kind: 'locked'; transaction: OrderTransaction }
  | { kind: 'busy'; latencyMs: number };

const TERMINAL = 'TGW00001';

const differentRequest = (c: OrderTransactionCommand) => new InvalidRequest(
  `Transaction '${c.transactionId}' of order '${c.orderId}' is already recorded with a different request. ` +
  'Repeat the identical request to read its outcome, or use a new transaction id.',
);

/** A version 3 payment as a transaction of the order API (a void or a refund may name it). */
function fromPayment(p: PaymentRecorded['data']): OrderTransaction {
  return {
    merchantId: p.merchantId, orderId: p.orderId, transactionId: p.transactionId, requestFingerprint: p.requestFingerprint,
    apiOperation: 'PAY', transactionType: 'PAYMENT', amount: p.amount, currency: p.currency,
    source: { repositoryId: p.repositoryId, token: p.token, card: p.card },
    outcome: p.outcome, orderStatus: p.orderStatus, totalsAfter: p.totalsAfter, timeOfRecord: p.timeOfRecord,
  };
}

export function transactionOf(state: OrderState, id: string): OrderTransaction | undefined {
  if (!state.exists) return undefined;
  const modern = state.modern?.operations.get(id);
  if (modern) return modern;
  const payment = state.transactions.get(id);
  return payment ? fromPayment(payment) : undefined;
}

function sourceOf(state: OrderState): OrderSource | undefined {
  if (!state.exists) return undefined;
  if (state.modern?.source) return state.modern.source;
  const first = state.transactions.values().next();
  return first.done ? undefined : fromPayment(first.value).source;
}

/** The authorization code the order's latest approved authorization or payment got. */
function authorizationCodeOf(state: OrderState): string | undefined {
  if (!state.exists) return undefined;
  let code: string | undefined;
  for (const p of state.transactions.values()) code = p.outcome.authorizationCode ?? code;
  for (const t of state.modern?.operations.values() ?? []) {
    if (t.transactionType === 'AUTHORIZATION' || t.transactionType === 'PAYMENT') code = t.outcome.authorizationCode ?? code;
  }
  return code;
}

export function decideOrderTransaction(state: OrderState, c: OrderTransactionCommand): OrderTransactionDecision {
  const previous = transactionOf(state, c.transactionId);
  if (previous) {
    if (previous.requestFingerprint === c.requestFingerprint && state.exists && state.modern?.operations.has(c.transactionId)) {
      return { kind: 'replayed', transaction: previous };
    }
    throw differentRequest(c);
  }
  const hold = holdOf(state, c);
  if (hold.kind === 'other') return { kind: 'locked', transaction: lockFailure(state, c) };
  if (hold.kind === 'differentRequest') throw differentRequest(c);
  if (hold.kind === 'same') return { kind: 'inFlight', until: hold.until };
  const { ours } = hold;
  const rule = initiating(c) ? ruleOf(c) : undefined;
  if (rule?.answer.fault === 'SERVER_BUSY') return { kind: 'busy', latencyMs: rule.answer.latencyMs ?? 0 };
  const latencyMs = rule?.answer.latencyMs ?? 0;
  if (latencyMs > 0 && !ours) {
    // Checked before the order is held: a refusal (another currency) is answered at once.
    checkCurrency(state, c.currency, 'order.currency');
    if (c.apiOperation !== 'VERIFY') checkTotalWithin(state, c.amount ?? 0, c.currency ?? '', 'order.amount');
    return { kind: 'started', events: [startedEvent({ ...c, amount: c.amount ?? 0, currency: c.currency ?? '' }, latencyMs)], latencyMs };
  }
  const transaction = decideNew(state, c);
  return {
    kind: 'recorded', events: [{ type: 'OrderTransactionRecorded', data: transaction }], transaction,
    ...(rule?.answer.fault === 'SERVER_FAILED' ? { fault: 'SERVER_FAILED' as const } : {}),
  };
}

const initiating = (c: OrderTransactionCommand) => c.apiOperation === 'PAY' || c.apiOperation === 'AUTHORIZE' || c.apiOperation === 'VERIFY';

/** The merchant's first rule that matches a PAY, AUTHORIZE or VERIFY. */
function ruleOf(c: OrderTransactionCommand): MatchedRule | undefined {
  const source = c.source as OrderSource;
  return firstMatchingRule(c.rules ?? [], {
    amount: c.apiOperation === 'VERIFY' ? 0 : c.amount ?? 0, currency: c.currency as string, cardNumber: source.card.number, brand: source.card.brand,
    token: source.token ?? '', orderReference: c.orderReference, transactionReference: c.transactionReference,
  }, c.bypassMerchantRiskRules === true);
}

/** LOCK_FAILURE: the transaction as it would read, with the order as it stands; never recorded. */
function lockFailure(state: OrderState, c: OrderTransactionCommand): OrderTransaction {
  const request = { acquirerMerchantId: c.acquirerMerchantId, ids: c.ids, now: c.now } as OutcomeRequest;
  const types: Record<ApiOperation, TransactionType> = {
    PAY: 'PAYMENT', AUTHORIZE: 'AUTHORIZATION', VERIFY: 'VERIFICATION', CAPTURE: 'CAPTURE', REFUND: 'REFUND', VOID: 'VOID_AUTHORIZATION',
  };
  const totals = state.exists ? state.totals : ZERO_TOTALS;
  return recorded(state, c, {
    transactionType: types[c.apiOperation], amount: c.amount ?? 0, currency: c.currency ?? (state.exists ? state.currency : ''),
    outcome: gatewayDecision(request, 'LOCK_FAILURE'), totalsAfter: totals, orderStatus: state.exists ? state.status : 'INITIATED',
    ...(c.source ? { source: c.source } : {}),
  });
}

function decideNew(state: OrderState, c: OrderTransactionCommand): OrderTransaction {
  switch (c.apiOperation) {
    case 'PAY':
    case 'AUTHORIZE':
    case 'VERIFY':
      return initial(state, c);
    case 'CAPTURE':
    case 'REFUND':
      return followOn(state, c);
    case 'VOID':
      return voidOf(state, c);
  }
}

function requireOrder(state: OrderState, c: OrderTransactionCommand): asserts state is Extract<OrderState, { exists: true }> {
  if (!state.exists) throw new InvalidRequest(`Value '${c.orderId}' is invalid. No such order`, 'orderId');
}

function checkCurrency(state: OrderState, currency: string | undefined, field: string): void {
  if (state.exists && currency !== undefined && state.currency !== currency) {
    throw new InvalidRequest(`Value '${currency}' is invalid. The order's currency is ${state.currency}`, field);
  }
}

function recorded(
  state: OrderState, c: OrderTransactionCommand,
  facts: {
    transactionType: TransactionType; amount: number; currency: string; outcome: PaymentOutcome; totalsAfter: OrderTotals; orderStatus: string;
    orderAmount?: number; targetTransactionId?: string; source?: OrderSource; rule?: number; decidedBy?: string;
  },
): OrderTransaction {
  const source = facts.source ?? sourceOf(state);
  return {
    merchantId: c.merchantId,
    orderId: c.orderId,
    transactionId: c.transactionId,
    requestFingerprint: c.requestFingerprint,
    apiOperation: c.apiOperation,
    transactionType: facts.transactionType,
    amount: facts.amount,
    currency: facts.currency,
    ...(facts.orderAmount !== undefined ? { orderAmount: facts.orderAmount } : {}),
    ...(facts.targetTransactionId !== undefined ? { targetTransactionId: facts.targetTransactionId } : {}),
    ...(source ? { source } : {}),
    ...(c.orderReference !== undefined ? { orderReference: c.orderReference } : {}),
    ...(c.transactionReference !== undefined ? { transactionReference: c.transactionReference } : {}),
    ...(facts.rule !== undefined ? { rule: facts.rule } : {}),
    outcome: facts.outcome,
    ...(facts.decidedBy !== undefined ? { decidedBy: facts.decidedBy } : {}),
    orderStatus: facts.orderStatus,
    totalsAfter: facts.totalsAfter,
    timeOfRecord: c.now,
  };
}

/** PAY, AUTHORIZE, VERIFY: the test acquirer decides (payment-outcome.ts). */
function initial(state: OrderState, c: OrderTransactionCommand): OrderTransaction {
  const currency = c.currency as string;
  const source = c.source as OrderSource;
  checkCurrency(state, currency, 'order.currency');
  const amount = c.apiOperation === 'VERIFY' ? 0 : c.amount ?? 0;
  checkTotalWithin(state, amount, currency, 'order.amount');
  const rule = ruleOf(c);
  const request: OutcomeRequest = {
    card: source.card, securityCode: c.securityCode, billingStreet: c.billingStreet, orderReference: c.orderReference,
    holderLastName: c.holderLastName, bypassMerchantRiskRules: c.bypassMerchantRiskRules === true, rules: c.rules ?? [],
    acquirerMerchantId: c.acquirerMerchantId, ids: c.ids, now: c.now,
  };
  const { outcome, captured: stays, reversed, decidedBy } = decideOutcome(request, rule);
  const before = state.exists ? state.totals : ZERO_TOTALS;
  const totalsAfter = !stays || c.apiOperation === 'VERIFY' ? before
    : c.apiOperation === 'PAY'
      ? { authorized: before.authorized + amount, captured: before.captured + amount, refunded: before.refunded }
      : { ...before, authorized: before.authorized + amount };
  const otherwise = reversed ? 'CANCELLED'
    : outcome.result === 'SUCCESS' ? (c.apiOperation === 'VERIFY' ? 'VERIFIED' : 'AUTHORIZED')
      : outcome.result === 'UNKNOWN' || outcome.result === 'PENDING' ? 'INITIATED'
        : state.exists && state.status !== 'FAILED' && c.apiOperation === 'VERIFY' ? state.status : 'FAILED';
  const transactionType: TransactionType = c.apiOperation === 'PAY' ? 'PAYMENT' : c.apiOperation === 'AUTHORIZE' ? 'AUTHORIZATION' : 'VERIFICATION';
  return recorded(state, c, {
    transactionType, amount, currency, outcome, totalsAfter, orderStatus: statusOfTotals(totalsAfter, otherwise),
    ...(c.apiOperation === 'VERIFY' ? {} : { orderAmount: amount }), source, decidedBy,
    ...(rule ? { rule: rule.index } : {}),
  });
}

/** The acquirer's approval of a capture, refund or void (no card checks: the card was checked by the authorization). */
function approval(state: OrderState, c: OrderTransactionCommand): PaymentOutcome {
  const authorizationCode = authorizationCodeOf(state);
  const request = { acquirerMerchantId: c.acquirerMerchantId, ids: c.ids, now: c.now } as OutcomeRequest;
  return {
    gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00', acquirerMessage: 'Approved',
    ...(authorizationCode ? { authorizationCode } : {}),
    acquirer: acquirerReferences(request), receipt: c.ids.receipt, stan: c.ids.stan, terminal: TERMINAL,
  };
}

/** CAPTURE (up to the authorized amount not yet captured) and REFUND (up to the captured amount not yet refunded). */
function followOn(state: OrderState, c: OrderTransactionCommand): OrderTransaction {
  requireOrder(state, c);
  checkCurrency(state, c.currency, 'transaction.currency');
  const amount = c.amount as number;
  const capture = c.apiOperation === 'CAPTURE';
  const totalsAfter = totalsAfterFollowOn(state.totals, capture, amount, state.currency);
  return recorded(state, c, {
    transactionType: capture ? 'CAPTURE' : 'REFUND', amount, currency: state.currency, outcome: approval(state, c),
    totalsAfter, orderStatus: statusOfTotals(totalsAfter, state.status),
    decidedBy: capture ? 'the order\'s totals: within the amount authorized and not yet captured' : 'the order\'s totals: within the amount captured and not yet refunded',
  });
}

const VOIDS: Partial<Record<TransactionType, TransactionType>> = {
  AUTHORIZATION: 'VOID_AUTHORIZATION', CAPTURE: 'VOID_CAPTURE', PAYMENT: 'VOID_PAYMENT', REFUND: 'VOID_REFUND',
};

/** VOID: undoes an authorization, a payment, a capture or a refund, once, if the totals after it stay consistent. */
function voidOf(state: OrderState, c: OrderTransactionCommand): OrderTransaction {
  requireOrder(state, c);
  const field = 'transaction.targetTransactionId';
  const targetId = c.targetTransactionId as string;
  const target = transactionOf(state, targetId);
  if (!target) throw new InvalidRequest(`Value '${targetId}' is invalid. No such transaction on order ${c.orderId}`, field);
  if (state.modern?.voided.has(targetId)) throw new InvalidRequest(`Value '${targetId}' is invalid. The transaction has already been voided`, field);
  const type = VOIDS[target.transactionType];
  if (!type) throw new InvalidRequest(`Value '${targetId}' is invalid. A ${target.transactionType} transaction cannot be voided`, field);
  if (target.outcome.result !== 'SUCCESS') throw new InvalidRequest(`Value '${targetId}' is invalid. Only a successful transaction can be voided`, field);
  const totalsAfter = totalsAfterVoid(state.totals, type, target.amount, targetId);
  return recorded(state, c, {
    transactionType: type, amount: target.amount, currency: state.currency, outcome: approval(state, c), totalsAfter,
    orderStatus: statusOfTotals(totalsAfter, 'CANCELLED'), targetTransactionId: targetId,
    decidedBy: `transaction ${targetId} succeeded and was not voided before`,
  });
}
