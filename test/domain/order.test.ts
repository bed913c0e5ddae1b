import t, { type Test } from 'tap';
import { InvalidRequest } from '../../domain/errors.js';
import type { PaymentRecorded } from '../../domain/events.js';
import {
  decide, evolveOrder, initialOrderState, optional, orderStatus, type OrderDecision, type OrderState, type PayWithToken,
} from '../../domain/order/order.js';
import { deciderSpec } from '../helpers/decider.js';

const spec = deciderSpec({ decide: (state: OrderState, command: PayWithToken) => decide(command, state), evolve: evolveOrder, initialState: initialOrderState });

const NOW = '2026-11-21T12:34:56.789Z';

const pay = (overrides: Partial<PayWithToken> = {}): PayWithToken => ({
  type: 'PayWithToken',
  merchantId: 'TESTMERCHANT01',
  orderId: '10000000001',
  transactionId: 'tx-1',
  requestFingerprint: 'fp-1',
  repositoryId: 'repo-1',
  token: '9123456789012348',
  card: {
    number: '512345xxxxxx0008',
    brand: 'MASTERCARD',
    scheme: 'MASTERCARD',
    fundingMethod: 'CREDIT',
    expiry: { month: 1, year: 39 },
  },
  amount: 10000,
  currency: 'USD',
  securityCode: undefined,
  billingStreet: undefined,
  orderReference: undefined,
  transactionReference: undefined,
  source: undefined,
  frequency: undefined,
  cashAdvance: undefined,
  taxLocal: undefined,
  acquirerMerchantId: 'ACQ-TESTMERCHANT01',
  ids: { authorizationCode: '654321', receipt: '610000000123', stan: '000456', acquirerTransactionId: 'ATX-1', batch: 20261121 },
  now: NOW,
  ...overrides,
});

const expiry = (month: number, year: number) => ({ ...pay().card, expiry: { month, year } });

/** The payment of a decision that must be 'recorded' (throws otherwise, failing the test). */
function recordPay(command: PayWithToken, state: OrderState = initialOrderState()): PaymentRecorded['data'] {
  const decision = decide(command, state);
  if (decision.kind !== 'recorded') throw new Error(`expected a recorded decision, got ${decision.kind}`);
  return decision.transaction;
}

/** The events of a recorded decision (fails the test if the decision is not 'recorded'). */
function recordedEvents(t: Test, decision: OrderDecision<PaymentRecorded['data']>): PaymentRecorded[] {
  if (decision.kind !== 'recorded') {
    t.fail(`expected a recorded decision, got ${decision.kind}`);
    return [];
  }
  t.equal(decision.events.length, 1, 'exactly one event');
  t.strictSame(decision.transaction, decision.events[0]?.data, 'payment is the event data');
  return decision.events as PaymentRecorded[];
}

t.test('first payment, approved (expiry 01/39): the whole event', async (t) => {
  const command = pay({ securityCode: '100', billingStreet: '12 Alpha St' });
  const payment: PaymentRecorded['data'] = {
    merchantId: 'TESTMERCHANT01',
    orderId: '10000000001',
    transactionId: 'tx-1',
    requestFingerprint: 'fp-1',
    repositoryId: 'repo-1',
    token: '9123456789012348',
    card: {
      number: '512345xxxxxx0008', brand: 'MASTERCARD', scheme: 'MASTERCARD', fundingMethod: 'CREDIT',
      type: 'MASTERCARD', expiry: { month: 1, year: 39 },
    },
    amount: 10000,
    currency: 'USD',
    source: 'INTERNET',
    outcome: {
      gatewayCode: 'APPROVED',
      result: 'SUCCESS',
      acquirerCode: '00',
      acquirerMessage: 'Approved',
      authorizationCode: '654321',
      cardSecurityCode: { gatewayCode: 'MATCH', acquirerCode: 'M' },
      avs: { gatewayCode: 'ADDRESS_MATCH', acquirerCode: 'A' },
      acquirer: {
        id: 'TOKENGATE_S2I',
        batch: 20261121,
        date: '1121',
        merchantId: 'ACQ-TESTMERCHANT01',
        settlementDate: '2026-11-21',
        timeZone: '+0000',
        transactionId: 'ATX-1',
      },
      receipt: '610000000123',
      stan: '000456',
      terminal: 'TGW00001',
    },
    decidedBy: "expiry 01/39 in the test acquirer's table",
    orderStatus: 'CAPTURED',
    totalsAfter: { authorized: 10000, captured: 10000, refunded: 0 },
    timeOfRecord: NOW,
  };
  spec(t).given([]).when(command).then({ kind: 'recorded', events: [{ type: 'PaymentRecorded', data: payment }], transaction: payment });
});

