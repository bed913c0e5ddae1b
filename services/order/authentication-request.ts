// The facts of 3-D Secure's two apiOperations from a request of the order API (with the session it
// names merged in): INITIATE_AUTHENTICATION (the card, order.currency, authentication.channel and
// purpose) and AUTHENTICATE_PAYER (order.amount, authentication.redirectResponseUrl, the device),
// each with the billing address and customer.email it sent (request-billing.ts), and the ids the 3DS server, the ACS and the directory server give the authentication.
import { randomUUID } from 'node:crypto';
import { InvalidRequest } from '../../domain/errors.js';
import type { AuthenticatePayer, AuthenticationCommand, InitiateAuthentication } from '../../domain/order/order.js';
import { checkRedirectResponseUrl } from '../../domain/order/redirect-response-url.js';
import { numberLiteral } from '../../lib/json-literals.js';
import type { MerchantProfile } from '../../merchants.js';
import type { TransactionBody } from '../../schemas/transaction.js';
import type { Gateway } from '../gateway.js';
import type { HeldSession } from '../session/session-request.js';
import { missing, requestSource } from './card-source.js';
import type { CommandFacts } from './order-service.js';
import { amountOf } from './pay-request.js';
import { requestBilling, requestCustomer } from './request-billing.js';

/** What every transaction of the order API says of itself. */
interface Base { merchantId: string; orderId: string; transactionId: string; requestFingerprint: string; acquirerMerchantId: string }

interface Request {
  gateway: Gateway; merchant: MerchantProfile; base: Base;
  /** As sent, and with the session's fields under it. */
  sent: TransactionBody; body: TransactionBody; session: HeldSession | undefined;
}

/** Where the payer's browser is sent back to: required, an http or https URL. */
function redirectResponseUrl(text: string | undefined): string {
  if (text === undefined) throw missing('authentication.redirectResponseUrl');
  return checkRedirectResponseUrl(text);
}

async function initiateFacts(r: Request): Promise<CommandFacts<InitiateAuthentication>> {
  const { body } = r;
  const currency = body.order?.currency;
  if (currency === undefined) throw missing('order.currency');
  const source = await requestSource(r.gateway, r.merchant, r.sent, body, r.session);
  if (!source) {
    if (r.session) throw new InvalidRequest(`Value '${r.session.sessionId}' is invalid. The session holds no card: update it with the card first`, 'session.id');
    throw missing('sourceOfFunds.token');
  }
  const channel = body.authentication?.channel;
  if (channel === undefined) throw missing('authentication.channel');
  const billing = requestBilling(body);
  const customer = requestCustomer(body);
  return {
    type: 'INITIATE_AUTHENTICATION', ...r.base, currency, source, channel,
    purpose: body.authentication?.purpose ?? 'PAYMENT_TRANSACTION',
    acceptVersions: body.authentication?.acceptVersions, orderReference: body.order?.reference,
    transactionReference: body.transaction?.reference, threeDSServerTransactionId: randomUUID(),
    ...(billing ? { billing } : {}),
    ...(customer ? { customer } : {}),
  };
}

async function authenticatePayerFacts(r: Request): Promise<CommandFacts<AuthenticatePayer>> {
  // (order.notificationUrl is refused with the request's metadata: routes/transactions.ts transactionMeta.)
  const { body, sent } = r;
  const currency = body.order?.currency;
  if (currency === undefined) throw missing('order.currency');
  const amount = amountOf(body.order?.amount, currency, 'order.amount', numberLiteral(sent.order, 'amount'));
  const url = redirectResponseUrl(body.authentication?.redirectResponseUrl);
  const billing = requestBilling(body);
  const customer = requestCustomer(body);
  const device = body.device;
  const windowSize = device?.browserDetails?.['3DSecureChallengeWindowSize'];
  const deviceFacts = {
    ...(device?.browser !== undefined ? { browser: device.browser } : {}),
    ...(device?.ipAddress !== undefined ? { ipAddress: device.ipAddress } : {}),
    ...(windowSize !== undefined ? { challengeWindowSize: windowSize } : {}),
  };
  return {
    type: 'AUTHENTICATE_PAYER', ...r.base, amount, currency, redirectResponseUrl: url,
    source: await requestSource(r.gateway, r.merchant, sent, body, r.session),
    acsTransactionId: randomUUID(), dsTransactionId: randomUUID(),
    ...(Object.keys(deviceFacts).length > 0 ? { device: deviceFacts } : {}),
    ...(billing ? { billing } : {}),
    ...(customer ? { customer } : {}),
    transactionReference: body.transaction?.reference,
  };
}

/** The command of INITIATE_AUTHENTICATION or AUTHENTICATE_PAYER. */
export async function authenticationFacts(
  type: AuthenticationCommand['type'], gateway: Gateway, merchant: MerchantProfile, base: Base,
  sent: TransactionBody, body: TransactionBody, session: HeldSession | undefined,
): Promise<CommandFacts<AuthenticationCommand>> {
  const request: Request = { gateway, merchant, base, sent, body, session };
  return type === 'INITIATE_AUTHENTICATION' ? initiateFacts(request) : authenticatePayerFacts(request);
}
