// Each payment records the rule that chose its outcome (decidedBy), in words the history pages
// show: the expiry tables, a merchant rule by its index, the risk and 3-D Secure markers.
import t from 'tap';
import { decide, evolveOrder, initialOrderState, type Initiating, type PayWithToken } from '../../domain/order/order.js';
import type { MerchantRule } from '../../domain/merchant-rules.js';
import type { OrderEvent } from '../../domain/events.js';
import { card, NOW, pay } from './pay-command.fixture.js';

function decided(command: PayWithToken): [string, string | undefined] {
  const decision = decide(command, initialOrderState());
  if (decision.kind !== 'recorded') throw new Error(`expected recorded, got ${decision.kind}`);
  return [decision.transaction.outcome.gatewayCode, decision.transaction.decidedBy];
}

t.test('the rule that chose a version 3 payment’s outcome', async (t) => {
  t.same(decided(pay({ card: card(5, 39) })), ['DECLINED', "expiry 05/39 in the test acquirer's table"]);
  t.same(decided(pay({ card: card(5, 37) })), ['UNKNOWN', "expiry 05/37 in the test acquirer's table"]);
  t.same(decided(pay({ card: card(1, 38) })), ['INSUFFICIENT_FUNDS', "expiry 01/38 in the sandbox's table"]);
  t.same(decided(pay({ card: card(1, 36) })), ['BLOCKED', "expiry 01/36 in the sandbox's table"]);
  t.same(decided(pay({ card: card(3, 25) })), ['EXPIRED_CARD', 'expiry 03/25: the card has expired']);
  t.same(decided(pay({ card: card(1, 30) })), ['APPROVED', 'expiry 01/30: a card in date is approved']);
  const rules: MerchantRule[] = [{ match: { amount: '99.00' }, answer: { latencyMs: 0 } }, { match: { currency: 'USD' }, answer: { gatewayCode: 'REFERRED' } }];
  t.same(decided(pay({ rules })), ['REFERRED', 'merchant rule rules[1]: gatewayCode REFERRED']);
  t.same(decided(pay({ orderReference: 'cart-7 RISK_REJECT' })), ['BLOCKED', "RISK_REJECT in order.reference: the merchant's risk rules"]);
  t.same(decided(pay({ rules: [{ answer: { risk: 'REJECT' } }] })), ['BLOCKED', "merchant rule rules[0]: risk REJECT: the merchant's risk rules"]);
  t.same(decided(pay({ orderReference: 'RISK_SYSTEM_REJECT' })), ['BLOCKED', 'RISK_SYSTEM_REJECT in order.reference: a system risk rule']);
  t.same(decided(pay({ orderReference: 'RISK_REJECT_AFTER_AUTH' })), ['BLOCKED', 'RISK_REJECT_AFTER_AUTH in order.reference: approved, then reversed (OKAY)']);
  t.same(decided(pay({ holder: { lastName: 'Smith 3DS_NOT_AUTHENTICATED' } })), ['AUTHENTICATION_FAILED', '3DS_NOT_AUTHENTICATED in card.holder.lastName: 3-D Secure']);
});

t.test('the order API records the rule too, and the rule index; a capture or refund: the totals', async (t) => {
  const ids = { authorizationCode: '123456', receipt: '100000000001', stan: '000001', acquirerTransactionId: 'ATX', batch: 20261121 };
  const base = { merchantId: 'M', orderId: '20000000001', acquirerMerchantId: 'M', ids, now: NOW };
  const authorize: Initiating<'AUTHORIZE'> = {
    type: 'AUTHORIZE', ...base, transactionId: 'auth-1', requestFingerprint: 'fp-a', amount: 8000, currency: 'USD',
    source: { repositoryId: 'R', token: '9123456789012348', card: { ...card(5, 39), type: 'CREDIT' } },
    rules: [{ match: { reference: 'other' }, answer: { gatewayCode: 'DECLINED' } }, { match: { amount: '80.00' }, answer: { gatewayCode: 'APPROVED' } }],
  };
  const auth = decide(authorize, initialOrderState());
  if (auth.kind !== 'recorded') throw new Error(auth.kind);
  t.equal(auth.transaction.outcome.gatewayCode, 'APPROVED', 'the rule wins over the expiry');
  t.equal(auth.transaction.rule, 1);
  t.equal(auth.transaction.decidedBy, 'merchant rule rules[1]: gatewayCode APPROVED');
  const state = (auth.events as OrderEvent[]).reduce(evolveOrder, initialOrderState());
  const capture = decide({ type: 'CAPTURE', ...base, transactionId: 'cap-1', requestFingerprint: 'fp-c', amount: 5000, currency: 'USD' }, state);
  if (capture.kind !== 'recorded') throw new Error(capture.kind);
  t.equal(capture.transaction.decidedBy, "the order's totals: within the amount authorized and not yet captured");
  t.notOk('rule' in capture.transaction, 'no merchant rule for a capture');
});