t.test('first payment, approved: the decisions that matter', async (t) => {
  const decision = spec(t).given([]).when(pay({ amount: 1234 })).result();
  const [event] = recordedEvents(t, decision);
  const d = event!.data;
  t.equal(d.outcome.result, 'SUCCESS');
  t.equal(d.outcome.gatewayCode, 'APPROVED');
  t.equal(d.outcome.authorizationCode, '654321');
  t.strictSame(d.totalsAfter, { authorized: 1234, captured: 1234, refunded: 0 });
  t.equal(d.orderStatus, 'CAPTURED');
});

t.test('first payment, declined (expiry 05/39)', async (t) => {
  const decision = spec(t).given([]).when(pay({ card: expiry(5, 39) })).result();
  const [event] = recordedEvents(t, decision);
  const d = event!.data;
  t.equal(d.outcome.result, 'FAILURE');
  t.equal(d.outcome.gatewayCode, 'DECLINED');
  t.notOk('authorizationCode' in d.outcome, 'no authorizationCode');
  t.strictSame(d.totalsAfter, { authorized: 0, captured: 0, refunded: 0 }, 'zero totals');
  t.equal(d.orderStatus, 'FAILED');
  t.equal(d.amount, 10000, 'the attempted amount is still recorded');
});

t.test('every failing row of the expiry table gives FAILED, no authorizationCode, zero totals', async (t) => {
  for (const [month, year, code] of [[5, 39, 'DECLINED'], [4, 27, 'EXPIRED_CARD'], [8, 28, 'TIMED_OUT'],
    [1, 37, 'ACQUIRER_SYSTEM_ERROR'], [2, 37, 'UNSPECIFIED_FAILURE'], [10, 26, 'EXPIRED_CARD']] as const) {
    const decision = decide(pay({ card: expiry(month, year) }), initialOrderState());
    t.equal(decision.kind, 'recorded');
    if (decision.kind !== 'recorded') continue;
    t.equal(decision.transaction.outcome.gatewayCode, code, `${month}/${year}`);
    t.equal(decision.transaction.orderStatus, 'FAILED');
    t.equal(decision.transaction.outcome.authorizationCode, undefined);
    t.strictSame(decision.transaction.totalsAfter, { authorized: 0, captured: 0, refunded: 0 });
  }
});

t.test('first payment, UNKNOWN (expiry 05/37): order INITIATED', async (t) => {
  const decision = spec(t).given([]).when(pay({ card: expiry(5, 37) })).result();
  const [event] = recordedEvents(t, decision);
  const d = event!.data;
  t.equal(d.outcome.result, 'UNKNOWN');
  t.equal(d.outcome.gatewayCode, 'UNKNOWN');
  t.equal(d.orderStatus, 'INITIATED');
  t.notOk('authorizationCode' in d.outcome);
  t.strictSame(d.totalsAfter, { authorized: 0, captured: 0, refunded: 0 });
});

t.test('a second transaction after a decline on the same order', async (t) => {
  const declined = decide(pay({ card: expiry(5, 39), amount: 2500 }), initialOrderState());
  if (declined.kind !== 'recorded') throw new Error('setup: expected recorded');
  const decision = spec(t).given(declined.events)
    .when(pay({ transactionId: 'tx-2', requestFingerprint: 'fp-2', amount: 2500 })).result();
  const [event] = recordedEvents(t, decision);
  const d = event!.data;
  t.equal(d.transactionId, 'tx-2');
  t.equal(d.outcome.result, 'SUCCESS');
  t.strictSame(d.totalsAfter, { authorized: 2500, captured: 2500, refunded: 0 });
  t.equal(d.orderStatus, 'CAPTURED');
});

t.test('totals add up over several transactions', async (t) => {
  const events: PaymentRecorded[] = [];
  const steps: Array<[string, number, number, number]> = [
    // transactionId, expiry month/year of 39 (1 approves, 5 declines), amount
    ['a', 1, 39, 1000],
    ['b', 5, 39, 700],
    ['c', 1, 39, 250],
  ];
  for (const [transactionId, month, year, amount] of steps) {
    const state = events.reduce(evolveOrder, initialOrderState());
    const decision = decide(pay({ transactionId, requestFingerprint: `fp-${transactionId}`, card: expiry(month, year), amount }), state);
    if (decision.kind !== 'recorded') throw new Error('expected recorded');
    events.push(...(decision.events as PaymentRecorded[]));
  }
  t.strictSame(events.map((e) => e.data.totalsAfter), [
    { authorized: 1000, captured: 1000, refunded: 0 },
    { authorized: 1000, captured: 1000, refunded: 0 },
    { authorized: 1250, captured: 1250, refunded: 0 },
  ]);
  t.strictSame(events.map((e) => e.data.orderStatus), ['CAPTURED', 'CAPTURED', 'CAPTURED'],
    'a decline after a capture leaves the order CAPTURED');
  const state = spec(t).given(events).state;
  t.ok(state.exists);
  if (!state.exists) return;
  t.strictSame(state.totals, { authorized: 1250, captured: 1250, refunded: 0 });
  t.equal(state.status, 'CAPTURED');
  t.strictSame([...state.transactions.keys()], ['a', 'b', 'c']);
});

