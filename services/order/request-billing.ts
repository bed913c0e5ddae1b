// The payer's details a transaction of the order API sent (or the session it names held), as its
// answers, Retrieve Transaction and Retrieve Order echo them: the payments (PAY, AUTHORIZE, VERIFY)
// their billing address and customer details (customer.*, each as sent: the gateway keeps them
// with the transaction, and real clients send telephone numbers in local notation, such as
// ActiveMerchant's "(555)555-5555"); the 3-D Secure steps (INITIATE_AUTHENTICATION,
// AUTHENTICATE_PAYER), where the gateway passes the payer's billing details on to the issuer with
// the authentication request, the billing address and the payer's email address (customer.email),
// which EMV 3-D Secure carries to the issuer as well.
import { addressFrom, type PayerCustomer, type PayerDetails } from '../../domain/payer-details.js';
import { InvalidRequest } from '../../domain/errors.js';
import type { TransactionBody } from '../../schemas/transaction.js';
import { maskCardNumbersInGroups } from '../../lib/mask.js';
import { checkCountry } from './pay-request.js';

const ADDRESS_MEMBERS = ['city', 'company', 'country', 'postcodeZip', 'stateProvince', 'stateProvinceCode', 'street', 'street2'] as const;

/**
 * The longest value of each customer member a payment keeps: the reference's request bounds of
 * the names and the tax id, and of the telephone numbers the bound its answers give them (any
 * characters, 1 to 20), as the gateway took a local "(555)555-5555".
 */
export const CUSTOMER_MEMBERS = { firstName: 50, lastName: 50, mobilePhone: 20, phone: 20, taxRegistrationId: 30 } as const;

/** billing of the request: its country checked (400 on billing.address.country), the typed members kept; undefined for none. */
export function requestBilling(body: Pick<TransactionBody, 'billing'>): PayerDetails['billing'] {
  checkCountry(body);
  const address = addressFrom(body.billing?.address, ADDRESS_MEMBERS);
  return address ? { address } : undefined;
}

/** A customer member as sent: a string of 1 to `max` characters, else 400 on it (one sent as null never gets here: plugins/request-values.ts). */
function customerMember(sent: unknown, name: keyof typeof CUSTOMER_MEMBERS): string | undefined {
  if (sent === undefined) return undefined;
  const field = `customer.${name}`;
  if (typeof sent !== 'string') throw new InvalidRequest('Value is invalid. Expected a string', field);
  const max = CUSTOMER_MEMBERS[name];
  const length = [...sent].length;
  if (length === 0) throw new InvalidRequest(`Value '' is invalid. Length is 0 characters, but must be at least 1`, field);
  if (length > max) throw new InvalidRequest(`Value is invalid. Length is ${length} characters, but must be less than ${max + 1}`, field);
  // A telephone number in international notation escapes the card-number refusal (request-values.ts):
  // one of 12 to 15 digits passing Luhn may be a card number (an American Express one has 15), or
  // hold one after its country code, so it is kept, and echoed, masked as the gateway masks card numbers.
  return name === 'phone' || name === 'mobilePhone' ? maskCardNumbersInGroups(sent) : sent;
}

/**
 * customer of the request (customer.email bounded by the schema): on a 3-D Secure step the email
 * address alone (`emailOnly`), on a payment every member above too; undefined for none.
 */
export function requestCustomer(body: Pick<TransactionBody, 'customer'>, emailOnly = true): PayerCustomer | undefined {
  const sent = body.customer;
  const customer: PayerCustomer = {};
  if (sent?.email !== undefined) customer.email = sent.email;
  if (!emailOnly && sent) {
    for (const name of Object.keys(CUSTOMER_MEMBERS) as Array<keyof typeof CUSTOMER_MEMBERS>) {
      const value = customerMember(sent[name], name);
      if (value !== undefined) customer[name] = value;
    }
  }
  return Object.keys(customer).length > 0 ? customer : undefined;
}
