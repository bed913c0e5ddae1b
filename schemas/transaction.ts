// The order API (schemas/versions.ts): PUT/GET .../version/{version}/merchant/{merchantId}/order/{orderId}/transaction/{transactionId}
// and GET .../order/{orderId}. Identifiers follow the reference's rule for order.id and
// transaction.id (any characters, 1 to 40). The body is open: the fields a shop's client library
// sends beside those tokengate uses (device.browserDetails.*, order.description, ...) are accepted and
// ignored; the fields used are typed here, and amounts (strings or JSON numbers) and what each
// apiOperation requires are checked in services/order/order-api.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Alpha3, Opt, Pattern, Str, Strict, StringEnum } from './common.js';
import { MerchantIdParam, VersionParam } from './pay.js';
import { addressMembers, Email } from './token.js';

export { VersionParam };

const API_OPERATIONS = ['AUTHENTICATE_PAYER', 'AUTHORIZE', 'CAPTURE', 'INITIATE_AUTHENTICATION', 'PAY', 'REFUND', 'VERIFY', 'VOID'] as const;

/** authentication.channel: the payer's browser (the emulator's channel), a 3-D Secure SDK in an app, or the merchant alone. */
const AUTHENTICATION_CHANNELS = ['MERCHANT_REQUESTED', 'PAYER_APP', 'PAYER_BROWSER'] as const;
/** authentication.purpose: a payment by default; the others authenticate without paying. */
const AUTHENTICATION_PURPOSES = ['ADD_CARD', 'MAINTAIN_CARD', 'PAYMENT_TRANSACTION', 'REFRESH_AUTHENTICATION'] as const;
/** device.browserDetails.3DSecureChallengeWindowSize. */
const CHALLENGE_WINDOW_SIZES = ['250_X_400', '390_X_400', '500_X_600', '600_X_400', 'FULL_SCREEN'] as const;

export const ModernId = (what: string) => Str(1, 40, `${what}: any characters, 1 to 40 of them`);

export const OrderApiParams = Strict({ version: VersionParam, merchantId: MerchantIdParam, orderId: ModernId('order id') });
export const TransactionApiParams = Strict({
  version: VersionParam, merchantId: MerchantIdParam, orderId: ModernId('order id'), transactionId: ModernId('transaction id'),
});

/** The authentication.* fields a transaction request (and a session, for one) carries. */
export const authenticationFields = () => ({
  acceptVersions: Opt(Pattern(4, 9, '^3DS[12](,3DS[12])?$', '3DS1, 3DS2 or both, comma-separated')),
  channel: Opt(StringEnum(AUTHENTICATION_CHANNELS)),
  purpose: Opt(StringEnum(AUTHENTICATION_PURPOSES)),
  redirectResponseUrl: Opt(Str(1, 2048, "an http or https URL of the merchant's site")),
  transactionId: Opt(ModernId('transaction id')),
});

const Open = Type.Object;
const open = { additionalProperties: true } as const;
/** A decimal amount, as a string ("1.00") or a JSON number (1.00): its text as written is checked by the service. */
const Amount = () => Type.Unknown({ description: "a decimal number such as 100.00, as a string or a JSON number; its text as written: 1 to 14 characters 0-9 and '.'" });
/** A customer member: a string, bounded by the payments (services/order/request-billing.ts). */
const CustomerText = (what: string) => Type.Unknown({ description: what });

/** billing: the payer's address (open: other members are accepted and ignored). */
export const BillingGroup = () => Open({ address: Opt(Open(addressMembers(true, true), open)) }, open);
/** customer: the payer's details (open: other members are accepted and ignored). */
export const CustomerGroup = () => Open({
  email: Opt(Email()),
  firstName: Opt(CustomerText('a string of 1 to 50 characters')),
  lastName: Opt(CustomerText('a string of 1 to 50 characters')),
  mobilePhone: Opt(CustomerText('a telephone number: a string of any characters, 1 to 20')),
  phone: Opt(CustomerText('a telephone number: a string of any characters, 1 to 20')),
  taxRegistrationId: Opt(CustomerText('a string of 1 to 30 characters')),
}, open);

export const TransactionBody = Open({
  // The identifier of a 3-D Secure 1 Check 3DS Enrollment, which tokengate never makes: a payment
  // naming one is refused (services/order/order-api.ts).
  '3DSecureId': Opt(Type.Unknown({ description: 'the 3DSecureId of a Check 3DS Enrollment (not emulated: refused)' })),
  apiOperation: StringEnum(API_OPERATIONS),
  // 3-D Secure: Initiate Authentication's version, channel and purpose; Authenticate Payer's way
  // back; a payment's authentication (services/order/authentication-request.ts).
  authentication: Opt(Open(authenticationFields(), open)),
  // The payer's billing address: read by the outcome rules (street) and echoed by the answers and Retrieve Order.
  billing: Opt(BillingGroup()),
  correlationId: Opt(Str(1, 100)),
  // The payer's details: PAY, AUTHORIZE and VERIFY keep them and echo them (their bounds are
  // checked there; a member sent as null counts as not sent, as on every member here); the
  // 3-D Secure steps pass the email address on to the issuer and echo it.
  customer: Opt(CustomerGroup()),
  device: Opt(Open({
    browser: Opt(Str(1, 2048)),
    browserDetails: Opt(Open({ '3DSecureChallengeWindowSize': Opt(StringEnum(CHALLENGE_WINDOW_SIZES)) }, open)),
    ipAddress: Opt(Str(1, 45)),
  }, open)),
  order: Opt(Open({
    amount: Opt(Amount()), currency: Opt(Alpha3('ISO 4217 currency code')), reference: Opt(Str(1, 40)),
    // Where this order's webhook notifications go from now on; only URLs the merchants file allows (docs/notifications.md).
    notificationUrl: Opt(Str(1, 2048, 'an http or https URL the merchant\'s notification settings allow')),
  }, open)),
  session: Opt(Open({ id: Opt(Str(1, 35)), version: Opt(Str(1, 40)) }, open)),
  sourceOfFunds: Opt(Open({
    provided: Opt(Open({
      card: Opt(Open({
        expiry: Opt(Open({ month: Pattern(1, 2, '^(0?[1-9]|1[0-2])$', 'a month 1-12 (a JSON integer 1-12 is taken too, read as its digits: services/order/order-api.ts)'), year: Pattern(2, 2, '^[0-9]{2}$', 'exactly 2 digits') }, open)),
        nameOnCard: Opt(Str(1, 256)),
        number: Opt(Pattern(9, 19, '^[0-9]{9,19}$', '9 to 19 digits')),
        securityCode: Opt(Pattern(3, 4, '^[0-9]{3,4}$', '3 or 4 digits')),
      }, open)),
    }, open)),
    token: Opt(Pattern(1, 40, '^[0-9A-Za-z]+$', 'characters 0-9 a-z A-Z')),
    type: Opt(StringEnum(['CARD'] as const)),
  }, open)),
  transaction: Opt(Open({
    amount: Opt(Amount()),
    currency: Opt(Alpha3('ISO 4217 currency code')),
    reference: Opt(Str(1, 40)),
    targetTransactionId: Opt(ModernId('transaction id')),
  }, open)),
}, open);

export type OrderApiParams = Static<typeof OrderApiParams>;
export type TransactionApiParams = Static<typeof TransactionApiParams>;
export type TransactionBody = Static<typeof TransactionBody>;
