// An authentication of the order as its events leave it: the Initiate Authentication record, the
// Authenticate Payer record and the challenge's answer, and where it stands (its latest outcome).
import type {
  AuthenticationEvent, AuthenticationInitiated, AuthenticationOutcome, AuthenticationStatus, ChallengeAnswered, PayerAuthenticated,
  PayerAuthenticationStarted,
} from './authentication-events.js';

export interface Authentication {
  initiated: AuthenticationInitiated['data'];
  /** Authenticate Payer's record: a challenge started, or the ACS's answer at once. */
  payer?: PayerAuthenticationStarted['data'] | PayerAuthenticated['data'];
  /** Whether Authenticate Payer sent the payer to the challenge page. */
  challenged?: boolean;
  challenge?: ChallengeAnswered['data'];
  /** Its latest outcome, and the order's status and time after its latest step. */
  outcome: AuthenticationOutcome;
  orderStatus: string;
  lastUpdated: string;
}

/** The authentication after one of its events (`before`: as it stood; an event of an unknown one changes nothing). */
export function nextAuthentication(before: Authentication | undefined, event: AuthenticationEvent): Authentication | undefined {
  const { outcome, orderStatus, timeOfRecord: lastUpdated } = event.data;
  switch (event.type) {
    case 'AuthenticationInitiated':
      return { initiated: event.data, outcome, orderStatus, lastUpdated };
    case 'PayerAuthenticationStarted':
    case 'PayerAuthenticated':
      return before && { ...before, payer: event.data, challenged: event.type === 'PayerAuthenticationStarted', outcome, orderStatus, lastUpdated };
    case 'ChallengeAnswered':
      return before && { ...before, challenge: event.data, outcome, orderStatus, lastUpdated };
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

const SUCCEEDED: ReadonlySet<AuthenticationOutcome['authenticationStatus']> = new Set([
  'AUTHENTICATION_SUCCESSFUL', 'AUTHENTICATION_ATTEMPTED', 'AUTHENTICATION_EXEMPT',
]);

/**
 * A payment may go on with this authentication: the ACS authenticated the payer, attested an
 * attempt, or granted an exemption (transStatus Y, A, I). Anything else (failed, rejected,
 * unavailable, a challenge not answered, 3-D Secure not supported) did not succeed.
 */
export const authenticationSucceeded = (outcome: AuthenticationOutcome): boolean => SUCCEEDED.has(outcome.authenticationStatus);

/** The payer's authentication moved the chargeback liability to the issuer: a full or an attempted one. */
export const liabilityShifted = (outcome: AuthenticationOutcome): boolean =>
  outcome.transactionStatus === 'Y' || outcome.transactionStatus === 'A';

interface StatusAnswer { result: 'SUCCESS' | 'PENDING' | 'FAILURE'; gatewayCode: string; gatewayRecommendation: string }

const proceed = (gatewayCode: string): StatusAnswer => ({ result: 'SUCCESS', gatewayCode, gatewayRecommendation: 'PROCEED' });
const doNotProceed: StatusAnswer = { result: 'FAILURE', gatewayCode: 'DECLINED', gatewayRecommendation: 'DO_NOT_PROCEED' };

/** How each authentication status answers: result, response.gatewayCode, response.gatewayRecommendation. */
export const STATUS_ANSWERS: Readonly<Record<AuthenticationStatus, StatusAnswer>> = {
  AUTHENTICATION_AVAILABLE: proceed('AUTHENTICATION_IN_PROGRESS'),
  // No 3-D Secure for the card: the merchant may pay without naming the authentication.
  AUTHENTICATION_NOT_SUPPORTED: proceed('NOT_ENROLLED_3D_SECURE'),
  AUTHENTICATION_PENDING: { result: 'PENDING', gatewayCode: 'PENDING', gatewayRecommendation: 'PROCEED' },
  AUTHENTICATION_SUCCESSFUL: proceed('APPROVED'),
  AUTHENTICATION_ATTEMPTED: proceed('APPROVED'),
  AUTHENTICATION_EXEMPT: proceed('APPROVED'),
  AUTHENTICATION_FAILED: doNotProceed,
  AUTHENTICATION_REJECTED: doNotProceed,
  AUTHENTICATION_UNAVAILABLE: doNotProceed,
};
