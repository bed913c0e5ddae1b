// What the timeline and history pages say each event did (services/queries/outcome.ts), for the
// events the HTTP tests do not make easily: a failed and an abandoned notification, a scheme
// token's status change, a session update, what a test did through the test-control API, a
// resolution by a reactor or by a test, and a type the pages do not know.
import t from 'tap';
import { describe } from '../../services/queries/outcome.js';

const ref = { merchantId: 'M', notificationId: 'n-1', orderId: '10000000001', transactionId: '1' };

t.test('notifications: a failed attempt and an abandoned notification in red, a delivery plain', async (t) => {
  t.same(describe('NotificationFailed', { ...ref, attempt: 2, status: 500, failedAt: 'x', nextAttemptAt: '2026-11-21T12:00:10.000Z' }), {
    summary: 'Notification attempt 2 failed: HTTP 500, next at 2026-11-21T12:00:10.000Z', tone: 'failed', transaction: 'order 10000000001 · transaction 1',
  });
  t.equal(describe('NotificationFailed', { ...ref, attempt: 1, error: 'connect ECONNREFUSED 127.0.0.1:9', failedAt: 'x' }).summary, 'Notification attempt 1 failed: connect ECONNREFUSED 127.0.0.1:9');
  t.same(describe('NotificationAbandoned', { ...ref, attempts: 5 }).tone, 'failed');
  t.same(describe('NotificationDelivered', { ...ref, attempt: 1, status: 204, durationMs: 3 }).tone, 'ok');
  t.equal(describe('NotificationAttempted', { ...ref, attempt: 2, trigger: 'REDELIVERY' }).summary, 'Notification attempt 2 (REDELIVERY)');
});

t.test('a scheme token: its status change, by the simulator’s rule', async (t) => {
  t.same(describe('SchemeTokenStatusChanged', { previousStatus: 'PROVISIONING', schemeToken: { provider: 'MDES', status: 'ACTIVE', rule: 'expiry 01/39: ACTIVE' } }, 'scheme-tokens'), {
    summary: 'Scheme token PROVISIONING → ACTIVE (MDES)', tone: 'ok', rule: 'the scheme token simulator: expiry 01/39: ACTIVE',
  });
  t.equal(describe('SchemeTokenStatusChanged', { previousStatus: 'ACTIVE', schemeToken: { status: 'SUSPENDED', rule: 'r' } }).tone, 'failed');
});

t.test('a resolution names who decided: the reactor, or the test that chose it', async (t) => {
  const data = { orderId: '1', transactionId: '1', gatewayCode: 'DECLINED', result: 'FAILURE', acquirerCode: '05' };
  t.equal(describe('PaymentOutcomeResolved', { ...data, rule: 'amount in minor units is odd: DECLINED' }, 'unknown-resolver').rule, 'the unknown-resolver: amount in minor units is odd: DECLINED');
  t.equal(describe('PaymentOutcomeResolved', { ...data, rule: 'chosen through the test-control API: DECLINED' }).rule, 'chosen through the test-control API: DECLINED');
  t.equal(describe('PaymentOutcomeResolved', { ...data, rule: 'x' }).tone, 'failed');
});

