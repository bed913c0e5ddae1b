// Create or Update Token (system-generated, POST; and with the token id in the path, PUT: Tokenize),
// on the versions of schemas/versions.ts (spec: "Create token: request body"; both take the same body).
import type { Static } from '@sinclair/typebox';
import { Alpha3, Ascii, Digits, Opt, Pattern, Str, Strict, StringEnum } from './common.js';
import { MerchantIdParam, VersionParam } from './pay.js';

export const TokenParams = Strict({ version: VersionParam, merchantId: MerchantIdParam });

/** sourceOfFunds.provided.card of a token request, and of a session (Update Session). */
export const ProvidedCard = () => Strict({
  expiry: Opt(Strict({
    month: Pattern(1, 2, '^(0?[1-9]|1[0-2])$', 'a month 1-12'),
    year: Digits(2, 2),
  })),
  nameOnCard: Opt(Str(1, 256)),
  number: Opt(Digits(9, 19)),
  securityCode: Opt(Digits(3, 4)),
});

/** Spec: {tokenid} alphanumeric 1-40; 'generated' is invalid for retrieve operations. */
export const RetrieveTokenParams = Strict({
  version: VersionParam,
  merchantId: MerchantIdParam,
  tokenid: Pattern(1, 40, '^(?!generated$)[0-9A-Za-z]+$', "characters 0-9 a-z A-Z ('generated' only asks to generate a token)"),
});

/**
 * Tokenize (PUT .../token/{tokenid}): spec {tokenid} alphanumeric 1-40; 'generated' asks a
 * repository that generates its ids for one (services/token/tokens.ts tokenize).
 */
export const TokenizeParams = Strict({
  version: VersionParam,
  merchantId: MerchantIdParam,
  tokenid: Pattern(1, 40, '^[0-9A-Za-z]+$', 'characters 0-9 a-z A-Z'),
});

// What no part of an address may hold: white space, RFC 5322's specials (but '.', which
// separates), control characters (C0, DEL and C1: no address, ASCII or internationalized
// (RFC 6532), has one) and lone surrogates (no character: UTF-8 cannot carry one). Letters beyond
// ASCII stay allowed. The patterns are compiled with the 'u' flag (Ajv's default), so the
// surrogate range matches lone halves only, never a pair.
const NOT_IN_ADDRESS = '[^\\s@"(),:;<>\\[\\]\\\\\\x00-\\x1f\\x7f-\\x9f\\ud800-\\udfff]+';
export const Email = () => Pattern(4, 256, `^${NOT_IN_ADDRESS}@${NOT_IN_ADDRESS}\\.${NOT_IN_ADDRESS}$`, 'an email address');
// ITU-T E.123 international notation: '+', a 1-3 digit country code, a space, the national
// number (single spaces allowed); at most 15 digits in total (the lookahead).
const Telephone = () => Pattern(4, 20, '^(?=(?:[^0-9]*[0-9]){1,15}[^0-9]*$)\\+[0-9]{1,3} [0-9]+( [0-9]+)*$', 'an ITU-T E.123 telephone number such as +1 2125551234, at most 15 digits');
export const PostcodeZip = () => Pattern(1, 10, '^[0-9A-Za-z -]+$', "characters 0-9 a-z A-Z ' ' '-'");
const BankAccountNumber = (min: number, max: number) => Pattern(min, max, '^[0-9A-Za-z /-]+$', "characters 0-9 a-z A-Z ' ' '-' '/'");

/** The bounds of an address's members, as the gateway's fields type them. */
const ADDRESS_MEMBER = {
  city: () => Str(1, 100),
  company: () => Str(1, 100),
  country: () => Alpha3('ISO 3166 alpha-3 country code'),
  postcodeZip: () => PostcodeZip(),
  stateProvince: () => Str(1, 20),
  stateProvinceCode: () => Pattern(1, 3, '^[0-9A-Z]{1,3}$', 'an ISO 3166-2 subdivision code: 1 to 3 upper-case letters or digits, such as NY'),
  street: () => Str(1, 100),
  street2: () => Str(1, 100),
};

/** An address's members as the gateway's fields type them (`company`, `stateProvinceCode`: where a field has them). */
export const addressMembers = (stateProvinceCode: boolean, company: boolean) => ({
  city: Opt(ADDRESS_MEMBER.city()),
  ...(company ? { company: Opt(ADDRESS_MEMBER.company()) } : {}),
  country: Opt(ADDRESS_MEMBER.country()),
  postcodeZip: Opt(ADDRESS_MEMBER.postcodeZip()),
  stateProvince: Opt(ADDRESS_MEMBER.stateProvince()),
  ...(stateProvinceCode ? { stateProvinceCode: Opt(ADDRESS_MEMBER.stateProvinceCode()) } : {}),
  street: Opt(ADDRESS_MEMBER.street()),
  street2: Opt(ADDRESS_MEMBER.street2()),
});

