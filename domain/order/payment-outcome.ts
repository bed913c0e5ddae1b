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
import { avsResponse, cardSecurityCodeResponse, outcomeForExpiry, type Expiry } from './test-acquirer.js';
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
}

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
function gatewayOnly(request: OutcomeRequest, gatewayCode: GatewayCode, gathered: Gathered): DecidedOutcome {
  const outcome: PaymentOutcome = {
    gatewayCode,
    result: CODE_ANSWERS[gatewayCode].result,
    ...gathered,
    acquirer: acquirerReferences(request),
    terminal: 'TGW00001',
  };
  return { outcome, captured: false, reversed: false };
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

function merchantRiskDecision(request: OutcomeRequest, marker: ReturnType<typeof riskMarker>, rule: RuleAnswer | undefined): MerchantRiskDecision | undefined {
  if (request.bypassMerchantRiskRules) return undefined;
  if (marker && marker !== 'SYSTEM_REJECT') return marker;
  return rule?.risk ?? (hasRiskRules(request.rules) ? 'ACCEPT' : undefined);
}

export function decideOutcome(request: OutcomeRequest, rule: RuleAnswer | undefined): DecidedOutcome {
  const threeDSecureCode = threeDSecureMarker(request.holderLastName);
  // What the outcome gathers before the acquirer, member by member (risk, then 3-D Secure): no
  // copies for the optional parts.
  const gathered: Gathered = {};
  const marker = riskMarker(request.orderReference);
  if (marker === 'SYSTEM_REJECT') {
    gathered.risk = RISK_RESPONSES.SYSTEM_REJECT;
    if (threeDSecureCode) gathered.threeDSecure = { gatewayCode: threeDSecureCode };
    return gatewayOnly(request, 'BLOCKED', gathered);
  }
  const decision = merchantRiskDecision(request, marker, rule);
  const risk: RiskResponse | undefined = request.bypassMerchantRiskRules
    ? { gatewayCode: 'NOT_CHECKED' }
    : decision && RISK_RESPONSES[decision];
  if (risk) gathered.risk = risk;
  if (threeDSecureCode) gathered.threeDSecure = { gatewayCode: threeDSecureCode };
  if (decision === 'REJECT') return gatewayOnly(request, 'BLOCKED', gathered);
  const authentication = threeDSecureCode && THREE_D_SECURE_EFFECT[threeDSecureCode];
  if (authentication) return gatewayOnly(request, authentication, gathered);

  const code = rule?.gatewayCode ?? sandboxCodeForExpiry(request.card.expiry);
  const acquirer = code ? CODE_ANSWERS[code].acquirer : undefined;
  if (code && !acquirer) return gatewayOnly(request, code, gathered);
  const answer = code && acquirer
    ? { gatewayCode: code, result: CODE_ANSWERS[code].result, acquirerCode: acquirer[0], acquirerMessage: acquirer[1] }
    : outcomeForExpiry(request.card.expiry, request.now);
  const outcome = acquirerAnswer(request, answer, gathered);
  const approved = outcome.result === 'SUCCESS';
  const reversal = decision && POST_AUTH_REVERSALS[decision];
  if (!reversal || !risk) return { outcome, captured: approved, reversed: false };
  if (!approved) {
    return { outcome: { ...outcome, risk: { ...risk, reversalTransactionResult: 'NOT_APPLICABLE' } }, captured: false, reversed: false };
  }
  const blocked: PaymentOutcome = {
    ...outcome, gatewayCode: 'BLOCKED', result: 'FAILURE', risk: { ...risk, reversalTransactionResult: reversal },
  };
  return { outcome: blocked, captured: reversal === 'FAIL', reversed: reversal === 'OKAY' };
}

/** An outcome the gateway decides on its own (e.g. LOCK_FAILURE), with no risk or 3-D Secure member. */
export const gatewayDecision = (request: OutcomeRequest, gatewayCode: GatewayCode): PaymentOutcome =>
  gatewayOnly(request, gatewayCode, {}).outcome;