t.test('an identical repeat is replayed: the recorded payment, no events', async (t) => {
  const first = decide(pay({ securityCode: '102' }), initialOrderState());
  if (first.kind !== 'recorded') throw new Error('setup: expected recorded');
  // the repeat happens later, when the acquirer would answer otherwise: the record wins
  const repeat = pay({
    securityCode: '102',
    now: '2027-03-01T00:00:00.000Z',
    ids: { authorizationCode: '999999', receipt: '999999999999', stan: '999999', acquirerTransactionId: 'ATX-9', batch: 1 },
  });
  spec(t).given(first.events).when(repeat).then({ kind: 'replayed', transaction: first.transaction });
  const decision = decide(repeat, first.events.reduce(evolveOrder, initialOrderState()));
  t.notOk('events' in decision, 'no events');
});

t.test('an identical repeat of a declined transaction is replayed too', async (t) => {
  const first = decide(pay({ card: expiry(5, 39) }), initialOrderState());
  if (first.kind !== 'recorded') throw new Error('setup: expected recorded');
  spec(t).given(first.events).when(pay({ card: expiry(5, 39) })).then({ kind: 'replayed', transaction: first.transaction });
});

t.test('the same transactionId with a different fingerprint is refused', async (t) => {
  const first = decide(pay(), initialOrderState());
  if (first.kind !== 'recorded') throw new Error('setup: expected recorded');
  spec(t).given(first.events).when(pay({ requestFingerprint: 'fp-other', amount: 20000 }))
    .thenThrows(InvalidRequest, (error) => {
      t.match(error.message, /tx-1/, 'names the transaction');
      t.equal(error.field, undefined);
    });
});

t.test('a second transaction in another currency is refused on transaction.currency', async (t) => {
  const first = decide(pay(), initialOrderState());
  if (first.kind !== 'recorded') throw new Error('setup: expected recorded');
  spec(t).given(first.events).when(pay({ transactionId: 'tx-2', requestFingerprint: 'fp-2', currency: 'EUR' }))
    .thenThrows(InvalidRequest, (error) => {
      t.equal(error.field, 'transaction.currency');
      t.equal(error.validationType, 'INVALID');
      t.match(error.message, /EUR/);
    });
});

t.test('after a decline the currency of the order is still fixed', async (t) => {
  const first = decide(pay({ card: expiry(5, 39) }), initialOrderState());
  if (first.kind !== 'recorded') throw new Error('setup: expected recorded');
  spec(t).given(first.events).when(pay({ transactionId: 'tx-2', requestFingerprint: 'fp-2', currency: 'JPY' }))
    .thenThrows(InvalidRequest, (error) => t.equal(error.field, 'transaction.currency'));
});

t.test('the security code is never recorded', async (t) => {
  for (const [securityCode, brand, expected] of [
    ['7319', 'MASTERCARD', 'MATCH'],
    ['8642', 'AMEX', 'MATCH'],
    ['5791', 'UATP', 'NOT_SUPPORTED'],
  ] as const) {
    const card = { ...pay().card, brand, scheme: brand };
    const decision = decide(pay({ securityCode, card }), initialOrderState());
    if (decision.kind !== 'recorded') throw new Error('expected recorded');
    const json = JSON.stringify(decision.events);
    t.equal(decision.transaction.outcome.cardSecurityCode?.gatewayCode, expected, `${brand} ${securityCode}`);
    t.notOk(json.includes(securityCode), `${securityCode} is not in the event`);
    t.notMatch(json, /securityCode/, 'no securityCode member');
  }
});

t.test('no security code: NOT_PRESENT recorded', async (t) => {
  t.equal(recordPay(pay({ securityCode: undefined })).outcome.cardSecurityCode?.gatewayCode, 'NOT_PRESENT');
});

