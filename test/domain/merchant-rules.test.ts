// Merchant rules: matching (amount exact or range, currency, card, reference) and the merchants
// file schema that loads them.
import t from 'tap';
import { decimalMillionths, firstMatchingRule, ruleMatches, type PaymentFacts } from '../../domain/merchant-rules.js';
import { parseMerchants } from '../../merchants.js';
import { ConfigError } from '../../config.js';

const facts: PaymentFacts = {
  amount: 1250, currency: 'USD', cardNumber: '512345xxxxxx0008', brand: 'MASTERCARD', token: '9000000000000001',
  orderReference: 'cart-1', transactionReference: 'inv-1',
};

t.test('matching', async (t) => {
  t.ok(ruleMatches(undefined, facts), 'no match: every payment');
  t.ok(ruleMatches({ amount: '12.5' }, facts), '12.5 equals 12.50');
  t.notOk(ruleMatches({ amount: '12.51' }, facts));
  t.ok(ruleMatches({ amount: { min: '12.50', max: '12.50' } }, facts), 'a range is inclusive');
  t.notOk(ruleMatches({ amount: { min: '12.51' } }, facts));
  t.ok(ruleMatches({ amount: { max: '100' } }, facts));
  t.ok(ruleMatches({ amount: '1250' }, { ...facts, currency: 'JPY' }), 'JPY has no minor unit');
  t.ok(ruleMatches({ amount: '1.25' }, { ...facts, currency: 'BHD' }), 'BHD has 3');
  t.notOk(ruleMatches({ currency: 'EUR' }, facts));
  for (const card of ['512345xxxxxx0008', 'MASTERCARD', '9000000000000001']) t.ok(ruleMatches({ card }, facts), `card ${card}`);
  t.notOk(ruleMatches({ card: 'VISA' }, facts));
  t.ok(ruleMatches({ reference: 'cart-1' }, facts));
  t.ok(ruleMatches({ reference: 'inv-1' }, facts));
  t.notOk(ruleMatches({ reference: 'cart' }, facts), 'exactly');
  t.notOk(ruleMatches({ amount: '12.50', currency: 'EUR' }, facts), 'every member must fit');
  t.equal(decimalMillionths('0.000001'), 1n);
});

t.test('the first matching rule; risk rules skipped by the bypass', async (t) => {
  const rules = [{ answer: { risk: 'REJECT' as const } }, { answer: { gatewayCode: 'REFERRED' as const } }];
  t.equal(firstMatchingRule(rules, facts, false)?.index, 0);
  t.equal(firstMatchingRule(rules, facts, true)?.index, 1);
  t.equal(firstMatchingRule([], facts, false), undefined);
});

t.test('the merchants file: rules are checked at start-up', async (t) => {
  const merchant = (rules: unknown) => ({ merchants: [{
    id: 'M1', apiPassword: 'p'.repeat(32), rules,
    repository: { id: 'REPO', tokenGeneration: 'RANDOM', tokenManagement: 'UNIQUE_TOKEN' },
  }] });
  const loaded = parseMerchants(merchant([{ match: { amount: { min: '1', max: '2' } }, answer: { gatewayCode: 'DECLINED', latencyMs: 10 } }]), 'test');
  t.equal(loaded.get('M1')?.rules?.[0]?.answer.gatewayCode, 'DECLINED');
  t.equal(parseMerchants(merchant(undefined), 'test').get('M1')?.rules, undefined, 'rules are optional');
  for (const [what, rules] of [
    ['an unknown gateway code', [{ answer: { gatewayCode: 'MAYBE' } }]],
    ['an empty answer', [{ answer: {} }]],
    ['a latency above 60 s', [{ answer: { latencyMs: 60_001 } }]],
    ['an unknown fault', [{ answer: { fault: 'SERVER_ON_FIRE' } }]],
    ['a bad amount', [{ match: { amount: '1,00' }, answer: { gatewayCode: 'DECLINED' } }]],
    ['min above max', [{ match: { amount: { min: '5', max: '1' } }, answer: { gatewayCode: 'DECLINED' } }]],
    ['an unknown match member', [{ match: { colour: 'red' }, answer: { gatewayCode: 'DECLINED' } }]],
    ['an unknown risk decision', [{ answer: { risk: 'MAYBE' } }]],
  ] as const) {
    t.throws(() => parseMerchants(merchant(rules), 'test'), ConfigError, what);
  }
});
