// Create Session and Update Session, API version 100 (the real gateway's session operations, so
// that session.id and session.version of Create or Update Token mean something).
import { Type, type Static } from '@sinclair/typebox';
import { Alpha3, Ascii, Opt, Pattern, Str, Strict, StringEnum } from './common.js';
import { ProvidedCard } from './token.js';
import { MerchantIdParam, VersionParam } from './pay.js';
import { authenticationFields, BillingGroup, CustomerGroup, ModernId } from './transaction.js';


/** A member the order API takes with any value and ignores: taken and ignored here as there. */
const Ignored = (what: string) => Type.Unknown({ description: `${what}: taken and not used` });

export const SessionParams = Strict({ version: VersionParam, merchantId: MerchantIdParam });
export const SessionIdParams = Strict({ version: VersionParam, merchantId: MerchantIdParam, sessionId: Ascii(31, 35) });

export const CreateSessionBody = Strict({
  correlationId: Opt(Str(1, 100)),
  session: Opt(Strict({ authenticationLimit: Opt(Type.Integer({ minimum: 1, maximum: 25, description: 'an integer 1-25' })) })),
});

/** Update Session: the card fields a later token request may take from the session. */
export const SessionBody = Strict({
  /** Update Session with Payer Data: what the mobile SDKs send before version 50, with no credentials (plugins/session-auth.ts). */
  apiOperation: Opt(StringEnum(['UPDATE_PAYER_DATA'] as const)),
  /** Held for a later Initiate Authentication, Authenticate Payer or payment that names the session (services/session/session-request.ts). */
  authentication: Opt(Strict(authenticationFields())),
  correlationId: Opt(Str(1, 100)),
  /** The payer's device, as the mobile SDKs name themselves in device.browser: accepted, not held. */
  device: Opt(Strict({ browser: Opt(Str(1, 2048)), ipAddress: Opt(Str(1, 45)) })),
  /**
   * amount and currency: held for a later PAY or AUTHORIZE that names the session and no
   * order.amount (the amount: a string or a JSON number). The order's other details a shop sends
   * here (the reference's Update Session takes them) are checked as the order API checks them, not
   * held; its line items and amounts, which the order API takes and ignores (its order group is
   * open), are taken and ignored here too: WooCommerce's module sends them with send_line_items on.
   */
  order: Opt(Strict({
    amount: Opt(Type.Unknown({ description: 'a decimal number such as 100.00, as a string or a JSON number' })),
    currency: Opt(Alpha3('ISO 4217 currency code')),
    description: Opt(Str(1, 127)),
    discount: Opt(Ignored('the order\'s discount (amount, ...)')),
    id: Opt(ModernId('order id')),
    item: Opt(Type.Array(Ignored('a line item (name, unitPrice, quantity, sku, ...)'), { description: 'the order\'s line items' })),
    itemAmount: Opt(Ignored('the items\' total')),
    notificationUrl: Opt(Str(1, 2048, 'an http or https URL the merchant\'s notification settings allow')),
    reference: Opt(Str(1, 40)),
    shippingAndHandlingAmount: Opt(Ignored('the shipping and handling charge')),
    taxAmount: Opt(Ignored('the tax')),
  })),
  /** The payer's details and the shop software's id, as a shop's plugin sends them beside the card: checked as a payment checks them, not held (the payment sends its own). */
  billing: Opt(BillingGroup()),
  customer: Opt(CustomerGroup()),
  partnerSolutionId: Opt(Str(1, 40)),
  shipping: Opt(Type.Object({}, { additionalProperties: true })),
  sourceOfFunds: Opt(Strict({
    type: Opt(StringEnum(['CARD'] as const)),
    /** A token of the merchant's repository, for a later PAY or AUTHORIZE that names the session. */
    token: Opt(Pattern(1, 40, '^[0-9A-Za-z]+$', 'characters 0-9 a-z A-Z')),
    provided: Opt(Strict({
      card: Opt(ProvidedCard()),
    })),
  })),
});

export type CreateSessionBody = Static<typeof CreateSessionBody>;
export type SessionBody = Static<typeof SessionBody>;
