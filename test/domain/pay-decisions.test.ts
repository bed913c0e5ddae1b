// The decider of Pay with token beyond the real test acquirer: the order lock (PaymentStarted),
// merchant rules, risk and 3-D Secure markers, reversals, and ResolveUnknownPayment.
import t from 'tap';
import { InvalidRequest } from '../../domain/errors.js';
import type { OrderEvent } from '../../domain/events.js';
import { decide, evolveOrder, initialOrderState, type PayWithToken } from '../../domain/order/order.js';
import type { MerchantRule } from '../../domain/merchant-rules.js';
import { pay } from './pay-command.fixture.js';

const LATER = '2026-11-21T12:00:05.000Z';


const fold = (events: OrderEvent[]) => events.reduce(evolveOrder, initialOrderState());
const slow: MerchantRule[] = [{ match: { reference: 'slow' }, answer: { latencyMs: 500 } }];

t.test('a rule with latency: started first, then recorded by the same attempt', async (t) => {
  const command = pay({ rules: slow, orderReference: 'slow' });
  const start = decide(command, initialOrderState());
  if (start.kind !== 'started') throw new Error(`expected started, got ${start.kind}`);
  t.equal(start.latencyMs, 500);
  t.equal(start.events[0]?.data.lockExpiresAt, '2026-11-21T12:00:10.500Z', 'latency plus the 10 s margin');
  const state = fold(start.events);
  const record = decide({ ...command, now: '2026-11-21T12:00:00.600Z' }, state);
  t.equal(record.kind, 'recorded');
  if (record.kind !== 'recorded') return;
  t.equal(record.transaction.latencyMs, 500);
  t.equal(record.transaction.rule, 0);
  t.notOk(fold([...start.events, ...record.events]).inProgress, 'the record frees the order');

  t.test('meanwhile: an identical repeat waits, another body is refused, another transaction is LOCK_FAILURE', async (t) => {
    t.strictSame(decide({ ...command, attemptId: 'a-2', now: LATER }, state), { kind: 'inFlight', until: '2026-11-21T12:00:10.500Z' });
    t.throws(() => decide({ ...command, attemptId: 'a-2', requestFingerprint: 'fp-x', now: LATER }, state), InvalidRequest);
    const locked = decide(pay({ transactionId: 'tx-2', requestFingerprint: 'fp-2', attemptId: 'a-3', now: LATER }), state);
    t.equal(locked.kind, 'locked');
    if (locked.kind !== 'locked') return;
    t.equal(locked.transaction.outcome.gatewayCode, 'LOCK_FAILURE');
    t.equal(locked.transaction.outcome.result, 'FAILURE');
    t.notOk('acquirerCode' in locked.transaction.outcome);
  });

  t.test('after the lock expired: another transaction goes ahead; the abandoned one may start again', async (t) => {
    const expired = '2026-11-21T12:00:11.000Z';
    t.equal(decide(pay({ transactionId: 'tx-2', requestFingerprint: 'fp-2', attemptId: 'a-3', now: expired }), state).kind, 'recorded');
    t.equal(decide({ ...command, attemptId: 'a-4', now: expired }, state).kind, 'started');
  });
});

t.test('rules: gatewayCode, SERVER_BUSY, SERVER_FAILED, the first match wins', async (t) => {
  const rules: MerchantRule[] = [
    { match: { amount: '10.00' }, answer: { gatewayCode: 'INSUFFICIENT_FUNDS' } },
    { match: { amount: { min: '10' } }, answer: { gatewayCode: 'REFERRED' } },
    { match: { card: 'VISA' }, answer: { fault: 'SERVER_BUSY', latencyMs: 5 } },
    { match: { reference: 'lost' }, answer: { fault: 'SERVER_FAILED' } },
  ];
  const first = decide(pay({ rules }), initialOrderState());
  t.equal(first.kind === 'recorded' && first.transaction.outcome.gatewayCode, 'INSUFFICIENT_FUNDS');
  const second = decide(pay({ rules, amount: 1001 }), initialOrderState());
  t.equal(second.kind === 'recorded' && second.transaction.outcome.gatewayCode, 'REFERRED');
  const visa = { ...pay().card, brand: 'VISA' as const, scheme: 'VISA' as const };
  t.strictSame(decide(pay({ rules, amount: 5, card: visa }), initialOrderState()), { kind: 'busy', latencyMs: 5 });
  const lost = decide(pay({ rules, amount: 5, orderReference: 'lost' }), initialOrderState());
  t.equal(lost.kind === 'recorded' && lost.transaction.fault, 'SERVER_FAILED');
});

