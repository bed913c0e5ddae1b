// Pay with token, field by field: every request field refused beyond the spec's bounds with a
// 400 naming it; the CONDITIONAL response fields echoed when they apply; transaction.reference
// unique across the merchant's transactions; tokens that cannot pay refused alike.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { buildTestApp, M1, M2 } from '../helpers/app.js';
import { MERCHANTS_WITH_RULES, newOrderId, payAs, payBody, storedCard } from './pay-triggers.fixture.js';
import { streams } from '../../domain/events.js';

/** A body with one member set at a dotted path. */
function withField(path: string, value: unknown): Record<string, unknown> {
  const body: Record<string, any> = payBody('10.00');
  const keys = path.split('.');
  let at = body;
  for (const key of keys.slice(0, -1)) at = at[key] ??= {};
  at[keys[keys.length - 1]!] = value;
  return body;
}

const REFUSED: Array<[field: string, value: unknown, validationType?: string]> = [
  ['action.bypassMerchantRiskRules', 'SOME'],
  ['billing.address.city', 'c'.repeat(101)],
  ['billing.address.city', ''],
  ['billing.address.country', 'XYZ'],
  ['billing.address.country', 'usa'],
  ['billing.address.country', 'XKK'],
  ['billing.address.postcodeZip', '1234567890'],
  ['billing.address.stateProvince', 's'.repeat(21)],
  ['billing.address.street', 's'.repeat(101)],
  ['billing.phone', '1'.repeat(21)],
  ['card.holder.firstName', 'f'.repeat(51)],
  ['card.holder.fullName', 'f'.repeat(101)],
  ['card.holder.lastName', 'l'.repeat(51)],
  ['card.holder.middleName', 'm'.repeat(51)],
  ['card.holder.title', 't'.repeat(21)],
  ['card.securityCode', '12'],
  ['customer.ipAddress', '1.2.3'],
  ['customer.ipAddress', '256.1.1.1'],
  ['order.reference', 'r'.repeat(41)],
  ['transaction.amount', '0.00'],
  ['transaction.amount', '1.001'],
  ['transaction.cashAdvance', 'yes'],
  ['transaction.currency', 'XAU', 'UNSUPPORTED'],
  ['transaction.frequency', 'WEEKLY'],
  ['transaction.reference', 'r'.repeat(41)],
  ['transaction.source', 'WEB'],
  ['transaction.tax.local.amount', '1.234'],
  ['transaction.tax.local.exempt', 'no'],
  ['transaction.tax.local.reference', 'r'.repeat(21)],
];

t.test('each request field beyond its bounds: 400 naming the field', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, M1, 1, 39);
  for (const [field, value, validationType = 'INVALID'] of REFUSED) {
    const res = await payAs(app, M1, token, withField(field, value));
    const what = `${field} = ${JSON.stringify(value).slice(0, 20)}`;
    t.equal(res.statusCode, 400, `${what}: 400`);
    t.equal(res.json().error?.field, field, `${what}: field`);
    t.equal(res.json().error?.validationType, validationType, `${what}: validationType`);
  }
  const jpy = await payAs(app, M1, token, { apiOperation: 'PAY', transaction: { amount: '10.5', currency: 'JPY' } });
  t.equal(jpy.json().error?.field, 'transaction.amount', 'JPY has no decimals');
  for (const country of ['USA', 'DEU', 'JPN', 'ALA']) {
    t.equal((await payAs(app, M1, token, withField('billing.address.country', country))).statusCode, 201, `${country} is a country`);
  }
});

t.test('every CONDITIONAL field is echoed when it applies; amounts are JSON numbers', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, M1, 1, 39);
  const holder = { firstName: 'Ada', fullName: 'Dr Ada King', lastName: 'King', middleName: 'Augusta', title: 'Dr' };
  const res = await payAs(app, M1, token, {
    apiOperation: 'PAY',
    billing: { address: { city: 'London', country: 'GBR', postcodeZip: 'N1 9GU', stateProvince: 'LDN', street: '1 Alpha St' }, phone: '+44 20 7946 0000' },
    card: { holder, securityCode: '100' },
    correlationId: 'corr-1',
    customer: { ipAddress: '192.168.0.1' },
    order: { reference: 'cart-42' },
    transaction: {
      amount: '100.00', currency: 'USD', cashAdvance: false, frequency: 'INSTALLMENT', reference: `inv-${randomUUID().slice(0, 8)}`,
      source: 'MOTO', tax: { local: { amount: '8.25', exempt: false, reference: 'vat-1' } },
    },
  });
  t.equal(res.statusCode, 201, res.body);
  const body = res.json();
  t.strictSame(body.card.holder, holder, 'card.holder.*');
  t.equal(body.order.reference, 'cart-42');
  t.equal(body.correlationId, 'corr-1');
  t.equal(body.transaction.cashAdvance, false);
  t.equal(body.transaction.frequency, 'INSTALLMENT');
  t.equal(body.transaction.source, 'MOTO');
  t.match(body.transaction.reference, /^inv-/);
  t.strictSame(body.transaction.tax, { local: { amount: 8.25, exempt: false, reference: 'vat-1' } });
  t.match(res.body, /"amount":8\.25,/, 'the tax amount is a JSON number');
  t.notMatch(res.body, /\+44 20/, 'billing is not in the pay response (the spec lists no billing member there)');
});

