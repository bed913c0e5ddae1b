// An order's totals (authorized, captured, refunded; minor units): the status they name, and
// their bound. The spec's response decimal rule caps every amount an answer writes, the totals
// included, at 1000000000000; the gateway keeps an order's totals within it. In minor units that
// is at most 10^15 (3 decimals), below 2^53: every total, and every sum a check makes, is an exact
// integer in a double, so the events keep their numbers and the answers write them exactly.
import { InvalidRequest } from '../errors.js';
import type { OrderTotals, TransactionType } from '../events.js';
import { formatAmount, MAX_AMOUNT, minorUnits } from '../money.js';
import type { OrderState } from './order-state.js';

/** The order's status from its totals; `otherwise` when no money is authorized, captured or refunded. */
export function statusOfTotals(totals: OrderTotals, otherwise: string): string {
  if (totals.refunded > 0) return totals.refunded >= totals.captured ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
  if (totals.captured > 0) return totals.captured >= totals.authorized ? 'CAPTURED' : 'PARTIALLY_CAPTURED';
  if (totals.authorized > 0) return 'AUTHORIZED';
  return otherwise;
}

/** A transaction in another currency than the order's is refused (400 on `field`); an order not yet recorded takes any. */
export function checkCurrency(state: OrderState, currency: string | undefined, field: string): void {
  if (state.exists && currency !== undefined && state.currency !== currency) {
    throw new InvalidRequest(`Value '${currency}' is invalid. The order's currency is ${state.currency}`, field);
  }
}

/**
 * Amounts of the order's payments and authorizations answered UNKNOWN and not yet resolved: an
 * approval adds them to the totals later (domain/order/order-resolution.ts).
 */
function unresolved(state: Extract<OrderState, { exists: true }>): number {
  let sum = 0;
  for (const p of state.transactions.values()) if (p.outcome.result === 'UNKNOWN') sum += p.amount;
  for (const t of state.modern?.operations.values() ?? []) {
    if (t.outcome.result === 'UNKNOWN' && t.transactionType !== 'VERIFICATION') sum += t.amount;
  }
  return sum;
}

/**
 * A PAY or AUTHORIZE of `amount` (minor units) may take the order's total authorized amount, with
 * what an UNKNOWN answer may still add, up to 1000000000000 and no further (400 on `field`).
 * Captures and refunds need no check of their own: a capture stays within the authorized amount, a
 * refund within the captured one.
 */
export function checkTotalWithin(state: OrderState, amount: number, currency: string, field: string): void {
  if (!state.exists) return; // a request's own amount is at most the maximum (domain/money.ts)
  const digits = minorUnits(currency) ?? 2;
  if (state.totals.authorized + unresolved(state) + amount <= MAX_AMOUNT * 10 ** digits) return;
  throw new InvalidRequest(`Value '${formatAmount(amount, digits)}' is invalid. The order's total authorized amount would exceed ${MAX_AMOUNT}`, field);
}

/** A CAPTURE (up to the authorized amount not yet captured) or a REFUND (up to the captured amount not yet refunded): the totals after it. */
export function totalsAfterFollowOn(t: OrderTotals, capture: boolean, amount: number, currency: string): OrderTotals {
  const available = capture ? t.authorized - t.captured : t.captured - t.refunded;
  if (amount > available) {
    const value = `Value '${formatAmount(amount, minorUnits(currency) ?? 2)}' is invalid`;
    throw new InvalidRequest(capture
      ? `${value}. The amount exceeds the order's authorized amount not yet captured`
      : `${value}. The amount exceeds the order's captured amount not yet refunded`, 'transaction.amount');
  }
  return capture ? { ...t, captured: t.captured + amount } : { ...t, refunded: t.refunded + amount };
}

/** A VOID of a transaction of `amount`: the totals after it, if they stay consistent (refunded <= captured <= authorized). */
export function totalsAfterVoid(t: OrderTotals, type: TransactionType, amount: number, targetId: string): OrderTotals {
  const refuse = (why: string) => new InvalidRequest(`Value '${targetId}' is invalid. ${why}`, 'transaction.targetTransactionId');
  switch (type) {
    case 'VOID_AUTHORIZATION':
      if (t.captured > t.authorized - amount) throw refuse('The authorization is captured: void or refund the captures first');
      return { ...t, authorized: t.authorized - amount };
    case 'VOID_PAYMENT':
      if (t.refunded > t.captured - amount) throw refuse('The payment is refunded: void the refunds first');
      return { ...t, authorized: t.authorized - amount, captured: t.captured - amount };
    case 'VOID_CAPTURE':
      if (t.refunded > t.captured - amount) throw refuse('The capture is refunded: void the refunds first');
      return { ...t, captured: t.captured - amount };
    default:
      return { ...t, refunded: t.refunded - amount };
  }
}
