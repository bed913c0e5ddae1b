// What an event did, in one line of the gateway's words, for the timeline and the history pages:
// "AUTHORIZE 80.00 USD → APPROVED (00)", "PAY 12.50 USD → DECLINED (05)", "Notification delivered:
// HTTP 200"; its tone (a failure in red, an outcome not yet final in amber, the rest plain); and the
// rule that decided it, as the event recorded it (a payment's decidedBy or merchant rule index, the
// resolver's rule, the scheme token simulator's rule). Read from the event's data only: never a
// card number (the masked one at most), never a sealed value.
import { maskCardNumbers } from '../../lib/mask.js';
import { AUTHENTICATION_DESCRIBE, authenticationRule } from './outcome-3ds.js';
import { type Data, type Describe, fundsOf, money, obj, type Outcome, str, type Tone, toneOfResult, transactionOf } from './outcome-parts.js';

export { money, toneOfResult, type Outcome, type Tone } from './outcome-parts.js';

const answered = (outcome: Data) => `${str(outcome.gatewayCode)}${outcome.acquirerCode ? ` (${str(outcome.acquirerCode)})` : ''}`;

/** The rule of a payment: what it recorded (decidedBy), else, for payments recorded before that, its merchant rule's index. */
function paymentRule(d: Data): string | undefined {
  if (typeof d.decidedBy === 'string') return d.decidedBy;
  return typeof d.rule === 'number' ? `merchant rule rules[${d.rule}]` : undefined;
}

function payment(operation: string, amount: string, d: Data): Outcome {
  const outcome = obj(d.outcome);
  const rule = paymentRule(d) ?? authenticationRule(d);
  const fault = d.fault === 'SERVER_FAILED' ? ' · first answer 500 SERVER_FAILED' : '';
  return {
    summary: `${operation}${amount ? ` ${amount}` : ''} → ${answered(outcome)}${fault}`,
    tone: fault ? 'failed' : toneOfResult(outcome.result),
    ...(rule ? { rule } : {}),
    ...(transactionOf(d) ? { transaction: transactionOf(d)! } : {}),
  };
}

const orderTransaction: Describe = (d) => {
  // The payment page's payments say so (Hosted Checkout).
  const operation = `${str(d.apiOperation)}${d.gatewayEntryPoint === 'CHECKOUT' ? ' on the payment page' : ''}`;
  if (d.apiOperation === 'VOID') return payment(`VOID of transaction ${str(d.targetTransactionId)}`, money(d.amount, d.currency), d);
  return payment(operation, d.apiOperation === 'VERIFY' ? '' : money(d.amount, d.currency), d);
};

const resolved: Describe = (d) => ({
  summary: `UNKNOWN resolved → ${answered(d)}`,
  tone: toneOfResult(d.result),
  rule: str(d.rule),
  ...(transactionOf(d) ? { transaction: transactionOf(d)! } : {}),
});

/** 16 min, 2 h, 3 days: a duration of the test-control clock. */
function duration(ms: unknown): string {
  const n = typeof ms === 'number' ? ms : Number.NaN;
  for (const [unit, size] of [['days', 86_400_000], ['h', 3_600_000], ['min', 60_000], ['s', 1000]] as const) {
    if (n >= size && n % size === 0) return `${n / size} ${unit}`;
  }
  return `${str(ms)} ms`;
}

const started: Describe = (d) => ({
  summary: `PAY ${money(d.amount, d.currency)} started: the acquirer answers in ${str(d.latencyMs)} ms, the order held until then`,
  tone: 'pending',
  ...(transactionOf(d) ? { transaction: transactionOf(d)! } : {}),
});

const tokenCreated: Describe = (d) => {
  const verification = obj(d.verification);
  const scheme = obj(d.schemeToken);
  const parts = [`Token created · ${fundsOf(obj(d.sourceOfFunds))}`];
  if (verification.strategy && verification.strategy !== 'NONE') parts.push(str(verification.gatewayCode));
  if (scheme.status) parts.push(`scheme token ${str(scheme.status)}`);
  return { summary: parts.join(' · '), tone: 'ok', ...(scheme.rule ? { rule: `scheme token: ${str(scheme.rule)}` } : {}) };
};

const tokenUpdated: Describe = (d) => {
  const changed = Array.isArray(d.changed) ? d.changed.map(str) : [];
  const scheme = obj(d.schemeToken);
  return {
    summary: `Token updated${changed.length ? `: ${changed.join(', ')}` : ''}`, tone: 'ok',
    ...(scheme.rule ? { rule: `scheme token: ${str(scheme.rule)}` } : {}),
  };
};

const SCHEME_FAILED = new Set(['INELIGIBLE', 'DEACTIVATED', 'SUSPENDED']);
const schemeChanged: Describe = (d) => {
  const scheme = obj(d.schemeToken);
  const status = str(scheme.status);
  return {
    summary: `Scheme token ${str(d.previousStatus)} → ${status}${scheme.provider ? ` (${str(scheme.provider)})` : ''}`,
    tone: SCHEME_FAILED.has(status) ? 'failed' : status === 'PROVISIONING' ? 'pending' : 'ok',
    ...(scheme.rule ? { rule: `the scheme token simulator: ${str(scheme.rule)}` } : {}),
  };
};

const sessionUpdated: Describe = (d) => {
  const parts: string[] = [];
  const card = obj(d.card);
  if (card.number || card.expiry) parts.push(`card ${fundsOf({ card })}`.trim());
  const order = obj(d.order);
  if (order.currency) parts.push(`order ${money(order.amount, order.currency)}`);
  if (d.token) parts.push('a token');
  const authentication = obj(d.authentication);
  if (authentication.transactionId) parts.push(`authentication ${str(authentication.transactionId)}`);
  else if (Object.keys(authentication).length > 0) parts.push('3-D Secure fields');
  return { summary: `Session updated${parts.length ? `: ${parts.join(', ')}` : ''}`, tone: 'ok' };
};