const Address = (stateProvinceCode: boolean, company: boolean) => Strict(addressMembers(stateProvinceCode, company));

const SOURCE_OF_FUNDS_TYPES = ['ACH', 'CARD', 'DIRECT_DEBIT_CANADA', 'WALLET'] as const;
const PROVISIONING_MODES = ['ASYNCHRONOUS', 'ATTEMPT_SYNCHRONOUS', 'SYNCHRONOUS'] as const;

export const TokenBody = Strict({
  billing: Opt(Strict({ address: Opt(Address(true, true)) })),
  correlationId: Opt(Str(1, 100)),
  customer: Opt(Strict({
    email: Opt(Email()),
    firstName: Opt(Str(1, 50)),
    lastName: Opt(Str(1, 50)),
    mobilePhone: Opt(Telephone()),
    phone: Opt(Telephone()),
    taxRegistrationId: Opt(Str(1, 30)),
  })),
  device: Opt(Strict({ ipAddress: Opt(Str(7, 45, 'an IPv4 address nnn.nnn.nnn.nnn or an IPv6 address')) })),
  posTerminal: Opt(Strict({ serialNumber: Opt(Ascii(1, 16)) })),
  referenceOrderId: Opt(Str(1, 40)),
  responseControls: Opt(Strict({ sensitiveData: Opt(Str(1, 50)) })),
  schemeTokenProvisioningMode: Opt(StringEnum(PROVISIONING_MODES)),
  session: Opt(Strict({
    id: Opt(Ascii(31, 35)),
    version: Opt(Ascii(10, 10)),
  })),
  shipping: Opt(Strict({
    address: Opt(Address(false, false)),
    contact: Opt(Strict({ firstName: Opt(Str(1, 50)), lastName: Opt(Str(1, 50)) })),
    origin: Opt(Strict({ postcodeZip: Opt(PostcodeZip()) })),
  })),
  // Optional here: a request naming a session (session.id) may take it from the session; without
  // one it is MISSING (services/token/token-sources.ts).
  sourceOfFunds: Opt(Strict({
    // Spec: with sourceOfFunds.token alone the type may be left unset (services/token/token-sources.ts).
    type: Opt(StringEnum(SOURCE_OF_FUNDS_TYPES)),
    token: Opt(Pattern(1, 40, '^[0-9A-Za-z]+$', 'characters 0-9 a-z A-Z')),
    schemeTokenProvisioningIdentifier: Opt(Ascii(1, 64)),
    provided: Opt(Strict({
      card: Opt(ProvidedCard()),
      ach: Opt(Strict({
        accountType: Opt(StringEnum(['CONSUMER_CHECKING', 'CONSUMER_SAVINGS', 'CORPORATE_CHECKING'] as const)),
        bankAccountHolder: Opt(Str(1, 28)),
        bankAccountNumber: Opt(BankAccountNumber(1, 17)),
        routingNumber: Opt(Digits(9, 9)),
        secCode: Opt(StringEnum(['PPD', 'TEL', 'WEB'] as const)),
      })),
      directDebitCanada: Opt(Strict({
        accountType: Opt(StringEnum(['CONSUMER_CHECKING', 'CONSUMER_SAVINGS'] as const)),
        bankAccountHolder: Str(1, 28),
        bankAccountNumber: BankAccountNumber(7, 12),
        financialInstitutionNumber: Digits(3, 3),
        transitNumber: Digits(5, 5),
      })),
      wallet: Opt(Strict({
        accountEmail: Opt(Email()),
        accountHolder: Opt(Str(1, 255)),
        billingAgreement: Opt(Strict({
          cardinality: StringEnum(['MULTIPLE', 'SINGLE'] as const),
          description: Opt(Str(1, 255)),
          id: Str(1, 100),
          name: Opt(Str(1, 255)),
        })),
        payerId: Opt(Str(1, 13)),
      })),
    })),
  })),
  subMerchant: Opt(Strict({ identifier: Pattern(1, 100, "^[0-9A-Za-z_ &+!$.-]+$", "characters 0-9 a-z A-Z '-' '_' ' ' '&' '+' '!' '$' '.'") })),
  transaction: Opt(Strict({ currency: Opt(Alpha3('ISO 4217 currency code')) })),
});

export type TokenParams = Static<typeof TokenParams>;
export type TokenizeParams = Static<typeof TokenizeParams>;
export type TokenBody = Static<typeof TokenBody>;
