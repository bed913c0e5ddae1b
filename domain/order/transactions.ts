// The order API's transactions on the order aggregate (PUT .../order/{orderId}/transaction/{id}):
// PAY, AUTHORIZE and VERIFY are decided by the same rules as version 3's Pay with token
// (payment-outcome.ts: test acquirer, risk and 3-D Secure markers, merchant rules' gatewayCode and
// risk); CAPTURE, REFUND and VOID are approved when the order's totals allow them (totals.ts) and
// refused (400, nothing recorded) otherwise. Each is recorded as OrderTransactionRecorded.
import { InvalidRequest } from '../errors.js';
import type { OrderSource, OrderTotals, PaymentAuthentication, PaymentOutcome, TransactionType } from '../events.js';
import { firstMatchingRule } from '../merchant-rules.js';
import type { AuthenticationCommand, FollowOn, Initiating, OrderApiCommand, OrderDecision, Void } from './commands.js';
import { holdOf, lockFailure, replayOf, startedEvent, whileHeld } from './hold.js';
import { ZERO_TOTALS, type OrderState, type OrderTransaction } from './order-state.js';
import { authorizationCodeOf, sourceOf, transactionOf } from './order-views.js';
import { authenticationForPayment, type UsedAuthentication } from './payment-authentication.js';
import { acquirerReferences, decideOutcome, gatewayDecision, type MatchedRule, type OutcomeRequest } from './payment-outcome.js';
import { checkCurrency, checkTotalWithin, statusOfTotals, totalsAfterFollowOn, totalsAfterVoid } from './totals.js';

type Decision = OrderDecision<OrderTransaction>;
/** The order API's commands that record an OrderTransactionRecorded (3-D Secure's are authentication.ts's). */
type PaymentCommand = Exclude<OrderApiCommand, AuthenticationCommand>;
type Existing = Extract<OrderState, { exists: true }>;

/** What PAY, AUTHORIZE and VERIFY each make of an order (the rest of their decision is one). */
interface Effect {
  transactionType: TransactionType;
  /** The totals after an approval that stays (not reversed). */
  approved: (before: OrderTotals, amount: number) => OrderTotals;
  /** The order's status when no money is held, after this outcome. */
  otherwise: (result: PaymentOutcome['result'], state: OrderState) => string;
}

const pending = (result: PaymentOutcome['result']) => result === 'UNKNOWN' || result === 'PENDING';

export const INITIATING: Readonly<Record<Initiating['type'], Effect>> = {
  PAY: {
    transactionType: 'PAYMENT',
    approved: (b, amount) => ({ authorized: b.authorized + amount, captured: b.captured + amount, refunded: b.refunded }),
    otherwise: (result) => (result === 'SUCCESS' ? 'AUTHORIZED' : pending(result) ? 'INITIATED' : 'FAILED'),
  },
  AUTHORIZE: {
    transactionType: 'AUTHORIZATION',
    approved: (b, amount) => ({ ...b, authorized: b.authorized + amount }),
    otherwise: (result) => (result === 'SUCCESS' ? 'AUTHORIZED' : pending(result) ? 'INITIATED' : 'FAILED'),
  },
  VERIFY: {
    transactionType: 'VERIFICATION',
    approved: (b) => b,
    // A failed verification leaves an order's own status as it was.
    otherwise: (result, state) => (result === 'SUCCESS' ? 'VERIFIED' : pending(result) ? 'INITIATED'
      : state.exists && state.status !== 'FAILED' ? state.status : 'FAILED'),
  },
};

/** PAY, AUTHORIZE, VERIFY: a merchant rule's fault or latency first; then the acquirer decides (payment-outcome.ts). */
export function decideInitiating(c: Initiating, state: OrderState): Decision {
  const first = repeatedOrHeld(c, state);
  if ('decision' in first) return first.decision;
  const authentication = authenticationForPayment(c, state);
  if (authentication?.refusal) return recordedAs(refusedByAuthentication(state, c, authentication, INITIATING[c.type]));
  const rule = firstMatchingRule(c.rules, {
    amount: c.amount, currency: c.currency, cardNumber: c.source.card.number, brand: c.source.card.brand,
    token: c.source.token ?? '', orderReference: c.orderReference, transactionReference: c.transactionReference,
  }, c.bypassMerchantRiskRules === true);
  if (rule?.answer.fault === 'SERVER_BUSY') return { kind: 'busy', latencyMs: rule.answer.latencyMs ?? 0 };
  const latencyMs = rule?.answer.latencyMs ?? 0;
  if (latencyMs > 0 && !first.ours) {
    // Checked before the order is held: a refusal (another currency) is answered at once.
    checkCurrency(state, c.currency, 'order.currency');
    if (c.type !== 'VERIFY') checkTotalWithin(state, c.amount, c.currency, 'order.amount');
    return { kind: 'started', events: [startedEvent(c, latencyMs)], latencyMs };
  }
  const transaction = initial(state, c, rule, INITIATING[c.type], authentication);
  return recordedAs(transaction, rule?.answer.fault === 'SERVER_FAILED');
}