t.test('risk: reject before authorization, reversal after it, bypass, system rules', async (t) => {
  const outcome = (overrides: Partial<PayWithToken>) => {
    const decision = decide(pay(overrides), initialOrderState());
    if (decision.kind !== 'recorded') throw new Error('expected recorded');
    return decision.transaction;
  };
  const rejected = outcome({ orderReference: 'RISK_REJECT' });
  t.strictSame(rejected.outcome.risk, { gatewayCode: 'REJECT', reversalTransactionResult: 'NOT_APPLICABLE' });
  t.equal(rejected.outcome.gatewayCode, 'BLOCKED');
  t.notOk('authorizationCode' in rejected.outcome, 'the acquirer was not asked');
  const reversed = outcome({ orderReference: 'x RISK_REJECT_AFTER_AUTH' });
  t.equal(reversed.outcome.authorizationCode, '123456', 'authorized, then reversed');
  t.strictSame(reversed.totalsAfter, { authorized: 0, captured: 0, refunded: 0 });
  t.equal(reversed.orderStatus, 'CANCELLED');
  const failed = outcome({ orderReference: 'RISK_REJECT_REVERSAL_FAIL' });
  t.equal(failed.outcome.risk?.reversalTransactionResult, 'FAIL');
  t.strictSame(failed.totalsAfter, { authorized: 1000, captured: 1000, refunded: 0 }, 'the money stays captured');
  t.equal(failed.orderStatus, 'CAPTURED');
  const bypassed = outcome({ orderReference: 'RISK_REJECT', bypassMerchantRiskRules: true, rules: [{ answer: { risk: 'REJECT' } }] });
  t.strictSame(bypassed.outcome.risk, { gatewayCode: 'NOT_CHECKED' });
  t.equal(bypassed.outcome.gatewayCode, 'APPROVED');
  const system = outcome({ orderReference: 'RISK_SYSTEM_REJECT', bypassMerchantRiskRules: true });
  t.equal(system.outcome.risk?.gatewayCode, 'SYSTEM_REJECT');
  const fromRule = outcome({ rules: [{ match: { amount: '99.00' }, answer: { risk: 'REVIEW' } }] });
  t.strictSame(fromRule.outcome.risk, { gatewayCode: 'ACCEPT', reviewResult: 'NOT_REQUIRED' }, 'a merchant with risk rules: ACCEPT when none matches');
  t.notOk('risk' in outcome({}).outcome, 'no risk rules, no marker: no risk member');
});

t.test('3-D Secure markers', async (t) => {
  const outcome = (lastName: string) => {
    const decision = decide(pay({ holder: { lastName } }), initialOrderState());
    if (decision.kind !== 'recorded') throw new Error('expected recorded');
    return decision.transaction.outcome;
  };
  t.strictSame(outcome('Smith 3DS_AUTHENTICATED').threeDSecure, { gatewayCode: 'AUTHENTICATED' });
  t.equal(outcome('Smith 3DS_AUTHENTICATED').gatewayCode, 'APPROVED');
  t.equal(outcome('3DS_NOT_AUTHENTICATED').gatewayCode, 'AUTHENTICATION_FAILED');
  t.equal(outcome('3DS_NOT_ENROLLED').gatewayCode, 'NOT_ENROLLED_3D_SECURE');
  t.equal(outcome('3DS_SIGNATURE_ERROR').gatewayCode, 'BLOCKED');
  t.notOk('threeDSecure' in outcome('Smith 3ds_authenticated'), 'markers are upper case');
  t.notOk('threeDSecure' in outcome('X3DS_AUTHENTICATED'), 'a marker is a word of its own');
});

t.test('ResolveUnknownPayment: by amount parity, once', async (t) => {
  const unknownCard = { ...pay().card, expiry: { month: 5, year: 37 } };
  for (const [amount, gatewayCode, captured] of [[1250, 'APPROVED', 1250], [1251, 'DECLINED', 0]] as const) {
    const recorded = decide(pay({ card: unknownCard, amount }), initialOrderState());
    if (recorded.kind !== 'recorded') throw new Error('expected recorded');
    t.equal(recorded.transaction.orderStatus, 'INITIATED');
    const state = fold(recorded.events);
    const events = decide({ type: 'ResolveUnknownPayment', transactionId: 'tx-1', authorizationCode: '654321', now: LATER }, state);
    t.equal(events.length, 1);
    t.equal(events[0]?.data.gatewayCode, gatewayCode);
    t.equal(events[0]?.data.totalsAfter.captured, captured);
    const after = fold([...recorded.events, ...events]);
    t.equal(after.exists && after.transactions.get('tx-1')?.outcome.gatewayCode, gatewayCode);
    t.equal(after.exists && after.status, captured ? 'CAPTURED' : 'FAILED');
    t.strictSame(decide({ type: 'ResolveUnknownPayment', transactionId: 'tx-1', authorizationCode: '1', now: LATER }, after), [], 'resolved once');
  }
  t.strictSame(decide({ type: 'ResolveUnknownPayment', transactionId: 'tx-1', authorizationCode: '1', now: LATER }, initialOrderState()), []);
});
