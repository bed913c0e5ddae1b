// The payer's details on a Hosted Checkout (interaction.displayControl): what Initiate Checkout
// sent (billing.address, customer.email, shipping.address) and how the page shows it, then what a
// payment carries. HIDE: not shown, the merchant's value (if any) goes on the payment; READ_ONLY:
// shown, not editable, the merchant's value goes on; OPTIONAL: shown (filled with the merchant's),
// the payer's value goes on, none if the payer cleared it; MANDATORY: the same, and the payment is
// refused until the payer gave it (billing address: street, city and country). Absent: HIDE.
import { isCountryAlpha3 } from '../../domain/countries.js';
import { InvalidRequest } from '../../domain/errors.js';
import { addressFrom, type CheckoutDisplay, type PayerAddress, type PayerDetails } from '../../domain/payer-details.js';
import type { CheckoutInitiated } from '../../domain/session/checkout-events.js';
import type { CheckoutBody, CheckoutPayBody } from '../../schemas/checkout.js';

const ADDRESS_FIELDS = ['street', 'street2', 'city', 'stateProvince', 'stateProvinceCode', 'postcodeZip', 'country'] as const;
/** What a MANDATORY billing address needs (a postcode and a state are not every country's). */
const REQUIRED_ADDRESS = ['street', 'city', 'country'] as const;
const DISPLAY_FIELDS = ['billingAddress', 'customerEmail', 'shipping', 'orderSummary', 'paymentConfirmation', 'paymentTerms'] as const;

/** The address's typed members, blanks left out; a country that is no ISO 3166 code is refused on `field`. */
function addressOf(sent: Partial<Record<string, unknown>> | undefined, field: string): PayerAddress | undefined {
  const address = addressFrom(sent, ADDRESS_FIELDS, (value) => value.trim() || undefined);
  if (address?.country !== undefined && !isCountryAlpha3(address.country)) {
    throw new InvalidRequest(`Value '${address.country}' is invalid. Expected an ISO 3166-1 alpha-3 country code`, `${field}.country`);
  }
  return address;
}

function detailsOf(billing: PayerAddress | undefined, email: string | undefined, shipping: PayerAddress | undefined): PayerDetails | undefined {
  const details: PayerDetails = {
    ...(billing ? { billing: { address: billing } } : {}),
    ...(email ? { customer: { email } } : {}),
    ...(shipping ? { shipping: { address: shipping } } : {}),
  };
  return Object.keys(details).length > 0 ? details : undefined;
}

/** Initiate Checkout: interaction.displayControl and the merchant's details of the payer, as the checkout keeps them. */
export function checkoutDetails(body: CheckoutBody): Pick<CheckoutInitiated['data'], 'display' | 'details'> {
  const sent = body.interaction?.displayControl ?? {};
  const display = Object.fromEntries(DISPLAY_FIELDS.filter((f) => sent[f] !== undefined).map((f) => [f, sent[f]])) as CheckoutDisplay;
  const details = detailsOf(
    addressOf(body.billing?.address, 'billing.address'), body.customer?.email, addressOf(body.shipping?.address, 'shipping.address'),
  );
  return { ...(Object.keys(display).length > 0 ? { display } : {}), ...(details ? { details } : {}) };
}

type Editable = NonNullable<CheckoutDisplay['billingAddress']>;
const editable = (mode: Editable | undefined) => mode === 'MANDATORY' || mode === 'OPTIONAL';

function billingFor(mode: Editable | undefined, merchant: PayerAddress | undefined, typed: PayerAddress | undefined): PayerAddress | undefined {
  if (!editable(mode)) return merchant;
  if (mode === 'MANDATORY') {
    for (const name of REQUIRED_ADDRESS) {
      if (typed?.[name] === undefined) throw new InvalidRequest(`Missing parameter 'billing.address.${name}': the merchant requires the billing address`, `billing.address.${name}`, 'MISSING');
    }
  }
  return typed;
}

function emailFor(mode: Editable | undefined, merchant: string | undefined, typed: string | undefined): string | undefined {
  if (!editable(mode)) return merchant;
  if (mode === 'MANDATORY' && typed === undefined) throw new InvalidRequest('Missing parameter \'customer.email\': the merchant requires the email address', 'customer.email', 'MISSING');
  return typed;
}

/** A payment's details: the payer's where the page let them edit (MANDATORY ones required), else the merchant's. */
export function paymentDetails(checkout: CheckoutInitiated['data'], sent: Pick<CheckoutPayBody, 'billing' | 'customer'>): PayerDetails | undefined {
  const display = checkout.display ?? {};
  const merchant = checkout.details ?? {};
  const typedEmail = sent.customer?.email?.trim();
  const billing = billingFor(display.billingAddress, merchant.billing?.address, addressOf(sent.billing?.address, 'billing.address'));
  const email = emailFor(display.customerEmail, merchant.customer?.email, typedEmail === '' ? undefined : typedEmail);
  return detailsOf(billing, email, merchant.shipping?.address);
}

/** What the page shows of the details: each by its display mode (HIDE, or absent: nothing). */
export function shownDetails(checkout: CheckoutInitiated['data']) {
  const display = checkout.display ?? {};
  const merchant = checkout.details ?? {};
  const shown = (mode: string | undefined) => mode !== undefined && mode !== 'HIDE';
  return {
    ...(shown(display.billingAddress) ? { billingAddress: { mode: display.billingAddress!, value: merchant.billing?.address ?? {} } } : {}),
    ...(shown(display.customerEmail) ? { customerEmail: { mode: display.customerEmail!, ...(merchant.customer ? { value: merchant.customer.email } : {}) } } : {}),
    ...(display.shipping !== 'HIDE' && merchant.shipping ? { shipping: merchant.shipping.address } : {}),
    orderSummary: display.orderSummary ?? 'SHOW',
    paymentConfirmation: display.paymentConfirmation ?? 'HIDE',
  };
}