t.test('the billing street drives avs', async (t) => {
  const withKilo = recordPay(pay({ billingStreet: '7 Kilo St' }));
  t.strictSame(withKilo.outcome.avs, { gatewayCode: 'NAME_MATCH', acquirerCode: 'K' });
  const withNovember = recordPay(pay({ billingStreet: '1 november st' }));
  t.equal(withNovember.outcome.avs?.gatewayCode, 'NO_MATCH');
  const plain = recordPay(pay({ billingStreet: '1 Main St' }));
  t.equal(plain.outcome.avs?.gatewayCode, 'NOT_VERIFIED');
  const none = recordPay(pay({ billingStreet: undefined }));
  t.notOk('avs' in none.outcome, 'no street: no avs member');
});

t.test('optional members are recorded only when given; source defaults to INTERNET', async (t) => {
  const bare = recordPay(pay());
  for (const key of ['orderReference', 'transactionReference', 'frequency', 'cashAdvance', 'taxLocal'] as const) {
    t.notOk(key in bare, `no ${key}`);
  }
  t.equal(bare.source, 'INTERNET');
  t.notMatch(JSON.stringify(bare), /undefined/);

  const full = recordPay(pay({
    orderReference: 'order-ref', transactionReference: 'tx-ref', source: 'MOTO', frequency: 'SINGLE',
    cashAdvance: false, taxLocal: { amount: 120, exempt: false, reference: 'tax-ref' },
  }));
  t.equal(full.orderReference, 'order-ref');
  t.equal(full.transactionReference, 'tx-ref');
  t.equal(full.source, 'MOTO');
  t.equal(full.frequency, 'SINGLE');
  t.equal(full.cashAdvance, false, 'false is kept (defined)');
  t.strictSame(full.taxLocal, { amount: 120, exempt: false, reference: 'tax-ref' });
});

t.test('card.type follows brand and funding', async (t) => {
  const debit = recordPay(pay({ card: { ...pay().card, fundingMethod: 'DEBIT' } }));
  t.equal(debit.card.type, 'MASTERCARD_DEBIT');
  const maestro = recordPay(pay({
    card: { number: '566655xxxxxx3333', brand: 'MAESTRO', scheme: 'MAESTRO', fundingMethod: 'DEBIT', expiry: { month: 1, year: 39 } },
  }));
  t.equal(maestro.card.type, 'MAESTRO');
});

t.test('evolve: the order keeps its first creation time and reference', async (t) => {
  const first = decide(pay({ orderReference: 'first-ref', card: expiry(5, 39) }), initialOrderState());
  if (first.kind !== 'recorded') throw new Error('setup');
  const afterFirst = first.events.reduce(evolveOrder, initialOrderState());
  const second = decide(pay({
    transactionId: 'tx-2', requestFingerprint: 'fp-2', orderReference: 'second-ref', now: '2026-11-22T08:00:00.000Z',
  }), afterFirst);
  if (second.kind !== 'recorded') throw new Error('setup');
  const state = spec(t).given([...first.events, ...second.events]).state;
  t.ok(state.exists);
  if (!state.exists) return;
  t.equal(state.merchantId, 'TESTMERCHANT01');
  t.equal(state.orderId, '10000000001');
  t.equal(state.currency, 'USD');
  t.equal(state.reference, 'first-ref');
  t.equal(state.creationTime, NOW);
  t.equal(state.lastUpdatedTime, '2026-11-22T08:00:00.000Z');
  t.equal(state.status, 'CAPTURED');
  t.strictSame(state.totals, { authorized: 10000, captured: 10000, refunded: 0 });
  t.equal(state.transactions.size, 2);
  t.equal(state.transactions.get('tx-1')?.outcome.gatewayCode, 'DECLINED');
  t.equal(state.transactions.get('tx-2')?.outcome.gatewayCode, 'APPROVED');
  t.strictSame(afterFirst.exists && [...afterFirst.transactions.keys()], ['tx-1'], 'the earlier state is not mutated');
});

t.test('orderStatus', async (t) => {
  const zero = { authorized: 0, captured: 0, refunded: 0 };
  t.equal(orderStatus(zero, 'FAILURE'), 'FAILED');
  t.equal(orderStatus(zero, 'UNKNOWN'), 'INITIATED');
  t.equal(orderStatus(zero, 'PENDING'), 'INITIATED');
  t.equal(orderStatus({ authorized: 1, captured: 1, refunded: 0 }, 'FAILURE'), 'CAPTURED');
  t.equal(orderStatus({ authorized: 1, captured: 1, refunded: 0 }, 'SUCCESS'), 'CAPTURED');
});

t.test('optional copies only defined members', async (t) => {
  t.strictSame(optional({ a: 1, b: undefined, c: false, d: 0, e: '' }), { a: 1, c: false, d: 0, e: '' });
});
