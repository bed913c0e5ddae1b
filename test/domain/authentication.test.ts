// 3-D Secure on the order decider: given/when/then of each step, and a property over random
// sequences of the steps, the challenge's answers and payments naming authentications (with
// repeats of earlier requests): a payment is never approved on an authentication that did not
// succeed (transStatus Y, A or I), nor on another card's; a step refused records nothing; an
// identical repeat is answered from the record.
import fc from 'fast-check';
import t from 'tap';
import { EmulatedAuthenticationError, InvalidRequest } from '../../domain/errors.js';
import type { AuthenticationOutcome, OrderEvent, OrderSource } from '../../domain/events.js';
import { CHALLENGE_OPTIONS, TEST_CARDS, type ChallengeOption } from '../../domain/order/authentication-cards.js';
import { authenticationSucceeded } from '../../domain/order/authentication-state.js';
import { decide, evolveOrder, initialOrderState, type OrderCommand, type OrderState } from '../../domain/order/order.js';
import { detectBrand, mask64 } from '../../domain/card.js';

const NOW = '2026-11-28T12:00:00.000Z';
const ids = { authorizationCode: 'A1B2C3', receipt: '610000000123', stan: '000456', acquirerTransactionId: 'ATX-1', batch: 20261128 };

const source = (number: string): OrderSource => {
  const brand = detectBrand(number);
  return { card: { number: mask64(number), brand, scheme: brand === 'UNKNOWN' || brand === 'LOCAL_BRAND_ONLY' ? 'OTHER' : brand, fundingMethod: 'CREDIT', type: 'CREDIT', expiry: { month: 1, year: 39 } } };
};

const base = (transactionId: string, fingerprint: string) =>
  ({ merchantId: 'M', orderId: 'O', transactionId, requestFingerprint: fingerprint, acquirerMerchantId: 'M', ids, now: NOW });

type Step =
  | { kind: 'initiate'; auth: string; card: string }
  | { kind: 'payer'; auth: string; amount: number }
  | { kind: 'answer'; auth: string; answer: ChallengeOption; rightCreq: boolean }
  | { kind: 'pay'; id: string; type: 'PAY' | 'AUTHORIZE' | 'VERIFY'; auth: string | undefined; card: string };

/** The 3DS server transaction id Initiate Authentication records for `auth` (one per transaction id). */
const serverId = (auth: string) => `3ds-server-${auth}`;

function commandOf(step: Step): OrderCommand {
  switch (step.kind) {
    case 'initiate':
      return {
        type: 'INITIATE_AUTHENTICATION', ...base(step.auth, `init-${step.auth}-${step.card}`), currency: 'USD', source: source(step.card),
        channel: 'PAYER_BROWSER', purpose: 'PAYMENT_TRANSACTION', threeDSServerTransactionId: serverId(step.auth),
      };
    case 'payer':
      return {
        type: 'AUTHENTICATE_PAYER', ...base(step.auth, `payer-${step.auth}-${step.amount}`), amount: step.amount, currency: 'USD',
        redirectResponseUrl: 'https://shop.example/back', acsTransactionId: `acs-${step.auth}`, dsTransactionId: `ds-${step.auth}`,
      };
    case 'answer':
      return { type: 'AnswerChallenge', merchantId: 'M', orderId: 'O', transactionId: step.auth, threeDSServerTransactionId: step.rightCreq ? serverId(step.auth) : 'forged', answer: step.answer, now: NOW };
    case 'pay':
      return {
        type: step.type, ...base(step.id, `pay-${step.id}-${step.type}-${step.auth ?? ''}-${step.card}`), amount: step.type === 'VERIFY' ? 0 : 1250, currency: 'USD',
        source: source(step.card), rules: [], authenticationTransactionId: step.auth,
      };
  }
}

const cards = fc.constantFrom(...TEST_CARDS.map((c) => c.number), '5111111111111118', '4111111111111111');
const auths = fc.constantFrom('a1', 'a2', 'a3');
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('initiate' as const), auth: auths, card: cards }),
  fc.record({ kind: fc.constant('payer' as const), auth: auths, amount: fc.constantFrom(1250, 999) }),
  fc.record({ kind: fc.constant('answer' as const), auth: auths, answer: fc.constantFrom(...CHALLENGE_OPTIONS), rightCreq: fc.boolean() }),
  fc.record({
    kind: fc.constant('pay' as const), id: fc.constantFrom('p1', 'p2', 'p3', 'p4'), type: fc.constantFrom('PAY' as const, 'AUTHORIZE' as const, 'VERIFY' as const),
    auth: fc.option(auths, { nil: undefined }), card: cards,
  }),
);

