// Pay with token, API version 3 (spec: "Pay with token: request body" and "Identifier rules").
import { Type, type Static } from '@sinclair/typebox';
import { Alpha3, IPV4_PATTERN, Opt, Pattern, RequestDecimal, Str, Strict, StringEnum } from './common.js';

export { VersionParam } from './versions.js';
export const MerchantIdParam = Pattern(1, 40, '^[0-9A-Za-z_-]+$', "characters 0-9 a-z A-Z '-' '_'");

export const PayParams = Strict({
  merchantid: MerchantIdParam,
  tokenid: Pattern(1, 40, '^[0-9A-Za-z]+$', 'characters 0-9 a-z A-Z'),
  // 10000000000 to 9999999999999999: 11 to 16 digits without a leading zero.
  orderid: Pattern(1, 16, '^[1-9][0-9]{10,15}$', 'an integer from 10000000000 to 9999999999999999'),
  transactionid: Str(1, 40),
});

const TRANSACTION_SOURCES = ['CALL_CENTRE', 'CARD_PRESENT', 'INTERNET', 'MAIL_ORDER', 'MOTO', 'TELEPHONE_ORDER', 'VOICE_RESPONSE'] as const;
const FREQUENCIES = ['INSTALLMENT', 'RECURRING', 'SINGLE'] as const;

export const PayBody = Strict({
  apiOperation: StringEnum(['PAY'] as const),
  action: Opt(Strict({ bypassMerchantRiskRules: Opt(StringEnum(['ALL'] as const)) })),
  billing: Opt(Strict({
    address: Opt(Strict({
      city: Opt(Str(1, 100)),
      country: Opt(Alpha3('ISO 3166 alpha-3 country code')),
      postcodeZip: Opt(Str(1, 9)),
      stateProvince: Opt(Str(1, 20)),
      street: Opt(Str(1, 100)),
    })),
    phone: Opt(Str(1, 20)),
  })),
  card: Opt(Strict({
    holder: Opt(Strict({
      firstName: Opt(Str(1, 50)),
      fullName: Opt(Str(1, 100)),
      lastName: Opt(Str(1, 50)),
      middleName: Opt(Str(1, 50)),
      title: Opt(Str(0, 20)),
    })),
    securityCode: Opt(Pattern(3, 4, '^[0-9]{3,4}$', '3 or 4 digits')),
  })),
  correlationId: Opt(Str(1, 100)),
  customer: Opt(Strict({ ipAddress: Opt(Pattern(7, 15, IPV4_PATTERN, 'an IPv4 address nnn.nnn.nnn.nnn')) })),
  order: Opt(Strict({ reference: Opt(Str(1, 40)) })),
  transaction: Strict({
    amount: RequestDecimal(),
    cashAdvance: Opt(Type.Boolean()),
    currency: Alpha3('ISO 4217 currency code'),
    frequency: Opt(StringEnum(FREQUENCIES)),
    reference: Opt(Str(1, 40)),
    source: Opt(StringEnum(TRANSACTION_SOURCES)),
    tax: Opt(Strict({
      local: Opt(Strict({
        amount: Opt(RequestDecimal()),
        exempt: Opt(Type.Boolean()),
        reference: Opt(Str(1, 20)),
      })),
    })),
  }),
});

export type PayParams = Static<typeof PayParams>;
export type PayBody = Static<typeof PayBody>;
