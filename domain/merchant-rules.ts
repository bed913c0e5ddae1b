// A merchant's own outcome rules (merchants file, `rules`): the first rule whose `match` fits the
// payment answers it. Pure: the rules arrive in the command, loaded and checked by merchants.ts.
import { formatAmount, minorUnits } from './money.js';
import type { GatewayCode, MerchantRiskDecision } from './order/triggers.js';

/** A decimal as in requests ("12.50"); a range is inclusive, either end optional. */
export type AmountMatch = string | { min?: string; max?: string };

export interface RuleMatch {
  amount?: AmountMatch;
  currency?: string;
  /** The card's masked number (512345xxxxxx0008), its brand (VISA) or the token. */
  card?: string;
  /** order.reference or transaction.reference, exactly. */
  reference?: string;
}

export type Fault = 'SERVER_BUSY' | 'SERVER_FAILED';

export interface RuleAnswer {
  gatewayCode?: GatewayCode;
  /** Added before the acquirer answers; the order is locked meanwhile. */
  latencyMs?: number;
  /** SERVER_BUSY: 503, nothing recorded. SERVER_FAILED: recorded, but the first answer is a 500. */
  fault?: Fault;
  /** A risk rule of the merchant; skipped when the request has action.bypassMerchantRiskRules ALL. */
  risk?: MerchantRiskDecision;
}

export interface MerchantRule {
  match?: RuleMatch;
  answer: RuleAnswer;
}

export interface PaymentFacts {
  amount: number; // minor units
  currency: string;
  cardNumber: string; // masked
  brand: string;
  token: string;
  orderReference: string | undefined;
  transactionReference: string | undefined;
}

/** A request decimal as an integer of millionths, so amounts of any currency compare exactly. */
export function decimalMillionths(text: string): bigint {
  const match = /^(\d+)(?:\.(\d{0,6}))?$/.exec(text);
  if (!match?.[1]) throw new Error(`not a decimal with at most 6 decimals: '${text}'`);
  return BigInt(match[1]) * 1_000_000n + BigInt((match[2] ?? '').padEnd(6, '0'));
}

function amountMatches(match: AmountMatch, facts: PaymentFacts): boolean {
  const amount = decimalMillionths(formatAmount(facts.amount, minorUnits(facts.currency) ?? 2));
  if (typeof match === 'string') return amount === decimalMillionths(match);
  if (match.min !== undefined && amount < decimalMillionths(match.min)) return false;
  return match.max === undefined || amount <= decimalMillionths(match.max);
}

export function ruleMatches(match: RuleMatch | undefined, facts: PaymentFacts): boolean {
  if (!match) return true;
  if (match.amount !== undefined && !amountMatches(match.amount, facts)) return false;
  if (match.currency !== undefined && match.currency !== facts.currency) return false;
  if (match.card !== undefined && ![facts.cardNumber, facts.brand, facts.token].includes(match.card)) return false;
  if (match.reference !== undefined && match.reference !== facts.orderReference && match.reference !== facts.transactionReference) {
    return false;
  }
  return true;
}

/**
 * The first rule that matches, with its index. Risk rules (answer.risk) are skipped when the
 * merchant's risk rules are bypassed (action.bypassMerchantRiskRules ALL).
 */
export function firstMatchingRule(
  rules: readonly MerchantRule[], facts: PaymentFacts, bypassRiskRules: boolean,
): { index: number; answer: RuleAnswer } | undefined {
  for (const [index, rule] of rules.entries()) {
    if (bypassRiskRules && rule.answer.risk !== undefined) continue;
    if (ruleMatches(rule.match, facts)) return { index, answer: rule.answer };
  }
  return undefined;
}

/** True when the merchant has risk rules at all (then every payment carries response.risk). */
export const hasRiskRules = (rules: readonly MerchantRule[]): boolean => rules.some((r) => r.answer.risk !== undefined);
