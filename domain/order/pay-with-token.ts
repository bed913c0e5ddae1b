// Version 3's Pay with token on the order aggregate: one PAYMENT with the token's card, recorded as
// PaymentRecorded (the outcome is chosen in payment-outcome.ts).
import { cardTypeOf } from '../card.js';
import type { PaymentRecorded } from '../events.js';
import { firstMatchingRule, type RuleAnswer } from '../merchant-rules.js';
import type { OrderDecision, PayWithToken } from './commands.js';
import { holdOf, lockFailure, replayOf, startedEvent, whileHeld } from './hold.js';
import { orderStatus, ZERO_TOTALS, type OrderState } from './order-state.js';
import { decideOutcome, type OutcomeRequest } from './payment-outcome.js';
import { checkCurrency, checkTotalWithin } from './totals.js';

type Recorded = PaymentRecorded['data'];

/**
 * The id recorded before replays or is refused (an id the order API took included); the hold;
 * the order's currency and total; then a merchant rule's fault or latency, or the record.
 */
export function decidePayWithToken(c: PayWithToken, state: OrderState): OrderDecision<Recorded> {
  const replay = replayOf(c, state.exists ? state.transactions.get(c.transactionId) : undefined, state.exists && state.modern?.operations.has(c.transactionId) === true);
  if (replay) return replay;
  const hold = holdOf(state, c);
  if (hold.kind !== 'free') return whileHeld(hold, c, () => ({ ...paymentFacts(c), ...lockFailure(state, c) }), 'in progress');
  checkCurrency(state, c.currency, 'transaction.currency');
  checkTotalWithin(state, c.amount, c.currency, 'transaction.amount');
  const rule = firstMatchingRule(c.rules ?? [], {
    amount: c.amount, currency: c.currency, cardNumber: c.card.number, brand: c.card.brand,
    token: c.token, orderReference: c.orderReference, transactionReference: c.transactionReference,
  }, c.bypassMerchantRiskRules === true);
  const latencyMs = rule?.answer.latencyMs ?? 0;
  if (rule?.answer.fault === 'SERVER_BUSY') return { kind: 'busy', latencyMs };
  if (latencyMs > 0 && !hold.ours) return { kind: 'started', events: [startedEvent(c, latencyMs)], latencyMs };
  const payment = recordedPayment(state, c, rule);
  return {
    kind: 'recorded', events: [{ type: 'PaymentRecorded', data: payment }], transaction: payment,
    ...(payment.fault === 'SERVER_FAILED' ? { fault: 'SERVER_FAILED' as const } : {}),
  };
}

const outcomeRequest = (c: PayWithToken): OutcomeRequest => ({
  card: c.card,
  securityCode: c.securityCode,
  billingStreet: c.billingStreet,
  orderReference: c.orderReference,
  holderLastName: c.holder?.lastName,
  bypassMerchantRiskRules: c.bypassMerchantRiskRules === true,
  rules: c.rules ?? [],
  acquirerMerchantId: c.acquirerMerchantId,
  ids: c.ids,
  now: c.now,
});

function recordedPayment(state: OrderState, c: PayWithToken, rule: { index: number; answer: RuleAnswer } | undefined): Recorded {
  const { outcome, captured, reversed, decidedBy } = decideOutcome(outcomeRequest(c), rule);
  const before = state.exists ? state.totals : ZERO_TOTALS;
  const totalsAfter = captured
    ? { authorized: before.authorized + c.amount, captured: before.captured + c.amount, refunded: before.refunded }
    : before;
  // Member by member, in the order the event's stored text has always had.
  const payment = paymentFacts(c) as Recorded;
  if (c.holder && Object.keys(c.holder).length > 0) payment.holder = c.holder;
  if (rule !== undefined) payment.rule = rule.index;
  if (rule?.answer.latencyMs) payment.latencyMs = rule.answer.latencyMs;
  if (rule?.answer.fault === 'SERVER_FAILED') payment.fault = 'SERVER_FAILED';
  payment.outcome = outcome;
  payment.decidedBy = decidedBy;
  payment.orderStatus = orderStatus(totalsAfter, outcome.result, reversed);
  payment.totalsAfter = totalsAfter;
  payment.timeOfRecord = c.now;
  return payment;
}

type Facts = Omit<Recorded, 'outcome' | 'orderStatus' | 'totalsAfter' | 'timeOfRecord'>;

/** What the request says of the payment, as recorded (the members without a value left out). */
function paymentFacts(c: PayWithToken): Facts {
  const facts = {
    merchantId: c.merchantId,
    orderId: c.orderId,
    transactionId: c.transactionId,
    requestFingerprint: c.requestFingerprint,
    repositoryId: c.repositoryId,
    token: c.token,
    card: { ...c.card, type: cardTypeOf(c.card.brand, c.card.fundingMethod) },
    amount: c.amount,
    currency: c.currency,
  } as Facts;
  if (c.orderReference !== undefined) facts.orderReference = c.orderReference;
  if (c.transactionReference !== undefined) facts.transactionReference = c.transactionReference;
  if (c.frequency !== undefined) facts.frequency = c.frequency as Recorded['frequency'];
  if (c.cashAdvance !== undefined) facts.cashAdvance = c.cashAdvance;
  if (c.taxLocal !== undefined) facts.taxLocal = c.taxLocal;
  facts.source = (c.source ?? 'INTERNET') as Recorded['source'];
  return facts;
}