/** A payment on an authentication that did not succeed: the gateway refuses it, the acquirer is not asked. */
function refusedByAuthentication(state: OrderState, c: Initiating, used: UsedAuthentication, effect: Effect): OrderTransaction {
  checkCurrency(state, c.currency, 'order.currency');
  const request = { acquirerMerchantId: c.acquirerMerchantId, ids: c.ids, now: c.now } as OutcomeRequest;
  const outcome = gatewayDecision(request, used.refusal ?? 'AUTHENTICATION_FAILED');
  const totalsAfter = state.exists ? state.totals : ZERO_TOTALS;
  return recorded(state, c, {
    transactionType: effect.transactionType, amount: c.amount, currency: c.currency, outcome, totalsAfter,
    orderStatus: statusOfTotals(totalsAfter, effect.otherwise(outcome.result, state)), ...(c.type === 'VERIFY' ? {} : { orderAmount: c.amount }),
    source: c.source, authentication: used.record,
  });
}

/** CAPTURE (up to the authorized amount not yet captured), REFUND (up to the captured amount not yet refunded). */
export function decideFollowOn(c: FollowOn, state: OrderState): Decision {
  const first = repeatedOrHeld(c, state);
  if ('decision' in first) return first.decision;
  requireOrder(state, c);
  checkCurrency(state, c.currency, 'transaction.currency');
  const capture = c.type === 'CAPTURE';
  const totalsAfter = totalsAfterFollowOn(state.totals, capture, c.amount, state.currency);
  return recordedAs(recorded(state, c, {
    transactionType: capture ? 'CAPTURE' : 'REFUND', amount: c.amount, currency: state.currency, outcome: approval(state, c),
    totalsAfter, orderStatus: statusOfTotals(totalsAfter, state.status),
    decidedBy: capture ? 'the order\'s totals: within the amount authorized and not yet captured' : 'the order\'s totals: within the amount captured and not yet refunded',
  }));
}

const VOIDS: Partial<Record<TransactionType, TransactionType>> = {
  AUTHORIZATION: 'VOID_AUTHORIZATION', CAPTURE: 'VOID_CAPTURE', PAYMENT: 'VOID_PAYMENT', REFUND: 'VOID_REFUND',
};

/** VOID: undoes an authorization, a payment, a capture or a refund, once, if the totals after it stay consistent. */
export function decideVoid(c: Void, state: OrderState): Decision {
  const first = repeatedOrHeld(c, state);
  if ('decision' in first) return first.decision;
  requireOrder(state, c);
  const field = 'transaction.targetTransactionId';
  const targetId = c.targetTransactionId;
  const target = transactionOf(state, targetId);
  if (!target) throw new InvalidRequest(`Value '${targetId}' is invalid. No such transaction on order ${c.orderId}`, field);
  if (state.modern?.voided.has(targetId)) throw new InvalidRequest(`Value '${targetId}' is invalid. The transaction has already been voided`, field);
  const type = VOIDS[target.transactionType];
  if (!type) throw new InvalidRequest(`Value '${targetId}' is invalid. A ${target.transactionType} transaction cannot be voided`, field);
  if (target.outcome.result !== 'SUCCESS') throw new InvalidRequest(`Value '${targetId}' is invalid. Only a successful transaction can be voided`, field);
  const totalsAfter = totalsAfterVoid(state.totals, type, target.amount, targetId);
  return recordedAs(recorded(state, c, {
    transactionType: type, amount: target.amount, currency: state.currency, outcome: approval(state, c), totalsAfter,
    orderStatus: statusOfTotals(totalsAfter, 'CANCELLED'), targetTransactionId: targetId,
    decidedBy: `transaction ${targetId} succeeded and was not voided before`,
  }));
}

/**
 * What every order API transaction checks first: its id recorded before (replayed when recorded
 * by this API with the same request; a version 3 payment's id is taken), then the order's hold.
 */
function repeatedOrHeld(c: PaymentCommand, state: OrderState): { decision: Decision } | { ours: boolean } {
  const own = state.exists ? state.modern?.operations.get(c.transactionId) : undefined;
  const taken = state.exists && (state.transactions.has(c.transactionId) || state.modern?.authentications?.has(c.transactionId) === true);
  const replay = replayOf(c, own, taken);
  if (replay) return { decision: replay };
  const hold = holdOf(state, c);
  if (hold.kind !== 'free') return { decision: whileHeld(hold, c, () => locked(state, c), 'recorded') };
  return { ours: hold.ours };
}

const recordedAs = (transaction: OrderTransaction, failed = false): Decision => ({
  kind: 'recorded', events: [{ type: 'OrderTransactionRecorded', data: transaction }], transaction,
  ...(failed ? { fault: 'SERVER_FAILED' as const } : {}),
});

function requireOrder(state: OrderState, c: PaymentCommand): asserts state is Existing {
  if (!state.exists) throw new InvalidRequest(`Value '${c.orderId}' is invalid. No such order`, 'orderId');
}