/** Runs the steps (each may be repeated at once: the identical retry); checks the invariants after each. */
function run(steps: ReadonlyArray<{ step: Step; repeat: boolean }>): void {
  let state: OrderState = initialOrderState();
  const apply = (events: readonly OrderEvent[]) => { for (const e of events) state = evolveOrder(state, e); };
  for (const { step, repeat } of steps) {
    for (let attempt = 0; attempt < (repeat ? 2 : 1); attempt++) {
      const before = state;
      let decision: ReturnType<typeof decide>;
      try {
        decision = decide(commandOf(step) as Exclude<OrderCommand, { type: 'ResolveUnknownPayment' }>, state);
      } catch (error) {
        if (!(error instanceof InvalidRequest) && !(error instanceof EmulatedAuthenticationError)) throw error;
        continue;
      }
      if (Array.isArray(decision) || decision.kind !== 'recorded') continue;
      if (attempt === 1 && step.kind !== 'answer') throw new Error(`an identical repeat recorded again: ${JSON.stringify(step)}`);
      for (const event of decision.events) checkPayment(event, before);
      apply(decision.events);
    }
  }
}

/** A recorded payment naming an authentication: approved only on a succeeded one of the same card, as it stood. */
function checkPayment(event: OrderEvent, before: OrderState): void {
  if (event.type !== 'OrderTransactionRecorded') return;
  const d = event.data;
  const named = d.authentication;
  const approved = d.outcome.gatewayCode === 'APPROVED' || d.outcome.result === 'SUCCESS';
  if (!named) return;
  const authentication = before.exists ? before.modern?.authentications?.get(named.transactionId) : undefined;
  if (!authentication) throw new Error(`a payment recorded on an authentication that does not exist: ${named.transactionId}`);
  if (authentication.initiated.source.card.number !== d.source?.card.number) throw new Error('a payment recorded on another card\'s authentication');
  const outcome: AuthenticationOutcome = authentication.outcome;
  if (approved && !authenticationSucceeded(outcome)) throw new Error(`APPROVED on ${outcome.authenticationStatus}`);
  if (approved && !['Y', 'A', 'I'].includes(outcome.transactionStatus ?? '')) throw new Error(`APPROVED with transStatus ${outcome.transactionStatus}`);
  if (!authenticationSucceeded(outcome) && (d.outcome.acquirerCode !== undefined || d.totalsAfter.captured > 0)) throw new Error('the acquirer was asked');
}

t.test('property: no payment is approved on an authentication that did not succeed, retries included', async (t) => {
  fc.assert(fc.property(fc.array(fc.record({ step: stepArb, repeat: fc.boolean() }), { minLength: 1, maxLength: 30 }), (steps) => { run(steps); }),
    { numRuns: 400 });
  t.pass('400 random sequences');
});

t.test('Initiate on a challenge card, Authenticate Payer, a wrong creq refused, the answer recorded once', async (t) => {
  let state = initialOrderState();
  const step = (s: Step) => {
    const d = decide(commandOf(s) as Exclude<OrderCommand, { type: 'ResolveUnknownPayment' }>, state);
    if (Array.isArray(d) || d.kind !== 'recorded') return d;
    for (const e of d.events) state = evolveOrder(state, e);
    return d;
  };
  const initiated = step({ kind: 'initiate', auth: 'a1', card: '5123450000000008' });
  t.strictSame(!Array.isArray(initiated) && initiated.kind === 'recorded' && initiated.events.map((e) => e.type), ['AuthenticationInitiated']);
  const started = step({ kind: 'payer', auth: 'a1', amount: 1250 });
  t.strictSame(!Array.isArray(started) && started.kind === 'recorded' && started.events.map((e) => e.type), ['PayerAuthenticationStarted']);
  t.throws(() => step({ kind: 'answer', auth: 'a1', answer: 'AUTHENTICATED', rightCreq: false }), InvalidRequest, 'a creq that names another challenge');
  const answered = step({ kind: 'answer', auth: 'a1', answer: 'AUTHENTICATED', rightCreq: true });
  t.strictSame(!Array.isArray(answered) && answered.kind === 'recorded' && answered.events.map((e) => e.type), ['ChallengeAnswered']);
  const again = step({ kind: 'answer', auth: 'a1', answer: 'UNAUTHENTICATED', rightCreq: true });
  t.equal(!Array.isArray(again) && again.kind, 'replayed', 'a second answer: the first stands');
  t.equal(state.exists && state.modern?.authentications?.get('a1')?.outcome.transactionStatus, 'Y');
  t.equal(state.exists && state.status, 'AUTHENTICATED');
});
