// ResolveUnknownPayment on the order aggregate: a payment answered UNKNOWN gets its final
// outcome, chosen by a documented deterministic rule (triggers.ts, unknownResolution). Sent by the
// reactor of services/order/unknown-resolver.ts; pure like every decider (time and the
// authorization code arrive in the command).
import type { PaymentOutcomeResolved } from '../events.js';
import type { ResolveUnknownPayment } from './commands.js';
import { orderStatus, type OrderState } from './order-state.js';
import { statusOfTotals } from './totals.js';
import { CODE_ANSWERS, unknownResolution } from './triggers.js';

/** No events when the transaction is unknown to the order or no longer UNKNOWN (already resolved). */
export function decideResolveUnknown(command: ResolveUnknownPayment, state: OrderState): PaymentOutcomeResolved[] {
  if (!state.exists) return [];
  const payment = state.transactions.get(command.transactionId);
  if (!payment) return decideResolveModern(state, command);
  if (payment.outcome.result !== 'UNKNOWN') return [];
  const { gatewayCode, rule } = command.chosen ?? unknownResolution(payment.amount);
  const approved = gatewayCode === 'APPROVED';
  const [acquirerCode, acquirerMessage] = CODE_ANSWERS[gatewayCode].acquirer ?? ['', ''];
  const before = state.totals;
  const totalsAfter = approved
    ? { authorized: before.authorized + payment.amount, captured: before.captured + payment.amount, refunded: before.refunded }
    : before;
  const result = approved ? 'SUCCESS' : 'FAILURE';
  return [{
    type: 'PaymentOutcomeResolved',
    data: {
      merchantId: payment.merchantId,
      orderId: payment.orderId,
      transactionId: payment.transactionId,
      gatewayCode,
      result,
      acquirerCode,
      acquirerMessage,
      ...(approved ? { authorizationCode: command.authorizationCode } : {}),
      rule,
      totalsAfter,
      orderStatus: orderStatus(totalsAfter, result),
      resolvedAt: command.now,
    },
  }];
}

/**
 * A PAY, AUTHORIZE or VERIFY of the order API (versions 1-100 but the deactivated ones) answered
 * UNKNOWN: the same rule; an approved PAY adds to the authorized and captured totals, an AUTHORIZE
 * to the authorized one, a VERIFY to none.
 */
function decideResolveModern(state: Extract<OrderState, { exists: true }>, command: ResolveUnknownPayment): PaymentOutcomeResolved[] {
  const t = state.modern?.operations.get(command.transactionId);
  if (!t || t.outcome.result !== 'UNKNOWN') return [];
  const { gatewayCode, rule } = command.chosen ?? unknownResolution(t.amount);
  const approved = gatewayCode === 'APPROVED';
  const [acquirerCode, acquirerMessage] = CODE_ANSWERS[gatewayCode].acquirer ?? ['', ''];
  const before = state.totals;
  const totalsAfter = !approved || t.transactionType === 'VERIFICATION' ? before
    : t.transactionType === 'PAYMENT'
      ? { authorized: before.authorized + t.amount, captured: before.captured + t.amount, refunded: before.refunded }
      : { ...before, authorized: before.authorized + t.amount };
  const otherwise = approved ? (t.transactionType === 'VERIFICATION' ? 'VERIFIED' : 'AUTHORIZED') : 'FAILED';
  return [{
    type: 'PaymentOutcomeResolved',
    data: {
      merchantId: t.merchantId,
      orderId: t.orderId,
      transactionId: t.transactionId,
      gatewayCode,
      result: approved ? 'SUCCESS' : 'FAILURE',
      acquirerCode,
      acquirerMessage,
      ...(approved ? { authorizationCode: command.authorizationCode } : {}),
      rule,
      totalsAfter,
      orderStatus: statusOfTotals(totalsAfter, otherwise),
      resolvedAt: command.now,
    },
  }];
}