const TYPES: Record<PaymentCommand['type'], TransactionType> = {
  PAY: 'PAYMENT', AUTHORIZE: 'AUTHORIZATION', VERIFY: 'VERIFICATION', CAPTURE: 'CAPTURE', REFUND: 'REFUND', VOID: 'VOID_AUTHORIZATION',
};

/** LOCK_FAILURE: the transaction as it would read, with the order as it stands; never recorded. */
function locked(state: OrderState, c: PaymentCommand): OrderTransaction {
  const { outcome, orderStatus, totalsAfter } = lockFailure(state, c);
  return recorded(state, c, {
    transactionType: TYPES[c.type], amount: 'amount' in c ? c.amount : 0,
    currency: 'currency' in c ? c.currency : state.exists ? state.currency : '',
    outcome, totalsAfter, orderStatus, ...('source' in c ? { source: c.source } : {}),
  });
}

interface Facts {
  transactionType: TransactionType; amount: number; currency: string; outcome: PaymentOutcome; totalsAfter: OrderTotals; orderStatus: string;
  orderAmount?: number; targetTransactionId?: string; source?: OrderSource; rule?: number; authentication?: PaymentAuthentication; decidedBy?: string;
}

function recorded(state: OrderState, c: PaymentCommand, facts: Facts): OrderTransaction {
  const source = facts.source ?? sourceOf(state);
  const orderReference = 'orderReference' in c ? c.orderReference : undefined;
  return {
    merchantId: c.merchantId,
    orderId: c.orderId,
    transactionId: c.transactionId,
    requestFingerprint: c.requestFingerprint,
    apiOperation: c.type,
    transactionType: facts.transactionType,
    amount: facts.amount,
    currency: facts.currency,
    ...(facts.orderAmount !== undefined ? { orderAmount: facts.orderAmount } : {}),
    ...(facts.targetTransactionId !== undefined ? { targetTransactionId: facts.targetTransactionId } : {}),
    ...(source ? { source } : {}),
    ...(orderReference !== undefined ? { orderReference } : {}),
    ...(c.transactionReference !== undefined ? { transactionReference: c.transactionReference } : {}),
    ...(facts.rule !== undefined ? { rule: facts.rule } : {}),
    ...(facts.authentication ? { authentication: facts.authentication } : {}),
    ...('entryPoint' in c && c.entryPoint ? { gatewayEntryPoint: c.entryPoint } : {}),
    ...('payer' in c && c.payer ? { payer: c.payer } : {}),
    outcome: facts.outcome,
    ...(facts.decidedBy !== undefined ? { decidedBy: facts.decidedBy } : {}),
    orderStatus: facts.orderStatus,
    totalsAfter: facts.totalsAfter,
    timeOfRecord: c.now,
  };
}

/** PAY, AUTHORIZE, VERIFY as recorded: the order's currency and total checked, the outcome chosen, its effect on the order. */
function initial(
  state: OrderState, c: Initiating, rule: MatchedRule | undefined, effect: Effect, authentication: UsedAuthentication | undefined,
): OrderTransaction {
  checkCurrency(state, c.currency, 'order.currency');
  checkTotalWithin(state, c.amount, c.currency, 'order.amount');
  const request: OutcomeRequest = {
    card: c.source.card, securityCode: c.securityCode, billingStreet: c.billingStreet, orderReference: c.orderReference,
    // A payment that names its authentication takes its 3-D Secure result from it, not from a marker.
    holderLastName: authentication ? undefined : c.holderLastName, bypassMerchantRiskRules: c.bypassMerchantRiskRules === true, rules: c.rules,
    acquirerMerchantId: c.acquirerMerchantId, ids: c.ids, now: c.now,
  };
  const { outcome, captured: stays, reversed, decidedBy } = decideOutcome(request, rule);
  const before = state.exists ? state.totals : ZERO_TOTALS;
  const totalsAfter = stays ? effect.approved(before, c.amount) : before;
  const otherwise = reversed ? 'CANCELLED' : effect.otherwise(outcome.result, state);
  return recorded(state, c, {
    transactionType: effect.transactionType, amount: c.amount, currency: c.currency, outcome, totalsAfter,
    orderStatus: statusOfTotals(totalsAfter, otherwise), ...(c.type === 'VERIFY' ? {} : { orderAmount: c.amount }), source: c.source, decidedBy,
    ...(rule ? { rule: rule.index } : {}),
    ...(authentication ? { authentication: authentication.record } : {}),
  });
}

const TERMINAL = 'TGW00001';

/** The acquirer's approval of a capture, refund or void (no card checks: the card was checked by the authorization). */
function approval(state: OrderState, c: PaymentCommand): PaymentOutcome {
  const authorizationCode = authorizationCodeOf(state);
  const request = { acquirerMerchantId: c.acquirerMerchantId, ids: c.ids, now: c.now } as OutcomeRequest;
  return {
    gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00', acquirerMessage: 'Approved',
    ...(authorizationCode ? { authorizationCode } : {}),
    acquirer: acquirerReferences(request), receipt: c.ids.receipt, stan: c.ids.stan, terminal: TERMINAL,
  };
}
