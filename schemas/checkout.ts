// Hosted Checkout: Initiate Checkout (Create Checkout Session before version 63) on POST
// .../session, and the JSON the gateway's payment page sends (routes/checkout.ts). The
// Initiate Checkout body is open, as the order API's is: the groups a shop's plugin sends beside
// those tokengate uses (device, partnerSolutionId, interaction.locale, ...) are accepted and
// ignored; the fields used are typed here (interaction.displayControl and the payer's details the
// page shows: billing.address, customer.email, shipping.address), and what each needs is checked
// in services/session/checkout-initiate.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Alpha3, Opt, Pattern, Str, StringEnum, Strict } from './common.js';
import { addressMembers, Email } from './token.js';
import { ModernId } from './transaction.js';

const open = { additionalProperties: true } as const;
const Url = (what: string) => Str(1, 2048, `an absolute http or https URL (${what})`);

/** An address as the gateway's fields type it (as the order API's billing address, without company). */
const ADDRESS = addressMembers(true, false);
/** The merchant's: a plugin's other members (company, ...) taken and not used. */
const CheckoutAddress = Type.Object(ADDRESS, open);

/** interaction.displayControl: what the payment page shows, and what the payer may edit. */
const EDITABLE = ['HIDE', 'MANDATORY', 'OPTIONAL', 'READ_ONLY'] as const;
export const DisplayControl = Type.Object({
  billingAddress: Opt(StringEnum(EDITABLE, 'the billing address: HIDE, MANDATORY, OPTIONAL or READ_ONLY')),
  customerEmail: Opt(StringEnum(EDITABLE, 'the payer\'s email address: HIDE, MANDATORY, OPTIONAL or READ_ONLY')),
  shipping: Opt(StringEnum(['HIDE', 'READ_ONLY'] as const, 'the shipping details: HIDE or READ_ONLY')),
  orderSummary: Opt(StringEnum(['HIDE', 'SHOW', 'SHOW_PARTIAL'] as const, 'the order summary: HIDE, SHOW or SHOW_PARTIAL')),
  paymentConfirmation: Opt(StringEnum(['HIDE', 'SHOW'] as const, 'a confirmation step before the payment: HIDE or SHOW')),
  paymentTerms: Opt(StringEnum(['HIDE', 'SHOW_IF_SUPPORTED'] as const, 'a payment plan\'s terms: HIDE or SHOW_IF_SUPPORTED')),
  confirmAchAccountNumber: Opt(StringEnum(['HIDE', 'SHOW'] as const, 'HIDE or SHOW')),
}, open);
export type DisplayControl = Static<typeof DisplayControl>;

export const CHECKOUT_OPERATIONS = ['INITIATE_CHECKOUT', 'CREATE_CHECKOUT_SESSION'] as const;

export const CheckoutBody = Type.Object({
  apiOperation: StringEnum(CHECKOUT_OPERATIONS),
  checkoutMode: Opt(StringEnum(['WEBSITE', 'PAYMENT_LINK'] as const)),
  correlationId: Opt(Str(1, 100)),
  interaction: Opt(Type.Object({
    operation: Opt(StringEnum(['PURCHASE', 'AUTHORIZE', 'VERIFY', 'NONE'] as const)),
    returnUrl: Opt(Url('where the payer is sent back with resultIndicator')),
    cancelUrl: Opt(Url('where the payer goes on cancelling')),
    timeoutUrl: Opt(Url('where the payer goes when the checkout times out')),
    redirectMerchantUrl: Opt(Url('where the payer goes once the attempts retryAttemptCount allows have failed')),
    timeout: Opt(Type.Integer({ minimum: 60, maximum: 86_400, description: 'seconds the payer has, 60 to 86400' })),
    retryAttemptCount: Opt(Type.Integer({ minimum: 0, maximum: 3, description: 'attempts after a declined one, 0 to 3' })),
    merchant: Opt(Type.Object({
      name: Opt(Str(1, 40, 'the name the payment page shows, 1 to 40 characters')),
      email: Opt(Str(3, 256)), phone: Opt(Str(1, 20)), logo: Opt(Url('the logo')), url: Opt(Url('the merchant\'s site')),
    }, open)),
    action: Opt(Type.Object({ '3DSecure': Opt(StringEnum(['BYPASS', 'MANDATORY'] as const)) }, open)),
    locale: Opt(Str(2, 10)),
    displayControl: Opt(DisplayControl),
    tokens: Opt(Type.Array(Pattern(1, 40, '^[0-9A-Za-z]+$', 'a token of the merchant\'s repository'), {
      minItems: 1, maxItems: 10, description: 'the stored cards the page offers the payer (before version 100), 1 to 10 tokens',
    })),
  }, open)),
  order: Opt(Type.Object({
    id: Opt(ModernId('order id')),
    amount: Opt(Type.Unknown({ description: 'a decimal number such as 100.00, as a string or a JSON number' })),
    currency: Opt(Alpha3('ISO 4217 currency code')),
    description: Opt(Str(1, 127, 'shown on the payment page, 1 to 127 characters')),
    reference: Opt(Str(1, 40)),
    notificationUrl: Opt(Str(1, 2048, 'an http or https URL the merchant\'s notification settings allow')),
  }, open)),
  billing: Opt(Type.Object({ address: Opt(CheckoutAddress) }, open)),
  customer: Opt(Type.Object({ email: Opt(Email()) }, open)),
  shipping: Opt(Type.Object({ address: Opt(CheckoutAddress) }, open)),
  paymentLink: Opt(Strict({
    expiryDateTime: Opt(Pattern(20, 30, '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$', 'an ISO 8601 date and time with its offset')),
    numberOfAllowedAttempts: Opt(Type.Integer({ minimum: 1, maximum: 25, description: 'an integer 1-25' })),
    errorUrl: Opt(Url('where the payer goes when the link cannot be used')),
  })),
  transaction: Opt(Type.Object({ reference: Opt(Str(1, 40)) }, open)),
}, open);

export type CheckoutBody = Static<typeof CheckoutBody>;

/** A checkout session's id in the payment page's paths (an unknown one is 404). */
export const CheckoutParams = Strict({ sessionId: Pattern(1, 64, '^[0-9A-Za-z]+$', 'a session id') });
export const LinkParams = Strict({ paymentLinkId: Pattern(1, 64, '^[0-9A-Za-z]+$', 'a payment link id') });

/**
 * Pay: the card the hosted fields put into the session ({}), or a stored token of the merchant's;
 * `embedded`: the page is the embedded one (a 3-D Secure challenge ends inside it); `billing` and
 * `customer`: what the payer typed where interaction.displayControl lets them.
 */
export const CheckoutPayBody = Strict({
  token: Opt(Pattern(1, 40, '^[0-9A-Za-z]+$', 'characters 0-9 a-z A-Z')),
  embedded: Opt(Type.Boolean({ description: 'true from the embedded page' })),
  billing: Opt(Strict({ address: Opt(Strict(ADDRESS)) })),
  customer: Opt(Strict({ email: Opt(Email()) })),
});
/** acs-return's query: page=entry when the challenge ran in the embedded page. */
export const AcsReturnQuery = Type.Object({ page: Opt(StringEnum(['entry'] as const)) }, open);
export type CheckoutPayBody = Static<typeof CheckoutPayBody>;

/** Cancel: nothing to say ({} or no body). */
export const CheckoutCancelBody = Strict({});