t.test('sessions, test control, and a type the pages do not know', async (t) => {
  t.equal(describe('SessionUpdated', { card: { number: '512345xxxxxx0008', brand: 'MASTERCARD', expiry: { month: 5, year: 39 } }, order: { amount: 1250, currency: 'USD' } }).summary,
    'Session updated: card 512345xxxxxx0008 MASTERCARD 05/39, order 12.50 USD');
  t.equal(describe('SessionUpdated', { card: {}, authentication: { channel: 'PAYER_BROWSER', redirectResponseUrl: 'https://shop.example/back' } }).summary,
    'Session updated: 3-D Secure fields');
  t.equal(describe('SessionUpdated', { card: {}, authentication: { channel: 'PAYER_BROWSER', transactionId: 'a1' } }).summary, 'Session updated: authentication a1');
  t.equal(describe('SandboxClockAdvanced', { advancedByMs: 960_000, to: '2026-11-21T12:16:00.000Z' }).summary, 'Sandbox clock advanced by 16 min to 2026-11-21T12:16:00.000Z');
  t.equal(describe('MerchantReset', { reset: 2, repositoryId: 'REPO01' }).summary, 'Merchant reset (reset 2) with its repository REPO01: earlier data ignored');
  t.same(describe('SomethingNew', { a: 1 }), { summary: 'SomethingNew', tone: 'ok' });
  t.equal(describe('PaymentRecorded', { amount: 1000, currency: 'JPY', outcome: { gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00' }, rule: 2 }).rule, 'merchant rule rules[2]',
    'a payment recorded before decidedBy was kept: its merchant rule');
  t.equal(describe('PaymentRecorded', { amount: 1000, currency: 'JPY', outcome: { gatewayCode: 'APPROVED', result: 'SUCCESS', acquirerCode: '00' } }).summary, 'PAY 1000 JPY → APPROVED (00)', 'a currency without minor units');
});

t.test('Hosted Checkout: each step of the checkout in words, the payment page\'s payment named so', async (t) => {
  const d = { merchantId: 'M', sessionId: 'SESSION000000000000000000000001' };
  t.equal(describe('CheckoutInitiated', { ...d, apiOperation: 'INITIATE_CHECKOUT', operation: 'PURCHASE', order: { id: 'o-1', amount: 1250, currency: 'USD' }, threeDSecure: true }).summary,
    'Checkout initiated (INITIATE_CHECKOUT): PURCHASE of 12.50 USD on order o-1 · 3-D Secure');
  t.equal(describe('CheckoutPageShown', d).summary, 'Payment page shown to the payer');
  t.same(describe('CheckoutAuthenticationStarted', { ...d, attempt: 1, transactionId: '3DS-1', challenged: true }), { summary: '3-D Secure for attempt 1 (transaction 3DS-1): challenge', tone: 'pending' });
  t.same(describe('CheckoutPaymentDeclined', { ...d, attempt: 1, transactionId: '1', gatewayCode: 'DECLINED', attemptsLeft: 2 }), { summary: 'Attempt 1 declined: DECLINED (transaction 1), 2 left', tone: 'failed' });
  t.same(describe('CheckoutCompleted', { ...d, outcome: 'PAID', attempt: 2, transactionId: '2' }), { summary: 'Checkout paid (transaction 2): payer sent back to the merchant', tone: 'ok' });
  t.equal(describe('CheckoutCancelled', d).summary, 'Checkout cancelled by the payer');
  const paid = describe('OrderTransactionRecorded', { orderId: 'o-1', transactionId: '1', apiOperation: 'PAY', gatewayEntryPoint: 'CHECKOUT', amount: 1250, currency: 'USD', outcome: { gatewayCode: 'APPROVED', acquirerCode: '00', result: 'SUCCESS' } });
  t.equal(paid.summary, 'PAY on the payment page 12.50 USD → APPROVED (00)');
});

t.test('3-D Secure: each step in words, a challenge open amber, an authentication failed red', async (t) => {
  // The data as the order API records it (INITIATE_AUTHENTICATION, AUTHENTICATE_PAYER, the challenge page).
  const d = { merchantId: 'M', orderId: '30000000004', transactionId: '3ds-1', orderStatus: 'AUTHENTICATION_INITIATED', timeOfRecord: 'x' };
  const card = { brand: 'MASTERCARD', expiry: { month: 1, year: 39 }, fundingMethod: 'CREDIT', number: '512345xxxxxx0008', scheme: 'MASTERCARD', type: 'MASTERCARD' };
  t.same(describe('AuthenticationInitiated', { ...d, channel: 'PAYER_BROWSER', currency: 'USD', version: '3DS2', outcome: { authenticationStatus: 'AUTHENTICATION_AVAILABLE' }, source: { card } }), {
    summary: 'INITIATE_AUTHENTICATION · 512345xxxxxx0008 MASTERCARD 01/39 → AUTHENTICATION_AVAILABLE', tone: 'ok', transaction: 'order 30000000004 · transaction 3ds-1',
  });
  t.equal(describe('AuthenticationInitiated', { ...d, version: 'NONE', outcome: { authenticationStatus: 'AUTHENTICATION_NOT_SUPPORTED' }, source: { card } }).summary,
    'INITIATE_AUTHENTICATION · 512345xxxxxx0008 MASTERCARD 01/39 · no 3-D Secure for this card → AUTHENTICATION_NOT_SUPPORTED');
  const payer = { ...d, amount: 9900, currency: 'USD', redirectResponseUrl: 'https://shop.example/3ds-return', acsTransactionId: 'a', dsTransactionId: 'b' };
  const challenged = describe('PayerAuthenticationStarted', { ...payer, outcome: { authenticationStatus: 'AUTHENTICATION_PENDING', transactionStatus: 'C' } });
  t.same([challenged.summary, challenged.tone], ['AUTHENTICATE_PAYER 99.00 USD → AUTHENTICATION_PENDING (challenge)', 'pending']);
  const frictionless = describe('PayerAuthenticated', { ...payer, outcome: { authenticationStatus: 'AUTHENTICATION_SUCCESSFUL', transactionStatus: 'Y', eci: '02', authenticationToken: 'mHyn+7YFi1EUAREAAAAvNUe6Hv8=' } });
  t.same([frictionless.summary, frictionless.tone], ['AUTHENTICATE_PAYER 99.00 USD → AUTHENTICATION_SUCCESSFUL (Y, ECI 02)', 'ok']);
  t.equal(describe('PayerAuthenticated', { ...payer, outcome: { authenticationStatus: 'AUTHENTICATION_REJECTED', transactionStatus: 'R', statusReasonCode: '01' } }).tone, 'failed');
  const cancelled = describe('ChallengeAnswered', { ...d, answer: 'CANCELLED_AUTHENTICATION', outcome: { authenticationStatus: 'AUTHENTICATION_FAILED', transactionStatus: 'N', challengeCancel: '01' } });
  t.same([cancelled.summary, cancelled.tone], ['Challenge answered: CANCELLED_AUTHENTICATION → AUTHENTICATION_FAILED (N, cancelled 01)', 'failed']);
  t.equal(describe('ChallengeAnswered', { ...d, answer: 'AUTHENTICATED', byCode: true, outcome: { authenticationStatus: 'AUTHENTICATION_SUCCESSFUL', transactionStatus: 'Y', eci: '02' } }).summary,
    'Challenge answered with a code → AUTHENTICATION_SUCCESSFUL (Y, ECI 02)');
});

t.test('a payment refused on its authentication says which, and how it stood', async (t) => {
  const paid = describe('OrderTransactionRecorded', {
    orderId: '30000000004', transactionId: 'pay-1', apiOperation: 'PAY', amount: 9900, currency: 'USD',
    authentication: { transactionId: '3ds-1', version: '3DS2', liabilityShift: false, outcome: { authenticationStatus: 'AUTHENTICATION_PENDING', transactionStatus: 'C' } },
    outcome: { gatewayCode: 'AUTHENTICATION_FAILED', result: 'FAILURE' },
  });
  t.same(paid, {
    summary: 'PAY 99.00 USD → AUTHENTICATION_FAILED', tone: 'failed', rule: 'the authentication 3ds-1: AUTHENTICATION_PENDING (challenge)', transaction: 'order 30000000004 · transaction pay-1',
  });
  const decided = describe('OrderTransactionRecorded', {
    orderId: '1', transactionId: '1', apiOperation: 'PAY', amount: 100, currency: 'USD', decidedBy: "expiry 01/39 in the test acquirer's table",
    authentication: { transactionId: '3ds-1', outcome: { authenticationStatus: 'AUTHENTICATION_SUCCESSFUL', transactionStatus: 'Y' } },
    outcome: { gatewayCode: 'APPROVED', acquirerCode: '00', result: 'SUCCESS' },
  });
  t.equal(decided.rule, "expiry 01/39 in the test acquirer's table", 'the acquirer’s rule, when it decided');
});