const notification = (summary: (d: Data) => string, tone: (d: Data) => Tone = () => 'ok'): Describe => (d) => ({
  summary: summary(d), tone: tone(d), ...(transactionOf(d) ? { transaction: transactionOf(d)! } : {}),
});

const DESCRIBE: Record<string, Describe> = {
  PaymentRecorded: (d) => payment('PAY', money(d.amount, d.currency), d),
  OrderTransactionRecorded: orderTransaction,
  PaymentOutcomeResolved: resolved,
  PaymentStarted: started,
  TokenCreated: tokenCreated,
  TokenUpdated: tokenUpdated,
  TokenDeleted: () => ({ summary: 'Token deleted: its card number destroyed', tone: 'ok' }),
  SchemeTokenStatusChanged: schemeChanged,
  AccountIdentifierReserved: () => ({ summary: 'Account identifier reserved for a token (unique card)', tone: 'ok' }),
  SessionCreated: (d) => ({ summary: `Session created${d.authenticationLimit ? ` · authentication limit ${str(d.authenticationLimit)}` : ''}`, tone: 'ok' }),
  SessionUpdated: sessionUpdated,
  SessionExpired: () => ({ summary: 'Session expired: its card data destroyed', tone: 'ok' }),
  // Hosted Checkout: the checkout's steps in its session's stream (its payments are the order's).
  CheckoutInitiated: (d) => ({ summary: `Checkout initiated (${str(d.apiOperation)}): ${str(d.operation)} of ${money(obj(d.order).amount, obj(d.order).currency)} on order ${str(obj(d.order).id)}${d.paymentLink ? ' · payment link' : ''}${d.threeDSecure ? ' · 3-D Secure' : ''}`, tone: 'ok' }),
  CheckoutPageShown: () => ({ summary: 'Payment page shown to the payer', tone: 'ok' }),
  CheckoutAuthenticationStarted: (d) => ({ summary: `3-D Secure for attempt ${str(d.attempt)} (transaction ${str(d.transactionId)}): ${d.challenged ? 'challenge' : 'frictionless'}`, tone: d.challenged ? 'pending' : 'ok' }),
  CheckoutPaymentDeclined: (d) => ({ summary: `Attempt ${str(d.attempt)} declined: ${str(d.gatewayCode)} (transaction ${str(d.transactionId)}), ${str(d.attemptsLeft)} left`, tone: 'failed' }),
  CheckoutCompleted: (d) => ({ summary: `Checkout ${d.outcome === 'PAID' ? 'paid' : 'declined'}${d.transactionId ? ` (transaction ${str(d.transactionId)})` : ''}: payer sent back to the merchant`, tone: d.outcome === 'PAID' ? 'ok' : 'failed' }),
  CheckoutCancelled: () => ({ summary: 'Checkout cancelled by the payer', tone: 'ok' }),
  ...AUTHENTICATION_DESCRIBE,
  TransactionReferenceReserved: (d) => ({ summary: `transaction.reference held by transaction ${str(d.transactionId)}`, tone: 'ok' }),
  TransactionReferenceReleased: (d) => ({ summary: `transaction.reference let go by transaction ${str(d.transactionId)}`, tone: 'ok' }),
  NotificationScheduled: notification(() => 'Notification scheduled'),
  NotificationAttempted: notification((d) => `Notification attempt ${str(d.attempt)}${d.trigger && d.trigger !== 'SCHEDULED' ? ` (${str(d.trigger)})` : ''}`),
  NotificationDelivered: notification((d) => `Notification delivered: HTTP ${str(d.status)} in ${str(d.durationMs)} ms (attempt ${str(d.attempt)})`),
  NotificationFailed: notification(
    (d) => `Notification attempt ${str(d.attempt)} failed: ${d.status ? `HTTP ${str(d.status)}` : str(d.error)}${d.nextAttemptAt ? `, next at ${str(d.nextAttemptAt)}` : ''}`,
    () => 'failed',
  ),
  NotificationAbandoned: notification((d) => `Notification abandoned after ${str(d.attempts)} attempts`, () => 'failed'),
  // What a test did through the test-control API.
  MerchantReset: (d) => ({ summary: `Merchant reset (reset ${str(d.reset)})${d.repositoryId ? ` with its repository ${str(d.repositoryId)}` : ''}: earlier data ignored`, tone: 'ok' }),
  SandboxClockAdvanced: (d) => ({ summary: `Sandbox clock advanced by ${duration(d.advancedByMs)} to ${str(d.to)}`, tone: 'ok' }),
  UnknownResolvedByTest: notification((d) => `UNKNOWN resolved by a test: ${str(d.gatewayCode)} chosen`),
  NotificationRedeliveryRequested: notification(() => 'Notification redelivery requested by a test'),
  NotificationRequestedByTest: notification(() => 'Notification requested by a test'),
};

/** What the event did; a type this page does not know: its name. `reactor`: the reactor that appended it, named with its rule. */
export function describe(type: string, data: unknown, reactor?: unknown): Outcome {
  const describer = DESCRIBE[type];
  const outcome = describer ? describer(obj(data)) : { summary: type, tone: 'ok' as const };
  if (outcome.rule && typeof reactor === 'string' && !outcome.rule.startsWith('the ')) outcome.rule = `the ${reactor}: ${outcome.rule}`;
  // Event data holds no card number but masked ones; a free text (a rule, an error) is masked again.
  return {
    ...outcome, summary: maskCardNumbers(outcome.summary),
    ...(outcome.rule ? { rule: maskCardNumbers(outcome.rule) } : {}),
  };
}
