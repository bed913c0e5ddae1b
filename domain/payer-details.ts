// What a Hosted Checkout payment carries about the payer beside the card: the billing address and
// email address (the merchant's from Initiate Checkout, or what the payer typed on the payment page
// where interaction.displayControl let them) and the merchant's shipping address; on a merchant's
// own PAY, AUTHORIZE or VERIFY, the billing address and the customer's details it sent. Recorded
// on the payment's transaction, shown by its answer, Retrieve Order and Retrieve Transaction in the
// API's own shape (and by the answers of the order's later transactions: the order's).

export interface PayerAddress {
  company?: string;
  stateProvinceCode?: string;
  street?: string;
  street2?: string;
  city?: string;
  stateProvince?: string;
  postcodeZip?: string;
  country?: string;
}

/**
 * The members `names` of an address as sent, those that are strings, each as `clean` keeps it
 * (undefined: left out); undefined when none is left.
 */
export function addressFrom(
  sent: Partial<Record<string, unknown>> | undefined, names: readonly (keyof PayerAddress)[], clean: (value: string) => string | undefined = (value) => value,
): PayerAddress | undefined {
  if (!sent) return undefined;
  const address: PayerAddress = {};
  for (const name of names) {
    const value = sent[name];
    const kept = typeof value === 'string' ? clean(value) : undefined;
    if (kept !== undefined) address[name] = kept;
  }
  return Object.keys(address).length > 0 ? address : undefined;
}

/** customer.* as sent: the payer's email address, name, telephone numbers and tax registration id. */
export interface PayerCustomer {
  email?: string;
  firstName?: string;
  lastName?: string;
  mobilePhone?: string;
  phone?: string;
  taxRegistrationId?: string;
}

export interface PayerDetails {
  billing?: { address: PayerAddress };
  customer?: PayerCustomer;
  shipping?: { address: PayerAddress };
}

/** interaction.displayControl as the checkout keeps it (members absent: the page's defaults). */
export interface CheckoutDisplay {
  billingAddress?: 'HIDE' | 'MANDATORY' | 'OPTIONAL' | 'READ_ONLY';
  customerEmail?: 'HIDE' | 'MANDATORY' | 'OPTIONAL' | 'READ_ONLY';
  shipping?: 'HIDE' | 'READ_ONLY';
  orderSummary?: 'HIDE' | 'SHOW' | 'SHOW_PARTIAL';
  paymentConfirmation?: 'HIDE' | 'SHOW';
  paymentTerms?: 'HIDE' | 'SHOW_IF_SUPPORTED';
}
