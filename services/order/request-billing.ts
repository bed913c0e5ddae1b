// The billing address a transaction of the order API sent (or the session it names held), as its
// answers, Retrieve Transaction and Retrieve Order echo it: the payments (PAY, AUTHORIZE, VERIFY)
// and the 3-D Secure steps (INITIATE_AUTHENTICATION, AUTHENTICATE_PAYER), where the gateway passes
// the payer's billing details on to the issuer with the authentication request; on those steps the
// payer's email address (customer.email) too, which EMV 3-D Secure carries to the issuer as well.
import { addressFrom, type PayerDetails } from '../../domain/payer-details.js';
import type { TransactionBody } from '../../schemas/transaction.js';
import { checkCountry } from './pay-request.js';

const ADDRESS_MEMBERS = ['city', 'company', 'country', 'postcodeZip', 'stateProvince', 'stateProvinceCode', 'street', 'street2'] as const;

/** billing of the request: its country checked (400 on billing.address.country), the typed members kept; undefined for none. */
export function requestBilling(body: TransactionBody): PayerDetails['billing'] {
  checkCountry(body);
  const address = addressFrom(body.billing?.address, ADDRESS_MEMBERS);
  return address ? { address } : undefined;
}

/** customer.email of a 3-D Secure step (bounded by the schema); undefined for none. */
export function requestCustomer(body: TransactionBody): PayerDetails['customer'] {
  const email = body.customer?.email;
  return email === undefined ? undefined : { email };
}
