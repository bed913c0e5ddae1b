// The order aggregate's one decider, kind by kind, given the order's events, when a command, then
// the events (or the refusal): version 3's Pay with token, the order API's PAY, AUTHORIZE, VERIFY,
// CAPTURE, REFUND and VOID, and ResolveUnknownPayment; and the checks every transaction makes
// first (its id recorded before, the order's hold).
import t from 'tap';
import { InvalidRequest } from '../../domain/errors.js';
import type { OrderEvent, OrderSource, PaymentOutcome, PaymentStarted } from '../../domain/events.js';
import {
  decide, evolveOrder, initialOrderState, type FollowOn, type Initiating, type OrderCommand, type OrderDecision, type OrderState, type PayWithToken, type Void,
} from '../../domain/order/order.js';
import type { OrderTransaction } from '../../domain/order/order-state.js';
import { deciderSpec } from '../helpers/decider.js';

const spec = deciderSpec({
  decide: (state: OrderState, command: OrderCommand): unknown => decide(command, state),
  evolve: evolveOrder,
  initialState: initialOrderState,
});

const NOW = '2026-11-21T12:00:00.000Z';
const LATER = '2026-11-21T12:00:01.000Z';
const ids = { authorizationCode: 'AB1CD2', receipt: '12B45C78D01F', stan: '12C45D', acquirerTransactionId: '01B34C67D90F12G45H78', batch: 20261121 };
const card = { number: '512345xxxxxx0008', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT', type: 'MASTERCARD', expiry: { month: 1, year: 39 } } as const;
const source: OrderSource = { repositoryId: 'R', token: '9123456789012348', card };
const base = { merchantId: 'M', orderId: 'O1', acquirerMerchantId: 'M', ids, now: NOW };

const acquirer = { id: 'TOKENGATE_S2I', batch: 20261121, date: '1121', merchantId: 'M', settlementDate: '2026-11-21', timeZone: '+0000', transactionId: ids.acquirerTransactionId };
/** The test acquirer's approval of card 01/39 with security code 100 and a street. */
const APPROVED: PaymentOutcome = {
  gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00', acquirerMessage: 'Approved', authorizationCode: ids.authorizationCode,
  cardSecurityCode: { gatewayCode: 'MATCH', acquirerCode: 'M' }, avs: { gatewayCode: 'ADDRESS_MATCH', acquirerCode: 'A' },
  acquirer, receipt: ids.receipt, stan: ids.stan, terminal: 'TGW00001',
};
/** A capture's, refund's or void's approval: the order's authorization code, no card checks. */
const approval = (authorizationCode = ids.authorizationCode): PaymentOutcome => ({
  gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00', acquirerMessage: 'Approved', authorizationCode,
  acquirer, receipt: ids.receipt, stan: ids.stan, terminal: 'TGW00001',
});

const v3 = (transactionId: string, extra: Partial<PayWithToken> = {}): PayWithToken => ({
  type: 'PayWithToken', ...base, orderId: '10000000001', transactionId, requestFingerprint: `fp-${transactionId}`, repositoryId: 'R',
  token: '9123456789012348', card: { number: card.number, brand: card.brand, scheme: card.scheme, fundingMethod: card.fundingMethod, expiry: card.expiry },
  amount: 1000, currency: 'USD', securityCode: '100', billingStreet: '12 Alpha St', orderReference: undefined, transactionReference: undefined,
  source: undefined, frequency: undefined, cashAdvance: undefined, taxLocal: undefined, ...extra,
});
const initiating = <T extends Initiating['type']>(type: T, transactionId: string, amount: number, extra: Partial<Initiating> = {}): Initiating<T> => ({
  type, ...base, transactionId, requestFingerprint: `fp-${transactionId}`, amount, currency: 'USD', source, rules: [],
  securityCode: '100', billingStreet: '12 Alpha St', ...extra,
} as Initiating<T>);
const followOn = <T extends FollowOn['type']>(type: T, transactionId: string, amount: number, currency = 'USD'): FollowOn<T> =>
  ({ type, ...base, transactionId, requestFingerprint: `fp-${transactionId}`, amount, currency });
const voidOf = (transactionId: string, targetTransactionId: string): Void =>
  ({ type: 'VOID', ...base, transactionId, requestFingerprint: `fp-${transactionId}`, targetTransactionId });

/** The events a command records on the order given `before` (fails when it records none). */
function recorded(command: OrderCommand, before: OrderEvent[] = []): OrderEvent[] {
  const decision = decide(command, before.reduce(evolveOrder, initialOrderState()));
  if (Array.isArray(decision)) return [...before, ...decision];
  if (decision.kind !== 'recorded' && decision.kind !== 'started') throw new Error(`setup: ${command.type} decided ${decision.kind}`);
  return [...before, ...decision.events];
}
const refusal = (field: string | undefined, explanation: RegExp) => (error: InvalidRequest) => {
  t.equal(error.field, field);
  t.match(error.message, explanation);
};
const dataOf = (events: OrderEvent[]) => events.at(-1)?.data;
/** An order API decision that must record (fails the test otherwise). */
function transactionRecorded(decision: unknown): Extract<OrderDecision<OrderTransaction>, { kind: 'recorded' }> {
  const d = decision as OrderDecision<OrderTransaction>;
  if (d.kind !== 'recorded') throw new Error(`expected recorded, got ${d.kind}`);
  return d;
}

t.test('PayWithToken: recorded as PaymentRecorded; an identical repeat replays it; another body with its id is refused', async (t) => {
  const data = {
    merchantId: 'M', orderId: '10000000001', transactionId: 'p1', requestFingerprint: 'fp-p1', repositoryId: 'R', token: '9123456789012348',
    card, amount: 1000, currency: 'USD', source: 'INTERNET', outcome: APPROVED, decidedBy: "expiry 01/39 in the test acquirer's table", orderStatus: 'CAPTURED',
    totalsAfter: { authorized: 1000, captured: 1000, refunded: 0 }, timeOfRecord: NOW,
  };
  const events = [{ type: 'PaymentRecorded', data }] as OrderEvent[];
  spec(t).given([]).when(v3('p1')).then({ kind: 'recorded', events, transaction: data });
  spec(t).given(events).when(v3('p1', { now: LATER })).then({ kind: 'replayed', transaction: data });
  spec(t).given(events).when(v3('p1', { requestFingerprint: 'other' })).thenThrows(InvalidRequest, refusal(undefined, /already recorded with a different request/));
  spec(t).given(events).when(v3('p2', { currency: 'EUR' })).thenThrows(InvalidRequest, refusal('transaction.currency', /The order's currency is USD/));
  const taken = recorded(initiating('AUTHORIZE', 'api-1', 500, { orderId: '10000000001' }));
  spec(t).given(taken).when(v3('api-1')).thenThrows(InvalidRequest, refusal(undefined, /already recorded/));
});

t.test('PAY: authorized and captured at once, the order CAPTURED', async (t) => {
  const data = {
    merchantId: 'M', orderId: 'O1', transactionId: 'pay', requestFingerprint: 'fp-pay', apiOperation: 'PAY', transactionType: 'PAYMENT',
    amount: 10000, currency: 'USD', orderAmount: 10000, source, outcome: APPROVED, decidedBy: "expiry 01/39 in the test acquirer's table", orderStatus: 'CAPTURED',
    totalsAfter: { authorized: 10000, captured: 10000, refunded: 0 }, timeOfRecord: NOW,
  };
  const events = [{ type: 'OrderTransactionRecorded', data }] as OrderEvent[];
  spec(t).given([]).when(initiating('PAY', 'pay', 10000)).then({ kind: 'recorded', events, transaction: data });
  spec(t).given(events).when(initiating('PAY', 'pay', 10000, { now: LATER })).then({ kind: 'replayed', transaction: data });
  spec(t).given(events).when(initiating('PAY', 'pay', 10001, { requestFingerprint: 'other' })).thenThrows(InvalidRequest, refusal(undefined, /already recorded/));
  spec(t).given(events).when(initiating('PAY', 'pay-2', 100, { currency: 'EUR' })).thenThrows(InvalidRequest, refusal('order.currency', /currency is USD/));
  const paidByVersion3 = recorded(v3('p1', { orderId: 'O1' }));
  spec(t).given(paidByVersion3).when(initiating('PAY', 'p1', 1000)).thenThrows(InvalidRequest, refusal(undefined, /already recorded/));
});

t.test('AUTHORIZE: authorized only, the order AUTHORIZED; declined: FAILED, no money', async (t) => {
  const after = transactionRecorded(spec(t).given([]).when(initiating('AUTHORIZE', 'auth', 5000)).result());
  t.match(after.transaction, { apiOperation: 'AUTHORIZE', transactionType: 'AUTHORIZATION', amount: 5000, orderAmount: 5000, orderStatus: 'AUTHORIZED' });
  t.strictSame(after.transaction.totalsAfter, { authorized: 5000, captured: 0, refunded: 0 });
  t.strictSame(after.transaction.outcome, APPROVED);
  const declined = transactionRecorded(spec(t).given([]).when(initiating('AUTHORIZE', 'auth', 5000, { source: { ...source, card: { ...card, expiry: { month: 5, year: 39 } } } })).result());
  t.match(declined.transaction, { orderStatus: 'FAILED', totalsAfter: { authorized: 0, captured: 0, refunded: 0 }, outcome: { gatewayCode: 'DECLINED' } });
});

t.test('VERIFY: no amount, no money; the order VERIFIED; a failed one leaves an order\'s status as it was', async (t) => {
  const verified = transactionRecorded(spec(t).given([]).when(initiating('VERIFY', 'v', 0)).result());
  t.match(verified.transaction, { transactionType: 'VERIFICATION', amount: 0, orderStatus: 'VERIFIED', totalsAfter: { authorized: 0, captured: 0, refunded: 0 } });
  t.notOk('orderAmount' in verified.transaction, 'a verification gives the order no amount');
  const authorized = recorded(initiating('AUTHORIZE', 'auth', 700));
  const failed = transactionRecorded(spec(t).given(authorized).when(initiating('VERIFY', 'v', 0, { source: { ...source, card: { ...card, expiry: { month: 5, year: 39 } } } })).result());
  t.equal(failed.transaction.orderStatus, 'AUTHORIZED', 'declined: the order stays AUTHORIZED');
});

t.test('CAPTURE: up to the authorized amount not yet captured, approved with the authorization\'s code', async (t) => {
  const authorized = recorded(initiating('AUTHORIZE', 'auth', 5000, { ids: { ...ids, authorizationCode: 'ZZ9ZZ9' } }));
  const data = {
    merchantId: 'M', orderId: 'O1', transactionId: 'cap', requestFingerprint: 'fp-cap', apiOperation: 'CAPTURE', transactionType: 'CAPTURE',
    amount: 2000, currency: 'USD', source, outcome: approval('ZZ9ZZ9'), decidedBy: "the order's totals: within the amount authorized and not yet captured", orderStatus: 'PARTIALLY_CAPTURED',
    totalsAfter: { authorized: 5000, captured: 2000, refunded: 0 }, timeOfRecord: NOW,
  };
  spec(t).given(authorized).when(followOn('CAPTURE', 'cap', 2000)).then({ kind: 'recorded', events: [{ type: 'OrderTransactionRecorded', data }], transaction: data });
  spec(t).given(authorized).when(followOn('CAPTURE', 'cap', 5001)).thenThrows(InvalidRequest, refusal('transaction.amount', /authorized amount not yet captured/));
  spec(t).given(authorized).when(followOn('CAPTURE', 'cap', 100, 'EUR')).thenThrows(InvalidRequest, refusal('transaction.currency', /currency is USD/));
  spec(t).given([]).when(followOn('CAPTURE', 'cap', 100)).thenThrows(InvalidRequest, refusal('orderId', /No such order/));
});

t.test('REFUND: up to the captured amount not yet refunded', async (t) => {
  const paid = recorded(initiating('PAY', 'pay', 3000));
  const refund = transactionRecorded(spec(t).given(paid).when(followOn('REFUND', 'ref', 1000)).result());
  t.match(refund.transaction, { apiOperation: 'REFUND', transactionType: 'REFUND', amount: 1000, orderStatus: 'PARTIALLY_REFUNDED' });
  t.strictSame(refund.transaction.totalsAfter, { authorized: 3000, captured: 3000, refunded: 1000 });
  t.strictSame(refund.transaction.outcome, approval());
  spec(t).given(recorded(followOn('REFUND', 'ref', 3000), paid)).when(followOn('REFUND', 'ref-2', 1))
    .thenThrows(InvalidRequest, refusal('transaction.amount', /captured amount not yet refunded/));
});

t.test('VOID: undoes its target once; what cannot be voided is refused', async (t) => {
  const authorized = recorded(initiating('AUTHORIZE', 'auth', 5000));
  const voided = transactionRecorded(spec(t).given(authorized).when(voidOf('void', 'auth')).result());
  t.match(voided.transaction, { transactionType: 'VOID_AUTHORIZATION', amount: 5000, targetTransactionId: 'auth', orderStatus: 'CANCELLED' });
  t.strictSame(voided.transaction.totalsAfter, { authorized: 0, captured: 0, refunded: 0 });
  const field = 'transaction.targetTransactionId';
  spec(t).given([...authorized, ...voided.events]).when(voidOf('void-2', 'auth')).thenThrows(InvalidRequest, refusal(field, /already been voided/));
  spec(t).given([...authorized, ...voided.events]).when(voidOf('void-3', 'void')).thenThrows(InvalidRequest, refusal(field, /VOID_AUTHORIZATION transaction cannot be voided/));
  spec(t).given(authorized).when(voidOf('void', 'nope')).thenThrows(InvalidRequest, refusal(field, /No such transaction/));
  spec(t).given(recorded(followOn('CAPTURE', 'cap', 10), authorized)).when(voidOf('void', 'auth')).thenThrows(InvalidRequest, refusal(field, /captured/));
  const paidByVersion3 = recorded(v3('p1', { orderId: 'O1' }));
  const ofPayment = spec(t).given(paidByVersion3).when(voidOf('void', 'p1')).result();
  t.match(ofPayment, { kind: 'recorded', transaction: { transactionType: 'VOID_PAYMENT', amount: 1000 } }, 'a version 3 payment may be voided');
});

t.test('ResolveUnknownPayment: an UNKNOWN made final once, on both paths; nothing else changes', async (t) => {
  const unknownCard = { ...card, expiry: { month: 5, year: 37 } };
  const command = { type: 'ResolveUnknownPayment', transactionId: 'p1', authorizationCode: 'QQ1QQ1', now: LATER } as const;
  const unknown = recorded(v3('p1', { card: unknownCard, amount: 1250 }));
  t.match(dataOf(unknown), { outcome: { result: 'UNKNOWN' }, orderStatus: 'INITIATED' });
  spec(t).given(unknown).when(command).then([{
    type: 'PaymentOutcomeResolved',
    data: {
      merchantId: 'M', orderId: '10000000001', transactionId: 'p1', gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00',
      acquirerMessage: 'Approved', authorizationCode: 'QQ1QQ1', rule: 'amount in minor units is even: APPROVED', totalsAfter: { authorized: 1250, captured: 1250, refunded: 0 },
      orderStatus: 'CAPTURED', resolvedAt: LATER,
    },
  }]);
  spec(t).given(recorded(command, unknown)).when(command).then([], 'resolved once');
  const apiUnknown = recorded(initiating('AUTHORIZE', 'p1', 1251, { source: { ...source, card: unknownCard } }));
  t.match(spec(t).given(apiUnknown).when(command).result(), [{ data: { gatewayCode: 'DECLINED', result: 'FAILURE', orderStatus: 'FAILED' } }]);
  spec(t).given([]).when(command).then([], 'no such order');
  spec(t).given(recorded(v3('p1'))).when(command).then([], 'an outcome already final');
});

t.test('the hold, on every kind: LOCK_FAILURE for another transaction, a wait for its own, a refusal of another body', async (t) => {
  const slow = v3('held', { orderId: 'O1', attemptId: 'a-1', rules: [{ answer: { latencyMs: 500 } }] });
  const started = recorded(slow);
  t.equal(started[0]?.type, 'PaymentStarted');
  const until = (started[0] as PaymentStarted).data.lockExpiresAt;
  for (const command of [initiating('PAY', 'x', 100), initiating('AUTHORIZE', 'x', 100), initiating('VERIFY', 'x', 0), followOn('CAPTURE', 'x', 100), followOn('REFUND', 'x', 100), voidOf('x', 'held'), v3('x', { orderId: 'O1' })]) {
    t.match(spec(t).given(started).when({ ...command, now: LATER }).result(), { kind: 'locked', transaction: { outcome: { gatewayCode: 'LOCK_FAILURE', result: 'FAILURE' } } }, `${command.type}: LOCK_FAILURE`);
  }
  spec(t).given(started).when({ ...slow, attemptId: 'a-2', now: LATER }).then({ kind: 'inFlight', until });
  spec(t).given(started).when({ ...slow, attemptId: 'a-2', requestFingerprint: 'other', now: LATER }).thenThrows(InvalidRequest, refusal(undefined, /is in progress with a different request/));
  const apiSlow = initiating('AUTHORIZE', 'held', 100, { attemptId: 'a-1', rules: [{ answer: { latencyMs: 500 } }] });
  const apiStarted = recorded(apiSlow);
  spec(t).given(apiStarted).when({ ...apiSlow, attemptId: 'a-2', requestFingerprint: 'other', now: LATER }).thenThrows(InvalidRequest, refusal(undefined, /is already recorded with a different request/));
  t.match(spec(t).given(started).when({ ...slow, now: LATER }).result(), { kind: 'recorded' }, 'the request that holds the order records');
});
