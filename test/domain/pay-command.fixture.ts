// A version 3 Pay with token command as the service builds it, for the order decider's tests.
import type { PayWithToken } from '../../domain/order/order.js';

export const NOW = '2026-11-21T12:00:00.000Z';

/** The masked card of a token, expiring `month`/`year`. */
export const card = (month: number, year: number) =>
  ({ number: '512345xxxxxx0008', brand: 'MASTERCARD' as const, scheme: 'MASTERCARD' as const, fundingMethod: 'CREDIT' as const, expiry: { month, year } });

/** A pay of 10.00 USD on order 10000000001 with the card expiring 01/39, `overrides` applied. */
export const pay = (overrides: Partial<PayWithToken> = {}): PayWithToken => ({
  type: 'PayWithToken', merchantId: 'M', orderId: '10000000001', transactionId: 'tx-1', requestFingerprint: 'fp-1',
  repositoryId: 'R', token: '9123456789012348', card: card(1, 39),
  amount: 1000, currency: 'USD', securityCode: undefined, billingStreet: undefined, orderReference: undefined,
  transactionReference: undefined, source: undefined, frequency: undefined, cashAdvance: undefined, taxLocal: undefined,
  acquirerMerchantId: 'M', attemptId: 'a-1',
  ids: { authorizationCode: '123456', receipt: '100000000001', stan: '000001', acquirerTransactionId: 'ATX', batch: 20261121 },
  now: NOW,
  ...overrides,
});