t.test('transaction.reference is unique across the merchant\'s transactions', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const token = await storedCard(app, M1, 1, 39);
  const reference = `ref-${randomUUID().slice(0, 8)}`;
  const body = payBody('5.00', { transaction: { amount: '5.00', currency: 'USD', reference } });
  const order = newOrderId();
  const first = await payAs(app, M1, token, body, order, 'tx-1');
  t.equal(first.statusCode, 201);
  t.equal((await payAs(app, M1, token, body, order, 'tx-1')).body, first.body, 'an identical retry replays');
  for (const [where, o, tx] of [['another order', newOrderId(), 'tx-1'], ['another transaction of the order', order, 'tx-2']] as const) {
    const res = await payAs(app, M1, token, body, o, tx);
    t.equal(res.statusCode, 400, where);
    t.equal(res.json().error.field, 'transaction.reference', where);
    t.equal(res.json().error.validationType, 'INVALID', where);
  }
  const token2 = await storedCard(app, M2, 1, 39);
  t.equal((await payAs(app, M2, token2, body, newOrderId(), 'tx-1')).statusCode, 201, 'another merchant may use the same reference');
});

t.test('several transactions on one order: totals across them, a decline followed by a new transaction', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const declining = await storedCard(app, M1, 5, 39);
  const approving = await storedCard(app, M1, 1, 39);
  const order = newOrderId();
  const declined = (await payAs(app, M1, declining, payBody('30.00'), order, 'tx-1')).json();
  t.equal(declined.order.status, 'FAILED');
  const paid = (await payAs(app, M1, approving, payBody('30.00'), order, 'tx-2')).json();
  t.equal(paid.order.status, 'CAPTURED');
  const more = (await payAs(app, M1, approving, payBody('2.50'), order, 'tx-3')).json();
  t.strictSame([more.order.totalAuthorizedAmount, more.order.totalCapturedAmount, more.order.totalRefundedAmount], [32.5, 32.5, 0]);
  const reversed = (await payAs(app, M1, approving, payBody('7.00', { order: { reference: 'RISK_REJECT_AFTER_AUTH' } }), order, 'tx-4')).json();
  t.equal(reversed.order.totalCapturedAmount, 32.5, 'a reversed payment adds nothing');
  t.equal(reversed.order.status, 'CAPTURED', 'earlier captured money keeps the order CAPTURED');
});

t.test('tokens that cannot pay: unknown, foreign and bank-account tokens', async (t) => {
  const app = await buildTestApp(t, { merchants: MERCHANTS_WITH_RULES });
  const foreign = await storedCard(app, M2, 1, 39);
  const unknown = await payAs(app, M1, '9000000000000001', payBody());
  const other = await payAs(app, M1, foreign, payBody());
  t.equal(unknown.statusCode, 400);
  t.equal(other.statusCode, 400);
  t.equal(other.body.replace(foreign, 'T'), unknown.body.replace('9000000000000001', 'T'), 'same status and body');
  t.equal(unknown.json().error.field, 'tokenid');
  // A token of the merchant's own repository holding a bank account (this release stores none yet).
  // The tokens read model does not know bank-account tokens yet (another issue): stop it first.
  await app.gateway.readModels.stop();
  const ach = '9123412341234123';
  const now = new Date().toISOString();
  await app.gateway.store.append(streams.token(M1.repository.id, ach), [{
    id: randomUUID(), type: 'TokenCreated',
    data: { merchantId: M1.id, repositoryId: M1.repository.id, token: ach, sourceOfFunds: { type: 'ACH', ach: { accountType: 'CONSUMER_CHECKING' } }, status: 'VALID', createdAt: now },
    metadata: { correlationId: 'test', recordedAt: now },
  }]);
  const bank = await payAs(app, M1, ach, payBody());
  t.equal(bank.statusCode, 400);
  t.equal(bank.json().error.field, 'tokenid');
  t.equal(bank.json().error.validationType, 'UNSUPPORTED');
});
