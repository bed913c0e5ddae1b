// How a payment's outcome is chosen, in order (docs/triggers.md):
//   1. system risk rules: marker RISK_SYSTEM_REJECT → BLOCKED, whatever else the request says;
//   2. merchant risk rules (skipped with action.bypassMerchantRiskRules ALL: risk NOT_CHECKED):
//      marker RISK_<decision> in order.reference, else a merchant rule's `risk`; REJECT → BLOCKED;
//   3. 3-D Secure: marker 3DS_<code> in card.holder.lastName; a failed authentication stops here;
//   4. the acquirer: a merchant rule's gatewayCode, else the sandbox expiry table (MM/38, MM/36),
//      else the real test acquirer (expiry table, expired card, approval);
//   5. risk decisions after authorization reverse an approved payment (reversal OKAY or FAIL).
// Pure: everything it needs (acquirer references, time) is in the command.
import type { PaymentOutcome, RiskResponse } from '../events.js';
import { hasRiskRules, type MerchantRule, type RuleAnswer } from '../merchant-rules.js';
import { avsResponse, cardSecurityCodeResponse, expiryKey, expiryRule, outcomeForExpiry, type Expiry } from './test-acquirer.js';
import type { Brand } from '../card.js';
import {
  CODE_ANSWERS, POST_AUTH_REVERSALS, RISK_RESPONSES, riskMarker, sandboxCodeForExpiry, THREE_D_SECURE_EFFECT,
  threeDSecureMarker, type GatewayCode, type MerchantRiskDecision, type ThreeDSecureCode,
} from './triggers.js';

export interface OutcomeRequest {
  card: { brand: Brand; expiry: Expiry };
  securityCode: string | undefined;
  billingStreet: string | undefined;
  orderReference: string | undefined;
  holderLastName: string | undefined;
  bypassMerchantRiskRules: boolean;
  rules: readonly MerchantRule[];
  acquirerMerchantId: string;
  ids: { authorizationCode: string; receipt: string; stan: string; acquirerTransactionId: string; batch: number };
  now: string;
}

export interface DecidedOutcome {
  outcome: PaymentOutcome;
  /** The payment's amount stays authorized and captured. */
  captured: boolean;
  /** An approved authorization was reversed (order CANCELLED unless other money stays captured). */
  reversed: boolean;
  /** The rule that chose the outcome, in words ("expiry 05/39 in the test acquirer's table"): recorded, shown by the history pages. */
  decidedBy: string;
}

/** A merchant rule as it matched: its index in the merchants file's `rules`, and its answer. */
export interface MatchedRule { index: number; answer: RuleAnswer }

type Gathered = { risk?: RiskResponse; threeDSecure?: { gatewayCode: ThreeDSecureCode } };

export function acquirerReferences(request: OutcomeRequest): PaymentOutcome['acquirer'] {
  const { now, ids } = request;
  return {
    id: 'TOKENGATE_S2I',
    batch: ids.batch,
    date: now.slice(5, 7) + now.slice(8, 10), // MMDD
    merchantId: request.acquirerMerchantId,
    settlementDate: now.slice(0, 10),
    timeZone: '+0000',
    transactionId: ids.acquirerTransactionId,
  };
}

/** The gateway decided without asking the acquirer: no acquirer code, receipt, CSC or AVS. */
function gatewayOnly(request: OutcomeRequest, gatewayCode: GatewayCode, gathered: Gathered, decidedBy: string): DecidedOutcome {
  const outcome: PaymentOutcome = {
    gatewayCode,
    result: CODE_ANSWERS[gatewayCode].result,
    ...gathered,
    acquirer: acquirerReferences(request),
    terminal: 'TGW00001',
  };
  return { outcome, captured: false, reversed: false, decidedBy };
}

/** The acquirer's answer: its code and message, CSC, AVS, references, an authorization code on approval. */
function acquirerAnswer(request: OutcomeRequest, answer: { gatewayCode: string; result: PaymentOutcome['result']; acquirerCode: string; acquirerMessage: string }, gathered: Gathered): PaymentOutcome {
  // Member by member, in the order the stored events have always had: one object shape per path,
  // no copies for the optional parts (every pay makes one).
  const avs = avsResponse(request.billingStreet);
  const outcome: PaymentOutcome = {
    gatewayCode: answer.gatewayCode, result: answer.result, acquirerCode: answer.acquirerCode, acquirerMessage: answer.acquirerMessage,
  } as PaymentOutcome;
  if (answer.result === 'SUCCESS') outcome.authorizationCode = request.ids.authorizationCode;
  outcome.cardSecurityCode = cardSecurityCodeResponse(request.securityCode, request.card.brand);
  if (avs) outcome.avs = avs;
  if (gathered.risk) outcome.risk = gathered.risk;
  if (gathered.threeDSecure) outcome.threeDSecure = gathered.threeDSecure;
  outcome.acquirer = acquirerReferences(request);
  outcome.receipt = request.ids.receipt;
  outcome.stan = request.ids.stan;
  outcome.terminal = 'TGW00001';
  return outcome;
}

