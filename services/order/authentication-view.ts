// The 3-D Secure blocks of the gateway's answers, from recorded facts: authentication.3ds and
// .3ds2 (ECI, authentication token, transStatus and the ids), and what a payment that used an
// authentication shows of it (with the liability shift, as the MERCHANT_3D_SECURE risk rule).
import type { Brand } from '../../domain/card.js';
import type { AuthenticationOutcome, AuthenticationStatus, PaymentAuthentication } from '../../domain/events.js';
import { STATUS_ANSWERS } from '../../domain/order/authentication-state.js';
import { optional } from '../../domain/order/order.js';

/**
 * The first version whose gatewayRecommendation is PROCEED where older ones said what to proceed
 * with: PROCEED_WITH_AUTHENTICATION (Initiate Authentication, a challenge), PROCEED_WITH_PAYMENT (a
 * finished authentication). The reference's version 51 examples show the older values; Mastercard's
 * OpenCart module, on version 55 throughout, waits for PROCEED after Initiate Authentication, after
 * Authenticate Payer and in the browser's post back, as the test environment's version 57 answers say.
 */
export const PLAIN_PROCEED_FROM = 55;

/** result, response.gatewayCode and response.gatewayRecommendation of an authentication's status, in the version's words. */
export function statusAnswer(status: AuthenticationStatus, version: number) {
  const answer = STATUS_ANSWERS[status];
  if (version >= PLAIN_PROCEED_FROM || answer.gatewayRecommendation !== 'PROCEED') return answer;
  const further = status === 'AUTHENTICATION_AVAILABLE' || status === 'AUTHENTICATION_PENDING';
  return { ...answer, gatewayRecommendation: further ? 'PROCEED_WITH_AUTHENTICATION' : 'PROCEED_WITH_PAYMENT' };
}

/** The EMV 3-D Secure protocol version the emulator speaks. */
export const PROTOCOL_VERSION = '2.2.0';

/** The directory server of each scheme (authentication.3ds2.directoryServerId). */
const DIRECTORY_SERVERS: Partial<Record<Brand, string>> = {
  VISA: 'A000000003', MASTERCARD: 'A000000004', MAESTRO: 'A000000004', AMEX: 'A000000025', JCB: 'A000000065',
  DISCOVER: 'A000000152', DINERS_CLUB: 'A000000152', CHINA_UNIONPAY: 'A000000333',
};
export const directoryServerOf = (brand: Brand): string | undefined => DIRECTORY_SERVERS[brand];

/** authentication.3ds: the ECI, the authentication token and the directory server's transaction id. */
export function threeDsView(outcome: AuthenticationOutcome, dsTransactionId: string | undefined) {
  if (dsTransactionId === undefined) return undefined;
  return optional({ acsEci: outcome.eci, authenticationToken: outcome.authenticationToken, transactionId: dsTransactionId });
}

/** A payment's `authentication`: the result it used (its ids, ECI, token, transStatus). */
export function paymentAuthenticationView(a: PaymentAuthentication) {
  const { outcome } = a;
  return optional({
    '3ds': threeDsView(outcome, a.dsTransactionId),
    '3ds2': a.version === '3DS2'
      ? optional({
        dsTransactionId: a.dsTransactionId, protocolVersion: PROTOCOL_VERSION, statusReasonCode: outcome.statusReasonCode,
        transactionStatus: outcome.transactionStatus,
      })
      : undefined,
    transactionId: a.transactionId,
    version: a.version,
  });
}

/**
 * What a payment that used an authentication adds to its answer: `authentication`,
 * order.authenticationStatus and transaction.authenticationStatus (the authentication's), and the
 * liability shift as the gateway reports it, the MERCHANT_3D_SECURE rule of `risk.response.rule`.
 */
export function paymentAuthenticationFields(a: PaymentAuthentication | undefined) {
  if (!a) return undefined;
  return {
    authentication: paymentAuthenticationView(a),
    authenticationStatus: a.outcome.authenticationStatus,
    risk: {
      response: {
        rule: [{ data: a.liabilityShift ? 'LIABILITY_SHIFT' : 'NO_LIABILITY_SHIFT', name: 'MERCHANT_3D_SECURE', recommendation: 'NO_ACTION', type: 'MERCHANT_RULE' }],
      },
    },
  };
}
