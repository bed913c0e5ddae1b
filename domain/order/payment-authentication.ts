// A payment (PAY, AUTHORIZE, VERIFY) that names authentication.transactionId uses that 3-D Secure
// authentication: it must be one of the order's, for the same card; the payment records its result
// (ECI, authentication token, transStatus, liability shift). An authentication that did not succeed
// stops the payment before the acquirer is asked: it is never approved.
import { InvalidRequest } from '../errors.js';
import type { PaymentAuthentication } from '../events.js';
import { authenticationSucceeded, liabilityShifted } from './authentication-state.js';
import type { Initiating } from './commands.js';
import type { OrderState } from './order-state.js';
import type { GatewayCode } from './triggers.js';

export interface UsedAuthentication {
  /** What the payment records of it. */
  record: PaymentAuthentication;
  /** The gateway's refusal when the authentication did not succeed; undefined: the payment goes on. */
  refusal: GatewayCode | undefined;
}

/** The authentication the payment names, or undefined when it names none; 400 on an unknown one or another card's. */
export function authenticationForPayment(c: Initiating, state: OrderState): UsedAuthentication | undefined {
  const id = c.authenticationTransactionId;
  if (id === undefined) return undefined;
  const field = 'authentication.transactionId';
  const authentication = state.exists ? state.modern?.authentications?.get(id) : undefined;
  if (!authentication) throw new InvalidRequest(`Value '${id}' is invalid. No authentication with this transaction id on order ${c.orderId}`, field);
  const { initiated, payer, outcome } = authentication;
  if (initiated.source.card.number !== c.source.card.number) {
    throw new InvalidRequest(`Value '${id}' is invalid. The authentication is for another card`, field);
  }
  const record: PaymentAuthentication = {
    transactionId: id, version: initiated.version, outcome, threeDSServerTransactionId: initiated.threeDSServerTransactionId,
    ...(payer ? { acsTransactionId: payer.acsTransactionId, dsTransactionId: payer.dsTransactionId } : {}),
    liabilityShift: liabilityShifted(outcome),
  };
  if (authenticationSucceeded(outcome)) return { record, refusal: undefined };
  // A card without 3-D Secure is answered as the gateway answers a payment on a card not enrolled.
  const refusal = outcome.authenticationStatus === 'AUTHENTICATION_NOT_SUPPORTED' ? 'NOT_ENROLLED_3D_SECURE' : 'AUTHENTICATION_FAILED';
  return { record, refusal };
}