/** The merchant's risk decision, and where it came from (a marker or a rule). */
function merchantRiskDecision(request: OutcomeRequest, marker: ReturnType<typeof riskMarker>, rule: MatchedRule | undefined): { decision: MerchantRiskDecision; by: string } | undefined {
  if (request.bypassMerchantRiskRules) return undefined;
  if (marker && marker !== 'SYSTEM_REJECT') return { decision: marker, by: `RISK_${marker} in order.reference` };
  if (rule?.answer.risk) return { decision: rule.answer.risk, by: `merchant rule rules[${rule.index}]: risk ${rule.answer.risk}` };
  return hasRiskRules(request.rules) ? { decision: 'ACCEPT', by: 'no merchant risk rule matched: ACCEPT' } : undefined;
}

/** The acquirer's answer: a merchant rule's gatewayCode, else the sandbox's expiry dates, else the test acquirer's. */
function acquirerDecision(request: OutcomeRequest, rule: MatchedRule | undefined, gathered: Gathered): { outcome: PaymentOutcome; decidedBy: string } | DecidedOutcome {
  const ruleCode = rule?.answer.gatewayCode;
  const code = ruleCode ?? sandboxCodeForExpiry(request.card.expiry);
  const decidedBy = ruleCode ? `merchant rule rules[${rule!.index}]: gatewayCode ${ruleCode}`
    : code ? `expiry ${expiryKey(request.card.expiry)} in the sandbox's table` : expiryRule(request.card.expiry, request.now);
  const acquirer = code ? CODE_ANSWERS[code].acquirer : undefined;
  if (code && !acquirer) return gatewayOnly(request, code, gathered, decidedBy);
  const answer = code && acquirer
    ? { gatewayCode: code, result: CODE_ANSWERS[code].result, acquirerCode: acquirer[0], acquirerMessage: acquirer[1] }
    : outcomeForExpiry(request.card.expiry, request.now);
  return { outcome: acquirerAnswer(request, answer, gathered), decidedBy };
}

export function decideOutcome(request: OutcomeRequest, rule: MatchedRule | undefined): DecidedOutcome {
  const threeDSecureCode = threeDSecureMarker(request.holderLastName);
  // What the outcome gathers before the acquirer, member by member (risk, then 3-D Secure): no
  // copies for the optional parts.
  const gathered: Gathered = {};
  const marker = riskMarker(request.orderReference);
  if (marker === 'SYSTEM_REJECT') {
    gathered.risk = RISK_RESPONSES.SYSTEM_REJECT;
    if (threeDSecureCode) gathered.threeDSecure = { gatewayCode: threeDSecureCode };
    return gatewayOnly(request, 'BLOCKED', gathered, 'RISK_SYSTEM_REJECT in order.reference: a system risk rule');
  }
  const merchantRisk = merchantRiskDecision(request, marker, rule);
  const decision = merchantRisk?.decision;
  const risk: RiskResponse | undefined = request.bypassMerchantRiskRules
    ? { gatewayCode: 'NOT_CHECKED' }
    : decision && RISK_RESPONSES[decision];
  if (risk) gathered.risk = risk;
  if (threeDSecureCode) gathered.threeDSecure = { gatewayCode: threeDSecureCode };
  if (decision === 'REJECT') return gatewayOnly(request, 'BLOCKED', gathered, `${merchantRisk!.by}: the merchant's risk rules`);
  const authentication = threeDSecureCode && THREE_D_SECURE_EFFECT[threeDSecureCode];
  if (authentication) return gatewayOnly(request, authentication, gathered, `3DS_${threeDSecureCode} in card.holder.lastName: 3-D Secure`);

  const answered = acquirerDecision(request, rule, gathered);
  if ('captured' in answered) return answered;
  const { outcome, decidedBy } = answered;
  const approved = outcome.result === 'SUCCESS';
  const reversal = decision && POST_AUTH_REVERSALS[decision];
  if (!reversal || !risk) return { outcome, captured: approved, reversed: false, decidedBy };
  if (!approved) {
    return { outcome: { ...outcome, risk: { ...risk, reversalTransactionResult: 'NOT_APPLICABLE' } }, captured: false, reversed: false, decidedBy };
  }
  const blocked: PaymentOutcome = {
    ...outcome, gatewayCode: 'BLOCKED', result: 'FAILURE', risk: { ...risk, reversalTransactionResult: reversal },
  };
  return { outcome: blocked, captured: reversal === 'FAIL', reversed: reversal === 'OKAY', decidedBy: `${merchantRisk!.by}: approved, then reversed (${reversal})` };
}

/** An outcome the gateway decides on its own (e.g. LOCK_FAILURE), with no risk or 3-D Secure member. */
export const gatewayDecision = (request: OutcomeRequest, gatewayCode: GatewayCode): PaymentOutcome =>
  gatewayOnly(request, gatewayCode, {}, 'the gateway').outcome;
